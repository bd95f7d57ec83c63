// The root decision of `npm run lab` (scripts/lab-root.sh, sourced by scripts/lab.sh), run in bash
// with a fake `id` first on PATH: root gets --allow-root and one line saying so, nobody else gets
// anything, and a user's own --allow-root is not doubled. The browser test runs the real command.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = join(__dirname, "..", "..");

/** lab_root_args run with `id -u` answering `uid`: its stdout and stderr. */
function decide(uid: number, args: string[]): { stdout: string; stderr: string } {
  const bin = mkdtempSync(join(tmpdir(), "fake-id-"));
  try {
    writeFileSync(join(bin, "id"), `#!/bin/sh\n[ "$1" = -u ] && echo ${uid}\n`);
    chmodSync(join(bin, "id"), 0o755);
    const r = spawnSync("bash", ["-c", 'source scripts/lab-root.sh && lab_root_args "$@"', "lab-root", ...args], {
      cwd: ROOT,
      encoding: "utf8",
      env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
    });
    assert.equal(r.status, 0, r.stderr);
    return { stdout: r.stdout, stderr: r.stderr };
  } finally {
    rmSync(bin, { recursive: true, force: true });
  }
}

test("as root (uid 0), --allow-root is added and one line says so", () => {
  assert.deepEqual(decide(0, ["--no-browser", "--port=8888"]), {
    stdout: "--allow-root\n",
    stderr: "[lab] running as root: passing --allow-root to JupyterLab\n",
  });
});

test("as a normal user, nothing is added and nothing is said", () => {
  assert.deepEqual(decide(1000, ["--no-browser"]), { stdout: "", stderr: "" });
  assert.deepEqual(decide(1000, []), { stdout: "", stderr: "" });
});

test("as root with --allow-root already given, it is not added twice", () => {
  assert.deepEqual(decide(0, ["--allow-root", "--no-browser"]), { stdout: "", stderr: "" });
});

test("scripts/lab.sh passes the decision to jupyter lab, before the user's own arguments", () => {
  const lab = readFileSync(join(ROOT, "scripts", "lab.sh"), "utf8");
  assert.match(lab, /^source scripts\/lab-root\.sh$/m);
  assert.match(lab, /^exec \.venv\/bin\/jupyter lab .*\$ROOT_ARGS "\$@"$/m);
});
