/** The reasons a check gives when it cannot say anything on a set of runs. */

/** E.g. `no optimizer update logs train/ppo_kl (the framework or this run does not log it)`. */
export function notLoggedReason(record: string, key: string): string {
  return `no ${record} logs ${key} (the framework or these runs do not log it)`;
}
