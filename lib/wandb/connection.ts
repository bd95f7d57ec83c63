/**
 * A resolved connection to a W&B server: base URL, key, retry policy, reporter. Options are
 * resolved here once; the request code trusts them.
 */
import type { Reporter } from "../types";
import { resolveApiKey, resolveBaseUrl } from "./credentials";
import { resolveReaderLimits, type ReaderLimits } from "./reader-limits";
import { resolveRetryPolicy, type RetryPolicy } from "./retry-policy";

/** Options every reader entry point accepts. */
export interface WandbReaderOptions {
  /** Server, default `WANDB_BASE_URL` or https://api.wandb.ai. */
  baseUrl?: string;
  /** API key, default `WANDB_API_KEY` or the netrc entry of the base URL's host. */
  apiKey?: string;
  /** Netrc file, default `NETRC` or ~/.netrc. */
  netrcPath?: string;
  /** Overrides of the official retry policy (tests: tiny waits, recording sleep). */
  retry?: Partial<RetryPolicy>;
  /** Overrides of the input limits (response bytes, row size, distinct keys per run). */
  limits?: Partial<ReaderLimits>;
  /** Receives retry notes (info) and progress. */
  reporter?: Reporter;
  /** Environment to read WANDB_* and NETRC from (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** fetch implementation (default the global one). */
  fetch?: typeof fetch;
}

/** A resolved connection. */
export interface WandbConnection {
  baseUrl: string;
  apiKey: string;
  policy: RetryPolicy;
  limits: ReaderLimits;
  reporter: Reporter;
  fetch: typeof fetch;
}

/** Resolves base URL, API key, retry policy and limits; throws before any request when one is missing. */
export function connectWandb(opts: WandbReaderOptions = {}): WandbConnection {
  const env = opts.env ?? process.env;
  const baseUrl = resolveBaseUrl(opts.baseUrl, env);
  const apiKey = resolveApiKey({ apiKey: opts.apiKey, baseUrl, netrcPath: opts.netrcPath, env });
  return {
    baseUrl,
    apiKey,
    policy: resolveRetryPolicy(opts.retry),
    limits: resolveReaderLimits(opts.limits),
    reporter: opts.reporter ?? {},
    fetch: opts.fetch ?? fetch,
  };
}
