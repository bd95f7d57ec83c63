/**
 * Metric specs looked up by W&B key, under the profile the records were read with: a key can mean
 * different things in two frameworks (`train/grad_norm` is slime's per-update norm and TRL's last
 * step's), so every lookup but a label's names its profile.
 */
import type { FrameworkProfile } from "./framework-profile";
import { profileMetrics } from "./framework-profile";
import type { KeyAlias, MetricGrain, MetricSpec } from "./metric-spec";
import { PROFILES } from "./profiles";

/** The profile's spec of a key (or of an older alias of it); undefined when the profile does not describe it. */
export function metricByKey(profile: FrameworkProfile, key: string): MetricSpec | undefined {
  for (const spec of profileMetrics(profile)) {
    if (spec.key === key) return spec;
    if (spec.aliases?.some((a) => a.key === key)) return spec;
  }
  return undefined;
}

/** Every key that stands for `key` in some version of the framework, the current key first. */
export function keysFor(profile: FrameworkProfile, key: string): string[] {
  const out = [key];
  const spec = metricByKey(profile, key);
  if (spec?.key === key) for (const a of spec.aliases ?? []) out.push(a.key);
  const renamed = profile.keyAliases[key];
  if (renamed && !out.includes(renamed.key)) out.push(renamed.key);
  return out;
}

/** The alias entry of an old key (e.g. slime's train/train_rollout_logprob_diff), or undefined. */
export function aliasOf(profile: FrameworkProfile, oldKey: string): { current: string; alias: KeyAlias } | undefined {
  for (const spec of profileMetrics(profile)) {
    const a = spec.aliases?.find((x) => x.key === oldKey);
    if (a) return { current: spec.key, alias: a };
  }
  for (const [current, alias] of Object.entries(profile.keyAliases)) if (alias.key === oldKey) return { current, alias };
  return undefined;
}

/** What a per-round mean of a key is taken over: its spec's grain, else its key family's; undefined when neither says. */
export function grainOf(profile: FrameworkProfile, key: string): MetricGrain | undefined {
  return metricByKey(profile, key)?.grain ?? profile.keyFamilies.find((f) => key.startsWith(f.prefix))?.grain;
}

/**
 * Label and unit of a key for axes and legends: a concept's (the same in every framework that maps the
 * key to it) or a described metric's, from the first profile that has the key; else the key, no unit.
 */
export function describeKey(key: string): { label: string; unit: string } {
  for (const p of PROFILES) {
    const spec = metricByKey(p, key);
    if (spec) return { label: spec.label, unit: spec.unit };
  }
  return { label: key, unit: "" };
}
