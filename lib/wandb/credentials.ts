/**
 * Base URL and API key lookup, in the official client's order: explicit option, then
 * `WANDB_API_KEY`, then the netrc entry of the base URL's host. A short hand-written netrc parser:
 * the npm ones are either untyped and unmaintained (`netrc`) or pull in execa/debug for gpg support
 * we do not want (`netrc-parser`).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

import { WandbError } from "./wandb-error";

/** Default W&B server. */
export const DEFAULT_BASE_URL = "https://api.wandb.ai";

/** Base URL: option, else `WANDB_BASE_URL`, else api.wandb.ai; trailing slashes stripped. */
export function resolveBaseUrl(option?: string, env: NodeJS.ProcessEnv = process.env): string {
  const raw = option ?? (env.WANDB_BASE_URL ? env.WANDB_BASE_URL : DEFAULT_BASE_URL);
  const trimmed = raw.trim().replace(/\/+$/, "");
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    throw new Error(`invalid baseUrl: ${raw}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error(`invalid baseUrl: ${raw}`);
  return trimmed;
}

/** One `machine` (or `default`) entry of a netrc file. */
export interface NetrcEntry {
  /** Host name, or null for the `default` entry. */
  machine: string | null;
  login: string | null;
  password: string | null;
  account: string | null;
}

/**
 * Parses netrc text: whitespace-separated tokens, double-quoted tokens with backslash escapes,
 * `#` comments at a token start, `macdef` bodies skipped up to the next empty line.
 */
export function parseNetrc(text: string): NetrcEntry[] {
  const entries: NetrcEntry[] = [];
  let current: NetrcEntry | null = null;
  let i = 0;
  const n = text.length;
  const nextToken = (): string | null => {
    for (;;) {
      while (i < n && /\s/.test(text[i])) i++;
      if (i >= n) return null;
      if (text[i] === "#") {
        while (i < n && text[i] !== "\n") i++;
        continue;
      }
      break;
    }
    let token = "";
    if (text[i] === '"') {
      i++;
      while (i < n && text[i] !== '"') {
        if (text[i] === "\\" && i + 1 < n) i++;
        token += text[i++];
      }
      i++; // closing quote
      return token;
    }
    while (i < n && !/\s/.test(text[i])) {
      if (text[i] === "\\" && i + 1 < n) i++;
      token += text[i++];
    }
    return token;
  };
  for (let token = nextToken(); token !== null; token = nextToken()) {
    if (token === "machine" || token === "default") {
      current = { machine: token === "machine" ? nextToken() : null, login: null, password: null, account: null };
      entries.push(current);
    } else if (token === "macdef") {
      nextToken(); // macro name; its body runs to the first empty line
      const end = text.indexOf("\n\n", i);
      i = end < 0 ? n : end + 2;
      current = null;
    } else if (current && (token === "login" || token === "password" || token === "account")) {
      current[token] = nextToken();
    }
  }
  return entries;
}

/** Netrc path: option, else `NETRC`, else ~/.netrc. */
export function resolveNetrcPath(option?: string, env: NodeJS.ProcessEnv = process.env): string {
  return option ?? env.NETRC ?? path.join(os.homedir(), ".netrc");
}

/** Netrc password for the base URL's host (`host:port` first, then the bare host, then `default`), or null. */
export function netrcApiKey(netrcText: string, baseUrl: string): string | null {
  const url = new URL(baseUrl);
  const entries = parseNetrc(netrcText);
  const pick = (e: NetrcEntry | undefined) => (e?.password ? e.password : null);
  return (
    pick(entries.find((e) => e.machine === url.host)) ?? pick(entries.find((e) => e.machine === url.hostname)) ?? pick(entries.find((e) => e.machine === null))
  );
}

/** Where the API key comes from. */
export interface ApiKeyOptions {
  apiKey?: string;
  baseUrl: string;
  netrcPath?: string;
  env?: NodeJS.ProcessEnv;
}

/** API key: option, else `WANDB_API_KEY`, else netrc; throws a `WandbError` naming the places looked at. */
export function resolveApiKey(opts: ApiKeyOptions): string {
  const env = opts.env ?? process.env;
  if (opts.apiKey) return opts.apiKey;
  if (env.WANDB_API_KEY) return env.WANDB_API_KEY;
  const netrcPath = resolveNetrcPath(opts.netrcPath, env);
  let text: string | null = null;
  try {
    text = fs.readFileSync(netrcPath, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") {
      throw new WandbError({ operation: "credentials", detail: `cannot read netrc file ${netrcPath}`, cause: e });
    }
  }
  const key = text === null ? null : netrcApiKey(text, opts.baseUrl);
  if (key) return key;
  const host = new URL(opts.baseUrl).host;
  throw new WandbError({
    operation: "credentials",
    detail: `no API key for ${host}: pass apiKey, set WANDB_API_KEY, or add "machine ${host} login user password <key>" to ${netrcPath}`,
  });
}
