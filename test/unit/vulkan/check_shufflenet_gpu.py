#!/usr/bin/python3
"""ShuffleNetV2 (bench/.models/shufflenetv2.onnx) compiled with webnnc's
default flags (--target cpu: its 16 concat + shuffle + split groups become
channelShuffle nodes, docs/FUSED_OPS.md) and run by `webnn-run --device gpu`
(every node on the Vulkan backend, channelShuffle as strided copies) against
the CPU backend on the same input, elementwise within |gpu - cpu| <= atol +
rtol * |cpu| (rtol 1e-4, atol 1e-6; the logits are ~0.2). Run with the
validation layers on (the ctest environment): any validation message fails
the GPU run. Where bench/.models/shufflenetv2.onnx is absent (a clean
clone), bench/models/export_models.py exports it into the test's temporary
directory (torchvision, installed by bench/install-bench-deps.sh; ~2 s).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

from gpu_compare import outputs_match, run

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
MODEL = os.path.join(ROOT, "bench", ".models", "shufflenetv2.onnx")
EXPORTER = os.path.join(ROOT, "bench", "models", "export_models.py")
RTOL, ATOL = 1e-4, 1e-6


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", required=True, help="directory holding webnnc and webnn-run")
    args = ap.parse_args()
    webnnc, webnn_run = os.path.join(args.bin, "webnnc"), os.path.join(args.bin, "webnn-run")
    with tempfile.TemporaryDirectory() as d:
        model = MODEL
        if not os.path.exists(model):
            subprocess.run([sys.executable, EXPORTER, "--out-dir", d, "--only", "shufflenetv2"], check=True)
            model = os.path.join(d, "shufflenetv2.onnx")
        art, xf = os.path.join(d, "model.wnn"), os.path.join(d, "x.npy")
        np.save(xf, np.random.default_rng(0).standard_normal((1, 3, 224, 224)).astype(np.float32))
        run([webnnc, "compile", model, "-o", art])
        ops = json.loads(run([webnnc, "inspect", "--json", art]))["ops"]
        if ops.get("channelShuffle", 0) == 0:
            print(f"expected channelShuffle nodes in the default artifact, ops: {ops} -> FAIL")
            return 1
        print(f"artifact: {ops['channelShuffle']} channelShuffle nodes")
        outs = {}
        for mode, extra in (("cpu", []), ("gpu", ["--device", "gpu", "--json"])):
            od = os.path.join(d, mode)
            stdout = run([webnn_run, art, "--input", f"input={xf}", "--output-dir", od, *extra])
            if mode == "gpu":
                g = json.loads(stdout)["gpu"]
                print(f"gpu: {g['dispatches']} dispatches, {g['submits_per_run']} submit(s) per run")
            outs[mode] = {f: np.load(os.path.join(od, f)) for f in sorted(os.listdir(od)) if f.endswith(".npy")}
        if not outs["cpu"] or outs["cpu"].keys() != outs["gpu"].keys():
            print(f"outputs differ: cpu {sorted(outs['cpu'])} gpu {sorted(outs['gpu'])} -> FAIL")
            return 1
        return 0 if outputs_match("shufflenetv2/gpu", outs["cpu"], outs["gpu"], RTOL, ATOL) else 1


if __name__ == "__main__":
    sys.exit(main())
