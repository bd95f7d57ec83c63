/**
 * Python `repr` of the values slime prints in its log lines (`logger.info(f"step {i}: {log_dict}")`).
 * A Python float repr is the shortest string that round-trips, like JS `String(x)`, but formatted
 * differently: `1e-05` not `1e-5`/`0.00001`, `1.0` not `1`, `nan`/`inf` not `NaN`/`Infinity`.
 */

/** How a value was typed on the Python side, which decides how its repr looks. */
export type PyValueKind = "int" | "float" | "np.float64";

/** Shortest round-trip decimal digits and decimal exponent of a finite non-zero |x| (from JS String). */
function shortestDigits(x: number): { digits: string; exp: number } {
  const s = String(Math.abs(x));
  const em = /^(\d+)(?:\.(\d+))?e([+-]\d+)$/.exec(s);
  let digits: string;
  let exp: number;
  if (em) {
    digits = em[1] + (em[2] ?? "");
    exp = Number(em[3]) + em[1].length - 1;
  } else {
    const [intPart, fracPart = ""] = s.split(".");
    if (intPart !== "0") {
      digits = intPart + fracPart;
      exp = intPart.length - 1;
    } else {
      const lead = /^0*/.exec(fracPart)![0].length;
      digits = fracPart.slice(lead);
      exp = -lead - 1;
    }
  }
  digits = digits.replace(/^0+/, "").replace(/0+$/, "");
  return { digits: digits === "" ? "0" : digits, exp };
}

/** Python `repr(float(x))` (CPython 'r' format: scientific when exponent < -4 or >= 16). */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return "nan";
  if (x === Infinity) return "inf";
  if (x === -Infinity) return "-inf";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const sign = x < 0 ? "-" : "";
  const { digits, exp } = shortestDigits(x);
  if (exp < -4 || exp >= 16) {
    const mantissa = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const e = `${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
    return `${sign}${mantissa}e${e}`;
  }
  if (exp < 0) return `${sign}0.${"0".repeat(-exp - 1)}${digits}`;
  const intPart = digits.slice(0, exp + 1).padEnd(exp + 1, "0");
  const fracPart = digits.slice(exp + 1);
  return `${sign}${intPart}.${fracPart === "" ? "0" : fracPart}`;
}

/** Python repr of one logged value of the given kind. */
export function pyValueRepr(value: number, kind: PyValueKind): string {
  if (kind === "int") {
    if (!Number.isSafeInteger(value)) throw new Error(`invalid int value: ${value}`);
    return String(value);
  }
  if (kind === "np.float64") return `np.float64(${pyFloatRepr(value)})`;
  return pyFloatRepr(value);
}

/** Python repr of a str key (the keys slime logs need no escaping beyond quotes and backslashes). */
export function pyStrRepr(text: string): string {
  if (text.includes("'") && !text.includes('"')) return `"${text}"`;
  return `'${text.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
}

/** Python repr of a dict with str keys, in insertion order: `{'a': 1, 'b': 0.5}`. */
export function pyDictRepr(entries: readonly { key: string; value: number; kind: PyValueKind }[]): string {
  return `{${entries.map((e) => `${pyStrRepr(e.key)}: ${pyValueRepr(e.value, e.kind)}`).join(", ")}}`;
}
