#!/usr/bin/python3
"""Writes a DSL graph with a conv2d and a matmul large enough for oneDNN into DIR.

usage: make_conv_matmul.py DIR
y = matmul(reshape(relu(conv2d(x, F, bias=B)), [32, 1024]), W): x f32[1,16,32,32],
F f32[32,16,3,3], W f32[1024,64] (9.4 + 4.2 MFLOP). Writes DIR/net.webnn,
DIR/net.manifest.json, DIR/net.weights, DIR/x.npy.
"""
import json
import sys
from pathlib import Path

import numpy as np

out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
rng = np.random.default_rng(7)
(out / "net.webnn").write_text("""webnn_graph "convmm" v1 {
  inputs { x: f32[1, 16, 32, 32]; }
  consts { F: f32[32, 16, 3, 3]; B: f32[32]; W: f32[1024, 64]; }
  nodes {
    c = conv2d(x, F, bias=B, padding=[1, 1, 1, 1]);
    r = relu(c);
    m = reshape(r, [32, 1024]);
    y = matmul(m, W);
  }
  outputs { y; }
}
""")
tensors = {"F": rng.standard_normal((32, 16, 3, 3), dtype=np.float32) * 0.1,
           "B": rng.standard_normal(32, dtype=np.float32) * 0.1,
           "W": rng.standard_normal((1024, 64), dtype=np.float32) * 0.05}
manifest = {"format": "wg-weights-manifest", "version": 1, "endianness": "little", "tensors": {}}
blob = b""
for name, t in tensors.items():
    manifest["tensors"][name] = {"dataType": "float32", "shape": list(t.shape), "byteOffset": len(blob),
                                 "byteLength": t.nbytes}
    blob += t.tobytes()
(out / "net.manifest.json").write_text(json.dumps(manifest))
(out / "net.weights").write_bytes(blob)
np.save(out / "x.npy", rng.standard_normal((1, 16, 32, 32), dtype=np.float32))
