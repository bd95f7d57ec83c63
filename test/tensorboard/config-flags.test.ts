/**
 * Flags of TensorBoard runs: the hparams plugin's session start (tensorboardX / PyTorch add_hparams)
 * and TRL's `args` text summary (transformers' TensorBoardCallback) are read in memory for the
 * declared flags; nothing else of them reaches a file; a log without either keeps its flags unknown.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, test } from "node:test";

import { fetchAndFreeze } from "../../lib/archive/fetch-and-freeze";
import { filesText } from "../archive/written-text";

const TB = path.resolve(__dirname, "../fixtures/tensorboard");
const TRL = path.resolve(__dirname, "../fixtures/real-runs/trl/grpo-bnpo-noscale");
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "tb-flags-"));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));
let n = 0;

async function freeze(sel: { tensorboard?: string; file?: string }, runId = "r") {
  const outDir = path.join(tmp, `a${n++}`);
  const manifest = await fetchAndFreeze({ entity: "", project: "", runs: [{ runId, round: "R0", ...sel }], outDir, env: {} });
  return { run: manifest.runs[0], written: filesText(outDir).join("\n") };
}

const values = (flags: Record<string, { value: unknown }> | undefined) => Object.fromEntries(Object.entries(flags ?? {}).map(([k, f]) => [k, f.value]));

test("hparams: the declared flags of add_hparams' session start, as the maker passed them; its undeclared path is in no file", async () => {
  const expected = JSON.parse(fs.readFileSync(path.join(TB, "hparams", "expected.json"), "utf8")).hparams;
  const { run, written } = await freeze({ tensorboard: path.join(TB, "hparams") });
  assert.deepEqual(values(run.flags), {
    advantage_estimator: expected.advantage_estimator,
    kl_coef: expected.kl_coef,
    n_samples_per_prompt: expected.n_samples_per_prompt,
    use_rollout_logprobs: expected.use_rollout_logprobs,
  });
  assert.ok(Object.values(run.flags!).every((f) => f.source === "config"));
  assert.ok(!written.includes(expected.save) && !written.includes('"save"'), "the undeclared entry reaches no file");
});

test("a log without hparams or a config text keeps its flags unknown (no flags field), though it holds another text summary", async () => {
  const { run } = await freeze({ tensorboard: path.join(TB, "tensorboardx-plain") });
  assert.equal(run.flags, undefined);
});

test("TRL's TensorBoard log: the args text gives the same flags as the same run's .wandb config", {
  skip: fs.existsSync(TRL) ? false : "TRL real-run fixture absent",
}, async () => {
  const tb = await freeze({ tensorboard: path.join(TRL, "R0-0-events.out.tfevents") });
  const wandbFile = fs.readdirSync(TRL).find((f) => f.endsWith(".wandb"))!;
  const wb = await freeze({ file: path.join(TRL, wandbFile) }, /run-(\w+)\.wandb$/.exec(wandbFile)![1]);
  assert.ok(Object.keys(tb.run.flags ?? {}).length >= 5, "the args text holds the GRPOConfig's flags");
  assert.deepEqual(tb.run.flags, wb.run.flags);
  assert.ok(!tb.written.includes("output_dir") && !tb.written.includes("/tmp/trl-model-"), "nothing else of the args reaches a file");
});
