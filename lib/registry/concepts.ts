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
  | "stepTime";

/** One concept: label, unit and the framework-neutral meaning. */
export interface Concept {
  id: ConceptId;
  label: string;
  unit: string;
  /** What the concept is, whichever framework logs it. */
  is: string;
}

const c = (x: Concept): Concept => x;

/** Every concept, by id (exhaustive: adding a ConceptId without an entry does not compile). */
export const CONCEPTS: Readonly<Record<ConceptId, Concept>> = {
  entropy: c({ id: "entropy", label: "entropy", unit: "nats/token", is: "mean token entropy of the policy on the training batch" }),
  clipfrac: c({ id: "clipfrac", label: "clip fraction", unit: "fraction of tokens", is: "fraction of tokens where the clipped PPO surrogate is active" }),
  gradNorm: c({ id: "gradNorm", label: "gradient norm", unit: "L2 norm", is: "gradient norm of an optimizer step, before clipping" }),
  ppoKl: c({ id: "ppoKl", label: "ppo_kl", unit: "nats/token", is: "mean old_logp - new_logp: the policy-ratio log of the PPO update" }),
  klToRef: c({ id: "klToRef", label: "KL to reference", unit: "nats/token", is: "KL divergence of the policy from the reference model" }),
  logprobGap: c({
    id: "logprobGap",
    label: "|train - rollout log-prob|",
    unit: "nats/token",
    is: "mean absolute difference between the trainer's and the inference engine's token log-probs",
  }),
  responseLen: c({ id: "responseLen", label: "mean response length", unit: "tokens", is: "mean response length of the samples trained on" }),
  responseLenMin: c({ id: "responseLenMin", label: "min response length", unit: "tokens", is: "shortest response of the batch" }),
  responseLenMax: c({ id: "responseLenMax", label: "max response length", unit: "tokens", is: "longest response of the batch" }),
  truncated: c({ id: "truncated", label: "truncated fraction", unit: "fraction of samples", is: "fraction of responses that hit the length limit" }),
  rolloutTime: c({ id: "rolloutTime", label: "rollout wall time", unit: "s", is: "wall time of one batch's generation phase" }),
  actorTokPerS: c({ id: "actorTokPerS", label: "actor tokens/s", unit: "tokens/s", is: "tokens of the batch per second of actor training" }),
  stepTime: c({ id: "stepTime", label: "step time", unit: "s", is: "wall time of one whole training step" }),
};

/** Concept ids in table order. */
export const CONCEPT_IDS: readonly ConceptId[] = Object.keys(CONCEPTS) as ConceptId[];
