/**
 * The metric registry: the concepts every framework's profile maps its keys to, with what a concept
 * is in words any framework shares. A framework's profile (lib/registry/profile-*.ts) says which key
 * stands for a concept, over which records, and what that key is and is not in that framework; a
 * concept the framework does not log maps to a reason, never to a look-alike key.
 */

/** The concepts of the round tables, figures and summary.csv. */
export type ConceptId =
  | "entropy"
  | "clipfrac"
  | "gradNorm"
  | "ppoKl"
  | "klToRef"
  | "logprobGap"
  | "responseLen"
  | "responseLenMin"
  | "responseLenMax"
  | "truncated"
  | "rolloutTime"
  | "actorTokPerS"
  | "stepTime"
  | "reward"
  | "tokensSeen"
  | "zeroStdFrac"
  | "advantageMax"
  | "advantageMin";

/**
 * Which way is better when two runs differ: "higher", "lower", or "neither" (a diagnostic whose
 * difference is shown, never called an improvement: entropy, gradient norm, KL).
 */
export type ConceptDirection = "higher" | "lower" | "neither";

/** Default corridor around a reference value: band = max(rel x |ref|, absFloor) (lib/compare/corridor.ts). */
export interface CorridorDefaults {
  rel: number;
  absFloor: number;
}

/** One concept: label, unit and the framework-neutral meaning. */
export interface Concept {
  id: ConceptId;
  label: string;
  unit: string;
  /** What the concept is, whichever framework logs it. */
  is: string;
  /** Which way is better between two runs (lib/compare/). */
  direction: ConceptDirection;
  /** Default corridor against a reference run: starting points to override, not validated thresholds. */
  corridor: CorridorDefaults;
  /** A reading rule that holds for every framework, shown with comparisons; absent when none. */
  compareRule?: string;
}

const c = (x: Concept): Concept => x;
const band = (rel: number, absFloor: number): CorridorDefaults => ({ rel, absFloor });

/** Every concept, by id (exhaustive: adding a ConceptId without an entry does not compile). */
export const CONCEPTS: Readonly<Record<ConceptId, Concept>> = {
  entropy: c({
    id: "entropy",
    label: "entropy",
    unit: "nats/token",
    is: "mean token entropy of the policy on the training batch",
    direction: "neither",
    corridor: band(0.2, 0.02),
  }),
  clipfrac: c({
    id: "clipfrac",
    label: "clip fraction",
    unit: "fraction of tokens",
    is: "fraction of tokens where the clipped PPO surrogate is active",
    direction: "neither",
    corridor: band(0.5, 0.005),
  }),
  gradNorm: c({
    id: "gradNorm",
    label: "gradient norm",
    unit: "L2 norm",
    is: "gradient norm of an optimizer step, before clipping",
    direction: "neither",
    corridor: band(0.5, 0.1),
  }),
  ppoKl: c({
    id: "ppoKl",
    label: "ppo_kl",
    unit: "nats/token",
    is: "mean old_logp - new_logp: the policy-ratio log of the PPO update",
    direction: "neither",
    corridor: band(0.5, 0.02),
  }),
  klToRef: c({
    id: "klToRef",
    label: "KL to reference",
    unit: "nats/token",
    is: "KL divergence of the policy from the reference model",
    direction: "neither",
    corridor: band(0.5, 0.01),
  }),
  logprobGap: c({
    id: "logprobGap",
    label: "|train - rollout log-prob|",
    unit: "nats/token",
    is: "mean absolute difference between the trainer's and the inference engine's token log-probs",
    direction: "lower",
    corridor: band(0.5, 0.02),
  }),
  responseLen: c({
    id: "responseLen",
    label: "mean response length",
    unit: "tokens",
    is: "mean response length of the samples trained on",
    direction: "neither",
    corridor: band(0.2, 10),
  }),
  responseLenMin: c({
    id: "responseLenMin",
    label: "min response length",
    unit: "tokens",
    is: "shortest response of the batch",
    direction: "neither",
    corridor: band(0.2, 10),
  }),
  responseLenMax: c({
    id: "responseLenMax",
    label: "max response length",
    unit: "tokens",
    is: "longest response of the batch",
    direction: "neither",
    corridor: band(0.2, 10),
  }),
  truncated: c({
    id: "truncated",
    label: "truncated fraction",
    unit: "fraction of samples",
    is: "fraction of responses that hit the length limit",
    direction: "lower",
    corridor: band(0.5, 0.02),
  }),
  rolloutTime: c({
    id: "rolloutTime",
    label: "rollout wall time",
    unit: "s",
    is: "wall time of one batch's generation phase",
    direction: "lower",
    corridor: band(0.3, 1),
  }),
  actorTokPerS: c({
    id: "actorTokPerS",
    label: "actor tokens/s",
    unit: "tokens/s",
    is: "tokens of the batch per second of actor training",
    direction: "higher",
    corridor: band(0.3, 0),
  }),
  stepTime: c({ id: "stepTime", label: "step time", unit: "s", is: "wall time of one whole training step", direction: "lower", corridor: band(0.3, 1) }),
  reward: c({
    id: "reward",
    label: "reward",
    unit: "reward units",
    is: "mean reward of the samples trained on, as the run's reward function scored them (before any normalisation)",
    direction: "higher",
    corridor: band(0.1, 0.02),
    compareRule: "defined by that run's reward function: never comparable across reward functions, datasets or reward scales",
  }),
  tokensSeen: c({
    id: "tokensSeen",
    label: "tokens seen",
    unit: "tokens",
    is: "cumulative count of the tokens the trainer has taken in since the run's first step, as the framework counts them (prompt and completion, or completion only: the profile says which)",
    direction: "neither",
    corridor: band(0.01, 1),
    compareRule: "a position on the training axis (the comparison's tokens axis), not an outcome: never compared as a value",
  }),
  zeroStdFrac: c({
    id: "zeroStdFrac",
    label: "groups with zero reward spread",
    unit: "fraction of prompt groups",
    is: "fraction of prompt groups whose sampled responses all got the same reward: under group-relative advantages they carry no learning signal",
    direction: "lower",
    corridor: band(0.5, 0.05),
  }),
  advantageMax: c({
    id: "advantageMax",
    label: "largest advantage",
    unit: "advantage units",
    is: "largest advantage of the batch's tokens or samples, after the framework's normalisation",
    direction: "neither",
    corridor: band(0.5, 0.1),
  }),
  advantageMin: c({
    id: "advantageMin",
    label: "smallest advantage",
    unit: "advantage units",
    is: "smallest advantage of the batch's tokens or samples, after the framework's normalisation",
    direction: "neither",
    corridor: band(0.5, 0.1),
  }),
};

/** Concept ids in table order. */
export const CONCEPT_IDS: readonly ConceptId[] = Object.keys(CONCEPTS) as ConceptId[];
