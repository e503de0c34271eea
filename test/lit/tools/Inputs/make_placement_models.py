#!/usr/bin/python3
"""Writes the graph test/lit/tools/placement.test places into DIR.

usage: make_placement_models.py DIR
fallback.webnn: y = sigmoid(matmul(A, relu(x))) over x f32[2,3] with A
f32[1,1,1,1,1,2,2]: relu and sigmoid have GPU kernels, but the GPU's matmul
takes at most four batch dims (rank 6) and this one has five (rank 7), so
--target gpu leaves it on the CPU with that reason.
mixed.webnn: the same with y = sigmoid(matmul(A, exp(matmul(x, M)))): under
--target auto, exp stays on the GPU beside the first matmul while sigmoid,
alone past the rank-7 matmul, goes back to the CPU. Also DIR/x.npy.
"""
import sys
from pathlib import Path

import numpy as np

out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
(out / "fallback.webnn").write_text("""webnn_graph "fallback" v1 {
  inputs { x: f32[2, 3]; }
  consts { A: f32[1, 1, 1, 1, 1, 2, 2] @scalar(0.1); }
  nodes {
    r = relu(x);
    g = matmul(A, r);
    y = sigmoid(g);
  }
  outputs { y; }
}
""")
(out / "mixed.webnn").write_text("""webnn_graph "mixed" v1 {
  inputs { x: f32[2, 3]; }
  consts { M: f32[3, 3] @scalar(0.2); A: f32[1, 1, 1, 1, 1, 2, 2] @scalar(0.1); }
  nodes {
    m = matmul(x, M);
    e = exp(m);
    g = matmul(A, e);
    y = sigmoid(g);
  }
  outputs { y; }
}
""")
# A no-op reshape folds away: the output is the input itself, written as an
# identity node the artifact writer adds after placement ran.
(out / "noop.webnn").write_text("""webnn_graph "noop" v1 {
  inputs { x: f32[2, 3]; }
  nodes {
    y = reshape(x, newShape=[2, 3]);
  }
  outputs { y; }
}
""")
rng = np.random.default_rng(3)
np.save(out / "x.npy", rng.standard_normal((2, 3), dtype=np.float32))
