#!/usr/bin/python3
"""ONNX opset-23 Attention, one node per case, through webnnc + webnn-run
against ONNX Runtime (onnxruntime-node): 3-D and 4-D inputs, grouped KV heads,
a KV cache (past_key/past_value and the present outputs), is_causal with and
without a past, bool and float masks, scale and softcap; rtol 1e-4.

  check_attention23.py --bin BUILD/bin [--work DIR]
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ORT_BENCH = os.path.join(ROOT, "bench", "ort_bench.js")

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


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: {r.stderr.strip()}")


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--work", default=None)
    a = ap.parse_args(argv)
    work = a.work or tempfile.mkdtemp(prefix="webnn-attention23-")
    rng = np.random.default_rng(23)
    failures = 0
    for case in CASES:
        d = os.path.join(work, case["name"])
        os.makedirs(d, exist_ok=True)
        model = os.path.join(d, "model.onnx")
        feeds, outs = make(case, model, rng)
        binds, ort_binds = [], []
        for k, v in feeds.items():
            np.save(os.path.join(d, k + ".npy"), v)
            ort_binds += ["--input", f"{k}={os.path.join(d, k + '.npy')}"]
            if v.dtype == np.bool_:  # WebNN has no bool: uint8 0/1
                np.save(os.path.join(d, k + ".u8.npy"), v.astype(np.uint8))
                binds += ["--input", f"{k}={os.path.join(d, k + '.u8.npy')}"]
            else:
                binds += ["--input", f"{k}={os.path.join(d, k + '.npy')}"]
        try:
            run([os.path.join(a.bin, "webnnc"), "compile", model, "-o", os.path.join(d, "m.wnn")])
            run([os.path.join(a.bin, "webnn-run"), os.path.join(d, "m.wnn"), "--output-dir", os.path.join(d, "ours")] + binds)
            run(["node", ORT_BENCH, model, "--bench", "1", "--warmup", "0", "--output-dir", os.path.join(d, "ort")] + ort_binds)
        except RuntimeError as e:
            print(f"[FAIL] {case['name']}: {e}")
            failures += 1
            continue
        worst = 0.0
        ok = True
        for o in outs:
            x, y = np.load(os.path.join(d, "ours", o + ".npy")), np.load(os.path.join(d, "ort", o + ".npy"))
            ok &= x.shape == y.shape and np.allclose(x, y, rtol=1e-4, atol=1e-5)
            if x.shape == y.shape:
                worst = max(worst, float(np.max(np.abs(x - y))))
        print(f"[{'PASS' if ok else 'FAIL'}] {case['name']}: outputs {outs}, max |diff| {worst:.2e}")
        failures += not ok
    print(f"{len(CASES) - failures} of {len(CASES)} pass (work dir {work})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
