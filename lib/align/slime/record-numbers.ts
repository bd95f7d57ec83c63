/** Numbers as slime records store them. Internal to lib/align/slime. */

/**
 * An integer as V8 stores it unboxed (axis numbers come from Float64Arrays: a double in a record field
 * is a 16-byte heap number of its own, 30% of a compact update record). Non-integers pass unchanged.
 */
export function int(x: number): number {
  return (x | 0) === x ? x | 0 : x;
}

/** A row's `_step` as a record field (an unboxed integer, see int). */
export function historyStepOf(historySteps: Float64Array, i: number): number {
  return int(historySteps[i]);
}
