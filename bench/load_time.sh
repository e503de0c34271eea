#!/usr/bin/env bash
# Measures artifact load time with 1 GiB of weights ("loading does not read
# the weights"). Prints webnn-run's load_ms (mmap + header/FlatBuffer/graph
# verification), session_ms (kernel setup + arena) and first_run_ms, five
# times, plus the artifact size.
#   usage: bench/load_time.sh [BUILD_BIN_DIR]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bin="${1:-$here/../build/bin}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 "$here/../test/lit/artifact/Inputs/make_dense_graph.py" "$work" 16384 16384 1
"$bin/webnnc" compile "$work/dense.webnn" -o "$work/dense.wnn"
rm -f "$work/dense.weights"
echo "artifact bytes: $(stat -c %s "$work/dense.wnn")"
for i in 1 2 3 4 5; do
  "$bin/webnn-run" "$work/dense.wnn" --input "x=$work/x.npy" --bench 1 --warmup 0 --json |
    /usr/bin/python3 -c 'import json, sys
d = json.load(sys.stdin)
print("load_ms %.2f  session_ms %.2f  first_run_ms %.1f" % (d["load_ms"], d["session_ms"], d["first_run_ms"]))'
done
