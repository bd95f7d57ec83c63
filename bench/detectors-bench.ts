/**
 * `npm run bench -- detectors`: our health checks and the fixed-rule peer, scored on the labelled
 * corpus of real failures, by split (calibrate: thresholds were chosen on it; test: held back;
 * heldout: a corpus kept outside the repository, `--heldout DIR`). Writes the "Detectors" section of
 * bench/RESULTS.md and, from the test split, lib/health/measured-scores-data.ts (what notebook 06 and the
 * report print beside each rule).
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { parseArgs } from "node:util";

import { ROOT } from "./child";
import { loadCorpus, type CorpusRun } from "./detectors/corpus";
import {
  declaredClasses,
  matchedPeer,
  median,
  ourFlags,
  perThousand,
  scoreOf,
  theirFlags,
  type MatchedPeer,
  type Score,
  type SideFlags,
} from "./detectors/score";
import { PEER, PEER_LADDER } from "./detectors/peer";
import type { MeasuredScores } from "../lib/health/measured-scores";

const HELP = `npm run bench -- detectors [--corpus DIR] [--heldout DIR] [--out FILE] [--scores FILE] [--print-only]

  --corpus DIR   the committed corpus (default test/fixtures/real-runs/faults)
  --heldout DIR  a corpus kept outside the repository (same layout), scored as its own split
  --out FILE     results file whose "Detectors" section is rewritten (default bench/RESULTS.md)
  --scores FILE  the measured scores checks print (default lib/health/measured-scores.json)
  --print-only   print the tables, write nothing
`;

const SECTION = "## Detectors: health checks on real runs with injected failures";

/** Runs the detectors benchmark (argv after "detectors"). */
export async function runDetectorsBench(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      corpus: { type: "string", default: path.join("test", "fixtures", "real-runs", "faults") },
      heldout: { type: "string" },
      out: { type: "string", default: path.join("bench", "RESULTS.md") },
      scores: { type: "string", default: path.join("lib", "health", "measured-scores-data.ts") },
      "print-only": { type: "boolean", default: false },
      help: { type: "boolean", default: false },
    },
    strict: true,
  });
  if (values.help) return void process.stdout.write(HELP);
  const log = (line: string) => process.stdout.write(line + "\n");
  const committed = await loadCorpus(path.resolve(ROOT, values.corpus!), log);
  if (committed.length === 0) throw new Error(`invalid corpus: no labels.json under ${values.corpus} (one folder per framework)`);
  const heldout = values.heldout ? await loadCorpus(path.resolve(values.heldout), log) : [];
  if (values.heldout && heldout.length === 0) throw new Error(`invalid heldout: no labels.json under ${values.heldout}`);
  const all = [...committed, ...heldout.map((r) => ({ ...r, label: { ...r.label, split: "heldout" as const } }))];
  const ours = ourFlags(all);
  const peer = theirFlags(all);
  const calibrate = all.filter((r) => r.label.split === "calibrate");
  const matched = matchedPeer(calibrate, scoreOf(calibrate, ours, () => true, null).falseAlarms);
  const sides: Sides = { ours, peer, matched: theirFlags(all, matched.params) };
  const splits = ["calibrate", "test", "heldout"].filter((s) => all.some((r) => r.label.split === s));
  const text = [
    SECTION,
    "",
    ...intro(all, matched),
    ...splits.flatMap((s) =>
      splitTables(
        s,
        all.filter((r) => r.label.split === s),
        sides,
      ),
    ),
  ].join("\n");
  log(text);
  if (values["print-only"]) return;
  const scoresFile = path.resolve(ROOT, values.scores!);
  writeFileSync(
    scoresFile,
    scoresModule(
      measuredScores(
        committed.filter((r) => r.label.split === "test"),
        ours,
      ),
    ),
  );
  execFileSync(path.join(ROOT, "node_modules", ".bin", "biome"), ["format", "--write", scoresFile], { stdio: "ignore" });
  const outFile = path.resolve(ROOT, values.out!);
  writeFileSync(outFile, replaceSection(existsSync(outFile) ? readFileSync(outFile, "utf8") : "", text));
  log(`[detectors] wrote ${path.relative(ROOT, outFile)} and ${path.relative(ROOT, scoresFile)}`);
}

/** Our flags, the peer's at its defaults, and the peer made as strict as our false alarms on calibrate ask. */
interface Sides {
  ours: SideFlags;
  peer: SideFlags;
  matched: SideFlags;
}

function intro(all: readonly CorpusRun[], matched: MatchedPeer): string[] {
  const count = (f: (r: CorpusRun) => boolean) => all.filter(f).length;
  const fws = [...new Set(all.map((r) => r.label.framework))].sort();
  return [
    `Measured by \`npm run bench -- detectors\` on ${all.length} real runs (${fws.map((fw) => `${fw} ${count((r) => r.label.framework === fw)}`).join(", ")}): ` +
      `${count((r) => r.label.fault !== "healthy")} with a fault injected at a known step k, ${count((r) => r.label.fault === "healthy")} healthy twins, ` +
      `all made by the frameworks' own trainers (tools/real-runs/): ${count((r) => r.label.split !== "heldout")} committed in test/fixtures/real-runs/faults/, ` +
      `${count((r) => r.label.split === "heldout")} held out (kept outside the repository, \`--heldout DIR\`). ` +
      "Recall: fault runs with a flag raised at or after k, of those whose fault showed in the framework's own record (a run where it never showed is listed, not counted). Delay: median logged values from k to the first such flag / from the step the fault became visible in the framework's own record (labels.json `visible`: no detector can see it earlier). " +
      "False alarms: flags on healthy twins and flags raised before k, per 1,000 of those logged values. " +
      `Peer: fixed rules as small RL-health packages use them (entropy < ${PEER.entropyFloor} for ${PEER.entropyN} logged values; any concept's value > mean + ${PEER.sigma} sigma of its ${PEER.window} previous values, at least ${PEER.minHistory}; NaN in any key), on the same records in the same run. ` +
      `Matched peer: the same rules made strict enough to raise no more false alarms than ours on the calibrate split, least strict first (sigma ${PEER_LADDER.sigma.join(", ")}; entropy floor ${PEER_LADDER.entropyFloor.join(", ")}), chosen there and scored on every split: ` +
      (matched.fits
        ? `sigma ${matched.params.sigma}, entropy floor ${matched.params.entropyFloor}.`
        : `no rung meets that budget (a trailing window of equal values has sigma 0, so any change exceeds it at every multiple); its strictest, sigma ${matched.params.sigma} and entropy floor ${matched.params.entropyFloor}, still raises ${matched.calibrateFalseAlarms} on the calibrate split.`),
    "",
  ];
}

function splitTables(split: string, runs: readonly CorpusRun[], sides: Sides): string[] {
  const { ours, peer, matched } = sides;
  const classes = [...new Set(runs.map((r) => r.label.fault).filter((f) => f !== "healthy"))].sort();
  const fmtDelay = (s: Score) => (s.delays.length === 0 ? "-" : `${median(s.delays)} / ${s.visibleDelays.length === 0 ? "-" : median(s.visibleDelays)}`);
  const fmtRecall = (s: Score) => `${s.caught}/${s.faultRuns}`;
  const fmtMatched = (cls: string[] | null) => fmtRecall(scoreOf(runs, matched, () => true, cls));
  const rows = classes.map((c) => {
    const o = scoreOf(runs, ours, () => true, [c]);
    const p = scoreOf(runs, peer, () => true, [c]);
    return `| ${c} | ${o.faultRuns}${o.unseen.length > 0 ? ` (+${o.unseen.length} never shown: ${o.unseen.join(", ")})` : ""} | ${fmtRecall(o)} | ${fmtDelay(o)} | ${fmtRecall(p)} | ${fmtDelay(p)} | ${fmtMatched([c])} |`;
  });
  const o = scoreOf(runs, ours, () => true, null);
  const p = scoreOf(runs, peer, () => true, null);
  const healthy = runs.filter((r) => r.label.fault === "healthy");
  const sideRow = (name: string, side: SideFlags) => {
    const s = scoreOf(runs, side, () => true, null);
    const twins = healthy.filter((r) => (side.byRun.get(r.label.id) ?? []).length > 0).length;
    return `| ${name} | ${s.falseAlarms} | ${perThousand(s).toFixed(1)} (of ${s.healthyValues}) | ${twins}/${healthy.length} |`;
  };
  const ruleRows = [...declaredClasses()].map(([rule, cls]) => {
    const s = scoreOf(runs, ours, (r) => r === rule, cls, rule);
    return `| ${rule} | ${cls.join(", ")} | ${fmtRecall(s)} | ${fmtDelay(s)} | ${s.falseAlarms} | ${perThousand(s).toFixed(1)} |`;
  });
  return [
    `### Split: ${split} (${runs.length} runs, ${healthy.length} healthy)`,
    "",
    "| fault class | runs | ours: caught | ours: median delay | peer: caught | peer: median delay | matched peer: caught |",
    "|---|---:|---:|---:|---:|---:|---:|",
    ...rows,
    `| **all** | ${o.faultRuns} | ${fmtRecall(o)} | ${fmtDelay(o)} | ${fmtRecall(p)} | ${fmtDelay(p)} | ${fmtMatched(null)} |`,
    "",
    "| side | false alarms | per 1,000 healthy logged values | healthy twins with any flag |",
    "|---|---:|---:|---:|",
    sideRow("ours", ours),
    sideRow("peer", peer),
    sideRow("matched peer", matched),
    "",
    "| our rule | meant for | caught | median delay | false alarms | per 1,000 |",
    "|---|---|---:|---:|---:|---:|",
    ...ruleRows,
    "",
  ];
}

/** Per rule, its scores on the test split (the part thresholds were not chosen on). */
export function measuredScores(test: readonly CorpusRun[], ours: SideFlags): MeasuredScores {
  const rules: MeasuredScores["rules"] = {};
  for (const [rule, cls] of declaredClasses()) {
    const s = scoreOf(test, ours, (r) => r === rule, cls, rule);
    rules[rule] = {
      classes: [...cls],
      faultRuns: s.faultRuns,
      caught: s.caught,
      medianDelay: median(s.delays),
      medianVisibleDelay: median(s.visibleDelays),
      falseAlarms: s.falseAlarms,
      healthyValues: s.healthyValues,
    };
  }
  const fws = [...new Set(test.map((r) => r.label.framework))].sort();
  return { corpus: `test split of test/fixtures/real-runs/faults (${test.length} real ${fws.join(" and ")} runs)`, rules };
}

/** The scores as the TypeScript module lib/ imports (a module, not JSON: tslab compiles lib/ without JSON imports). */
export function scoresModule(scores: MeasuredScores): string {
  return [
    // No type import: measured-scores.ts imports this module and checks its shape (no import circle).
    "/** Generated by `npm run bench -- detectors` from the test split of the committed corpus; do not edit. */",
    `export const MEASURED_SCORES = ${JSON.stringify(scores, null, 2)};`,
    "",
  ].join("\n");
}

/** The file with its Detectors section replaced (or appended). */
function replaceSection(file: string, section: string): string {
  const at = file.indexOf(SECTION);
  if (at < 0) return `${file.trimEnd()}\n\n${section.trimEnd()}\n`;
  const next = file.indexOf("\n## ", at + SECTION.length);
  return `${file.slice(0, at)}${section.trimEnd()}\n${next < 0 ? "" : file.slice(next)}`;
}
