#!/usr/bin/python3
"""Runs the functions of lit test files before and after a rewrite and
compares their outputs, so a fusion or an expansion that FileCheck accepts
is also shown to compute the same numbers.

  check_rewrite_numerics.py --bin BUILD/bin --mode fuse|decompose FILE.mlir...

Each `// -----` section of FILE is one graph. fuse: `webnnc compile
--no-optimize` (unfused) against `webnnc compile` (the full cpu pipeline,
fusions included). decompose: the graph as written (fused ops run by their
kernels) against `webnn-opt --webnn-decompose-fused` of it. Inputs are
random (float32 / float16 normal, int64 in [0, 16)); sections with other
input types are skipped unless `// run-with NAME=JSON ...` lines give those
inputs' values (int32 too), one run of the comparison per line (e.g. the
seqlensK of several decode steps). Every output must agree to rtol 1e-4, atol 1e-5
(float16: rtol 2e-3, atol 2e-3). Prints which LLM ops the compared graphs
held; exit 1 on any mismatch, or when no section was compared.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

LLM_OPS = r"(rotaryEmbedding|groupQueryAttention|rmsNormalization|skipRmsNormalization|matmulNBits)"
DTYPES = {"f32": np.float32, "f16": np.float16, "i64": np.int64, "i32": np.int32}


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({r.returncode}):\n{r.stderr}")
    return r


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--mode", choices=["fuse", "decompose"], required=True)
    ap.add_argument("files", nargs="+")
    a = ap.parse_args(argv)
    webnnc, opt, wrun = (os.path.join(a.bin, n) for n in ("webnnc", "webnn-opt", "webnn-run"))
    # (the graphs, inputs and outputs go to a temporary directory)
    with tempfile.TemporaryDirectory(prefix="rewrite-numerics-") as work:
        return compare(a, webnnc, opt, wrun, work)


def compare(a, webnnc, opt, wrun, work):
    failed = compared = 0
    for path in a.files:
        for i, section in enumerate(open(path).read().split("// -----")):
            m = re.search(r"^func\.func @(\w+)", section, re.M)
            if not m:
                continue
            name = m.group(1)
            src = os.path.join(work, f"{name}.mlir")
            open(src, "w").write(section[m.start():])
            inputs = re.findall(r'webnn\.input "(\w+)" : tensor<((?:\d+x)*)(\w+)>', section[m.start():])
            runs = [dict((kv.split("=", 1)[0], json.loads(kv.split("=", 1)[1])) for kv in line.split())
                    for line in re.findall(r"^// run-with (.+)$", section, re.M)] or [{}]
            if any(t not in DTYPES or (t == "i32" and n not in runs[0]) for n, _, t in inputs):
                print(f"skip {name}: input types {[t for _, _, t in inputs]}")
                continue
            for given in runs:
                c, f = compare_section(a, webnnc, opt, wrun, work, path, i, name, src, inputs, given)
                compared += c
                failed += f
    print(f"{compared} compared, {failed} failed")
    return 1 if failed or not compared else 0


def compare_section(a, webnnc, opt, wrun, work, path, i, name, src, inputs, given):
    rng = np.random.default_rng(i)
    args = []
    for n, shape, t in inputs:
        dims = [int(d) for d in shape.split("x") if d]
        if n in given:
            x = np.array(given[n], dtype=DTYPES[t]).reshape(dims)
        else:
            x = (rng.integers(0, 16, dims) if t == "i64" else rng.standard_normal(dims)).astype(DTYPES[t])
        f = os.path.join(work, f"{name}.{n}.npy")
        np.save(f, x)
        args += ["--input", f"{n}={f}"]
    if a.mode == "fuse":
        before, after = src, src
        flags = (["--no-optimize"], [])
    else:
        before, after = src, os.path.join(work, f"{name}.decomposed.mlir")
        run([opt, "--webnn-decompose-fused", src, "-o", after])
        flags = (["--no-optimize"], ["--no-optimize"])
    outs, held = [], []
    for k, (model, f) in enumerate(zip((before, after), flags)):
        mlir = os.path.join(work, f"{name}.{k}.out.mlir")
        run([webnnc, "compile", model, "-o", mlir, "--emit", "mlir"] + f)
        held.append(sorted(set(re.findall(r"webnn\." + LLM_OPS, open(mlir).read()))))
        wnn = os.path.join(work, f"{name}.{k}.wnn")
        run([webnnc, "compile", model, "-o", wnn] + f)
        d = os.path.join(work, f"{name}.{k}.out")
        run([wrun, wnn, "--output-dir", d] + args)
        outs.append({f[:-4]: np.load(os.path.join(d, f)) for f in os.listdir(d)})
    ok = outs[0].keys() == outs[1].keys() and bool(outs[0])
    worst = 0.0
    for k in outs[0]:
        x, y = outs[0][k], outs[1].get(k)
        tol = (2e-3, 2e-3) if x.dtype == np.float16 else (1e-4, 1e-5)
        if y is None or x.shape != y.shape or not np.allclose(x, y, rtol=tol[0], atol=tol[1], equal_nan=True):
            ok = False
        if y is not None and x.shape == y.shape:
            worst = max(worst, float(np.abs(x.astype(np.float64) - y).max()))
    values = " with " + " ".join(f"{k}={v}" for k, v in given.items()) if given else ""
    print(f"{'ok  ' if ok else 'FAIL'} {os.path.basename(path)} @{name}{values}: {held[0]} vs {held[1]}, "
          f"max |diff| {worst:.3g}")
    return 1, 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
