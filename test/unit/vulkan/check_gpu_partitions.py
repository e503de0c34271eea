#!/usr/bin/python3
"""Mixed placement through the executor's Vulkan backend: a graph compiled
`--target gpu` whose rank-7 matmul the GPU refuses (it stays on the CPU),
between relu -> mul before it and sigmoid -> add after it, run by a plain
`webnn-run ART.wnn` (validation on). Each run of consecutive GPU nodes is
one partition, one command buffer and one submit per run: `--json` must
report two kernel submits per run (gpu.submits_per_run less the staged
copies) and two command buffers, where `WEBNN_VULKAN_PARTITIONS=0` (node by
node) reports four; the outputs (the GPU-made `b` the CPU matmul reads, and
`y`) match the CPU backend's within rtol 1e-5 / atol 1e-6 either way.

Then a dynamic-batch graph (relu -> mul -> add over x [batch, 4], compiled
`--dynamic-dim batch=8`) through `webnn-run --device gpu`, which hands a
graph with dynamic dimensions to the executor's Vulkan backend: batch 3 and
6, one partition, one kernel submit per run, outputs as the CPU's.

  check_gpu_partitions.py --bin BUILD/bin
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from gpu_compare import outputs_match

RTOL, ATOL = 1e-5, 1e-6


def make_model(path, rng):
    rank7 = lambda *s: (1, 1, 1, 1) + s
    consts = [numpy_helper.from_array(rng.standard_normal(rank7(2, 3, 4)).astype(np.float32), "c"),
              numpy_helper.from_array(rng.standard_normal(rank7(2, 4, 5)).astype(np.float32), "w"),
              numpy_helper.from_array(rng.standard_normal(rank7(2, 3, 5)).astype(np.float32), "d")]
    nodes = [helper.make_node("Relu", ["x"], ["a"]), helper.make_node("Mul", ["a", "c"], ["b"]),
             helper.make_node("MatMul", ["b", "w"], ["m"]), helper.make_node("Sigmoid", ["m"], ["s"]),
             helper.make_node("Add", ["s", "d"], ["y"])]
    g = helper.make_graph(nodes, "mixed", [helper.make_tensor_value_info("x", TensorProto.FLOAT, rank7(2, 3, 4))],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, rank7(2, 3, 5)),
                           helper.make_tensor_value_info("b", TensorProto.FLOAT, rank7(2, 3, 4))], consts)
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), path)
    return rank7(2, 3, 4)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", required=True, help="directory holding webnnc and webnn-run")
    args = ap.parse_args()
    rng = np.random.default_rng(7)
    ok = True
    with tempfile.TemporaryDirectory() as work:
        model, art = os.path.join(work, "mixed.onnx"), os.path.join(work, "mixed.wnn")
        x = os.path.join(work, "x.npy")
        np.save(x, rng.standard_normal(make_model(model, rng)).astype(np.float32))
        r = subprocess.run([os.path.join(args.bin, "webnnc"), "compile", model, "-o", art, "--target", "gpu"],
                           capture_output=True, text=True)
        if r.returncode != 0 or "1 node on cpu, 4 nodes on gpu" not in r.stderr + r.stdout:
            print(f"unexpected placement:\n{r.stderr}{r.stdout}\nFAIL")
            return 1
        outs = {}
        for mode, flags, env, kernels in (("cpu", ["--device", "cpu"], {}, None),
                                          ("partitions", ["--json", "--bench", "2"], {}, 2),
                                          ("node-by-node", ["--json", "--bench", "2"],
                                           {"WEBNN_VULKAN_PARTITIONS": "0"}, 4)):
            od = os.path.join(work, mode)
            p = subprocess.run([os.path.join(args.bin, "webnn-run"), art, "--input", f"x={x}", "--output-dir", od,
                                "--verbose", *flags], capture_output=True, text=True, env={**os.environ, **env})
            if p.returncode != 0:
                print(f"webnn-run {mode} failed ({p.returncode}):\n{p.stdout}\n{p.stderr}\nFAIL")
                return 1
            notes = [line for line in p.stderr.splitlines() if "runs on" in line or "one by one" in line]
            if notes:
                print(f"{mode}: unexpected placement notes:\n  " + "\n  ".join(notes))
                ok = False
            if kernels is not None:
                g = json.loads(p.stdout)["gpu"]
                got = g["submits_per_run"] - g["copy_submits_per_run"]
                print(f"{mode}: {got:g} kernel submits per run, {g['dispatches_recorded']} dispatches in "
                      f"{g['command_buffers_recorded']} command buffers")
                if got != kernels or g["command_buffers_recorded"] != kernels:
                    print(f"{mode}: expected {kernels} submits per run and command buffers: {g} -> FAIL")
                    ok = False
            outs[mode] = {f: np.load(os.path.join(od, f)) for f in sorted(os.listdir(od))}
        for mode in ("partitions", "node-by-node"):
            if outs[mode].keys() != outs["cpu"].keys():
                print(f"{mode}: outputs {sorted(outs[mode])}, CPU {sorted(outs['cpu'])} -> FAIL")
                ok = False
                continue
            ok = outputs_match(mode, outs["cpu"], outs[mode], RTOL, ATOL) and ok
        ok = check_dynamic(args, work, rng) and ok
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


def check_dynamic(args, work, rng):
    consts = [numpy_helper.from_array(rng.standard_normal((4,)).astype(np.float32), "c"),
              numpy_helper.from_array(rng.standard_normal((4,)).astype(np.float32), "d")]
    nodes = [helper.make_node("Relu", ["x"], ["a"]), helper.make_node("Mul", ["a", "c"], ["b"]),
             helper.make_node("Add", ["b", "d"], ["y"])]
    g = helper.make_graph(nodes, "dynamic", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 4])], consts)
    model, art = os.path.join(work, "dynamic.onnx"), os.path.join(work, "dynamic.wnn")
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), model)
    r = subprocess.run([os.path.join(args.bin, "webnnc"), "compile", model, "-o", art, "--dynamic-dim", "batch=8"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        print(f"compiling the dynamic graph failed:\n{r.stderr}\nFAIL")
        return False
    ok = True
    for batch in (3, 6):
        x = os.path.join(work, f"xd{batch}.npy")
        np.save(x, rng.standard_normal((batch, 4)).astype(np.float32))
        outs = {}
        for mode, flags in (("cpu", ["--device", "cpu"]), ("gpu", ["--device", "gpu", "--json"])):
            od = os.path.join(work, f"dynamic{batch}-{mode}")
            p = subprocess.run([os.path.join(args.bin, "webnn-run"), art, "--input", f"x={x}", "--output-dir", od,
                                *flags], capture_output=True, text=True)
            if p.returncode != 0:
                print(f"webnn-run dynamic {mode} batch {batch} failed ({p.returncode}):\n{p.stdout}\n{p.stderr}")
                return False
            if mode == "gpu":
                gpu = json.loads(p.stdout).get("gpu")
                kernels = gpu["submits_per_run"] - gpu["copy_submits_per_run"] if gpu else None
                print(f"dynamic batch {batch}: {kernels} kernel submits per run")
                if kernels != 1:
                    print(f"dynamic batch {batch}: expected one partition on the GPU, got {gpu} -> FAIL")
                    ok = False
            outs[mode] = {f: np.load(os.path.join(od, f)) for f in sorted(os.listdir(od))}
        if outs["gpu"]["y.npy"].shape != (batch, 4):
            print(f"dynamic batch {batch}: y has shape {outs['gpu']['y.npy'].shape} -> FAIL")
            ok = False
        ok = outputs_match(f"dynamic batch {batch}", outs["cpu"], outs["gpu"], RTOL, ATOL) and ok
    return ok


if __name__ == "__main__":
    sys.exit(main())
