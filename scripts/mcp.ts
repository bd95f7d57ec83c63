/**
 * The MCP server over frozen archives, on stdio (docs/agents.md):
 *
 *   npm run --silent mcp -- --data DIR [--data NAME=DIR ...]
 *
 * Answers the handshake at once, then opens every archive once (each file's sha256 checked against
 * its manifest), aligns it and keeps it in memory; tool calls wait for that, then answer the tools of
 * lib/mcp/tools.ts until the client closes stdin. Never fetches,
 * never reads credentials. stdout carries only the protocol: progress and warnings go to stderr.
 */
import { parseArgs } from "node:util";

import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";

import { workspaceVersion } from "../lib/export/workspace-version";
import { ArchiveSet, dataSpecs, mcpServer } from "../lib/mcp/index";
import { cliReporter } from "./cli-reporter";

const USAGE = "usage: npm run --silent mcp -- --data DIR [--data NAME=DIR ...]   (DIR: an archive, or a data folder holding it as wandb/)";

async function main(): Promise<void> {
  let specs: { name: string; dir: string }[];
  try {
    const { values } = parseArgs({ args: process.argv.slice(2), options: { data: { type: "string", multiple: true }, help: { type: "boolean", short: "h" } } });
    if (values.help) {
      process.stderr.write(`${USAGE}\n`);
      return;
    }
    specs = dataSpecs(values.data ?? []);
  } catch (e) {
    process.stderr.write(`mcp: ${(e as Error).message.split("\n")[0]}\n${USAGE}\n`);
    process.exit(2);
  }
  const { reporter } = cliReporter({ tty: false });
  // Connected before the archives are open: hosts time a server's start, and at 10^6 rows opening takes
  // tens of seconds; calls wait for it.
  const opening = ArchiveSet.open(specs, reporter, { prepare: true });
  await mcpServer(opening, workspaceVersion()).connect(new StdioServerTransport());
  try {
    await opening;
    process.stderr.write(`mcp: serving ${specs.map((s) => s.name).join(", ")} on stdio\n`);
  } catch (e) {
    process.stderr.write(`mcp: ${(e as Error).message} (every call is refused with this reason)\n`);
  }
}

main();
