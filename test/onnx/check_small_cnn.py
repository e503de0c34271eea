#!/usr/bin/python3
"""End to end on test/onnx/models/small_cnn.onnx through the Python package
webnn (webnn.compile, then a session run), compared with a NumPy reference
computed from the model's own initializers.

    PYTHONPATH=BUILD/python check_small_cnn.py

Exits 0 when every output element is within rtol 1e-4 / atol 1e-6.
"""
import argparse
import os
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

import webnn

HERE = os.path.dirname(os.path.abspath(__file__))


def conv2d(x, w, b, pads, stride):
    """pads = (top, left, bottom, right)."""
    x = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    oh, ow = (h - kh) // stride + 1, (wd - kw) // stride + 1
    y = np.zeros((n, o, oh, ow), np.float64)
    for i in range(kh):
        for j in range(kw):
            patch = x[:, :, i:i + stride * oh:stride, j:j + stride * ow:stride]
            y += np.einsum("nchw,oc->nohw", patch, w[:, :, i, j])
    return y + (0 if b is None else b.reshape(1, -1, 1, 1))


def reference(model, x):
    p = {t.name: numpy_helper.to_array(t).astype(np.float64) for t in model.graph.initializer}
    y = conv2d(x, p["conv1.w"], p["conv1.b"], (1, 1, 1, 1), 1)
    y = (y - p["bn.mean"].reshape(1, -1, 1, 1)) / np.sqrt(p["bn.var"].reshape(1, -1, 1, 1) + 1e-3)
    y = y * p["bn.scale"].reshape(1, -1, 1, 1) + p["bn.bias"].reshape(1, -1, 1, 1)
    y = np.maximum(y, 0)
    n, c, h, w = y.shape
    y = y.reshape(n, c, h // 2, 2, w // 2, 2).max(axis=(3, 5))
    # SAME_UPPER, 3x3, stride 2 on 8x8: one unit of padding at the end.
    y = np.maximum(conv2d(y, p["conv2.w"], None, (0, 0, 1, 1), 2), 0)
    y = y.mean(axis=(2, 3))
    y = y @ p["fc.w"].T + p["fc.b"]
    e = np.exp(y - y.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.parse_args()
    model_path = os.path.join(HERE, "models", "small_cnn.onnx")
    model = onnx.load(model_path)
    x = np.random.default_rng(7).standard_normal((1, 3, 16, 16)).astype(np.float32)
    with tempfile.TemporaryDirectory() as d:
        art = os.path.join(d, "cnn.wnn")
        webnn.compile(model_path, art)
        got = webnn.load(art).session().run({"input": x})["probs"]
    want = reference(model, x.astype(np.float64))
    err = np.abs(got - want)
    ok = np.all(err <= 1e-6 + 1e-4 * np.abs(want))
    print(f"small_cnn: max abs error {err.max():.3g} -> {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
