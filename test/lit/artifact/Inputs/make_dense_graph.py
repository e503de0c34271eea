#!/usr/bin/python3
"""Writes a DSL graph y = relu(x @ W + b) with W: f32[K, N] into DIR.

usage: make_dense_graph.py DIR K N SEED
Writes DIR/dense.webnn, DIR/dense.manifest.json, DIR/dense.weights, DIR/x.npy.
Weights are written in chunks so a multi-GB W does not need that much RAM.
"""
import json
import sys
from pathlib import Path

import numpy as np

out, k, n, seed = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
out.mkdir(parents=True, exist_ok=True)
rng = np.random.default_rng(seed)
(out / "dense.webnn").write_text(f"""webnn_graph "dense" v1 {{
  inputs {{ x: f32[1, {k}]; }}
  consts {{ W: f32[{k}, {n}]; b: f32[{n}]; }}
  nodes {{ xw = matmul(x, W); xwb = add(xw, b); y = relu(xwb); }}
  outputs {{ y; }}
}}
""")
w_bytes = k * n * 4
manifest = {"format": "wg-weights-manifest", "version": 1, "endianness": "little",
            "tensors": {"W": {"dataType": "float32", "shape": [k, n], "byteOffset": 0,
                              "byteLength": w_bytes},
                        "b": {"dataType": "float32", "shape": [n], "byteOffset": w_bytes,
                              "byteLength": n * 4}}}
(out / "dense.manifest.json").write_text(json.dumps(manifest))
with open(out / "dense.weights", "wb") as f:
    rows = max(1, (64 << 20) // (n * 4))
    for r in range(0, k, rows):
        f.write((rng.standard_normal((min(rows, k - r), n), dtype=np.float32) * 0.05).tobytes())
    f.write(rng.standard_normal(n, dtype=np.float32).tobytes())
np.save(out / "x.npy", rng.standard_normal((1, k), dtype=np.float32))
