#!/usr/bin/python3
"""The tiny genai-layout Llama (test/llm/make_llama.py: int4 MatMulNBits,
GroupQueryAttention with rotary over a KV cache, SimplifiedLayerNormalization
and SkipSimplifiedLayerNormalization) compiled by webnnc's default pipeline
and run by `webnn-run --device gpu` against the CPU backend on the same
artifact and inputs: every output (logits, present.N.key/value) elementwise
within |gpu - cpu| <= atol + rtol * |cpu|, rtol 1e-3 / atol 1e-4 (the tiny
Llama suite's tolerance against ONNX Runtime, test/llm/check_llama.py). Run
with the validation layers on (the ctest environment): any validation
message fails the GPU run.

MatMulNBits at accuracy_level 0 (float activations): at level 4 the CPU
backend quantizes activations to int8 where the CPU has VNNI, while the GPU
kernel always computes in float, so the two would differ by that rounding
(about 2.5e-2 in the logits), not by a kernel fault.

Two steps of fixed shapes: a prefill of 5 tokens after 3 cached positions,
and a one-token decode after 8. Each also runs compiled with `--target gpu`
through a plain `webnn-run` (the executor's Vulkan backend: every node
placed on the GPU, none may fall back to the CPU), where the whole graph is
one partition: `--json` must report one submit per run
(gpu.submits_per_run, staged copies excluded).

  check_llama_gpu.py --bin BUILD/bin
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
MAKE_LLAMA = os.path.join(ROOT, "test", "llm", "make_llama.py")
RTOL, ATOL = 1e-3, 1e-4
LAYERS, KV_HEADS, HEAD, VOCAB = 2, 2, 16, 256  # make_llama.py's "tiny"



def step(name, model, past, seq, rng, args, work):
    d = os.path.join(work, name)
    os.makedirs(d)
    feeds = {"input_ids": rng.integers(0, VOCAB, (1, seq)).astype(np.int64),
             "attention_mask": np.ones((1, past + seq), np.int64)}
    for i in range(LAYERS):
        for kv in ("key", "value"):
            feeds[f"past_key_values.{i}.{kv}"] = rng.standard_normal((1, KV_HEADS, past, HEAD)).astype(np.float32)
    inputs = []
    for k, v in feeds.items():
        f = os.path.join(d, k + ".npy")
        np.save(f, v)
        inputs += ["--input", f"{k}={f}"]
    shapes = ["--shape", "batch_size:1", "--shape", f"sequence_length:{seq}",
              "--shape", f"past_sequence_length:{past}", "--shape", f"total_sequence_length:{past + seq}"]
    art, placed = os.path.join(d, "model.wnn"), os.path.join(d, "placed.wnn")
    run([os.path.join(args.bin, "webnnc"), "compile", model, "-o", art, *shapes])
    run([os.path.join(args.bin, "webnnc"), "compile", model, "-o", placed, "--target", "gpu", *shapes])
    outs = {}
    for mode, artifact, flags in (("cpu", art, []), ("gpu", art, ["--device", "gpu"]),
                                  ("gpu-nodes", placed, ["--verbose", "--json", "--bench", "2"])):
        od = os.path.join(d, mode)
        r = subprocess.run([os.path.join(args.bin, "webnn-run"), artifact, *inputs, "--output-dir", od, *flags],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"webnn-run {mode} failed ({r.returncode}):\n{r.stdout}\n{r.stderr}")
        fallbacks = [line for line in r.stderr.splitlines() if "runs on 'cpu'" in line]
        if fallbacks:
            print(f"{name}/{mode}: nodes fell back to the CPU -> FAIL\n  " + "\n  ".join(fallbacks[:3]))
            return False
        if mode == "gpu-nodes":
            g = json.loads(r.stdout)["gpu"]
            kernels = g["submits_per_run"] - g["copy_submits_per_run"]
            print(f"{name}/{mode}: {kernels:g} kernel submit(s) per run, {g['dispatches_recorded']} dispatches in "
                  f"{g['command_buffers_recorded']} command buffer(s), recorded in {g['record_ms']:.3f} ms")
            if kernels != 1 or g["command_buffers_recorded"] != 1:
                print(f"{name}/{mode}: expected the whole graph as one partition, one submit per run: {g} -> FAIL")
                return False
        outs[mode] = {f: np.load(os.path.join(od, f)) for f in sorted(os.listdir(od)) if f.endswith(".npy")}
    if len(outs["cpu"]) != 1 + 2 * LAYERS or any(outs["cpu"].keys() != outs[m].keys() for m in ("gpu", "gpu-nodes")):
        print(f"{name}: output names differ: " + ", ".join(f"{m} {sorted(o)}" for m, o in outs.items()) + " -> FAIL")
        return False
    ok = True
    for mode in ("gpu", "gpu-nodes"):
        ok = outputs_match(f"{name}/{mode}", outs["cpu"], outs[mode], RTOL, ATOL) and ok
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", required=True, help="directory holding webnnc and webnn-run")
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    ok = True
    with tempfile.TemporaryDirectory() as work:
        model = os.path.join(work, "llama_tiny.onnx")
        try:
            run([sys.executable, MAKE_LLAMA, model, "--size", "tiny", "--accuracy-level", "0"])
            ok &= step("prefill", model, 3, 5, rng, args, work)
            ok &= step("decode", model, 8, 1, rng, args, work)
        except RuntimeError as e:
            print(e)
            ok = False
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
