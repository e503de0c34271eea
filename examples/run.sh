#!/usr/bin/env bash
# The main job on the bundled example: compile the DSL model ahead of time,
# describe the artifact, run it on CPU with a NumPy input, and check the
# result against the NumPy reference computed by examples/mlp/make_weights.py.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bin="${WEBNN_BIN:-$here/../build/bin}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

"$bin/webnnc" compile "$here/mlp/mlp.webnn" -o "$out/mlp.wnn"
"$bin/webnnc" inspect "$out/mlp.wnn"
"$bin/webnn-run" "$out/mlp.wnn" --input "x=$here/mlp/input.npy" \
  --expected "probs=$here/mlp/expected.npy" --rtol 1e-5 --atol 1e-7
"$bin/webnn-run" "$out/mlp.wnn" --input "x=$here/mlp/input.npy" --bench 100 --warmup 10
