#!/usr/bin/env bash
# The README's test command (`npm test`): set-up, type-check with tslab's own TypeScript 5.0 under
# the options tslab compiles with, then the whole node:test suite (unit, protocol, notebooks, browser).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# The official Python client (wandb) and pandas are installed for the protocol tests and the
# benchmark smoke tests only (requirements-wandb.txt, requirements-bench.txt).
# The current official client (wandb 0.31.x, requirements-wandb-current.txt) gets its own venv.
EXTRA_REQUIREMENTS="requirements-wandb.txt requirements-bench.txt" \
  EXTRA_VENVS=".venv-wandb-current:requirements-wandb-current.txt" bash scripts/setup.sh
echo "[test] type-check (TypeScript $(node node_modules/@tslab/typescript-for-tslab/bin/tsc --version | cut -d' ' -f2), ES2022, as tslab compiles)"
node node_modules/@tslab/typescript-for-tslab/bin/tsc -p tsconfig.json
# tslab compiles lib/ without strict checks, where union narrowing differs: check that way too.
node node_modules/@tslab/typescript-for-tslab/bin/tsc -p tsconfig.tslab.json
export TZ=UTC
# shellcheck disable=SC2046
node --import tsx --test --test-concurrency=2 $(find test -name '*.test.ts' | sort) "$@"
