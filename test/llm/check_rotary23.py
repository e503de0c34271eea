#!/usr/bin/python3
"""ONNX opset-23 RotaryEmbedding and com.microsoft RotaryEmbedding, one node
each, through webnnc + webnn-run against ONNX Runtime (onnxruntime-node):
3-D and 4-D inputs, halves and interleaved pairs, partial rotation, with and
without position_ids (opset 23), rtol 1e-5.

  check_rotary23.py --bin BUILD/bin [--work DIR]
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ORT_BENCH = os.path.join(ROOT, "bench", "ort_bench.js")


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
    work = a.work or tempfile.mkdtemp(prefix="webnn-rope-")
    os.makedirs(work, exist_ok=True)
    rng = np.random.default_rng(3)
    cases = []
    for domain in ("", "com.microsoft"):
        for rank in (3, 4):
            for interleaved in (0, 1):
                for rot in (0, 4):
                    for positions in ((True, False) if domain == "" else (True,)):
                        cases.append(dict(domain=domain, rank=rank, interleaved=interleaved, rot=rot, positions=positions))
    failures = 0
    for i, case in enumerate(cases):
        d = os.path.join(work, f"case{i}")
        os.makedirs(d, exist_ok=True)
        model = os.path.join(d, "model.onnx")
        feeds = make(case, model, rng)
        np.save(os.path.join(d, "x.npy"), feeds["x"])
        wnn = os.path.join(d, "model.wnn")
        r = subprocess.run([os.path.join(a.bin, "webnnc"), "compile", model, "-o", wnn], capture_output=True, text=True)
        label = f"{case['domain'] or 'ai.onnx-23'} rank {case['rank']} interleaved {case['interleaved']} rot {case['rot'] or 'full'}" \
                f"{'' if case['positions'] else ' per-token caches'}"
        if r.returncode != 0:
            print(f"[FAIL] {label}: webnnc: {r.stderr.strip()}")
            failures += 1
            continue
        subprocess.run([os.path.join(a.bin, "webnn-run"), wnn, "--input", f"x={d}/x.npy", "--output-dir", f"{d}/ours"],
                       check=True, capture_output=True)
        r = subprocess.run(["node", ORT_BENCH, model, "--input", f"x={d}/x.npy", "--bench", "1", "--warmup", "0",
                            "--output-dir", f"{d}/ort"], capture_output=True, text=True)
        if r.returncode != 0:
            print(f"[SKIP] {label}: ONNX Runtime: {r.stderr.strip().splitlines()[-1] if r.stderr.strip() else r.returncode}")
            continue
        ours, ort = np.load(f"{d}/ours/y.npy"), np.load(f"{d}/ort/y.npy")
        ok = np.allclose(ours, ort, rtol=1e-5, atol=1e-6)
        failures += not ok
        print(f"[{'PASS' if ok else 'FAIL'}] {label}: max |diff| {float(np.abs(ours - ort).max()):.2e}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
