"""Writes inputs and NumPy references for Inputs/dynamic.webnn at one size.

  dynamic_io.py DIR SEQ PAST
"""
import os
import sys

import numpy as np

d, seq, past = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = np.random.default_rng(seq * 100 + past)
x = rng.standard_normal((seq, 4)).astype(np.float32)
cache = rng.standard_normal((past, 4)).astype(np.float32)
mask = (rng.random((seq, 1)) > 0.3).astype(np.float32)
y = (x @ np.full((4, 3), 0.5, np.float32) + 1.0) * mask
e = np.exp(y - y.max(axis=1, keepdims=True))
allrows = np.concatenate([cache, x])
for name, a in {"x": x, "past": cache, "mask": mask, "p": e / e.sum(axis=1, keepdims=True),
                "all": allrows, "s": allrows.sum(axis=1, keepdims=True)}.items():
    np.save(os.path.join(d, f"{name}.npy"), a.astype(np.float32))
