/**
 * The MCP server over the archives of an ArchiveSet, on the official TypeScript SDK: each tool of
 * tools.ts registered with its input and output schemas, read-only. An answer travels as structured
 * content (and as its JSON text, for hosts that show only text); a refusal as a tool error whose
 * text is the refusal's JSON (code, reason, manifest), so a client never mistakes it for an empty answer.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

import { type RefusalBody, refusalBody } from "./refusal";
import type { ArchiveSet } from "./served-archive";
import { TOOLS, type ToolDef } from "./tools";

/** The server's name as hosts show it. */
export const SERVER_NAME = "rl-run-diagnostics";

/** A tool's answer, or its refusal. */
export type ToolOutcome = { answer: object } | RefusalBody;

/** Answers one call (input already validated against the tool's schema). */
export function callTool(set: ArchiveSet, tool: ToolDef, input: Record<string, unknown>): ToolOutcome {
  try {
    return { answer: tool.answer(set, input) };
  } catch (e) {
    return refusalBody(tool.name, e);
  }
}

/** Answers longer than this travel as structured content only, with a short text saying so. */
const TEXT_COPY_CHARS = 2 ** 20;

/**
 * An outcome as MCP's tool result. The answer's JSON is also sent as text (the spec's advice, for
 * hosts that read only text) unless it is long: a copy would double a message that clients buffer
 * whole (the official SDK's at most 10 MiB).
 */
function toolResult(outcome: ToolOutcome): CallToolResult {
  if ("refusal" in outcome) return { isError: true, content: [{ type: "text", text: JSON.stringify(outcome) }] };
  const json = JSON.stringify(outcome.answer);
  const text = json.length <= TEXT_COPY_CHARS ? json : `${json.length} characters of JSON: read the structured content (a shorter page: a smaller limit)`;
  return { structuredContent: outcome.answer as Record<string, unknown>, content: [{ type: "text", text }] };
}

/**
 * The server (not yet connected to a transport). `archives` may still be opening: the server answers
 * the handshake and lists its tools at once (hosts time a server's start), and a call waits for the
 * archives; when they could not be opened, every call is refused with the reason.
 * @example await mcpServer(ArchiveSet.open([{ name: "data", dir: "data" }]), "0.1.0").connect(new StdioServerTransport());
 */
export function mcpServer(archives: ArchiveSet | Promise<ArchiveSet>, version: string): McpServer {
  const server = new McpServer(
    { name: SERVER_NAME, version },
    {
      instructions:
        "Exact answers from frozen RL training archives: never sampled; every answer carries the archive's manifest sha256 (cite it). Start with runs; summary equals summary.csv; history pages the frozen rows with a cursor; a refusal is a tool error naming its reason.",
    },
  );
  for (const tool of TOOLS) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.input,
        outputSchema: tool.output,
        annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
      },
      async (args: Record<string, unknown>) => {
        let set: ArchiveSet;
        try {
          set = await archives;
        } catch (e) {
          return toolResult(refusalBody(tool.name, e));
        }
        return toolResult(callTool(set, tool, args));
      },
    );
  }
  return server;
}
