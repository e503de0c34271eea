#!/usr/bin/python3
"""PP-OCRv4 detector and recognizer (the real models of
test/onnx/check_real_models.py, fetched by bench/fetch_real_models.sh) through
`webnn-run --device gpu`, and compiled `--target gpu` through a plain
`webnn-run` (the executor's Vulkan backend: every node on the GPU, one
partition, one kernel submit per run by `--json`), against the CPU backend
on the same inputs, elementwise within |gpu - cpu| <= atol + rtol * |cpu| (rtol 1e-3,
atol 1e-5: the real-model suite's tolerance). Run with the validation layers
on (the ctest environment): any validation message fails the GPU run.

Both are compiled with webnnc's default pipeline (the recognizer's artifact
holds rmsNormalization and fusedMatmul). Inputs are smaller than the suite's
(det 1x3x128x128, rec 1x3x48x160; 1x3x320x320 and 1x3x48x320 pass too, in
20-45 s on a loaded machine) to keep the test well under a minute. A model file that is absent
makes the test skip (exit 77), naming the script that fetches it.
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
MODELS_DIR = os.path.join(ROOT, "bench", ".models", "npm")
RTOL, ATOL = 1e-3, 1e-5
SKIP = 77


def det_input(rng, size):
    # Dark strokes on a light page, ImageNet-normalized NCHW (PaddleOCR's feed).
    img = np.full((size, size, 3), 0.92, np.float32)
    for row in range(8, size - 24, 28):
        for col in range(6, size - 12, 12):
            if rng.random() < 0.8:
                img[row:row + 16, col:col + 8] = rng.uniform(0.0, 0.25)
    img += rng.normal(0, 0.02, img.shape).astype(np.float32)
    mean = np.array([0.485, 0.456, 0.406], np.float32)
    std = np.array([0.229, 0.224, 0.225], np.float32)
    return np.ascontiguousarray(((img - mean) / std).transpose(2, 0, 1)[None], np.float32)


def rec_input(rng, width):
    # One synthetic text line, normalized as (x - 0.5) / 0.5.
    img = np.full((48, width, 3), 0.95, np.float32)
    col = 6
    while col < width - 16:
        w = int(rng.integers(6, 16))
        img[10:38, col:col + w] = rng.uniform(0.0, 0.3)
        col += w + int(rng.integers(3, 8))
    img += rng.normal(0, 0.02, img.shape).astype(np.float32)
    return np.ascontiguousarray(((img - 0.5) / 0.5).transpose(2, 0, 1)[None], np.float32)



def check(name, onnx_path, shape, x, args, work, flags=()):
    d = os.path.join(work, name)
    os.makedirs(d)
    xf = os.path.join(d, "x.npy")
    np.save(xf, x)
    art, placed = os.path.join(d, "model.wnn"), os.path.join(d, "placed.wnn")
    run([os.path.join(args.bin, "webnnc"), "compile", onnx_path, "-o", art, "--shape", f"x={shape}", *flags])
    run([os.path.join(args.bin, "webnnc"), "compile", onnx_path, "-o", placed, "--shape", f"x={shape}",
         "--target", "gpu", *flags])
    outs = {}
    # cpu; the whole-graph program (--device gpu); the artifact compiled
    # --target gpu through a plain webnn-run: the executor's Vulkan backend,
    # every node on the GPU as one partition, so one kernel submit per run.
    for mode, artifact, extra in (("cpu", art, []), ("gpu", art, ["--device", "gpu"]),
                                  ("gpu-partition", placed, ["--json", "--verbose"])):
        od = os.path.join(d, mode)
        cmd = [os.path.join(args.bin, "webnn-run"), artifact, "--input", f"x={xf}", "--output-dir", od, *extra]
        if mode == "gpu-partition":
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0:
                raise RuntimeError(f"{' '.join(cmd)} failed ({r.returncode}):\n{r.stdout}\n{r.stderr}")
            notes = [line for line in r.stderr.splitlines() if "runs on" in line or "one by one" in line]
            g = json.loads(r.stdout)["gpu"]
            kernels = g["submits_per_run"] - g["copy_submits_per_run"]
            print(f"{name}/{mode}: {kernels:g} kernel submit(s) per run, {g['dispatches_recorded']} dispatches in "
                  f"{g['command_buffers_recorded']} command buffer(s)")
            if notes or kernels != 1:
                print(f"{name}/{mode}: expected every node on the GPU in one partition: {g}\n  " +
                      "\n  ".join(notes[:3]) + "\n-> FAIL")
                return False
        else:
            run(cmd)
        outs[mode] = {f: np.load(os.path.join(od, f)) for f in sorted(os.listdir(od)) if f.endswith(".npy")}
    ok = True
    for mode in ("gpu", "gpu-partition"):
        if not outs["cpu"] or outs["cpu"].keys() != outs[mode].keys():
            print(f"{name}: outputs differ: cpu {sorted(outs['cpu'])} {mode} {sorted(outs[mode])} -> FAIL")
            ok = False
            continue
        ok = outputs_match(f"{name}/{mode}", outs["cpu"], outs[mode], RTOL, ATOL) and ok
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", required=True, help="directory holding webnnc and webnn-run")
    args = ap.parse_args()
    det = os.path.join(MODELS_DIR, "ch_PP-OCRv4_det_infer.onnx")
    rec = os.path.join(MODELS_DIR, "ch_PP-OCRv4_rec_infer.onnx")
    missing = [p for p in (det, rec) if not os.path.exists(p)]
    if missing:
        print(f"skipped: {', '.join(missing)} absent (run bench/fetch_real_models.sh)")
        return SKIP
    rng = np.random.default_rng(0)
    ok = True
    with tempfile.TemporaryDirectory() as work:
        try:
            ok &= check("ppocr-det", det, "1x3x128x128", det_input(rng, 128), args, work)
            # The default pipeline: the recognizer's LayerNorm-like chains
            # become rmsNormalization (the GPU's rms_norm.comp).
            ok &= check("ppocr-rec", rec, "1x3x48x160", rec_input(rng, 160), args, work)
        except RuntimeError as e:
            print(e)
            ok = False
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
