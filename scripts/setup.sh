#!/usr/bin/env bash
# Idempotent set-up, run before `npm start`, `npm test` and `npm run lab`:
#   1. node_modules from package-lock.json (npm ci) when missing or older than the lock;
#   2. a project-local Python venv (.venv) with the pinned Jupyter side (requirements.txt);
#   3. extra venvs named in EXTRA_VENVS (tests and benchmark: the current official W&B client);
#   4. the project-local tslab kernelspec inside that venv (no global install, no IPython);
#   5. the project's JupyterLab settings defaults inside that venv (jupyter/lab-settings-overrides.json);
#   6. the save hook that keeps the source notebooks clean (jupyter/clean_on_save.py) in that venv's server config;
#   7. a headless Chromium for the static figure images (the npm package's, unpacked once; else Debian's).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "[setup] npm ci"
  npm ci --no-audit --no-fund
fi

PY="${PYTHON:-python3}"
[ -x .venv/bin/python ] || { echo "[setup] Python venv .venv"; "$PY" -m venv .venv; }
# One stamp per requirements file, so the test-only extras (EXTRA_REQUIREMENTS) don't make the main
# command reinstall and vice versa.
for REQ in requirements.txt ${EXTRA_REQUIREMENTS:-}; do
  STAMP=".venv/.stamp-$(basename "$REQ").sha256"
  WANT="$(sha256sum "$REQ" | cut -d' ' -f1)"
  if [ "$(cat "$STAMP" 2>/dev/null)" != "$WANT" ]; then
    echo "[setup] pip install -r $REQ into .venv"
    .venv/bin/python -m pip install --quiet --disable-pip-version-check -r "$REQ"
    echo "$WANT" > "$STAMP"
  fi
done

# Further venvs beside .venv, each with one requirements file: EXTRA_VENVS="DIR:REQUIREMENTS ...".
# The tests and the benchmark put the current official client (wandb 0.31, parquet history path) in
# .venv-wandb-current, because .venv keeps wandb 0.21.0 (the paged path, the benchmark's legacy row).
for SPEC in ${EXTRA_VENVS:-}; do
  DIR="${SPEC%%:*}"
  REQ="${SPEC#*:}"
  [ -x "$DIR/bin/python" ] || { echo "[setup] Python venv $DIR"; "$PY" -m venv "$DIR"; }
  STAMP="$DIR/.stamp-$(basename "$REQ").sha256"
  WANT="$(sha256sum "$REQ" | cut -d' ' -f1)"
  if [ "$(cat "$STAMP" 2>/dev/null)" != "$WANT" ]; then
    echo "[setup] pip install -r $REQ into $DIR"
    "$DIR/bin/python" -m pip install --quiet --disable-pip-version-check -r "$REQ"
    echo "$WANT" > "$STAMP"
  fi
done

# The kernel starts in the workspace root so that cells can `import ... from "./lib/..."`:
# tslab compiles with rootDir = its working folder and cannot import ../lib from notebooks/.
# Node preloads scripts/tslab-prebuilt-lib.js: the kernel uses lib/ compiled once for all kernels
# (rebuilt when a lib file changed) instead of compiling it itself. With TSLAB_SNAPSHOT naming a
# startup snapshot (the main command builds one: scripts/tslab-snapshot.js) the kernel starts from it,
# TypeScript loaded and the declarations parsed; without it (JupyterLab), as before.
KDIR=".venv/share/jupyter/kernels/slime-diagnostics-ts"
mkdir -p "$KDIR"
cat > "$KDIR/kernel.json.tmp" <<JSON
{
  "argv": ["/bin/sh", "-c", "cd '$ROOT' && if [ -f \"\${TSLAB_SNAPSHOT:-}\" ]; then exec node --snapshot-blob \"\$TSLAB_SNAPSHOT\" kernel --config-path \"\$0\"; fi; exec node --require '$ROOT/scripts/tslab-prebuilt-lib.js' '$ROOT/node_modules/tslab/bin/tslab' kernel --config-path \"\$0\"", "{connection_file}"],
  "display_name": "TypeScript (slime diagnostics workspace)",
  "language": "typescript",
  "metadata": {"workspace": "$ROOT"}
}
JSON
mv "$KDIR/kernel.json.tmp" "$KDIR/kernel.json"

# The save hook that keeps the source notebooks clean (jupyter/clean_on_save.py): JupyterLab's autosave
# would otherwise write every output of a Run All into notebooks/*.ipynb. Loaded by path from the
# venv's server config (a Python config: jupyter_server cannot take the hook as an import string).
CDIR=".venv/etc/jupyter"
mkdir -p "$CDIR"
cat > "$CDIR/jupyter_server_config.py.tmp" <<PY
# Written by scripts/setup.sh: source notebooks (notebooks/*.ipynb) are saved without outputs.
import importlib.util

_spec = importlib.util.spec_from_file_location("workspace_clean_on_save", "$ROOT/jupyter/clean_on_save.py")
_hook = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_hook)
c.ContentsManager.pre_save_hook = _hook.clean_on_save
PY
mv "$CDIR/jupyter_server_config.py.tmp" "$CDIR/jupyter_server_config.py"

# JupyterLab reads default-setting overrides from <venv>/share/jupyter/lab/settings/overrides.d/*.json
# (the user's own overrides.json there still wins): no "get notified about Jupyter news?" prompt, no
# update check against PyPI.
SDIR=".venv/share/jupyter/lab/settings/overrides.d"
mkdir -p "$SDIR"
cp jupyter/lab-settings-overrides.json "$SDIR/slime-diagnostics-workspace.json.tmp"
mv "$SDIR/slime-diagnostics-workspace.json.tmp" "$SDIR/slime-diagnostics-workspace.json"

# A headless Chromium draws the static figure images (scripts/add-static-figures.ts) and runs the
# browser tests: the project's own, unpacked once from the npm package @sparticuz/chromium that npm ci
# installed (scripts/static-browser.ts; CHROMIUM_PATH names another). Where that one cannot run (not
# Linux x64, or shared libraries missing), Debian's chromium when this is root with apt-get
# (WORKSPACE_APT=0: never); else one line saying so, with the command, and the figures stay interactive.
# Already unpacked (the version installed now) and nothing set otherwise: nothing to start.
PACKAGED="$(sed -n 's/^  "version": "\(.*\)",$/\1/p' node_modules/@sparticuz/chromium/package.json 2>/dev/null)"
if [ -n "$PACKAGED" ] && [ -z "${CHROMIUM_PATH:-}${BUNDLED_CHROMIUM_DIR:-}" ] && [ -x "node_modules/.cache/bundled-chromium-$PACKAGED/chromium" ]; then
  RC=0 BROWSER=""
else
  set +e
  BROWSER="$(node scripts/prebuilt.cjs scripts/static-browser.ts)"
  RC=$?
  set -e
fi
if [ "$RC" -eq 0 ]; then
  [ -z "$BROWSER" ] || echo "$BROWSER"
elif [ "$RC" -eq 3 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null && [ "${WORKSPACE_APT:-1}" != 0 ]; then
  echo "[setup] $BROWSER: installing Debian's chromium for the static figure images (apt-get install -y chromium)"
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } ||
    echo "[setup] apt-get install chromium failed: no static figure images, figures stay interactive-only" >&2
elif [ "$RC" -eq 3 ]; then
  echo "[setup] no static figure images on this machine ($BROWSER): figures stay interactive-only; to draw them: apt-get install -y chromium (as root), or set CHROMIUM_PATH" >&2
else
  exit "$RC"
fi
