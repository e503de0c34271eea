#!/usr/bin/env python3
"""Checks that onnxruntime-node (bench/node_modules) loads and runs a model.

Writes a one-node ONNX model (y = x + x) with python3-onnx, runs it through
bench/ort_bench.js and compares the result. Exit 0 on success, 1 otherwise.
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    with tempfile.TemporaryDirectory() as tmp:
        x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
        y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])
        graph = helper.make_graph([helper.make_node("Add", ["x", "x"], ["y"])], "add", [x], [y])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
        model.ir_version = 8
        path = os.path.join(tmp, "add.onnx")
        onnx.save(model, path)
        data = np.arange(6, dtype=np.float32).reshape(2, 3)
        np.save(os.path.join(tmp, "x.npy"), data)
        out_dir = os.path.join(tmp, "out")
        cmd = ["node", os.path.join(HERE, "ort_bench.js"), path,
               "--input", "x=" + os.path.join(tmp, "x.npy"),
               "--bench", "3", "--warmup", "1", "--threads", "1", "--output-dir", out_dir]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            print("ort_check: onnxruntime-node failed:\n" + proc.stderr, file=sys.stderr)
            return 1
        report = json.loads(proc.stdout)
        got = np.load(os.path.join(out_dir, "y.npy"))
        if not np.array_equal(got, data + data):
            print("ort_check: wrong result %r" % got, file=sys.stderr)
            return 1
        print("ort_check: onnxruntime-node %s loads and runs (Add: %.3f ms)"
              % (report.get("ort_version", "?"), report["latency_ms"]["median"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
