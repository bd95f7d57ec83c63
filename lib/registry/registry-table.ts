/**
 * The registry as markdown, for the README and docs/framework-profiles.md: one table concept x
 * framework -> key, grain, what it is not, and one table of each profile's step axis, aggregation and
 * restart behaviour. Written from the profiles only (`npm run registry-table -- --write`); a test
 * keeps the committed copies equal to it.
 */
import { CONCEPT_IDS, CONCEPTS } from "./concepts";
import { singular } from "./framework-profile";
import { PROFILES } from "./profiles";

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
      `| ${p.label} | ${cell(p.stepAxis)} | ${cell(p.updates.note)} | ${cell(p.aggregation)} | ${cell(p.restart)} | ${p.signature.map((s) => `\`${s}\``).join(", ")} |`,
  );
  return ["| framework | step axis | optimizer updates | aggregation before logging | restart | detected by |", "|---|---|---|---|---|---|", ...rows].join(
    "\n",
  );
}

/** Each profile's TensorBoard step: what the event step is, the key it stands for, the calls split out of a step's row. */
export function tensorboardTableMarkdown(): string {
  const rows = PROFILES.map((p) => {
    const t = p.tensorboard;
    const split = [...t.separateCalls.map((x) => `\`${x}*\``), ...(p.axis.kind === "step" ? p.axis.summaryKeys.map((k) => `\`${k}\``) : [])];
    return `| ${p.label} | ${cell(t.step)} | ${t.stepKey === null ? "refused" : `\`${t.stepKey}\``} | ${split.length > 0 ? split.join(", ") : "none"} |`;
  });
  return ["| framework | TensorBoard step | read as | split into rows of their own |", "|---|---|---|---|", ...rows].join("\n");
}

/** Markers around the generated tables in a markdown file. */
export const TABLE_MARKERS = { start: "<!-- registry-tables:start (npm run registry-table -- --write) -->", end: "<!-- registry-tables:end -->" } as const;

/** The generated block, markers included. */
export function registryBlock(): string {
  return [TABLE_MARKERS.start, "", conceptTableMarkdown(), "", profileTableMarkdown(), "", tensorboardTableMarkdown(), "", TABLE_MARKERS.end].join("\n");
}

/** `text` with its marked block replaced by the generated one; throws when the markers are missing. */
export function withRegistryBlock(text: string, file: string): string {
  const a = text.indexOf(TABLE_MARKERS.start);
  const b = text.indexOf(TABLE_MARKERS.end);
  if (a < 0 || b < a) throw new Error(`${file}: no ${TABLE_MARKERS.start} ... ${TABLE_MARKERS.end} block`);
  return text.slice(0, a) + registryBlock() + text.slice(b + TABLE_MARKERS.end.length);
}
