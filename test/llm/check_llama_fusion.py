#!/usr/bin/python3
"""The LLM fusion passes on a whole model, and --webnn-decompose-fused back.

  check_llama_fusion.py --bin BUILD/bin [--work DIR] [--layers N]

1. The decomposed tiny Llama (make_llama_decomposed.py: plain ONNX ops, one
   8-token prefill) compiled by webnnc: `--report` must show RMSNorm (5 per 2
   layers: 2 per layer + the final one; all but the first with the residual
   add), rotary (2 per layer, both absorbed by attention) and grouped-query
   attention fused in every layer, and the fused graph must hold the same
   LLM ops as the contrib model make_llama.py compiles to (groupQueryAttention
   with doRotary, rmsNormalization, skipRmsNormalization) and nothing of the
   decomposed chains (pow, reduceMean, sqrt, softmax, concat, ...).
2. Its logits equal the unfused graph's (`--no-optimize`) and ONNX Runtime's
   on the decomposed ONNX model, rtol 1e-4 (atol 1e-5). The fp16 export of
   the same model (casts around the RMSNorm statistics and the softmax)
   fuses alike, its logits within fp16 rounding (atol 2e-2) of the unfused
   graph's and the float32 model's. So does the export with position ids as
   an input (cos/sin computed in the graph), run at positions with a gap,
   against the unfused graph and ONNX Runtime (rtol 1e-4), and through
   --webnn-decompose-fused. And the layers written like transformers'
   modeling_llama.py, exported by torch.onnx.export (export_torch_llama.py):
   the same fusions; outputs vs unfused, ONNX Runtime and PyTorch.
3. Same weights: ONNX Runtime on the contrib model (MatMulNBits
   accuracy_level 0, empty past) gives the same logits, rtol 1e-4.
4. Decomposition: the fused MLIR through `webnn-opt --webnn-decompose-fused`
   has no LLM op left, and its artifact's outputs equal the fused artifact's
   (rtol 1e-4), for the decomposed Llama and for the contrib Llama with a
   3-token past (matmulNBits, groupQueryAttention with past and rotary),
   with its sequence lengths constants (make_llama.py's fixed_lengths) and
   as the genai builder writes it (seqlensK from the attention mask at run
   time, which the expansion computes in the graph).
Exit 0 when all hold, 1 otherwise.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
ORT_BENCH = os.path.join(ROOT, "bench", "ort_bench.js")
sys.path.insert(0, HERE)
import make_llama  # noqa: E402
import make_llama_decomposed  # noqa: E402

LLM_OPS = ("groupQueryAttention", "rmsNormalization", "skipRmsNormalization", "rotaryEmbedding", "matmulNBits")
DECOMPOSED_CHAIN_OPS = ("pow", "reduceMean", "sqrt", "reciprocal", "softmax", "concat", "neg", "slice", "expand")


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({r.returncode}):\n{r.stdout}\n{r.stderr}")
    return r


def op_counts(mlir_path):
    counts = {}
    for m in re.finditer(r"= webnn\.(\w+)", open(mlir_path).read()):
        counts[m.group(1)] = counts.get(m.group(1), 0) + 1
    return counts


def save_inputs(d, feeds):
    files = {}
    for k, v in feeds.items():
        files[k] = os.path.join(d, k + ".npy")
        np.save(files[k], v)
    return files


def run_wnn(args, wnn, files, out):
    cmd = [os.path.join(args.bin, "webnn-run"), wnn, "--output-dir", out]
    for k, f in files.items():
        cmd += ["--input", f"{k}={f}"]
    run(cmd)


def run_ort(model, files, out):
    cmd = ["node", ORT_BENCH, model, "--bench", "1", "--warmup", "0", "--output-dir", out]
    for k, f in files.items():
        cmd += ["--input", f"{k}={f}"]
    run(cmd)


class Checks:
    def __init__(self):
        self.failed = 0

    def expect(self, ok, what):
        print(("ok   " if ok else "FAIL ") + what)
        self.failed += 0 if ok else 1

    def close(self, a_dir, b_dir, names, what, rtol=1e-4, atol=1e-5):
        for n in names:
            a, b = np.load(os.path.join(a_dir, n + ".npy")), np.load(os.path.join(b_dir, n + ".npy"))
            ok = a.shape == b.shape and np.allclose(a, b, rtol=rtol, atol=atol)
            diff = float(np.abs(a.astype(np.float64) - b).max()) if a.shape == b.shape else float("inf")
            self.expect(ok, f"{what}: {n} max |diff| {diff:.3g} (max |value| {float(np.abs(b).max()):.3g})")


def decompose_round_trip(args, c, d, fused_mlir, files, fused_out, names, what):
    back = os.path.join(d, "decomposed.mlir")
    run([os.path.join(args.bin, "webnn-opt"), "--webnn-decompose-fused", fused_mlir, "-o", back])
    left = {k: v for k, v in op_counts(back).items() if k in LLM_OPS}
    c.expect(not left, f"{what}: no LLM op after --webnn-decompose-fused (left: {left})")
    wnn = os.path.join(d, "decomposed.wnn")
    run([os.path.join(args.bin, "webnnc"), "compile", back, "-o", wnn, "--no-optimize"])
    out = os.path.join(d, "out-decomposed")
    run_wnn(args, wnn, files, out)
    c.close(out, fused_out, names, f"{what}: decomposed artifact vs fused")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--work")
    ap.add_argument("--seq", type=int, default=8)
    a = ap.parse_args(argv)
    keep = a.work is not None
    a.work = a.work or tempfile.mkdtemp(prefix="llama-fusion-")
    cfg = make_llama.SIZES["tiny"]
    L, S = cfg["layers"], a.seq
    webnnc = os.path.join(a.bin, "webnnc")
    c = Checks()

    # 1. Fusion on the decomposed model.
    d = os.path.join(a.work, "decomposed")
    os.makedirs(d, exist_ok=True)
    dec = os.path.join(d, "llama.onnx")
    onnx.save(make_llama_decomposed.build(cfg, S, 32, 0), dec)
    r = run([webnnc, "compile", dec, "-o", os.path.join(d, "fused.wnn"), "--report"])
    print(r.stderr)
    fired = {}
    for m in re.finditer(r"^\s+(webnn-[\w-]+)\s+([\w-]+)\s+(\d+)$", r.stderr, re.M):
        fired[(m.group(1), m.group(2))] = int(m.group(3))
    want = {("webnn-fuse-rms-norm", "rms-norms-fused"): 2 * L + 1,
            ("webnn-fuse-rms-norm", "skip-adds-fused"): 2 * L,
            ("webnn-fuse-rotary", "rotaries-fused"): 2 * L,
            ("webnn-fuse-gqa", "attentions-fused"): L,
            ("webnn-fuse-gqa", "rotaries-absorbed"): L}
    for key, n in want.items():
        c.expect(fired.get(key) == n, f"report {key[0]} {key[1]} = {fired.get(key)} (want {n}: every layer)")
    for key in [("webnn-fuse-rms-norm", "ops-replaced"), ("webnn-fuse-rotary", "ops-replaced"),
                ("webnn-fuse-gqa", "ops-replaced")]:
        c.expect(fired.get(key, 0) > 0, f"report {key[0]} {key[1]} = {fired.get(key)}")

    fused_mlir = os.path.join(d, "fused.mlir")
    run([webnnc, "compile", dec, "-o", fused_mlir, "--emit", "mlir"])
    ours = op_counts(fused_mlir)
    rotary_gqa = len(re.findall(r"webnn\.groupQueryAttention[^\n]*doRotary = true", open(fused_mlir).read()))
    leftovers = {k: ours[k] for k in DECOMPOSED_CHAIN_OPS if k in ours}
    c.expect(not leftovers, f"no decomposed chain op left in the fused graph (left: {leftovers})")

    # The contrib model (genai layout) for one step with a 3-token past, its
    # sequence lengths constants (make_llama.py's fixed_lengths).
    cd = os.path.join(a.work, "contrib")
    os.makedirs(cd, exist_ok=True)
    past = 3
    contrib_fixed = os.path.join(cd, "llama-fixed.onnx")
    onnx.save(make_llama.build(cfg, 0, 32, 0, fixed_lengths=(past, S)), contrib_fixed)
    shapes = ["--shape", "batch_size:1", "--shape", f"sequence_length:{S}", "--shape",
              f"past_sequence_length:{past}", "--shape", f"total_sequence_length:{past + S}"]
    contrib_mlir = os.path.join(cd, "fused.mlir")
    run([webnnc, "compile", contrib_fixed, "-o", contrib_mlir, "--emit", "mlir"] + shapes)
    theirs = op_counts(contrib_mlir)
    theirs_rotary = len(re.findall(r"webnn\.groupQueryAttention[^\n]*doRotary = true", open(contrib_mlir).read()))
    for op in ("groupQueryAttention", "rmsNormalization", "skipRmsNormalization"):
        c.expect(ours.get(op, 0) == theirs.get(op, 0) > 0,
                 f"{op}: decomposed model fuses to {ours.get(op, 0)}, contrib model has {theirs.get(op, 0)}")
    c.expect(rotary_gqa == theirs_rotary == L, f"groupQueryAttention with doRotary: {rotary_gqa} vs contrib {theirs_rotary}")

    # 2. Fused vs unfused vs ONNX Runtime, one prefill.
    rng = np.random.default_rng(1)
    ids = rng.integers(0, cfg["vocab"], (1, S)).astype(np.int64)
    files = save_inputs(d, {"input_ids": ids})
    run([webnnc, "compile", dec, "-o", os.path.join(d, "unfused.wnn"), "--no-optimize"])
    for name in ("fused", "unfused"):
        run_wnn(a, os.path.join(d, name + ".wnn"), files, os.path.join(d, "out-" + name))
    c.close(os.path.join(d, "out-fused"), os.path.join(d, "out-unfused"), ["logits"], "fused vs --no-optimize")
    run_ort(dec, files, os.path.join(d, "out-ort"))
    c.close(os.path.join(d, "out-fused"), os.path.join(d, "out-ort"), ["logits"], "fused vs ONNX Runtime")

    # 3. Same weights as the contrib model: ORT on it with an empty past.
    cfiles = {"input_ids": ids, "attention_mask": np.ones((1, S), np.int64)}
    for i in range(L):
        for kv in ("key", "value"):
            cfiles[f"past_key_values.{i}.{kv}"] = np.zeros((1, cfg["kv_heads"], 0, cfg["head"]), np.float32)
    e = os.path.join(cd, "empty-past")
    os.makedirs(e, exist_ok=True)
    contrib = os.path.join(e, "llama.onnx")
    onnx.save(make_llama.build(cfg, 0, 32, 0), contrib)
    run_ort(contrib, save_inputs(e, cfiles), os.path.join(e, "out-ort"))
    c.close(os.path.join(d, "out-fused"), os.path.join(e, "out-ort"), ["logits"],
            "decomposed model (fused) vs ONNX Runtime on the contrib model")

    # 2b. The fp16 export (RMSNorm statistics and softmax in float32 between
    # casts): the same fusions in every layer; logits vs --no-optimize and vs
    # the float32 model within fp16 rounding (ulp 0.004 at 4).
    h = os.path.join(a.work, "fp16")
    os.makedirs(h, exist_ok=True)
    dec16 = os.path.join(h, "llama.onnx")
    onnx.save(make_llama_decomposed.build(cfg, S, 32, 0, np.float16), dec16)
    r = run([webnnc, "compile", dec16, "-o", os.path.join(h, "fused.wnn"), "--report"])
    fired16 = {(m.group(1), m.group(2)): int(m.group(3))
               for m in re.finditer(r"^\s+(webnn-[\w-]+)\s+([\w-]+)\s+(\d+)$", r.stderr, re.M)}
    for key, n in want.items():
        c.expect(fired16.get(key) == n, f"fp16: report {key[0]} {key[1]} = {fired16.get(key)} (want {n})")
    run([webnnc, "compile", dec16, "-o", os.path.join(h, "unfused.wnn"), "--no-optimize"])
    for name in ("fused", "unfused"):
        run_wnn(a, os.path.join(h, name + ".wnn"), files, os.path.join(h, "out-" + name))
    c.close(os.path.join(h, "out-fused"), os.path.join(h, "out-unfused"), ["logits"], "fp16: fused vs --no-optimize",
            rtol=5e-3, atol=2e-2)
    c.close(os.path.join(h, "out-fused"), os.path.join(d, "out-fused"), ["logits"], "fp16 vs float32 model",
            rtol=5e-3, atol=2e-2)

    # 2c. Positions as an input, cos/sin computed in the graph (Cos/Sin of
    # concat(f, f)): the caches become cos/sin(f) at run time. Positions with a
    # gap, so a fusion that ignored them would differ (a uniform shift would
    # not: rotary attention depends on position differences only).
    pdir = os.path.join(a.work, "position-ids")
    os.makedirs(pdir, exist_ok=True)
    decp = os.path.join(pdir, "llama.onnx")
    onnx.save(make_llama_decomposed.build(cfg, S, 32, 0, position_ids_input=True), decp)
    r = run([webnnc, "compile", decp, "-o", os.path.join(pdir, "fused.wnn"), "--report"])
    firedp = {(m.group(1), m.group(2)): int(m.group(3))
              for m in re.finditer(r"^\s+(webnn-[\w-]+)\s+([\w-]+)\s+(\d+)$", r.stderr, re.M)}
    for key, n in want.items():
        c.expect(firedp.get(key) == n, f"position ids input: report {key[0]} {key[1]} = {firedp.get(key)} (want {n})")
    pos = np.concatenate([np.arange(S // 2), np.arange(S - S // 2) + 2 * S])[None].astype(np.int64)
    pfiles = save_inputs(pdir, {"input_ids": ids, "position_ids": pos})
    run([webnnc, "compile", decp, "-o", os.path.join(pdir, "unfused.wnn"), "--no-optimize"])
    for name in ("fused", "unfused"):
        run_wnn(a, os.path.join(pdir, name + ".wnn"), pfiles, os.path.join(pdir, "out-" + name))
    run_ort(decp, pfiles, os.path.join(pdir, "out-ort"))
    c.close(os.path.join(pdir, "out-fused"), os.path.join(pdir, "out-unfused"), ["logits"],
            "position ids input: fused vs --no-optimize")
    c.close(os.path.join(pdir, "out-fused"), os.path.join(pdir, "out-ort"), ["logits"],
            "position ids input: fused vs ONNX Runtime")
    pmlir = os.path.join(pdir, "fused.mlir")
    run([webnnc, "compile", decp, "-o", pmlir, "--emit", "mlir"])
    decompose_round_trip(a, c, pdir, pmlir, pfiles, os.path.join(pdir, "out-fused"), ["logits"],
                         "position ids input")

    # 2d. The same layers written like transformers' modeling_llama.py and
    # exported by torch.onnx.export itself (export_torch_llama.py): the real
    # exporter's forms (rsqrt as Div(1, Sqrt), identity casts, slices with
    # constant inputs) fuse alike; outputs vs unfused, ONNX Runtime and
    # PyTorch's own, at positions with a gap.
    tdir = os.path.join(a.work, "torch")
    os.makedirs(tdir, exist_ok=True)
    tonnx = os.path.join(tdir, "llama.onnx")
    run([sys.executable, os.path.join(HERE, "export_torch_llama.py"), tonnx, "--seq", str(S),
         "--reference-dir", os.path.join(tdir, "ref")])
    r = run([webnnc, "compile", tonnx, "-o", os.path.join(tdir, "fused.wnn"), "--report"])
    firedt = {(m.group(1), m.group(2)): int(m.group(3))
              for m in re.finditer(r"^\s+(webnn-[\w-]+)\s+([\w-]+)\s+(\d+)$", r.stderr, re.M)}
    for key, n in want.items():
        c.expect(firedt.get(key) == n, f"torch export: report {key[0]} {key[1]} = {firedt.get(key)} (want {n})")
    tfiles = {n: os.path.join(tdir, "ref", n + ".npy") for n in ("input_ids", "position_ids")}
    run([webnnc, "compile", tonnx, "-o", os.path.join(tdir, "unfused.wnn"), "--no-optimize"])
    for name in ("fused", "unfused"):
        run_wnn(a, os.path.join(tdir, name + ".wnn"), tfiles, os.path.join(tdir, "out-" + name))
    run_ort(tonnx, tfiles, os.path.join(tdir, "out-ort"))
    for ref, what in (("out-unfused", "--no-optimize"), ("out-ort", "ONNX Runtime"), ("ref", "PyTorch")):
        c.close(os.path.join(tdir, "out-fused"), os.path.join(tdir, ref), ["logits"], f"torch export: fused vs {what}")

    # 4. --webnn-decompose-fused, both models.
    decompose_round_trip(a, c, d, fused_mlir, files, os.path.join(d, "out-fused"), ["logits"], "decomposed Llama")
    feeds = {"input_ids": rng.integers(0, cfg["vocab"], (1, S)).astype(np.int64)}
    for i in range(L):
        for kv in ("key", "value"):
            feeds[f"past_key_values.{i}.{kv}"] = rng.standard_normal((1, cfg["kv_heads"], past, cfg["head"])).astype(np.float32)
    cfiles = save_inputs(cd, feeds)
    contrib_wnn = os.path.join(cd, "fused.wnn")
    run([webnnc, "compile", contrib_mlir, "-o", contrib_wnn, "--no-optimize"])
    run_wnn(a, contrib_wnn, cfiles, os.path.join(cd, "out-fused"))
    names = ["logits"] + [f"present.{i}.{kv}" for i in range(L) for kv in ("key", "value")]
    decompose_round_trip(a, c, cd, contrib_mlir, cfiles, os.path.join(cd, "out-fused"), names, "contrib Llama, past 3")

    # 4b. The contrib Llama as the genai builder writes it, seqlensK computed
    # from the attention mask at run time (static shapes): the expansion
    # computes the past lengths in the graph; same outputs as the fused graph
    # and as the model with constant lengths.
    gd = os.path.join(a.work, "contrib-runtime-lengths")
    os.makedirs(gd, exist_ok=True)
    genai = os.path.join(gd, "llama.onnx")
    onnx.save(make_llama.build(cfg, 0, 32, 0), genai)
    gmlir = os.path.join(gd, "fused.mlir")
    run([webnnc, "compile", genai, "-o", gmlir, "--emit", "mlir"] + shapes)
    gfiles = save_inputs(gd, dict(feeds, attention_mask=np.ones((1, past + S), np.int64)))
    gwnn = os.path.join(gd, "fused.wnn")
    run([webnnc, "compile", gmlir, "-o", gwnn, "--no-optimize"])
    run_wnn(a, gwnn, gfiles, os.path.join(gd, "out-fused"))
    c.close(os.path.join(gd, "out-fused"), os.path.join(cd, "out-fused"), names,
            "run-time vs constant sequence lengths (fused)")
    decompose_round_trip(a, c, gd, gmlir, gfiles, os.path.join(gd, "out-fused"), names,
                         "contrib Llama with run-time seqlensK, past 3")

    if c.failed or keep:
        print(f"{'FAILED' if c.failed else 'passed'} ({c.failed} failed checks; files in {a.work})")
    else:
        shutil.rmtree(a.work)
        print("passed (0 failed checks)")
    return 1 if c.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
