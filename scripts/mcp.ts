/**
 * The MCP server over frozen archives, on stdio (docs/agents.md):
 *
 *   npm run --silent mcp -- --data DIR [--data NAME=DIR ...]
 *
 * Opens every archive once (each file's sha256 checked against its manifest), aligns it and keeps it
 * in memory, then answers the tools of lib/mcp/tools.ts until the client closes stdin. Never fetches,
 * never reads credentials. stdout carries only the protocol: progress and warnings go to stderr.
 */
import { parseArgs } from "node:util";

import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";

import { workspaceVersion } from "../lib/export/workspace-version";
import { mcpServer } from "../lib/mcp/mcp-server";
import { ArchiveSet, dataSpecs } from "../lib/mcp/served-archive";
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
  let set: ArchiveSet;
  try {
    set = await ArchiveSet.open(specs, reporter, { prepare: true });
  } catch (e) {
    process.stderr.write(`mcp: ${(e as Error).message}\n`);
    process.exit(1);
  }
  await mcpServer(set, workspaceVersion()).connect(new StdioServerTransport());
  process.stderr.write(`mcp: serving ${specs.map((s) => s.name).join(", ")} on stdio\n`);
}

main();
