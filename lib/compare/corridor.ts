/**
 * The corridor against a reference value (as in miles' metric-history gate): band = max(rel x |ref|,
 * abs_floor); a value is outside when it differs from the reference by more than the band.
 */
import type { CorridorDefaults } from "../registry/concepts";

/**
 * The corridor's half-width around a reference value.
 * @example corridorBand(0.04, { rel: 0.5, absFloor: 0.02 }) // 0.02
 */
export function corridorBand(ref: number, settings: CorridorDefaults): number {
  if (!(settings.rel >= 0) || !(settings.absFloor >= 0)) throw new Error(`invalid corridor: rel ${settings.rel}, abs_floor ${settings.absFloor} (both >= 0)`);
  return Math.max(settings.rel * Math.abs(ref), settings.absFloor);
}

/** True when |value - ref| > band; a non-finite value or reference is outside. */
export function isOutside(value: number, ref: number, band: number): boolean {
  return !(Math.abs(value - ref) <= band);
}
