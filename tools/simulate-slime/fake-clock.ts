/**
 * A settable wall clock for the logging phase. @wandb/sdk stamps every history row with
 * `_timestamp = Date.now() / 1000` and `_runtime = (Date.now() - start) / 1000`, overwriting any
 * `_timestamp`/`_runtime` in the logged dict, and the test server stamps `createdAt`/`heartbeatAt`
 * with `new Date()`. Replacing `Date.now` and the no-argument `Date` constructor while the runs are
 * logged makes all of these simulated, hence reproducible. Timers (setTimeout) are untouched.
 */

/** A fake clock installed over the global `Date`. */
export interface FakeClock {
  /** Sets the current time (epoch ms). */
  set(ms: number): void;
  /** Current fake time (epoch ms). */
  now(): number;
  /** Puts the real `Date` back. */
  restore(): void;
}

/** Installs the fake clock at `startMs`; call `restore()` in a finally block. */
export function installFakeClock(startMs: number): FakeClock {
  const RealDate = Date;
  let current = startMs;
  class FakeDate extends RealDate {
    constructor(...args: unknown[]) {
      if (args.length === 0) super(current);
      else super(...(args as [string | number | Date]));
    }
    static now(): number {
      return current;
    }
  }
  // `Date()` called as a function returns a string; keep that behaviour on the fake time.
  const FakeDateCallable = new Proxy(FakeDate, {
    apply: () => new RealDate(current).toString(),
  });
  (globalThis as { Date: DateConstructor }).Date = FakeDateCallable as unknown as DateConstructor;
  return {
    set(ms: number) {
      if (!Number.isFinite(ms)) throw new Error(`invalid fake time: ${ms}`);
      current = ms;
    },
    now: () => current,
    restore() {
      (globalThis as { Date: DateConstructor }).Date = RealDate;
    },
  };
}
