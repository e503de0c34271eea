#!/usr/bin/env bash
# Measures artifact load time with 1 GiB of weights (issue: "loading does not
# read the weights"). Prints webnn-run's load_ms (mmap + verify + kernel setup)
# for a cold-ish and a warm page cache, and the artifact size.
#   usage: bench/load_time.sh [BUILD_BIN_DIR]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bin="${1:-$here/../build/bin}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 "$here/../test/lit/artifact/Inputs/make_dense_graph.py" "$work" 16384 16384 1
"$bin/webnnc" compile "$work/dense.webnn" -o "$work/dense.wnn"
ls -l "$work/dense.wnn" | awk '{printf "artifact bytes: %d\n", $5}'
for i in 1 2 3 4 5; do
  "$bin/webnn-run" "$work/dense.wnn" --input "x=$work/x.npy" --bench 1 --warmup 0 --json |
    /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); print(f"load_ms {d[\"load_ms\"]:.2f}  first_run_ms {d.get(\"first_run_ms\", float(\"nan\")):.1f}")'
done
