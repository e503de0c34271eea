#!/usr/bin/env python3
"""What `webnnc compile --precision relaxed` costs in accuracy.

    /usr/bin/python3 bench/accuracy.py [--models resnet50,bert_base] [--inputs 100]
                                       [--encoder-inputs 10] [--ort-inputs N] [--threads 2]
                                       [--build-dir DIR] [--cache-dir bench/.models] [--json]

For each model (exported by bench/models/export_models.py, as bench/run.py
does) it compiles an exact (float32) and a relaxed (bf16 dot products, float32
accumulation) artifact, runs both with webnn-run on seeded random inputs
(N(0,1) images; token ids in [0, 1000)), and ONNX Runtime (float32) on the
first --ort-inputs of them, and reports per pair of runtimes:

- max rel error: max over inputs of max|a - b| / max|b| (b the reference);
  also the median over inputs;
- top-1 agreement (classifiers: resnet50, mobilenetv2): inputs whose argmax
  over the last axis is the same in both.

Image classifiers get --inputs inputs (default 100), encoders --encoder-inputs
(default 10: one BERT-base run pair takes ~1 s). The relaxed rows are only
meaningful where webnn-run reports "dot_products": "bf16" (the CPU has
AVX512-BF16); the report says what ran. Exit status 0, 1 if a tool failed, 77
if torch or onnxruntime-node is missing.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

import numpy as np

BENCH = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, BENCH)
import run as benchrun  # noqa: E402  (export, tool lookup, input description)

CLASSIFIERS = {"resnet50", "mobilenetv2", "tiny_cnn"}


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def check(cmd, what):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("%s failed (exit %d): %s" % (what, p.returncode, p.stderr.strip().splitlines()[-1:]))
    return p.stdout


def make_inputs(onnx_path, seed):
    rng = np.random.default_rng(seed)
    arrays = []
    for name, dtype, dims in benchrun.graph_inputs(onnx_path):
        if np.issubdtype(dtype, np.floating):
            arrays.append((name, rng.standard_normal(dims).astype(dtype)))
        else:
            arrays.append((name, rng.integers(0, 1000, dims).astype(dtype)))
    return arrays


def load_outputs(d):
    return {f: np.load(os.path.join(d, f)).astype(np.float64) for f in sorted(os.listdir(d)) if f.endswith(".npy")}


def rel_error(got, ref):
    err = 0.0
    for name, r in ref.items():
        scale = float(np.max(np.abs(r))) or 1.0
        err = max(err, float(np.max(np.abs(got[name] - r))) / scale)
    return err


def top1(outputs):
    first = outputs[sorted(outputs)[0]]
    return int(np.argmax(first.reshape(-1, first.shape[-1])[0]))


def measure(model, args, tools):
    onnx_path = benchrun.export_model(model, args.cache_dir)
    work = os.path.join(args.cache_dir, "accuracy", model)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    wnn = {}
    for precision in ("exact", "relaxed"):
        wnn[precision] = os.path.join(work, "%s-%s.wnn" % (model, precision))
        check([tools["webnnc"], "compile", onnx_path, "-o", wnn[precision], "--precision", precision],
              "webnnc compile --precision " + precision)
    n = args.inputs if model in CLASSIFIERS else args.encoder_inputs
    n_ort = n if args.ort_inputs is None else min(n, args.ort_inputs)
    pairs = {("relaxed", "exact"): [], ("relaxed", "ort"): [], ("exact", "ort"): []}
    agree = {k: 0 for k in pairs}
    counted = {k: 0 for k in pairs}
    dot_products = None
    for i in range(n):
        in_dir = os.path.join(work, "in")
        os.makedirs(in_dir, exist_ok=True)
        bindings = []
        for k, (name, arr) in enumerate(make_inputs(onnx_path, args.seed + i)):
            path = os.path.join(in_dir, "input_%d.npy" % k)
            np.save(path, arr)
            bindings.append((name, path))
        outs = {}
        for precision in ("exact", "relaxed"):
            d = os.path.join(work, "out_" + precision)
            shutil.rmtree(d, ignore_errors=True)
            cmd = benchrun.webnn_run_cmd(tools["webnn-run"], wnn[precision], bindings, args.threads, 1, 0, d)
            j = json.loads(check(cmd, "webnn-run " + precision))
            if precision == "relaxed":
                dot_products = j.get("dot_products")
            outs[precision] = load_outputs(d)
        if i < n_ort:
            d = os.path.join(work, "out_ort")
            shutil.rmtree(d, ignore_errors=True)
            check(benchrun.ort_cmd(onnx_path, bindings, args.threads, 1, 0, d), "ONNX Runtime")
            outs["ort"] = load_outputs(d)
        for (a, b) in pairs:
            if b not in outs:
                continue
            pairs[(a, b)].append(rel_error(outs[a], outs[b]))
            if model in CLASSIFIERS:
                counted[(a, b)] += 1
                agree[(a, b)] += top1(outs[a]) == top1(outs[b])
        if (i + 1) % 10 == 0 or i + 1 == n:
            log("  %s: %d/%d inputs, relaxed vs exact max rel error so far %.2e"
                % (model, i + 1, n, max(pairs[("relaxed", "exact")])))
    rows = []
    for (a, b), errs in pairs.items():
        if not errs:
            continue
        row = {"model": model, "got": a, "reference": b, "inputs": len(errs), "max_rel_err": max(errs),
               "median_rel_err": float(np.median(errs))}
        if model in CLASSIFIERS:
            row["top1_agree"] = agree[(a, b)]
        rows.append(row)
    return {"model": model, "dot_products": dot_products, "rows": rows}


def markdown(results):
    lines = ["| model | compared | reference | inputs | max rel err | median rel err | top-1 agreement |",
             "|---|---|---|---|---|---|---|"]
    for m in results:
        for r in m["rows"]:
            name = {"relaxed": "relaxed (%s)" % (m["dot_products"] or "?"), "exact": "exact (fp32)"}[r["got"]]
            ref = {"exact": "exact (fp32)", "ort": "ORT fp32"}[r["reference"]]
            t1 = "%d/%d" % (r["top1_agree"], r["inputs"]) if "top1_agree" in r else "-"
            lines.append("| %s | %s | %s | %d | %.2e | %.2e | %s |" % (
                r["model"], name, ref, r["inputs"], r["max_rel_err"], r["median_rel_err"], t1))
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description="accuracy of --precision relaxed against float32")
    ap.add_argument("--models", default="resnet50,bert_base")
    ap.add_argument("--inputs", type=int, default=100, help="random inputs per image classifier")
    ap.add_argument("--encoder-inputs", type=int, default=10, help="random inputs per encoder (BERT)")
    ap.add_argument("--ort-inputs", type=int, help="ONNX Runtime on only the first N inputs (default: all)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--build-dir", help="where bin/webnnc and bin/webnn-run are (default: build-bench, build)")
    ap.add_argument("--cache-dir", default=benchrun.DEFAULT_CACHE)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    if args.inputs < 1 or args.encoder_inputs < 1:
        ap.error("--inputs and --encoder-inputs must be >= 1")
    tools = {t: benchrun.find_tool(t, args.build_dir) for t in ("webnnc", "webnn-run")}
    if not all(tools.values()):
        log("accuracy.py: webnnc/webnn-run not found (build them, or pass --build-dir)")
        return 2
    if not benchrun.ort_available():
        log("accuracy.py: onnxruntime-node not installed: run bench/install-bench-deps.sh")
        return benchrun.SKIP
    try:
        import torch  # noqa: F401
    except ImportError as e:
        log("accuracy.py: %s: run bench/install-bench-deps.sh" % e)
        return benchrun.SKIP
    results = []
    try:
        for model in [m for m in args.models.split(",") if m]:
            log("%s: exact vs relaxed" % model)
            results.append(measure(model, args, tools))
    except RuntimeError as e:
        log("accuracy.py: %s" % e)
        return 1
    if args.json:
        print(json.dumps(results, indent=1))
    else:
        print(markdown(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
