#!/usr/bin/env bash
# The main job on the bundled example: compile the DSL model ahead of time,
# run the artifact on CPU with a NumPy input, and check the result.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bin="${WEBNN_BIN:-$here/../build/bin}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

"$bin/webnnc" compile "$here/mlp/mlp.webnn" -o "$out/mlp.wnn"
"$bin/webnnc" inspect "$out/mlp.wnn"
"$bin/webnn-run" "$out/mlp.wnn" --input "x=$here/mlp/input.npy" --output-dir "$out"
/usr/bin/python3 - "$out/probs.npy" "$here/mlp/expected.npy" <<'PY'
import sys
import numpy as np
got, want = np.load(sys.argv[1]), np.load(sys.argv[2])
print("probs:", np.array2string(got.ravel(), precision=4))
np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)
print("matches the NumPy reference")
PY
