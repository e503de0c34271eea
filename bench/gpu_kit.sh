# Sourced by bench/gpu_check.sh and bench/gpu_coopmat_check.sh: usage from
# the caller's header comment, BIN and ROOT, and a python3 with numpy.
#   gpu_kit_init USAGE_LAST_LINE "$@"   (then "${GPU_KIT_ARGS[@]}" holds the rest)
gpu_kit_init() {
  local last=$1 me
  me=$(basename "$0")
  shift
  if [[ $# -lt 1 || "$1" == -* ]]; then
    sed -n "2,${last}p" "$0" | sed 's/^# \{0,1\}//'
    exit 2
  fi
  BIN=$(cd "$1" && pwd)
  shift
  GPU_KIT_ARGS=("$@")
  ROOT=$(cd "$(dirname "$0")/.." && pwd)
  if [[ -z "${PYTHON:-}" ]]; then
    for p in python3 /usr/bin/python3; do
      if command -v "$p" >/dev/null && "$p" -c 'import numpy' 2>/dev/null; then PYTHON=$p; break; fi
    done
  fi
  if [[ -z "${PYTHON:-}" ]]; then
    echo "$me: no python3 with numpy (set PYTHON)" >&2
    exit 2
  fi
}
