/**
 * Tiny HTTP helpers for the test-server tests (node:http, so partial bodies and resets are visible).
 */
import http from "node:http";

/** Outcome of one raw POST: `error` set when the connection failed before or during the body. */
export interface RawResponse {
  status: number | null;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** The body arrived completely (as many bytes as Content-Length promised). */
  complete: boolean;
  error: string | null;
}

/** Basic auth header value for a W&B API key. */
export function basicAuth(apiKey: string): string {
  return `Basic ${Buffer.from(`api:${apiKey}`).toString("base64")}`;
}

/** POSTs JSON to `${base}${path}`; never throws (connection errors land in `error`). */
export function rawPost(base: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<RawResponse> {
  return new Promise((resolve) => {
    const data = Buffer.from(typeof body === "string" ? body : JSON.stringify(body));
    const out: RawResponse = { status: null, headers: {}, body: "", complete: false, error: null };
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = () => {
      if (settled) return;
      settled = true;
      out.body = Buffer.concat(chunks).toString("utf8");
      const expected = out.headers["content-length"];
      out.complete = out.error === null && (expected === undefined || Number(expected) === Buffer.concat(chunks).length);
      resolve(out);
    };
    const req = http.request(
      `${base}${path}`,
      { method: "POST", headers: { "Content-Type": "application/json", "Content-Length": String(data.length), ...headers }, agent: false },
      (res) => {
        out.status = res.statusCode ?? null;
        out.headers = res.headers;
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", finish);
        res.on("aborted", () => (out.error = out.error ?? "aborted"));
        res.on("error", (e) => {
          out.error = out.error ?? e.message;
          finish();
        });
        res.on("close", finish);
      },
    );
    req.on("error", (e) => {
      out.error = out.error ?? e.message;
      finish();
    });
    req.end(data);
  });
}

/** POSTs a GraphQL request with the given key (null = no Authorization header) and parses the JSON answer. */
export async function graphql(
  base: string,
  apiKey: string | null,
  query: string,
  variables: Record<string, unknown> = {},
  operationName?: string,
): Promise<{ status: number | null; headers: http.IncomingHttpHeaders; json: any }> {
  const body: Record<string, unknown> = { query, variables };
  if (operationName !== undefined) body.operationName = operationName;
  const res = await rawPost(base, "/graphql", body, apiKey === null ? {} : { Authorization: basicAuth(apiKey) });
  if (res.error) throw new Error(`graphql request failed: ${res.error}`);
  return { status: res.status, headers: res.headers, json: res.body ? JSON.parse(res.body) : null };
}

/** The HistoryPage query exactly as the official Python client (wandb 0.21.0) sends it. */
export const HISTORY_PAGE_QUERY = `
query HistoryPage($entity: String!, $project: String!, $run: String!, $minStep: Int64!, $maxStep: Int64!, $pageSize: Int!) {
  project(name: $project, entityName: $entity) {
    run(name: $run) {
      history(minStep: $minStep, maxStep: $maxStep, samples: $pageSize)
    }
  }
}`;

/** The reader's Run metadata query (docs/wandb-protocol.md). */
export const RUN_QUERY = `
query Run($project: String!, $entity: String!, $name: String!) {
  project(name: $project, entityName: $entity) {
    run(name: $name) {
      id name displayName state createdAt heartbeatAt historyLineCount historyKeys
      tags group jobType sweepName config summaryMetrics
    }
  }
}`;
