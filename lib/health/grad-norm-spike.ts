/**
 * `grad_norm_spike`: a gradient norm many times the median of the values logged just before it. One
 * such step is how a bad batch, a loss-scale bug or a reward outlier shows before clipping hides it.
 */
import { conceptKey, defineCheck } from "./health-check";
import { conceptTraces, flagUnit, grainText, hitsOf, type ConceptTrace } from "./concept-trace";
import { flagOf, medianInPlace, type CheckFlag } from "./flag-ranges";

/** The declared check. Consecutive spiking values form one flag. */
export const gradNormSpike = defineCheck({
  name: "grad_norm_spike",
  severity: "warning",
  unit: "update or rollout",
  needs: { concepts: ["gradNorm"] },
  params: [
    { name: "multiple", default: 50, min: 1, minInclusive: false, doc: "multiple of the trailing median a value must exceed" },
    { name: "window", default: 8, min: 1, minInclusive: true, integer: true, doc: "logged values before each value whose median it is compared with" },
    { name: "min_history", default: 4, min: 1, minInclusive: true, integer: true, doc: "finite values the trailing window must hold before a value is judged" },
  ],
  rule: (p, profile) =>
    `${conceptKey(profile, "gradNorm")} (${grainText(profile, "gradNorm")}) > ${p.multiple} x the median of the ${p.window} values logged before it (at least ${p.min_history} of them finite)`,
  is: "a gradient norm far above the run's recent ones: one batch pushed the weights much harder than its neighbours (clipping may have capped the update, not the norm logged)",
  isNot:
    "not proof of divergence: a rare hard batch spikes too, and a framework that logs the norm after clipping would hide it; read the loss, the reward and the steps after it",
  detects: ["grad_spike"],
  run(aligned, p, profile) {
    const traces = conceptTraces(aligned, profile, "gradNorm");
    const unit = flagUnit(profile, "gradNorm");
    const flags: CheckFlag[] = [];
    for (const t of traces) flags.push(...spikeFlags(t, p.multiple, p.window, p.min_history).map((f) => ({ ...f, unit })));
    return { applicable: true, flags };
  },
});

function spikeFlags(t: ConceptTrace, multiple: number, window: number, minHistory: number): CheckFlag[] {
  const flags: CheckFlag[] = [];
  // The spike so far: trace positions start..start+length-1 (its hits are made only for its flag).
  let start = 0;
  let length = 0;
  let threshold = 0;
  const close = () => {
    if (length > 0) {
      const run = hitsOf(t, start, length);
      flags.push({ ...flagOf(run), raisedAt: run[0].x, window: { threshold, side: "above" } });
    }
    length = 0;
  };
  // The trailing window's finite values, copied into one reused array: a slice, a filtered copy and
  // a typed copy per logged value were most of this check's time (and garbage) at 10^6 updates.
  const scratch = new Float64Array(Math.max(0, Math.min(window, t.values.length)));
  for (let i = 1; i < t.values.length; i++) {
    let n = 0;
    for (let j = Math.max(0, i - window); j < i; j++) {
      const w = t.values[j];
      if (w - w === 0) scratch[n++] = w;
    }
    const med = n >= minHistory ? (medianInPlace(scratch, n) as number) : 0;
    const v = t.values[i];
    if (med > 0 && v - v === 0 && v > multiple * med) {
      // The flag's threshold line is its first value's (the trailing median moves after it).
      if (length === 0) {
        threshold = multiple * med;
        start = i;
      }
      length++;
    } else close();
  }
  close();
  return flags;
}
