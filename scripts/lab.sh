#!/usr/bin/env bash
# `npm run lab`: JupyterLab from the project venv, rooted at the workspace, with the project kernel
# (slime-diagnostics-ts) and the plotly renderer (the Python plotly package ships the lab extension).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/setup.sh
exec .venv/bin/jupyter lab --ServerApp.root_dir="$ROOT" "$@"
