#!/usr/bin/env bash
# The README's main command (`npm start`): set-up, then execute every notebook in order on the frozen
# data in data/, write the shareable executed copies (exports/notebooks/), add static images to their
# figures, and write the HTML report (exports/report/). Notebook 05 regenerates the CSV exports.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/setup.sh
export TZ=UTC
# Notebooks are independent (each loads the frozen archive), so two run at once on 2 cores.
.venv/bin/python scripts/run-notebooks.py --jobs "${NOTEBOOK_JOBS:-2}" --out exports/notebooks notebooks/[0-9]*.ipynb
if [ -f scripts/add-static-figures.ts ]; then npx tsx scripts/add-static-figures.ts exports/notebooks/*.ipynb; fi
if [ -f scripts/html-report.ts ]; then npx tsx scripts/html-report.ts exports/notebooks exports/report; fi
echo "[main] done: executed notebooks in exports/notebooks/, report in exports/report/index.html"
