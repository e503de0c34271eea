#!/usr/bin/python3
"""ONNX opset-23 RotaryEmbedding and com.microsoft RotaryEmbedding, one node
each, through webnnc + webnn-run against ONNX Runtime (onnxruntime-node):
3-D and 4-D inputs, halves and interleaved pairs, partial rotation, with and
without position_ids (opset 23), rtol 1e-5.

  check_rotary23.py --bin BUILD/bin [--work DIR]
"""
import argparse
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import ort_compare  # noqa: E402


def make(case, path, rng):
    B, S, N, H = 2, 3, 2, 8
    rot = case["rot"] or H
    x_shape = [B, S, N * H] if case["rank"] == 3 else [B, N, S, H]
    feeds = {"x": rng.standard_normal(x_shape).astype(np.float32)}
    inits = []
    attrs = dict(interleaved=case["interleaved"])
    if case["rank"] == 3 or case["domain"] == "" or case["rot"]:
        attrs["num_heads"] = N
    if case["rot"]:
        attrs["rotary_embedding_dim"] = case["rot"]
    if case["positions"]:
        pos = rng.integers(0, 16, (B, S)).astype(np.int64)
        cos = rng.standard_normal((16, rot // 2)).astype(np.float32)
        sin = rng.standard_normal((16, rot // 2)).astype(np.float32)
        inits.append(numpy_helper.from_array(pos, "pos"))
    else:
        cos = rng.standard_normal((B, S, rot // 2)).astype(np.float32)
        sin = rng.standard_normal((B, S, rot // 2)).astype(np.float32)
    inits += [numpy_helper.from_array(cos, "cos"), numpy_helper.from_array(sin, "sin")]
    if case["domain"] == "com.microsoft":
        inputs, opsets = ["x", "pos", "cos", "sin"], [helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)]
    else:
        inputs = ["x", "cos", "sin"] + (["pos"] if case["positions"] else [])
        opsets = [helper.make_opsetid("", 23)]
    node = helper.make_node("RotaryEmbedding", inputs, ["y"], domain=case["domain"], **attrs)
    graph = helper.make_graph([node], "rope", [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, x_shape)], inits)
    model = helper.make_model(graph, opset_imports=opsets)
    model.ir_version = 10 if case["domain"] == "" else 8
    onnx.save(model, path)
    return feeds


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--work", default=None)
    a = ap.parse_args(argv)
    rng = np.random.default_rng(3)
    cases = []
    for domain in ("", "com.microsoft"):
        for rank in (3, 4):
            for interleaved in (0, 1):
                for rot in (0, 4):
                    for positions in ((True, False) if domain == "" else (True,)):
                        cases.append(dict(domain=domain, rank=rank, interleaved=interleaved, rot=rot, positions=positions))
    def label(case):
        return (f"{case['domain'] or 'ai.onnx-23'} rank {case['rank']} interleaved {case['interleaved']} "
                f"rot {case['rot'] or 'full'}{'' if case['positions'] else ' per-token caches'}")
    failures = ort_compare.run_cases(a.bin, a.work, cases, lambda case, path: (make(case, path, rng), ["y"]),
                                          label=label, tolerance=lambda case: (1e-5, 1e-6), prefix="webnn-rope-")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
