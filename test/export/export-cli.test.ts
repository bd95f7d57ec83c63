import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

const ROOT = path.resolve(__dirname, "../..");

function runCli(args: string[]) {
  const r = spawnSync(process.execPath, ["--import", "tsx", path.join(ROOT, "scripts/export.ts"), ...args], { cwd: ROOT, encoding: "utf8" });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

test("npm run export -- --data DIR --out DIR writes the six files, lists them and prints one line per health check", (t) => {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), "export-cli-"));
  t.after(() => fs.rmSync(out, { recursive: true, force: true }));
  const r = runCli(["--data", "data/wandb", "--out", out]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, "");
  assert.match(
    r.stdout,
    /^wrote 6 files into .* from data\/wandb\n {2}rollouts\.csv {2}80 rows x 44 columns {2}sha256 [0-9a-f]{64}\n {2}updates\.csv {2}160 rows x 16 columns/,
  );
  assert.deepEqual(fs.readdirSync(out).sort(), ["health.csv", "manifest.json", "rollouts.csv", "summary.csv", "superseded.csv", "updates.csv"]);
  assert.match(r.stdout, /\nhealth checks \(1 flag; thresholds: defaults\):\n {2}ppo_kl_first_update: 0 flags \[warning\] \(rule: \|train\/ppo_kl\| > 1e-8 /);
  assert.match(r.stdout, /\n {2}non_finite: 1 flag \[warning\]/);
  assert.equal(r.stdout.split("\n").filter((l) => /^ {2}[a-z_]+: (\d+ flags?|not applicable)/.test(l)).length, 20, "one line per check");
});

test("--data takes the data folder too (as WORKSPACE_DATA does): the same files as from its wandb/ archive", (t) => {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), "export-cli-"));
  t.after(() => fs.rmSync(out, { recursive: true, force: true }));
  const a = runCli(["--data", "data", "--out", path.join(out, "a")]);
  const b = runCli(["--data", "data/wandb", "--out", path.join(out, "b")]);
  assert.equal(a.code, 0, a.stderr);
  assert.equal(b.code, 0, b.stderr);
  assert.match(a.stdout, /^wrote 6 files into .* from data\/wandb\n/);
  for (const f of fs.readdirSync(path.join(out, "b")))
    assert.equal(fs.readFileSync(path.join(out, "a", f), "utf8"), fs.readFileSync(path.join(out, "b", f), "utf8"), f);
});

test("health thresholds from --config (runs.json health object) and HEALTH_* variables; a bad value is an option error", (t) => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "export-cli-health-"));
  t.after(() => fs.rmSync(tmp, { recursive: true, force: true }));
  const config = path.join(tmp, "runs.json");
  fs.writeFileSync(config, JSON.stringify({ entity: "e", project: "p", runs: [], health: { zero_grad_norm_streak: { min_length: 2 } } }));
  const r = runCli(["--data", "data/wandb", "--out", path.join(tmp, "out"), "--config", config]);
  assert.equal(r.code, 0, r.stderr);
  // Updates 140 and 142 are not consecutive, nor 156 and 160: a streak of 2 still finds none.
  assert.match(r.stdout, /thresholds: zero_grad_norm_streak\.min_length = 2 \(runs\.json\)\):\n/);
  assert.match(r.stdout, /zero_grad_norm_streak: 0 flags \[warning\] \(rule: 2 or more consecutive/);
  const bad = spawnSync(process.execPath, ["--import", "tsx", path.join(ROOT, "scripts/export.ts"), "--out", path.join(tmp, "out2")], {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, HEALTH_TRUNCATION_SURGE_MIN_FRACTION: "lots" },
  });
  assert.equal(bad.status, 1);
  assert.equal(bad.stderr, "export failed: invalid HEALTH_TRUNCATION_SURGE_MIN_FRACTION: lots (a number from 0 to 1)\n");
  assert.equal(fs.existsSync(path.join(tmp, "out2")), false, "nothing written");
});

test("a failure exits non-zero with one message and no stack trace", (t) => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "export-cli-bad-"));
  t.after(() => fs.rmSync(tmp, { recursive: true, force: true }));
  fs.cpSync(path.join(ROOT, "data", "wandb"), path.join(tmp, "data"), { recursive: true });
  fs.appendFileSync(path.join(tmp, "data/history/sim-r0-ghfk.jsonl"), " ");
  const r = runCli(["--data", path.join(tmp, "data"), "--out", path.join(tmp, "out")]);
  assert.equal(r.code, 1);
  assert.equal(r.stdout, "");
  assert.match(
    r.stderr,
    /^export failed: refusing to export from .*: .*sim-r0-ghfk\.jsonl: sha256 mismatch \(expected sha256 [0-9a-f]{64}, actual [0-9a-f]{64}\)\n$/,
  );
  assert.ok(!/\n\s+at /.test(r.stderr), "no stack trace");
});

test("option errors read `invalid <option>: <value>` with the usage, exit code 2", () => {
  const r = runCli(["--bogus"]);
  assert.equal(r.code, 2);
  assert.equal(r.stderr.split("\n")[0], "export: invalid option: --bogus");
  const p = runCli(["extra"]);
  assert.equal(p.code, 2);
  assert.equal(p.stderr.split("\n")[0], "export: invalid argument: extra");
  const h = runCli(["--help"]);
  assert.equal(h.code, 0);
  assert.match(h.stdout, /^usage: npm run export/);
});

test("--allow-issues, --n RUN=N and --always-use-train-step RUN=true|false are parsed; bad values read `invalid <option>: <value>`", (t) => {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), "export-cli-opts-"));
  t.after(() => fs.rmSync(out, { recursive: true, force: true }));
  const ok = runCli(["--data", "data/wandb", "--out", out, "--allow-issues", "--n", "sim-r0-ghfk=2", "--always-use-train-step", "sim-r0-ghfk=false"]);
  assert.equal(ok.code, 0, ok.stderr);
  const manifest = JSON.parse(fs.readFileSync(path.join(out, "manifest.json"), "utf8"));
  assert.equal(manifest.builtDespiteIssues, false, "nothing to allow on the sample");
  assert.equal(manifest.axes.runs[0].flagEvidence, "given: rollout/step read as rollout_id");
  for (const [opt, value] of [
    ["--n", "sim-r0-ghfk=0"],
    ["--n", "sim-r0-ghfk"],
    ["--always-use-train-step", "sim-r0-ghfk=yes"],
  ]) {
    const bad = runCli(["--data", "data/wandb", "--out", out, opt, value]);
    assert.equal(bad.code, 2);
    assert.equal(bad.stderr.split("\n")[0], `export: invalid ${opt}: ${value}`);
  }
  // A forced N that contradicts the trainer's row order is refused, not guessed.
  const wrong = runCli(["--data", "data/wandb", "--out", out, "--n", "sim-r1-kf63=3"]);
  assert.equal(wrong.code, 1);
  assert.match(wrong.stderr, /^export failed: N \(updates per rollout batch\) changes within run sim-r1-kf63 \(round R1\)/);
});
