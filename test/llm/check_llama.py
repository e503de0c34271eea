#!/usr/bin/python3
"""End to end: the tiny genai-layout Llama (make_llama.py) compiled and run in
this process through the Python package webnn (webnnc and webnn-run in a
build without it), against ONNX Runtime (onnxruntime-node) on the same
inputs. One prefill step per scenario; every output (logits and each
present.N.key/value) must match to rtol 1e-3 (+ atol 1e-4 for values near 0).

  check_llama.py --bin BUILD/bin [--work DIR] [--threads N] [--size tiny]

Scenarios (fixed shapes via webnnc --shape, no dynamic sequence length):
  continue: past of 3 cached positions + 5 new tokens (mask of 8 ones)
  first:    empty past (length 0) + 6 new tokens, if webnnc accepts a
            zero-length past input
MatMulNBits runs at accuracy_level 0 (float activations) in both runtimes,
so the comparison is not blurred by int8 activation rounding. With
--accuracy-level 4 (genai's CPU default) both runtimes may quantize
activations to int8 per block. Where webnnc does so for every MatMulNBits
(a step of >= 16 tokens, `--prompt-tokens`, on a CPU with AVX512-VNNI: the
int8 prefill GEMM; ORT's CompInt8 rule, the same integer arithmetic) the
outputs must match to the same rtol 1e-3 / atol 1e-4 (measured: 1.2e-6,
where a float-activation run differs from ORT's by 5e-2 to 8e-2). Shorter
steps run this tiny model's int4 GEMVs (K = 64, not a multiple of 128) on
float activations in webnnc, so there the check is only that the logits'
argmax agrees at >= 95% of positions; differences are printed.
Exit 0 when every compared scenario matches, 1 otherwise.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
ORT_BENCH = os.path.join(ROOT, "bench", "ort_bench.js")
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "common"))
import make_llama  # noqa: E402
import ort_compare  # noqa: E402


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({r.returncode}):\n{r.stdout}\n{r.stderr}")
    return r


def have_vnni():
    try:
        with open("/proc/cpuinfo") as f:
            return " avx512_vnni" in f.read()
    except OSError:
        return False


def scenario(args, model_path, cfg, name, past, seq, rng):  # noqa: C901
    d = os.path.join(args.work, name)
    os.makedirs(d, exist_ok=True)
    B, nkv, D, L = 1, cfg["kv_heads"], cfg["head"], cfg["layers"]
    feeds = {"input_ids": rng.integers(0, cfg["vocab"], (B, seq)).astype(np.int64),
             "attention_mask": np.ones((B, past + seq), np.int64)}
    for i in range(L):
        for kv in ("key", "value"):
            feeds[f"past_key_values.{i}.{kv}"] = rng.standard_normal((B, nkv, past, D)).astype(np.float32)
    files = {}
    for k, v in feeds.items():
        files[k] = os.path.join(d, k + ".npy")
        np.save(files[k], v)
    # The model's dim_params fix every input shape, except an empty past: a
    # static dimension must be positive, so the past and total lengths stay
    # dynamic dimensions and take their sizes (0 and seq) from the inputs.
    shapes = ["--shape", "batch_size:1", "--shape", f"sequence_length:{seq}"]
    if past > 0:
        shapes += ["--shape", f"past_sequence_length:{past}", "--shape", f"total_sequence_length:{past + seq}"]
    else:
        shapes += ["--dynamic-dim", f"past_sequence_length={seq}", "--dynamic-dim", f"total_sequence_length={seq}"]
    # Ours in this process through the Python package (webnnc and webnn-run
    # in a build without it).
    wnn = os.path.join(d, "model.wnn")
    try:
        ort_compare.compile_model(args.bin, model_path, wnn, shapes)
    except RuntimeError as e:
        return False, str(e)
    ours = os.path.join(d, "webnn")
    ort = os.path.join(d, "ort")
    ort_compare.run_ours(args.bin, wnn, feeds, ours, threads=args.threads)
    ort_cmd = ["node", ORT_BENCH, model_path, "--bench", "1", "--warmup", "0", "--output-dir", ort,
               "--threads", str(args.threads)]
    for k, f in files.items():
        ort_cmd += ["--input", f"{k}={f}"]
    run(ort_cmd)
    worst, ok = [], True
    names = ["logits"] + [f"present.{i}.{kv}" for i in range(L) for kv in ("key", "value")]
    for n in names:
        a = np.load(os.path.join(ours, n + ".npy"))
        b = np.load(os.path.join(ort, n + ".npy"))
        if a.shape != b.shape:
            ok = False
            worst.append(f"{n}: shape {a.shape} vs ORT {b.shape}")
            continue
        if args.accuracy_level == 0 or (seq >= 16 and have_vnni()):
            close = np.allclose(a, b, rtol=1e-3, atol=1e-4)
        elif n == "logits":
            agree = float(np.mean(a.argmax(-1) == b.argmax(-1)))
            close = agree >= 0.95
            worst.append(f"logits argmax agreement {agree:.3f}")
        else:
            close = True
        ok &= bool(close)
        rel = float(np.max(np.abs(a - b) / (np.abs(b) + 1e-4)))
        worst.append(f"{n}: max |diff| {float(np.max(np.abs(a - b))):.2e}, max rel {rel:.2e}"
                     f"{'' if close else '  MISMATCH'}")
    return ok, "\n    ".join(worst)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True, help="build's bin/ with webnnc and webnn-run")
    ap.add_argument("--work", default=None)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--size", default="tiny", choices=sorted(make_llama.SIZES))
    ap.add_argument("--accuracy-level", type=int, default=0, choices=(0, 4))
    ap.add_argument("--prompt-tokens", type=int, default=0,
                    help="also a first prompt of this many tokens (>= 16: the prefill GEMM paths)")
    a = ap.parse_args(argv)
    a.work = a.work or tempfile.mkdtemp(prefix="webnn-llm-")
    os.makedirs(a.work, exist_ok=True)
    cfg = make_llama.SIZES[a.size]
    model_path = os.path.join(a.work, f"llama_{a.size}.onnx")
    import onnx
    onnx.save(make_llama.build(cfg, a.accuracy_level, 32, 0), model_path)
    rng = np.random.default_rng(1)
    failures = 0
    scenarios = [("continue", 3, 5), ("first", 0, 6)]
    if a.prompt_tokens:
        scenarios.append(("prompt", 2, a.prompt_tokens))
    for name, past, seq in scenarios:
        ok, msg = scenario(a, model_path, cfg, name, past, seq, rng)
        status = "PASS" if ok else "FAIL"
        print(f"[{status}] {name} (past {past}, {seq} new tokens)\n    {msg}")
        failures += not ok
    print(f"work dir: {a.work}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
