import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, test } from "node:test";

import { netrcApiKey, parseNetrc, resolveApiKey, resolveBaseUrl, resolveNetrcPath } from "../../lib/wandb/credentials";
import { WandbError } from "../../lib/wandb/wandb-error";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "wandb-cred-"));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

test("base URL: option, then WANDB_BASE_URL, then api.wandb.ai; trailing slashes stripped", () => {
  assert.equal(resolveBaseUrl(undefined, {}), "https://api.wandb.ai");
  assert.equal(resolveBaseUrl(undefined, { WANDB_BASE_URL: "http://127.0.0.1:8080//" }), "http://127.0.0.1:8080");
  assert.equal(resolveBaseUrl("https://wandb.example.com/", { WANDB_BASE_URL: "http://x" }), "https://wandb.example.com");
  assert.throws(() => resolveBaseUrl("not a url", {}), /^Error: invalid baseUrl: not a url$/);
  assert.throws(() => resolveBaseUrl("ftp://x", {}), /^Error: invalid baseUrl: ftp:\/\/x$/);
});

test("netrc parsing: one-line and multi-line entries, comments, quotes, macdef, default", () => {
  const text = [
    "# comment line",
    "machine api.wandb.ai login user password k1",
    "machine 127.0.0.1:8080",
    "  login user",
    '  password "k 2"  # trailing comment',
    "macdef init",
    "cd /pub",
    "machine in-macro password NOT",
    "",
    "default login anon password k3",
  ].join("\n");
  assert.deepEqual(parseNetrc(text), [
    { machine: "api.wandb.ai", login: "user", password: "k1", account: null },
    { machine: "127.0.0.1:8080", login: "user", password: "k 2", account: null },
    { machine: null, login: "anon", password: "k3", account: null },
  ]);
});

test("netrc key: host:port first, then host, then default", () => {
  const text = "machine localhost password bare\nmachine localhost:9000 password withport\ndefault password fallback";
  assert.equal(netrcApiKey(text, "http://localhost:9000"), "withport");
  assert.equal(netrcApiKey(text, "http://localhost:7000"), "bare");
  assert.equal(netrcApiKey(text, "https://api.wandb.ai"), "fallback");
  assert.equal(netrcApiKey("machine other password x", "https://api.wandb.ai"), null);
});

test("API key order: option, WANDB_API_KEY, netrc (NETRC env or path option)", () => {
  const netrc = path.join(tmp, "netrc");
  fs.writeFileSync(netrc, "machine api.wandb.ai login user password from-netrc\n");
  const baseUrl = "https://api.wandb.ai";
  assert.equal(resolveApiKey({ apiKey: "explicit", baseUrl, env: { WANDB_API_KEY: "env" }, netrcPath: netrc }), "explicit");
  assert.equal(resolveApiKey({ baseUrl, env: { WANDB_API_KEY: "env", NETRC: netrc } }), "env", "env wins over netrc");
  assert.equal(resolveApiKey({ baseUrl, env: { NETRC: netrc } }), "from-netrc");
  assert.equal(resolveApiKey({ baseUrl, env: {}, netrcPath: netrc }), "from-netrc");
  assert.equal(resolveNetrcPath(undefined, {}), path.join(os.homedir(), ".netrc"));
});

test("no key anywhere: a WandbError saying where it looked", () => {
  const missing = path.join(tmp, "no-such-netrc");
  assert.throws(
    () => resolveApiKey({ baseUrl: "http://127.0.0.1:1234", env: {}, netrcPath: missing }),
    (e: unknown) =>
      e instanceof WandbError &&
      e.operation === "credentials" &&
      e.message ===
        `W&B credentials failed: no API key for 127.0.0.1:1234: pass apiKey, set WANDB_API_KEY, or add "machine 127.0.0.1:1234 login user password <key>" to ${missing}`,
  );
});
