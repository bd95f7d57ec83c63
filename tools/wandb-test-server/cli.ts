/**
 * Starts the W&B test server from the command line:
 *   npx tsx tools/wandb-test-server/cli.ts --port 0 [--api-key K] [--host 127.0.0.1]
 * Prints one line `WANDB_BASE_URL=http://127.0.0.1:PORT` and serves until SIGINT/SIGTERM.
 */
import { parseArgs } from "node:util";
import { startWandbTestServer } from "./server";

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: "string", default: "0" },
      "api-key": { type: "string" },
      host: { type: "string", default: "127.0.0.1" },
    },
    strict: true,
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`invalid --port: ${values.port}`);
  const server = await startWandbTestServer({ port, host: values.host, apiKey: values["api-key"] });
  process.stdout.write(`WANDB_BASE_URL=${server.url}\n`);
  const stop = () => {
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

main().catch((e: Error) => {
  process.stderr.write(`${e.message}\n`);
  process.exit(2);
});
