#!/usr/bin/env bash
# The README's main command (`npm start`): set-up, then execute every notebook in order on the frozen
# data in data/ (WORKSPACE_DATA), write the shareable executed copies (notebooks/), add static images
# to their figures, and write the HTML report (report/), all in the exports folder (WORKSPACE_EXPORTS,
# default exports/). Notebook 05 regenerates the CSV exports there.
# A failure puts the exports folder back as it was (a copy taken at the start), so it never holds
# the notebooks of one run of the data beside the CSVs of another.
# Ends with the wall and CPU time of each step.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export TZ=UTC
EXPORTS="${WORKSPACE_EXPORTS:-exports}"
export WORKSPACE_EXPORTS="$EXPORTS"
# The exports folder as it was, beside it until the end (a real copy: the report is written in place).
BEFORE="$(dirname "$EXPORTS")/.$(basename "$EXPORTS").before-start"

STEPS=()
TIMES="$(mktemp)" FIGLOG="$(mktemp)" FIFO="$(mktemp -u)"
put_back() {
  rm -rf "$EXPORTS"
  mv "$BEFORE" "$EXPORTS"
}
on_exit() {
  local rc=$?
  exec 3>&-
  rm -f "$TIMES" "$FIGLOG" "$FIFO"
  if [ -d "$BEFORE" ]; then
    if [ "$rc" -ne 0 ]; then
      put_back
      echo "[main] failed: $EXPORTS put back as it was before this run (nothing of it mixed with this run's output)" >&2
    else
      rm -rf "$BEFORE"
    fi
  fi
}
trap on_exit EXIT
trap 'exit 130' INT TERM
if [ -d "$BEFORE" ]; then
  # Left by a run that was killed before it could clean up: that run's start is the last whole state.
  put_back
  echo "[main] $EXPORTS put back from $BEFORE, left by an earlier run that did not finish" >&2
fi
mkdir -p "$EXPORTS"
cp -a "$EXPORTS" "$BEFORE"
# CPU_NOW = CPU seconds (user + sys) of the finished children of this shell, from the `times`
# builtin (it must run in this shell, not in a $(...) subshell).
cpu_now() {
  times >"$TIMES"
  CPU_NOW=$(awk 'END { s = 0; for (i = 1; i <= 2; i++) { split($i, p, /[ms]/); s += p[1] * 60 + p[2] } printf "%.1f", s }' "$TIMES")
}
# step NAME COMMAND...: run it and keep its wall and CPU time (CPU: the processes it waited for, so
# Chromium's helper processes are partly missed).
step() {
  local name="$1" t0 c0
  shift
  t0=$EPOCHREALTIME
  cpu_now
  c0=$CPU_NOW
  "$@"
  cpu_now
  STEPS+=("$(awk -v n="$name" -v t0="$t0" -v t1="$EPOCHREALTIME" -v c0="$c0" -v c1="$CPU_NOW" 'BEGIN { printf "%s|%.1f|%.1f", n, t1 - t0, c1 - c0 }')")
}
START=$EPOCHREALTIME

step "set-up check" bash scripts/setup.sh
# lib/ compiled once for all kernels (reused until a lib file changes), instead of once per kernel.
step "lib build for the kernels" node scripts/tslab-prebuilt-lib.js
# The static-figure pass starts Chromium and plotly.js now, on the CPU the notebooks leave idle, draws
# each executed notebook the runner names on the FIFO as it is written, and the rest at "go" (if this
# script stops early, the FIFO closes and it ends; the exports folder is put back anyway).
mkfifo "$FIFO"
node scripts/prebuilt.cjs scripts/add-static-figures.ts --wait "$EXPORTS/notebooks" <"$FIFO" >"$FIGLOG" 2>&1 &
FIG_PID=$!
exec 3>"$FIFO"
# Notebooks are independent (each loads the frozen archive), so two run at once on 2 cores, the
# longest first (the times of the last run, kept in .cache/).
step "notebooks" .venv/bin/python scripts/run-notebooks.py --jobs "${NOTEBOOK_JOBS:-2}" --times .cache/notebook-seconds.json --announce-fd 3 --out "$EXPORTS/notebooks" notebooks/[0-9]*.ipynb
figures() {
  echo go >&3
  exec 3>&-
  local rc=0
  wait "$FIG_PID" || rc=$?
  cat "$FIGLOG"
  return "$rc"
}
step "static figures (browser started during the notebooks)" figures
# Both scripts start from a prebuilt bundle (scripts/prebuilt.cjs), without tsx's compile at each start.
step "HTML report" node scripts/prebuilt.cjs scripts/html-report.ts --jupyter "$ROOT/.venv/bin/jupyter" "$EXPORTS/notebooks" "$EXPORTS/report"

echo "[main] done: executed notebooks in $EXPORTS/notebooks/, report in $EXPORTS/report/index.html"
cpu_now
STEPS+=("$(awk -v t0="$START" -v t1="$EPOCHREALTIME" -v c="$CPU_NOW" 'BEGIN { printf "total|%.1f|%.1f", t1 - t0, c }')")
printf '[main] %-55s %7s %7s\n' "step" "wall s" "CPU s"
for s in "${STEPS[@]}"; do IFS='|' read -r n w c <<<"$s"; printf '[main] %-55s %7s %7s\n' "$n" "$w" "$c"; done
