#!/usr/bin/env bash
# `npm run lab`: JupyterLab from the project venv, rooted at the workspace, with the project kernel
# (slime-diagnostics-ts), the plotly renderer (the Python plotly package ships the lab extension) and
# the project's lab settings (jupyter/lab-settings-overrides.json: no news or update prompt), all set
# up by scripts/setup.sh. As root it adds --allow-root (scripts/lab-root.sh) and says so.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/setup.sh
# shellcheck source=scripts/lab-root.sh
source scripts/lab-root.sh
ROOT_ARGS="$(lab_root_args "$@")"
# shellcheck disable=SC2086 # ROOT_ARGS is empty or one word
exec .venv/bin/jupyter lab --ServerApp.root_dir="$ROOT" $ROOT_ARGS "$@"
