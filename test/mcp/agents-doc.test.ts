/**
 * docs/agents.md's example conversation is checked against the archive: each `json call` block is
 * sent to the server through the SDK's client, and the `json answer` block after it must be part of
 * the answer (every key it names, with the same value; arrays element for element); every number and
 * sha256 the agent states must appear in an answer block.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, test } from "node:test";

import { answer, type ServerClient, startServer } from "./mcp-client";

const ROOT = path.resolve(__dirname, "../..");
const DOC = fs.readFileSync(path.join(ROOT, "docs/agents.md"), "utf8");
let server: ServerClient;

before(async () => {
  server = await startServer([`sample=${path.join(ROOT, "data")}`]);
});
after(async () => {
  await server?.close();
});

/** The doc's fenced `json call` / `json answer` blocks, in order. */
function blocks(): { kind: "call" | "answer"; json: unknown; text: string }[] {
  return [...DOC.matchAll(/```json (call|answer)\n([\s\S]*?)```/g)].map((m) => ({ kind: m[1] as "call" | "answer", json: JSON.parse(m[2]), text: m[2] }));
}

/** Asserts that `part` is part of `whole`: objects by the keys `part` names, arrays element for element, the rest equal. */
function assertPart(whole: unknown, part: unknown, where: string): void {
  if (Array.isArray(part)) {
    assert.ok(Array.isArray(whole), `${where}: not an array`);
    assert.equal(whole.length, part.length, `${where}: length`);
    part.forEach((p, i) => assertPart(whole[i], p, `${where}[${i}]`));
  } else if (part !== null && typeof part === "object") {
    assert.ok(whole !== null && typeof whole === "object", `${where}: not an object`);
    for (const [k, v] of Object.entries(part)) assertPart((whole as Record<string, unknown>)[k], v, `${where}.${k}`);
  } else assert.equal(whole, part, where);
}

test("every call of the example conversation answers what the doc shows", async () => {
  const list = blocks();
  assert.ok(list.length >= 6, `${list.length} blocks`);
  for (let i = 0; i < list.length; i += 2) {
    assert.equal(list[i].kind, "call");
    assert.equal(list[i + 1]?.kind, "answer", `block ${i + 1} follows a call`);
    const call = list[i].json as { tool: string; arguments: Record<string, unknown> };
    assertPart(await answer(server.client, call.tool, call.arguments), list[i + 1].json, call.tool);
  }
});

test("every number and sha256 the agent states appears in an answer block", () => {
  const answers = blocks()
    .filter((b) => b.kind === "answer")
    .map((b) => b.text)
    .join("\n");
  const known = new Set(answers.match(/-?\d+(?:\.\d+)?(?:e-?\d+)?/g));
  const agent = [...DOC.matchAll(/^> \*\*Agent\*\*: (.*)$/gm)].map((m) => m[1]);
  assert.ok(agent.length >= 2);
  for (const line of agent) {
    for (const sha of line.match(/\b[0-9a-f]{64}\b/g) ?? []) assert.ok(answers.includes(sha), sha);
    // Numbers, leaving out hashes, code spans and names with digits in them (R3, sim-r2-85gs).
    const prose = line
      .replace(/`[^`]*`/g, " ")
      .replace(/\b[0-9a-f]{64}\b/g, " ")
      .replace(/[\w/-]*[A-Za-z][\w/-]*\d[\w/-]*|[\w/-]*\d[\w/-]*[A-Za-z][\w/-]*/g, " ");
    for (const n of prose.match(/\d+(?:\.\d+)?/g) ?? []) assert.ok(known.has(n), `the agent's ${n} is in no answer: ${line}`);
  }
});
