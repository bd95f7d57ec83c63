/**
 * The registry as markdown, for the README and docs/framework-profiles.md: one table concept x
 * framework -> key, grain, what it is not, and one table of each profile's step axis, aggregation and
 * restart behaviour. Written from the profiles only (`npm run registry-table -- --write`); a test
 * keeps the committed copies equal to it.
 */
import { CONCEPT_IDS, CONCEPTS } from "./concepts";
import { singular, type FrameworkProfile } from "./framework-profile";
import { conditionText, type ConditionalMeaning } from "./semantic-flags";
import { PROFILES } from "./profiles";
import { onAxis } from "./profile-axis";

function cell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\n/g, " ");
}

/** Concept x framework: the key, what one value is averaged over, and what it is not (or why there is none). */
export function conceptTableMarkdown(): string {
  const head = `| concept | ${PROFILES.map((p) => p.label).join(" | ")} |`;
  const rule = `|---|${PROFILES.map(() => "---").join("|")}|`;
  const rows = CONCEPT_IDS.map((id) => {
    const cells = PROFILES.map((p) => {
      const m = p.metrics[id];
      if ("absent" in m) return `none: ${cell(m.absent)}`;
      const grain = m.grain === "update" ? "per update" : `per ${singular(p.recordNoun)}`;
      return `\`${m.key}\` (${grain}); not: ${cell(m.isNot)}`;
    });
    return `| **${CONCEPTS[id].label}** | ${cells.join(" | ")} |`;
  });
  return [head, rule, ...rows].join("\n");
}

/** Each profile's step axis, single updates, aggregation before logging and restart behaviour. */
export function profileTableMarkdown(): string {
  const rows = PROFILES.map(
    (p) =>
      `| ${p.label} | ${cell(p.stepAxis)} | ${cell(updatesText(p))} | ${cell(p.aggregation)} | ${cell(p.restart)} | ${p.signature.map((s) => `\`${s}\``).join(", ")} |`,
  );
  return ["| framework | step axis | optimizer updates | aggregation before logging | restart | detected by |", "|---|---|---|---|---|---|", ...rows].join(
    "\n",
  );
}

/** Whether single updates are observable, and the settings under which each record is one update, with their source. */
function updatesText(p: FrameworkProfile): string {
  const one = p.updates.onePerRecord;
  if (one === undefined) return p.updates.note;
  return `${p.updates.note}; each ${singular(p.recordNoun)} is exactly one update, at its batch's first position, when ${conditionText(one.when)} (${one.evidence}): the update-position checks then apply`;
}

/** Each profile's TensorBoard step: what the event step is, the key it stands for, the calls split out of a step's row. */
export function tensorboardTableMarkdown(): string {
  const rows = PROFILES.map((p) => {
    const t = p.tensorboard;
    const split = [
      ...t.separateCalls.map((x) => `\`${x}*\``),
      ...onAxis<readonly string[]>(p.axis, { "batch-updates": () => [], step: (a) => a.summaryKeys }).map((k) => `\`${k}\``),
    ];
    return `| ${p.label} | ${cell(t.step)} | ${t.stepKey === null ? "refused" : `\`${t.stepKey}\``} | ${split.length > 0 ? split.join(", ") : "none"} |`;
  });
  return ["| framework | TensorBoard step | read as | split into rows of their own |", "|---|---|---|---|", ...rows].join("\n");
}

/** What a conditional meaning changes, in a table cell. */
function changeText(p: FrameworkProfile, m: ConditionalMeaning): string {
  if (m.concept) {
    const metric = p.metrics[m.concept.id];
    const key = "absent" in metric ? "" : ` (\`${metric.key}\`)`;
    return `**${CONCEPTS[m.concept.id].label}**${key}: ${m.concept.is}; not: ${m.concept.isNot}`;
  }
  if (m.check) return `\`${m.check.name}\` not applicable: ${m.check.notApplicable}`;
  return `\`${m.key!.name}\`: ${m.key!.note}`;
}

/** Where a meaning rests: its evidence, else the declaring file of the flags its condition reads. */
function sourceText(p: FrameworkProfile, m: ConditionalMeaning): string {
  if (m.evidence !== undefined) return m.evidence;
  const names = [m.when.flag, ...(m.when.rule?.flags ?? [])];
  return [...new Set(p.flags.filter((f) => names.includes(f.name)).map((f) => f.source))].join(", ");
}

/**
 * Every conditional meaning of every profile: the condition (flags, rule, version), what it changes
 * and the source line or release note it rests on; a meaning two profiles share (miles' copies of
 * slime's) is one row naming both.
 */
export function meaningsTableMarkdown(): string {
  const rows = new Map<string, string[]>();
  for (const p of PROFILES) {
    for (const m of p.meanings) {
      const text = `| \`${cell(conditionText(m.when))}\` | ${cell(changeText(p, m))} | ${cell(sourceText(p, m))} |`;
      rows.set(text, [...(rows.get(text) ?? []), p.label]);
    }
  }
  const lines = [...rows].map(([text, labels]) => `| ${labels.join(", ")} ${text}`);
  return ["| framework | condition | what holds then | source |", "|---|---|---|---|", ...lines].join("\n");
}

/** Keys whose presence proves a version range, and each step profile's logging interval rule: what settles coverage and version notes. */
export function provenTableMarkdown(): string {
  const keys = PROFILES.flatMap((p) =>
    (p.versionKeys ?? []).map(
      (k) => `| ${p.label} | \`${k.key}\` logged | ${k.package} ${k.atLeast !== undefined ? `>= ${k.atLeast}` : `< ${k.below}`} | ${cell(k.evidence)} |`,
    ),
  );
  const intervals = PROFILES.flatMap((p) => {
    const i = onAxis(p.axis, { "batch-updates": () => undefined, step: (a) => a.interval });
    if (i === undefined) return [];
    const when = [i.strategy ? `${i.strategy.flag} = ${i.strategy.equals}` : "", i.firstStep ? `step 1 too with ${i.firstStep}` : ""]
      .filter((x) => x !== "")
      .join("; ");
    return [
      `| ${p.label} | \`${i.steps}\`${when ? ` (${cell(when)})` : ""} | a row at every multiple; after the last: ${cell(i.lastPartial)} | ${cell(i.source)} |`,
    ];
  });
  return ["| framework | evidence | proves | source |", "|---|---|---|---|", ...keys, ...intervals].join("\n");
}

/** Markers around the generated tables in a markdown file. */
export const TABLE_MARKERS = { start: "<!-- registry-tables:start (npm run registry-table -- --write) -->", end: "<!-- registry-tables:end -->" } as const;

/** The generated block, markers included. */
export function registryBlock(): string {
  return [
    TABLE_MARKERS.start,
    "",
    conceptTableMarkdown(),
    "",
    profileTableMarkdown(),
    "",
    tensorboardTableMarkdown(),
    "",
    "Conditional meanings (`meanings` of each profile; lib/registry/semantic-flags.ts):",
    "",
    meaningsTableMarkdown(),
    "",
    "What a run's keys prove of its version (`versionKeys`), and the logging interval coverage reads from a frozen setting (`axis.interval`; without it, the most common spacing of the records):",
    "",
    provenTableMarkdown(),
    "",
    TABLE_MARKERS.end,
  ].join("\n");
}

/** `text` with its marked block replaced by the generated one; throws when the markers are missing. */
export function withRegistryBlock(text: string, file: string): string {
  const a = text.indexOf(TABLE_MARKERS.start);
  const b = text.indexOf(TABLE_MARKERS.end);
  if (a < 0 || b < a) throw new Error(`${file}: no ${TABLE_MARKERS.start} ... ${TABLE_MARKERS.end} block`);
  return text.slice(0, a) + registryBlock() + text.slice(b + TABLE_MARKERS.end.length);
}
