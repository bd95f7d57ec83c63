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
TIMES="$(mktemp)" FIGLOG="$(mktemp)" REPORTLOG="$(mktemp)" FIFO="$(mktemp -u)" FIFO2="$(mktemp -u)"
BACKGROUND=()
put_back() {
  rm -rf "$EXPORTS"
  mv "$BEFORE" "$EXPORTS"
}
on_exit() {
  local rc=$?
  exec 3>&-
  # The figure and report passes end when their input closes; stopped early, they are stopped, and
  # waited for, so that neither writes into the exports folder once it is put back.
  if [ "$rc" -ne 0 ] && [ "${#BACKGROUND[@]}" -gt 0 ]; then kill "${BACKGROUND[@]}" 2>/dev/null || true; fi
  if [ "${#BACKGROUND[@]}" -gt 0 ]; then wait "${BACKGROUND[@]}" 2>/dev/null || true; fi
  rm -f "$TIMES" "$FIGLOG" "$REPORTLOG" "$FIFO" "$FIFO2"
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
# lib/ compiled once for all kernels (reused until a lib file changes), instead of once per kernel;
# and a startup snapshot the kernels start from, TypeScript loaded and the declarations parsed
# (rebuilt when Node, the packages or the script change; without it, kernels start as in JupyterLab).
kernel_build() {
  local lib_build
  lib_build="$(node scripts/tslab-prebuilt-lib.js --print-dir)"
  # TSLAB_SNAPSHOT=0: no snapshot (kernels start as in JupyterLab).
  if [ "${TSLAB_SNAPSHOT:-}" = 0 ]; then
    TSLAB_SNAPSHOT=""
  else
    TSLAB_SNAPSHOT="$(node scripts/tslab-snapshot.js ${lib_build:+--lib-build "$lib_build"})" || TSLAB_SNAPSHOT=""
  fi
  export TSLAB_SNAPSHOT
}
step "lib build and startup snapshot for the kernels" kernel_build
# The static-figure pass starts Chromium and plotly.js now, on the CPU the notebooks leave idle, draws
# each executed notebook the runner names on the FIFO as it is written, and the rest at "go"; it names
# each finished notebook to the report pass (FIFO2), which starts nbconvert now and writes each page
# at once, the index at "go". If this script stops early, the FIFOs close and both end without
# writing more (scripts/stdin-go.ts); the exports folder is put back anyway.
mkfifo "$FIFO" "$FIFO2"
node scripts/prebuilt.cjs scripts/add-static-figures.ts --wait --announce-fd 4 "$EXPORTS/notebooks" <"$FIFO" 4>"$FIFO2" >"$FIGLOG" 2>&1 &
FIG_PID=$!
# Both scripts start from a prebuilt bundle (scripts/prebuilt.cjs), without tsx's compile at each start.
node scripts/prebuilt.cjs scripts/html-report.ts --wait --jupyter "$ROOT/.venv/bin/jupyter" "$EXPORTS/notebooks" "$EXPORTS/report" <"$FIFO2" >"$REPORTLOG" 2>&1 &
REPORT_PID=$!
BACKGROUND=("$FIG_PID" "$REPORT_PID")
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
  # The figure pass also fails when the report pass it names notebooks to has stopped: say why.
  if [ "$rc" -ne 0 ]; then cat "$REPORTLOG"; fi
  return "$rc"
}
step "static figures (browser started during the notebooks)" figures
report() {
  local rc=0
  wait "$REPORT_PID" || rc=$?
  cat "$REPORTLOG"
  return "$rc"
}
step "HTML report (pages written during the notebooks)" report

echo "[main] done: executed notebooks in $EXPORTS/notebooks/, report in $EXPORTS/report/index.html"
cpu_now
STEPS+=("$(awk -v t0="$START" -v t1="$EPOCHREALTIME" -v c="$CPU_NOW" 'BEGIN { printf "total|%.1f|%.1f", t1 - t0, c }')")
printf '[main] %-55s %7s %7s\n' "step" "wall s" "CPU s"
for s in "${STEPS[@]}"; do IFS='|' read -r n w c <<<"$s"; printf '[main] %-55s %7s %7s\n' "$n" "$w" "$c"; done
