#!/usr/bin/env bash
# The README's test command (`npm test`): set-up, type-check with tslab's own TypeScript 5.0 under
# the options tslab compiles with, then the whole node:test suite (unit, protocol, notebooks, browser).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# The official Python client (wandb) and pandas are installed for the protocol tests and the
# benchmark smoke tests only (requirements-wandb.txt, requirements-bench.txt).
EXTRA_REQUIREMENTS="requirements-wandb.txt requirements-bench.txt" bash scripts/setup.sh
# The current client (requirements-wandb-current.txt) writes the .wandb fixtures of test/wandb-file/;
# its own venv, since the project venv pins wandb 0.21.0 for the protocol tests.
CUR=.venv-wandb-current
WANT="$(sha256sum requirements-wandb-current.txt | cut -d' ' -f1)"
if [ "$(cat "$CUR/.stamp.sha256" 2>/dev/null)" != "$WANT" ]; then
  echo "[test] pip install -r requirements-wandb-current.txt into $CUR"
  [ -x "$CUR/bin/python" ] || "${PYTHON:-python3}" -m venv "$CUR"
  "$CUR/bin/python" -m pip install --quiet --disable-pip-version-check -r requirements-wandb-current.txt
  echo "$WANT" > "$CUR/.stamp.sha256"
fi
echo "[test] type-check (TypeScript $(node node_modules/@tslab/typescript-for-tslab/bin/tsc --version | cut -d' ' -f2), ES2022, as tslab compiles)"
node node_modules/@tslab/typescript-for-tslab/bin/tsc -p tsconfig.json
# tslab compiles lib/ without strict checks, where union narrowing differs: check that way too.
node node_modules/@tslab/typescript-for-tslab/bin/tsc -p tsconfig.tslab.json
export TZ=UTC
# shellcheck disable=SC2046
node --import tsx --test --test-concurrency=2 $(find test -name '*.test.ts' | sort) "$@"
