#!/usr/bin/python3
"""ONNX opset-23 Attention, one node per case, through webnnc + webnn-run
against ONNX Runtime (onnxruntime-node): 3-D and 4-D inputs, grouped KV heads,
a KV cache (past_key/past_value and the present outputs), is_causal with and
without a past, bool and float masks, scale and softcap; rtol 1e-4.

  check_attention23.py --bin BUILD/bin [--work DIR]
"""
import argparse
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import ort_compare  # noqa: E402

CASES = [
    dict(name="4d_plain", rank=4, qh=2, kvh=2, past=0),
    dict(name="3d_gqa_causal", rank=3, qh=4, kvh=2, past=0, causal=1),
    dict(name="4d_gqa_past_causal", rank=4, qh=4, kvh=1, past=3, causal=1),
    dict(name="3d_past_bool_mask", rank=3, qh=2, kvh=2, past=2, mask="bool"),
    dict(name="4d_float_mask_scale_softcap", rank=4, qh=2, kvh=2, past=0, mask="float", scale=0.3, softcap=2.0),
]


def make(case, path, rng):
    B, S, D = 2, 3, 8
    qh, kvh, P = case["qh"], case["kvh"], case["past"]
    T = P + S

    def shape(heads):
        return [B, S, heads * D] if case["rank"] == 3 else [B, heads, S, D]
    feeds = {"q": rng.standard_normal(shape(qh)).astype(np.float32),
             "k": rng.standard_normal(shape(kvh)).astype(np.float32),
             "v": rng.standard_normal(shape(kvh)).astype(np.float32)}
    inputs = ["q", "k", "v"]
    vis = [helper.make_tensor_value_info(n, TensorProto.FLOAT, feeds[n].shape) for n in inputs]
    mask = case.get("mask")
    if mask == "bool":
        m = rng.random((S, T)) > 0.3
        m[:, 0] = True  # every row attends somewhere
        feeds["mask"] = m
        vis.append(helper.make_tensor_value_info("mask", TensorProto.BOOL, [S, T]))
    elif mask == "float":
        feeds["mask"] = rng.standard_normal((B, 1, S, T)).astype(np.float32)
        vis.append(helper.make_tensor_value_info("mask", TensorProto.FLOAT, [B, 1, S, T]))
    inputs.append("mask" if mask else "")
    outputs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)]
    if P:
        for n in ("past_k", "past_v"):
            feeds[n] = rng.standard_normal((B, kvh, P, D)).astype(np.float32)
            vis.append(helper.make_tensor_value_info(n, TensorProto.FLOAT, [B, kvh, P, D]))
        inputs += ["past_k", "past_v"]
        outputs += [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in ("present_k", "present_v")]
    while inputs and inputs[-1] == "":
        inputs.pop()
    attrs = {}
    if case["rank"] == 3:
        attrs.update(q_num_heads=qh, kv_num_heads=kvh)
    for a in ("scale", "softcap"):
        if a in case:
            attrs[a] = case[a]
    if case.get("causal"):
        attrs["is_causal"] = 1
    node = helper.make_node("Attention", inputs, [o.name for o in outputs], **attrs)
    graph = helper.make_graph([node], "attention", vis, outputs)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 23)])
    model.ir_version = 10
    onnx.save(model, path)
    return feeds, [o.name for o in outputs]


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--work", default=None)
    a = ap.parse_args(argv)
    rng = np.random.default_rng(23)
    failures = ort_compare.run_cases(a.bin, a.work, CASES, lambda case, path: make(case, path, rng),
                                          label=lambda case: case["name"], tolerance=lambda case: (1e-4, 1e-5),
                                          prefix="webnn-attention23-")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
