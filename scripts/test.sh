#!/usr/bin/env bash
# The README's test command (`npm test`): set-up, type-check with tslab's own TypeScript 5.0 under
# the options tslab compiles with, lint + format check (Biome), unused exports (knip), then the whole
# node:test suite (unit, protocol, notebooks, browser).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# The official Python client (wandb) and pandas are installed for the protocol tests and the
# benchmark smoke tests only (requirements-wandb.txt, requirements-bench.txt).
# The current official client (wandb 0.31.x, requirements-wandb-current.txt) gets its own venv, and so
# do the TensorBoard tools (tensorboardX, tbparse: the parity test's peer, tools/tensorboard/requirements.txt)
# and the official MCP Python client (the MCP server's independent peer, requirements-mcp.txt).
EXTRA_REQUIREMENTS="requirements-wandb.txt requirements-bench.txt" \
  EXTRA_VENVS=".venv-wandb-current:requirements-wandb-current.txt .venv-tb:tools/tensorboard/requirements.txt .venv-mcp:requirements-mcp.txt" bash scripts/setup.sh
echo "[test] type-check (TypeScript $(node node_modules/@tslab/typescript-for-tslab/bin/tsc --version | cut -d' ' -f2), ES2022, as tslab compiles)"
node node_modules/@tslab/typescript-for-tslab/bin/tsc -p tsconfig.json
# tslab compiles lib/ without strict checks, where union narrowing differs: check that way too.
node node_modules/@tslab/typescript-for-tslab/bin/tsc -p tsconfig.tslab.json
echo "[test] lint and format (Biome; npm run format applies the formatter and safe fixes)"
# Warnings fail too: a rule is on (and the code follows it) or off with its reason in biome.jsonc.
node_modules/.bin/biome ci --colors=off --error-on-warnings . ||
  { echo "[test] Biome found the findings above: npm run format fixes formatting (and safe lint fixes)"; exit 1; }
echo "[test] unused files, exports and dependencies (knip)"
node_modules/.bin/knip --no-progress ||
  { echo "[test] knip found the unused code above: remove it, or say in knip.ts why it stays"; exit 1; }
export TZ=UTC
# shellcheck disable=SC2046
node --import tsx --test --test-concurrency=2 $(find test -name '*.test.ts' | sort) "$@"
