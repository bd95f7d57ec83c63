/**
 * The MCP server's answers from the shell, for scripts and agents without MCP (docs/agents.md):
 *
 *   npm run --silent query -- <tool> --data DIR [--data NAME=DIR ...] [options] [--json]
 *
 * Tools and options (each tool input as --kebab-case; lists comma-separated):
 *   runs      [--archive NAME]
 *   concepts  [--framework NAME | --archive NAME]
 *   summary   [--archive NAME] [--columns A,B] [--rounds R0,all] [--axis update --bin-width 100]
 *   history   [--archive NAME] --run ID [--keys A,B] [--from-step N] [--to-step N] [--limit N] [--cursor C]
 *   health    [--archive NAME] [--check NAME] [--round R] [--flagged-only]
 *   compare   --arm NAME=ARCHIVE[,ARCHIVE...] ... [--reference ARCHIVE] [--seed N] [--resamples N] [--axis A --bin-width W]
 * With --json the answer (or {"refusal": ...}) as the MCP server sends it; without, a short table.
 * Exit 0 answered, 1 refused, 2 option error.
 */
import { parseArgs } from "node:util";

import { z } from "zod";

import { answerText, ArchiveSet, callTool, dataSpecs, TOOLS, type ToolDef, toolByName } from "../lib/mcp/index";
import { cliReporter } from "./cli-reporter";

const USAGE = `usage: npm run --silent query -- <${TOOLS.map((t) => t.name).join("|")}> --data DIR [--data NAME=DIR ...] [options] [--json] (see scripts/query.ts)`;

/** An option error: printed with the usage, exit code 2. */
class UsageError extends Error {}

const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** The JSON-schema type of each input of a tool ("array", "number", "integer", "boolean", "string"). */
function inputTypes(tool: ToolDef): Record<string, string> {
  const schema = z.toJSONSchema(z.object(tool.input), { io: "input" }) as { properties: Record<string, { type?: string }> };
  const out: Record<string, string> = {};
  for (const [name, p] of Object.entries(schema.properties)) out[name] = p.type ?? "string";
  return out;
}

/** `--arm NAME=A,B`: an arm of archive names. */
function armOf(option: string): { name: string; archives: string[] } {
  const m = /^([^=]+)=(.+)$/.exec(option);
  if (!m) throw new UsageError(`invalid --arm: ${option} (NAME=ARCHIVE[,ARCHIVE...])`);
  return { name: m[1], archives: m[2].split(",") };
}

/** The tool's input from its options, typed as its schema says. */
function toolInput(tool: ToolDef, values: Record<string, unknown>): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const [name, type] of Object.entries(inputTypes(tool))) {
    const v = name === "arms" ? values.arm : values[kebab(name)];
    if (v === undefined) continue;
    if (name === "arms") input.arms = (v as string[]).map(armOf);
    else if (type === "array") input[name] = String(v).split(",");
    else if (type === "number" || type === "integer") input[name] = Number(v);
    else input[name] = v;
  }
  const parsed = z.object(tool.input).strict().safeParse(input);
  if (!parsed.success) throw new UsageError(`invalid options for ${tool.name}: ${z.prettifyError(parsed.error).replace(/\n/g, " ")}`);
  return parsed.data;
}

/** The command line: tool, archives, the tool's input, --json. */
function parseCli(argv: string[]): { tool: ToolDef; data: { name: string; dir: string }[]; input: Record<string, unknown>; json: boolean } {
  const tool = toolByName(argv[0] ?? "");
  if (tool === undefined) throw new UsageError(`invalid tool: ${JSON.stringify(argv[0] ?? "")}`);
  const options: Record<string, { type: "string" | "boolean"; multiple?: boolean }> = { data: { type: "string", multiple: true }, json: { type: "boolean" } };
  for (const [name, type] of Object.entries(inputTypes(tool))) {
    if (name === "arms") options.arm = { type: "string", multiple: true };
    else options[kebab(name)] = { type: type === "boolean" ? "boolean" : "string" };
  }
  let values: Record<string, unknown>;
  try {
    values = parseArgs({ args: argv.slice(1), options, strict: true, allowPositionals: false }).values;
  } catch (e) {
    throw new UsageError((e as Error).message.split("\n")[0]);
  }
  const { data, json, ...rest } = values;
  try {
    return { tool, data: dataSpecs((data as string[] | undefined) ?? []), input: toolInput(tool, rest), json: json === true };
  } catch (e) {
    throw e instanceof UsageError ? e : new UsageError((e as Error).message);
  }
}

async function main(): Promise<number> {
  let cli: ReturnType<typeof parseCli>;
  try {
    cli = parseCli(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`query: ${(e as Error).message}\n${USAGE}\n`);
    return 2;
  }
  let set: ArchiveSet;
  try {
    set = await ArchiveSet.open(cli.data, cliReporter({ tty: false }).reporter);
  } catch (e) {
    process.stderr.write(`query: ${(e as Error).message}\n`);
    return 1;
  }
  const outcome = callTool(set, cli.tool, cli.input);
  if (cli.json) process.stdout.write(`${JSON.stringify("answer" in outcome ? outcome.answer : outcome)}\n`);
  else if ("answer" in outcome) process.stdout.write(`${answerText(cli.tool.name, outcome.answer)}\n`);
  else process.stderr.write(`query: refused (${outcome.refusal.code}): ${outcome.refusal.reason}\n`);
  return "answer" in outcome ? 0 : 1;
}

main().then((code) => process.exit(code));
