# Sourced by scripts/lab.sh (and its test): JupyterLab refuses to start as root ("Running as root is
# not recommended. Use --allow-root to bypass."), yet root is the usual user in containers, GPU boxes
# and CI images. lab_root_args ARGS... prints --allow-root when the user is root and ARGS do not
# already carry it, and says so on stderr; for anyone else it prints nothing.
lab_root_args() {
  [ "$(id -u)" = 0 ] || return 0
  local arg
  for arg in "$@"; do
    [ "$arg" = --allow-root ] && return 0
  done
  echo "[lab] running as root: passing --allow-root to JupyterLab" >&2
  echo --allow-root
}
