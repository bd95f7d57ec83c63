/**
 * The MCP server as a real client sees it: the official SDK's Client spawns `scripts/mcp.ts` over
 * stdio (StdioClientTransport) with the archives given, and calls tools; answers come back as the
 * structured content, refusals as the JSON of the tool error's text.
 */
import * as path from "node:path";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const ROOT = path.resolve(__dirname, "../..");

/** A connected client and how to end it (the server exits when its stdin closes). */
export interface ServerClient {
  client: Client;
  /** The server's stderr so far (progress, warnings). */
  stderr(): string;
  close(): Promise<void>;
}

/** Spawns the server with `--data` options and connects the SDK's client to it. */
export async function startServer(data: readonly string[]): Promise<ServerClient> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ["--import", "tsx", path.join(ROOT, "scripts/mcp.ts"), ...data.flatMap((d) => ["--data", d])],
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", TZ: "UTC" },
    stderr: "pipe",
  });
  let err = "";
  transport.stderr?.on("data", (b: Buffer) => {
    err += b.toString("utf8");
  });
  const client = new Client({ name: "rl-run-diagnostics-test", version: "0.0.0" });
  await client.connect(transport);
  return { client, stderr: () => err, close: () => client.close() };
}

/** A tool's structured answer; throws with the refusal's text when the tool refused. */
export async function answer<T = Record<string, unknown>>(client: Client, name: string, args: Record<string, unknown> = {}): Promise<T> {
  const r = await client.callTool({ name, arguments: args });
  if (r.isError) throw new Error(`${name} refused: ${JSON.stringify(r.content)}`);
  return r.structuredContent as T;
}

/** A tool's refusal (the parsed JSON of the error's text); throws when the tool answered. */
export async function refusal(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<{ tool: string; code: string; reason: string; manifestSha256: string | null }> {
  const r = await client.callTool({ name, arguments: args });
  if (!r.isError) throw new Error(`${name} answered: ${JSON.stringify(r.structuredContent).slice(0, 200)}`);
  const text = (r.content as { type: string; text: string }[])[0].text;
  return (JSON.parse(text) as { refusal: { tool: string; code: string; reason: string; manifestSha256: string | null } }).refusal;
}
