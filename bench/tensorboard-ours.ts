/**
 * One side of the TensorBoard read benchmark (bench/tensorboard-bench.ts): reads a run's event files
 * into rows as `npm run fetch -- --tensorboard` does before freezing, and prints
 * `{"seconds", "scalars", "rows"}` (seconds in-process, from before the read to after it).
 */
import { readTensorboardRun } from "../lib/tensorboard/read-tensorboard-run";

async function main(): Promise<void> {
  const start = process.hrtime.bigint();
  const run = await readTensorboardRun(process.argv[2]);
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  process.stdout.write(`${JSON.stringify({ seconds, scalars: run.scalarValues, rows: run.rows.length })}\n`);
}

main().catch((e) => {
  process.stderr.write(`${(e as Error).message}\n`);
  process.exit(1);
});
