#!/usr/bin/python3
"""Writes the graph test/lit/tools/placement.test places into DIR.

usage: make_placement_models.py DIR
gru.webnn: y = sigmoid(gruCell(relu(x), W, R, H, hiddenSize=4)) over x
f32[2,3]: relu and sigmoid have GPU kernels, gruCell has none, so
--target gpu leaves it on the CPU with that reason.
mixed.webnn: the same with y = sigmoid(gruCell(exp(matmul(x, M)), ...)):
under --target auto, exp stays on the GPU beside the matmul while sigmoid,
alone past the gruCell, goes back to the CPU. Also DIR/x.npy.
"""
import sys
from pathlib import Path

import numpy as np

out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
(out / "gru.webnn").write_text("""webnn_graph "gru" v1 {
  inputs { x: f32[2, 3]; }
  consts { W: f32[12, 3] @scalar(0.1); R: f32[12, 4] @scalar(0.05); H: f32[2, 4] @scalar(0.5); }
  nodes {
    r = relu(x);
    g = gruCell(r, W, R, H, hiddenSize=4);
    y = sigmoid(g);
  }
  outputs { y; }
}
""")
(out / "mixed.webnn").write_text("""webnn_graph "mixed" v1 {
  inputs { x: f32[2, 3]; }
  consts { M: f32[3, 3] @scalar(0.2); W: f32[12, 3] @scalar(0.1); R: f32[12, 4] @scalar(0.05); H: f32[2, 4] @scalar(0.5); }
  nodes {
    m = matmul(x, M);
    e = exp(m);
    g = gruCell(e, W, R, H, hiddenSize=4);
    y = sigmoid(g);
  }
  outputs { y; }
}
""")
rng = np.random.default_rng(3)
np.save(out / "x.npy", rng.standard_normal((2, 3), dtype=np.float32))
