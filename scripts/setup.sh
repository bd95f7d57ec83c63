#!/usr/bin/env bash
# Idempotent set-up, run before `npm start`, `npm test` and `npm run lab`:
#   1. node_modules from package-lock.json (npm ci) when missing or older than the lock;
#   2. a project-local Python venv (.venv) with the pinned Jupyter side (requirements.txt);
#   3. the project-local tslab kernelspec inside that venv (no global install, no IPython).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "[setup] npm ci"
  npm ci --no-audit --no-fund
fi

PY="${PYTHON:-python3}"
STAMP=".venv/.requirements.sha256"
WANT="$(cat requirements.txt ${EXTRA_REQUIREMENTS:-} | sha256sum | cut -d' ' -f1)"
if [ ! -x .venv/bin/python ] || [ "$(cat "$STAMP" 2>/dev/null)" != "$WANT" ]; then
  echo "[setup] Python venv .venv (requirements.txt ${EXTRA_REQUIREMENTS:-})"
  [ -x .venv/bin/python ] || "$PY" -m venv .venv
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -r requirements.txt ${EXTRA_REQUIREMENTS:+-r $EXTRA_REQUIREMENTS}
  echo "$WANT" > "$STAMP"
fi

# The kernel starts in the workspace root so that cells can `import ... from "./lib/..."`:
# tslab compiles with rootDir = its working folder and cannot import ../lib from notebooks/.
KDIR=".venv/share/jupyter/kernels/slime-diagnostics-ts"
mkdir -p "$KDIR"
cat > "$KDIR/kernel.json.tmp" <<JSON
{
  "argv": ["/bin/sh", "-c", "cd '$ROOT' && exec '$ROOT/node_modules/.bin/tslab' kernel --config-path \"\$0\"", "{connection_file}"],
  "display_name": "TypeScript (slime diagnostics workspace)",
  "language": "typescript",
  "metadata": {"workspace": "$ROOT"}
}
JSON
mv "$KDIR/kernel.json.tmp" "$KDIR/kernel.json"
