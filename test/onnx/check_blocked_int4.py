#!/usr/bin/python3
"""ONNX DequantizeLinear (opset 21) of a blocked int4/uint4 weight feeding
MatMul, as int4 QDQ exporters write it: webnnc imports the 4-bit initializers
and the blocked dequantization, --webnn-fuse-matmul-nbits turns the pair into
one matmulNBits (checked in webnn.compile's result, webnnc --json's rewrite
and op counts), and the outputs of a session run through the Python package
match ONNX Runtime with graph optimizations off (with them on, ORT fuses the
pair into its own MatMulNBits at accuracy_level 4: int8 activations, ~2e-2
off).

  PYTHONPATH=BUILD/python check_blocked_int4.py [--work DIR]
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import webnn

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ORT_BENCH = os.path.join(ROOT, "bench", "ort_bench.js")
UINT4, INT4 = 21, 22  # TensorProto data types newer than Debian's onnx module


def int4_tensor(name, values, signed):
    """A TensorProto of 4-bit values, packed two per byte, low nibble first."""
    flat = (values.reshape(-1).astype(np.int64) & 0xF).astype(np.uint8)
    if flat.size % 2:
        flat = np.append(flat, 0)
    t = TensorProto()
    t.name = name
    t.data_type = INT4 if signed else UINT4
    t.dims.extend(values.shape)
    t.raw_data = (flat[0::2] | (flat[1::2] << 4)).astype(np.uint8).tobytes()
    return t


def make(path, signed, transposed, rng):
    M, K, N, block = 3, 64, 12, 16
    lo, hi = (-8, 8) if signed else (0, 16)
    wshape = (N, K) if transposed else (K, N)
    axis = 1 if transposed else 0
    sshape = (N, K // block) if transposed else (K // block, N)
    w = rng.integers(lo, hi, wshape)
    zp = rng.integers(lo, hi, sshape)
    scale = (rng.random(sshape) * 0.05 + 0.01).astype(np.float32)
    nodes = [helper.make_node("DequantizeLinear", ["w", "scale", "zp"], ["wf"], axis=axis, block_size=block)]
    if transposed:
        nodes.append(helper.make_node("Transpose", ["wf"], ["wt"], perm=[1, 0]))
    nodes.append(helper.make_node("MatMul", ["x", "wt" if transposed else "wf"], ["y"]))
    inits = [int4_tensor("w", w, signed), numpy_helper.from_array(scale, "scale"), int4_tensor("zp", zp, signed)]
    graph = helper.make_graph(nodes, "blocked_int4", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [M, K])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [M, N])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    model.ir_version = 10
    onnx.save(model, path)
    return {"x": rng.standard_normal((M, K)).astype(np.float32)}


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", default=None)
    a = ap.parse_args(argv)
    work = a.work or tempfile.mkdtemp(prefix="webnn-int4-")
    rng = np.random.default_rng(4)
    failures = 0
    for signed in (False, True):
        for transposed in (False, True):
            name = f"{'int4' if signed else 'uint4'}_{'nk' if transposed else 'kn'}"
            d = os.path.join(work, name)
            os.makedirs(d, exist_ok=True)
            model = os.path.join(d, "model.onnx")
            feeds = make(model, signed, transposed, rng)
            np.save(os.path.join(d, "x.npy"), feeds["x"])
            wnn = os.path.join(d, "m.wnn")
            try:
                r = webnn.compile(model, wnn)
            except webnn.CompileError as e:
                print(f"[FAIL] {name}: webnnc: {e}")
                failures += 1
                continue
            fused = (any(c["rewrite"] == "matmuls-fused" and c["count"] > 0 for c in r["rewrites"])
                     and r["ops"].get("matmulNBits", {}).get("after", 0) == 1)
            x = webnn.load(wnn).session().run(feeds)["y"]
            subprocess.run(["node", ORT_BENCH, model, "--input", f"x={d}/x.npy", "--bench", "1", "--warmup", "0",
                            "--opt-level", "disabled", "--output-dir", f"{d}/ort"], check=True, capture_output=True)
            y = np.load(f"{d}/ort/y.npy")
            ok = fused and x.shape == y.shape and np.allclose(x, y, rtol=1e-4, atol=1e-5)
            print(f"[{'PASS' if ok else 'FAIL'}] {name}: matmulNBits fused: {fused}, "
                  f"max |diff| {float(np.abs(x - y).max()):.2e}")
            failures += not ok
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
