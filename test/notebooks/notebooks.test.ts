// Every notebook in notebooks/ runs headless through the strict runner on a copy of the bundled
// data (exports into a temp folder, so the committed exports are never touched), and the source
// notebooks are committed clean (lib/workspace/clean-notebook.ts; `npm run clean-notebooks`).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { parseNotebook, serializeNotebook } from "../../lib/display/notebook-static-images";
import { findChromium } from "../../lib/display/plotly-renderer";
import { cleanNotebook } from "../../lib/workspace/clean-notebook";

const ROOT = join(__dirname, "..", "..");
const PY = join(ROOT, ".venv", "bin", "python");
const RUNNER = join(ROOT, "scripts", "run-notebooks.py");
const NOTEBOOKS = readdirSync(join(ROOT, "notebooks"))
  .filter((f) => /^\d\d-.*\.ipynb$/.test(f))
  .sort();

/** A throwaway copy of data/ (archive, local logs, runs.json) and an empty exports folder. */
export function workspaceCopy(): { dir: string; data: string; exports: string; out: string } {
  const dir = mkdtempSync(join(tmpdir(), "nb-ws-"));
  const data = join(dir, "data");
  cpSync(join(ROOT, "data"), data, { recursive: true });
  return { dir, data, exports: join(dir, "exports"), out: join(dir, "executed") };
}

export function runNotebook(nb: string, env: Record<string, string>, out: string) {
  const r = spawnSync(PY, [RUNNER, "--out", out, join(ROOT, "notebooks", nb)], {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, WANDB_API_KEY: "", WORKSPACE_FETCH: "", ...env },
  });
  return r;
}

/** Text of every output of an executed notebook, joined (streams, markdown, html, plain). */
export function outputText(file: string): string {
  const nb = JSON.parse(readFileSync(file, "utf8"));
  const parts: string[] = [];
  for (const cell of nb.cells) {
    for (const o of cell.outputs ?? []) {
      if (o.text) parts.push([].concat(o.text).join(""));
      for (const mime of ["text/markdown", "text/html", "text/plain"]) if (o.data?.[mime]) parts.push([].concat(o.data[mime]).join(""));
    }
  }
  return parts.join("\n");
}

/**
 * What the main command does to an executed notebook (static PNG per plotly output), then the
 * static renderer (nbconvert HTML, as nbviewer/GitHub-like viewers show it): one image per figure.
 */
function staticRendererShowsEveryFigure(executed: string, dir: string): void {
  if (!findChromium()) return; // the add-static-figures tests report the skip
  const add = spawnSync(process.execPath, ["--import", "tsx", join(ROOT, "scripts", "add-static-figures.ts"), executed], { cwd: ROOT, encoding: "utf8" });
  assert.equal(add.status, 0, add.stdout + add.stderr);
  const nbJson = JSON.parse(readFileSync(executed, "utf8"));
  const figures = nbJson.cells
    .flatMap((c: { outputs?: { data?: Record<string, unknown> }[] }) => c.outputs ?? [])
    .filter((o: { data?: Record<string, unknown> }) => o.data?.["application/vnd.plotly.v1+json"]);
  assert.ok(figures.length >= 5, `expected the policy figures, found ${figures.length}`);
  for (const f of figures) assert.ok(typeof f.data["image/png"] === "string" && f.data["image/png"].length > 1000, "each plotly output carries a PNG");
  const conv = spawnSync(join(ROOT, ".venv", "bin", "jupyter"), ["nbconvert", "--to", "html", "--output-dir", dir, executed], { encoding: "utf8" });
  assert.equal(conv.status, 0, conv.stderr);
  const html = readFileSync(join(dir, basename(executed).replace(/\.ipynb$/, ".html")), "utf8");
  const imgs = html.match(/<img [^>]*src="data:image\/png;base64,/g) ?? [];
  assert.equal(imgs.length, figures.length, "nbconvert's HTML shows one image per figure");
}

test("source notebooks are clean: no outputs, execution counts or run metadata, in nbformat's layout", () => {
  assert.ok(NOTEBOOKS.length >= 5, `expected the five notebooks, found ${NOTEBOOKS.join(", ")}`);
  for (const f of readdirSync(join(ROOT, "notebooks"))
    .filter((x) => x.endsWith(".ipynb"))
    .sort()) {
    const text = readFileSync(join(ROOT, "notebooks", f), "utf8");
    const nb = parseNotebook(text, f);
    assert.equal((nb.metadata.kernelspec as { name?: string } | undefined)?.name, "slime-diagnostics-ts", `${f}: kernel`);
    nb.cells.forEach((c, i) => {
      if (c.cell_type !== "code") return;
      assert.deepEqual(c.outputs, [], `${f} cell ${i} has outputs: run npm run clean-notebooks`);
      assert.equal(c.execution_count, null, `${f} cell ${i} has an execution count: run npm run clean-notebooks`);
    });
    // Whatever else differs from the clean form (metadata, layout) is named by a line diff.
    assert.equal(text, serializeNotebook(cleanNotebook(nb)), `${f} is not clean: run npm run clean-notebooks`);
    const title = nb.cells[0].source;
    assert.match(Array.isArray(title) ? title.join("") : title, /^# \d\d · /, `${f}: first cell is the numbered title`);
  }
});

for (const nb of NOTEBOOKS) {
  test(`notebook ${nb} runs headless on the bundled data`, () => {
    const ws = workspaceCopy();
    try {
      const r = runNotebook(nb, { WORKSPACE_DATA: ws.data, WORKSPACE_EXPORTS: ws.exports }, ws.out);
      assert.equal(r.status, 0, `${nb} failed:\n${r.stdout}\n${r.stderr}`);
      const executed = join(ws.out, nb);
      assert.ok(existsSync(executed));
      const text = outputText(executed);
      // Each notebook states its key result on the sample; the reference analysis fixes these.
      if (nb.startsWith("02")) {
        assert.match(
          text,
          /axis mapping holds for every run: N = 2; 0 run\(s\) read with --wandb-always-use-train-step; 0 superseded row\(s\) excluded; 0 issue\(s\), 0 of them blocking/,
        );
        assert.match(text, /80 rollouts, 160 updates/);
        assert.match(text, /agree exactly/);
      }
      if (nb.startsWith("03")) {
        assert.match(text, /66, 70, 82, 116, 140, 142, 156, 160/);
        assert.match(text, /<td[^>]*>0\.18025<\/td>/);
        assert.match(text, /-26\.4%/);
        // The mismatch panel on the sample: slime's abs diff and signed gap, slopes over the four round means.
        assert.match(text, /train\/train_rollout_logprob_abs_diff: \+4\.24e-5 per round, the least-squares slope of 4 round means/);
        assert.match(text, /rollout\/rollout_log_probs - rollout\/log_probs: -3\.19e-5 per round/);
        staticRendererShowsEveryFigure(executed, ws.dir);
      }
      if (nb.startsWith("04")) assert.match(text, /R1: truncated 20\.4%/);
      if (nb.startsWith("06")) {
        // The sample's one flag: the NaN rollout/kl of rollout 47 (R2); single zero gradient norms make no streak.
        assert.match(text, /4 runs \(R0, R1, R2, R3\), 160 optimizer updates, 80 rollout batches, N = 2: 1 flag\(s\) from 1 of 20 checks/);
        assert.match(text, /non_finite: 1 flag \[warning\]/);
        assert.match(text, /zero_grad_norm_streak: 0 flags \[warning\] \(rule: 3 or more consecutive display updates/);
        assert.match(text, /<td[^>]*>rollout\/kl<\/td><td[^>]*>NaN<\/td>/);
        assert.match(text, /rl-diagnostics-health-summary \[\{"check":"ppo_kl_first_update","status":"no flags","flags":0\}/);
      }
      if (nb.startsWith("07")) {
        assert.match(text, /compared n8 \(3 experiments\) and n16 \(3 experiments\) against compare\/reference/);
        assert.match(text, /nothing refused/);
        for (const f of ["compare.csv", "improvement.csv", "corridor.csv", "compare-manifest.json"]) {
          assert.ok(
            readFileSync(join(ws.exports, "compare", f)).equals(readFileSync(join(ROOT, "exports", "compare", f))),
            `${f} differs from the committed exports/compare/${f}`,
          );
        }
      }
      if (nb.startsWith("05")) {
        for (const f of ["rollouts.csv", "updates.csv", "summary.csv", "health.csv", "manifest.json"]) {
          assert.ok(readFileSync(join(ws.exports, f)).equals(readFileSync(join(ROOT, "exports", f))), `${f} differs from the committed exports/${f}`);
        }
      }
    } finally {
      rmSync(ws.dir, { recursive: true, force: true });
    }
  });
}

test("notebook 01 fetches live from a W&B-compatible server when WORKSPACE_FETCH=1", async () => {
  const { spawn } = await import("node:child_process");
  const { startWandbTestServer } = await import("../../tools/wandb-test-server/server");
  const key = "sentinel-key-notebook-01-live-fetch-000000";
  const ws = workspaceCopy();
  const server = await startWandbTestServer({ apiKey: key });
  try {
    const config = JSON.parse(readFileSync(join(ws.data, "runs.json"), "utf8"));
    for (const { runId } of config.runs) {
      const rows = readFileSync(join(ROOT, "data", "wandb", "history", `${runId}.jsonl`), "utf8")
        .trim()
        .split("\n");
      server.addRun({ entity: config.entity, project: config.project, runId, rows });
    }
    rmSync(join(ws.data, "wandb"), { recursive: true, force: true }); // a first fetch: no archive yet
    // The server lives in this process, so the runner must not block the event loop.
    const code = await new Promise<{ status: number | null; out: string }>((resolve) => {
      let out = "";
      const child = spawn(PY, [RUNNER, "--out", ws.out, join(ROOT, "notebooks", "01-fetch.ipynb")], {
        cwd: ROOT,
        env: { ...process.env, WORKSPACE_DATA: ws.data, WORKSPACE_FETCH: "1", WANDB_BASE_URL: server.url, WANDB_API_KEY: key },
      });
      child.stdout.on("data", (b) => (out += b));
      child.stderr.on("data", (b) => (out += b));
      child.on("close", (status) => resolve({ status, out }));
    });
    assert.equal(code.status, 0, code.out);
    const text = outputText(join(ws.out, "01-fetch.ipynb"));
    assert.match(text, /fetched 4 runs \(400 history rows\) of sample-entity\/slime-grpo-sample from 127\.0\.0\.1/);
    const executed = readFileSync(join(ws.out, "01-fetch.ipynb"), "utf8");
    assert.ok(!executed.includes(key), "the API key never appears in the executed notebook");
    for (const { runId } of config.runs) {
      const f = join("history", `${runId}.jsonl`);
      assert.ok(readFileSync(join(ws.data, "wandb", f)).equals(readFileSync(join(ROOT, "data", "wandb", f))), `${f} differs from the bundled archive`);
    }
  } finally {
    await server.close();
    rmSync(ws.dir, { recursive: true, force: true });
  }
});

test("notebook 01 freezes an offline run's .wandb file listed in runs.json, without any server or credentials", async () => {
  const { buildLog, exitRecord, historyRecord, runRecord } = await import("../wandb-file/wandb-log-builder");
  const { mkdirSync, writeFileSync } = await import("node:fs");
  const ws = workspaceCopy();
  try {
    // The rows of a bundled run, written as wandb-core writes them (nested_key items, value_json).
    const lines = readFileSync(join(ROOT, "data", "wandb", "history", "sim-r0-ghfk.jsonl"), "utf8")
      .trim()
      .split("\n");
    const records = [runRecord({ runId: "nbwfile1", entity: "sample-entity", project: "slime-grpo-sample", cliVersion: "0.31.0" })];
    for (const line of lines) {
      const row = JSON.parse(line) as Record<string, number | string>;
      records.push(
        historyRecord(
          Object.entries(row).map(([k, v]) => ({ nested: [k], json: typeof v === "string" ? v : JSON.stringify(v) })),
          row._step as number,
        ),
      );
    }
    records.push(exitRecord(0));
    const folder = join(ws.data, "offline", "offline-run-20250101_120000-nbwfile1");
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, "run-nbwfile1.wandb"), buildLog(records).bytes);
    writeFileSync(join(ws.data, "runs.json"), JSON.stringify({ runs: [{ file: "offline/offline-run-20250101_120000-nbwfile1", round: "R0" }] }));
    const env = { PATH: process.env.PATH ?? "", HOME: ws.dir, WORKSPACE_DATA: ws.data, WORKSPACE_FETCH: "1", NETRC: join(ws.dir, "no-netrc") };
    const r = spawnSync(PY, [RUNNER, "--out", ws.out, join(ROOT, "notebooks", "01-fetch.ipynb")], { cwd: ROOT, env, encoding: "utf8" });
    assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
    const text = outputText(join(ws.out, "01-fetch.ipynb"));
    assert.match(text, /fetched 1 runs \(100 history rows\) from local \.wandb files \(no server\)/);
    assert.match(text, /run-nbwfile1\.wandb \(SDK 0\.31\.0, no server\)/);
    assert.ok(
      readFileSync(join(ws.data, "wandb", "history", "nbwfile1.jsonl")).equals(readFileSync(join(ROOT, "data", "wandb", "history", "sim-r0-ghfk.jsonl"))),
      "the frozen rows are the bundled run's, byte for byte",
    );
  } finally {
    rmSync(ws.dir, { recursive: true, force: true });
  }
});

test("notebook 01 shows and verifies the snapshot chain of an archive npm run follow wrote", async () => {
  const { startWandbTestServer } = await import("../../tools/wandb-test-server/server");
  const { Follower } = await import("../../lib/follow/follower");
  const ws = workspaceCopy();
  const server = await startWandbTestServer({});
  try {
    const config = JSON.parse(readFileSync(join(ws.data, "runs.json"), "utf8")) as {
      entity: string;
      project: string;
      runs: { runId: string; round: string }[];
    };
    const rows = (runId: string) =>
      readFileSync(join(ROOT, "data", "wandb", "history", `${runId}.jsonl`), "utf8")
        .trim()
        .split("\n");
    const late = config.runs[3].runId;
    for (const { runId } of config.runs)
      server.addRun({
        entity: config.entity,
        project: config.project,
        runId,
        state: runId === late ? "running" : "finished",
        rows: runId === late ? rows(runId).slice(0, 50) : rows(runId),
      });
    rmSync(join(ws.data, "wandb"), { recursive: true, force: true });
    const follower = await Follower.open({ ...config, outDir: join(ws.data, "wandb"), baseUrl: server.url, apiKey: server.apiKey, env: {} });
    await follower.poll();
    server.appendRows(config.entity, config.project, late, rows(late).slice(50));
    server.setState(config.entity, config.project, late, "finished");
    await follower.poll();
  } finally {
    await server.close();
  }
  try {
    const r = runNotebook("01-fetch.ipynb", { WORKSPACE_DATA: ws.data, WORKSPACE_EXPORTS: ws.exports }, ws.out);
    assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
    const text = outputText(join(ws.out, "01-fetch.ipynb"));
    assert.match(text, /Snapshot chain: 2 snapshots, verified\./);
    assert.match(text, /sim-r3-1v8k \+50/);
    for (const { runId } of JSON.parse(readFileSync(join(ws.data, "runs.json"), "utf8")).runs as { runId: string }[]) {
      const f = join("history", `${runId}.jsonl`);
      assert.ok(readFileSync(join(ws.data, "wandb", f)).equals(readFileSync(join(ROOT, "data", "wandb", f))), `${f} differs from the bundled archive`);
    }
  } finally {
    rmSync(ws.dir, { recursive: true, force: true });
  }
});

test("notebook 06 shows when each flag first appeared in an archive npm run follow wrote: the snapshot whose analysis first printed it", async () => {
  const { startWandbTestServer } = await import("../../tools/wandb-test-server/server");
  const { Follower } = await import("../../lib/follow/follower");
  const { FlagsSeen } = await import("../../lib/follow/new-flags");
  const { analyseSnapshot } = await import("../../lib/follow/poll-analysis");
  const ws = workspaceCopy();
  const server = await startWandbTestServer({});
  try {
    const config = JSON.parse(readFileSync(join(ws.data, "runs.json"), "utf8")) as {
      entity: string;
      project: string;
      runs: { runId: string; round: string }[];
    };
    const rows = (runId: string) =>
      readFileSync(join(ROOT, "data", "wandb", "history", `${runId}.jsonl`), "utf8")
        .trim()
        .split("\n");
    // Run R2's rollout 47 (_step 30..34) logs rollout/kl = NaN: snapshot 1 ends inside it (open), snapshot 2 holds the rest.
    const late = "sim-r2-85gs";
    for (const { runId } of config.runs)
      server.addRun({
        entity: config.entity,
        project: config.project,
        runId,
        state: runId === late ? "running" : "finished",
        rows: runId === late ? rows(runId).slice(0, 32) : rows(runId),
      });
    const dir = join(ws.data, "wandb");
    rmSync(dir, { recursive: true, force: true });
    const follower = await Follower.open({ ...config, outDir: dir, baseUrl: server.url, apiKey: server.apiKey, env: {} });
    const seen = await FlagsSeen.open(dir);
    const pollAndPrint = async () => {
      const result = await follower.poll();
      const printed = seen.take((await analyseSnapshot(dir)).health.flags, { snapshot: result.sequence!, takenAt: result.takenAt });
      await seen.save(dir);
      return printed.length;
    };
    assert.equal(await pollAndPrint(), 0, "rollout 47 open at snapshot 1");
    server.appendRows(config.entity, config.project, late, rows(late).slice(32));
    server.setState(config.entity, config.project, late, "finished");
    assert.equal(await pollAndPrint(), 1);
  } finally {
    await server.close();
  }
  try {
    const r = runNotebook("06-health.ipynb", { WORKSPACE_DATA: ws.data, WORKSPACE_EXPORTS: ws.exports }, ws.out);
    assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
    const text = outputText(join(ws.out, "06-health.ipynb"));
    assert.match(text, /Each flag now, and the snapshot whose analysis first printed it/);
    assert.match(
      text,
      /non_finite<\/td><td[^>]*>sim-r2-85gs<\/td><td[^>]*>rollout\/kl<\/td><td[^>]*>rollout 47\.\.47<\/td><td[^>]*>rollout 47\.\.47<\/td><td[^>]*>2<\/td><td[^>]*>\d{4}-\d\d-\d\dT/,
    );
  } finally {
    rmSync(ws.dir, { recursive: true, force: true });
  }
});
