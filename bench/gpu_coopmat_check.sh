#!/bin/bash
# Cooperative matrices on a real GPU (docs/GPU.md "Cooperative matrices"):
# relaxed-precision artifacts run by `webnn-run --device gpu` twice, with
# tensor cores (matmul_coopmat.comp) and with WEBNN_VULKAN_COOPMAT=0 (the
# float32 matmul.comp on the same float16 weights), printing the median ms
# of each, TFLOP/s for the single-matmul graphs, the coopmat_nodes count
# and max|coopmat - float32 path| / max|float32 path| per output.
#
#   bench/gpu_coopmat_check.sh BIN_DIR --prepare DIR [--quick]
#       compile here (needs webnnc, torch, onnx): DIR gets the artifacts
#       (.wnn.xz, a few MB in all), BERT's input and a manifest
#   bench/gpu_coopmat_check.sh BIN_DIR --models DIR [--runs N]
#       run them (a machine without webnnc; python3 with numpy)
#
# Graphs: BERT-base (12 layers, seq 128; --quick: 2 layers, seq 16), and
# single MatMul / Gemm nodes with constant weights: 4096x4096x4096,
# 128x768x3072 (BERT's FFN), 333x516x772 (no size a multiple of a block),
# 12 batches of 128x64x128, Gemm with bias, alpha and beta 256x1000x1024,
# and the same with B transposed (left to matmul.comp: 0 coopmat nodes);
# --quick shrinks them.
# Weights are two values per tensor in a repeating 4099-element pattern
# (as bench/gpu_check.sh) so the artifacts compress; the matmuls' A input is
# drawn at run time from a fixed seed, so it does not travel.
#
# An output "agrees" when max|coopmat - float32 path| <= TOL * max|float32
# path| (TOL 1e-2: A rounded to float16 on load, 2^-11 relative per
# element). On a device without cooperative matrices both runs take the
# same path (coopmat_nodes 0) and the script says so.
set -euo pipefail

source "$(dirname "$0")/gpu_kit.sh"
gpu_kit_init 28 "$@"

exec "$PYTHON" - "$BIN" "$ROOT" "${GPU_KIT_ARGS[@]}" <<'EOF'
import json
import os
import sys
import tempfile
import time

import numpy as np

BIN, ROOT = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(ROOT, "bench"))
import gpu_kit  # noqa: E402
from gpu_kit import sh  # noqa: E402

ap = gpu_kit.arguments("gpu_coopmat_check.sh", "timed runs per graph and path (default 10, --quick 2)")
args = ap.parse_args(sys.argv[3:])
TOL = 1e-2


def graphs(quick):
    if quick:
        return {
            "bert_base_s16_l2": dict(kind="bert", layers=2, seq=16),
            "matmul_256x256x256": dict(kind="matmul", m=256, k=256, n=256),
            "matmul_64x96x192": dict(kind="matmul", m=64, k=96, n=192),
            "matmul_67x132x76": dict(kind="matmul", m=67, k=132, n=76),
            "matmul_batched_3x64x64x96": dict(kind="matmul", batch=3, m=64, k=64, n=96),
            "gemm_bias_96x100x80": dict(kind="gemm", m=96, k=100, n=80),
            "gemm_tb_bias_96x100x80": dict(kind="gemm", m=96, k=100, n=80, transb=True),
        }
    return {
        "bert_base_s128": dict(kind="bert", layers=12, seq=128),
        "matmul_4096x4096x4096": dict(kind="matmul", m=4096, k=4096, n=4096),
        "matmul_128x768x3072": dict(kind="matmul", m=128, k=768, n=3072),
        "matmul_333x516x772": dict(kind="matmul", m=333, k=516, n=772),
        "matmul_batched_12x128x64x128": dict(kind="matmul", batch=12, m=128, k=64, n=128),
        "gemm_bias_256x1000x1024": dict(kind="gemm", m=256, k=1000, n=1024),
        "gemm_tb_bias_256x1000x1024": dict(kind="gemm", m=256, k=1000, n=1024, transb=True),
    }


def bert_onnx(spec, path):
    import onnx
    import torch
    from onnx import numpy_helper
    sys.path.insert(0, os.path.join(ROOT, "bench", "models"))
    import export_models as em
    torch.manual_seed(0)
    m = em.Encoder(spec["layers"], 768, 12, 3072, spec["seq"]).eval()
    x = torch.randint(0, 30522, (1, spec["seq"]), dtype=torch.int64)
    import inspect
    kw = {"dynamo": False} if "dynamo" in inspect.signature(torch.onnx.export).parameters else {}
    with torch.no_grad():
        torch.onnx.export(m, (x,), path, opset_version=17, input_names=["input_ids"],
                          output_names=["last_hidden_state"], do_constant_folding=True, **kw)
    model = onnx.load(path)
    weights = {n.input[1] for n in model.graph.node if n.op_type in ("MatMul", "Gemm") and len(n.input) > 1}
    weights |= {n.input[0] for n in model.graph.node if n.op_type == "Gather"}
    rng = np.random.default_rng(7)
    for i, t in enumerate(model.graph.initializer):
        if t.name not in weights:
            continue
        a = numpy_helper.to_array(t)
        if a.dtype != np.float32 or a.size < 1024:
            continue
        s = np.float32(a.std() or 0.02)
        model.graph.initializer[i].CopyFrom(numpy_helper.from_array(gpu_kit.two_values(a.shape, rng, -s, s), t.name))
    onnx.save(model, path)
    ids = np.random.default_rng(0).integers(0, 30522, (1, spec["seq"])).astype(np.int64)
    return {"input_ids": ids}


def matmul_onnx(spec, path):
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    m, k, n = spec["m"], spec["k"], spec["n"]
    batch = [spec["batch"]] if "batch" in spec else []
    rng = np.random.default_rng(3)
    s = np.float32(1.0 / np.sqrt(k))
    if spec["kind"] == "matmul":
        w = numpy_helper.from_array(gpu_kit.two_values(tuple(batch) + (k, n), rng, -s, s), "w")
        node = helper.make_node("MatMul", ["a", "w"], ["y"])
        inits = [w]
    else:
        tb = spec.get("transb", False)
        w = numpy_helper.from_array(gpu_kit.two_values((n, k) if tb else (k, n), rng, -s, 0.5 * s), "w")
        bias = numpy_helper.from_array(rng.standard_normal(n).astype(np.float32), "bias")
        node = helper.make_node("Gemm", ["a", "w", "bias"], ["y"], transB=int(tb), alpha=0.5, beta=2.0)
        inits = [w, bias]
    g = helper.make_graph([node], spec["kind"],
                          [helper.make_tensor_value_info("a", TensorProto.FLOAT, batch + [m, k])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, batch + [m, n])], inits)
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), path)
    return {}


def prepare(out, quick):
    os.makedirs(out, exist_ok=True)
    manifest = {"quick": quick, "graphs": {}}
    for name, spec in graphs(quick).items():
        t0 = time.time()
        onnx_path = os.path.join(out, name + ".onnx")
        inputs = bert_onnx(spec, onnx_path) if spec["kind"] == "bert" else matmul_onnx(spec, onnx_path)
        wnn = os.path.join(out, name + ".wnn")
        cmd = [os.path.join(BIN, "webnnc"), "compile", onnx_path, "-o", wnn, "--precision", "relaxed"]
        r = sh(cmd)
        if r.returncode:
            sys.exit(f"gpu_coopmat_check: {' '.join(cmd)} failed:\n{r.stderr}")
        os.remove(onnx_path)
        gpu_kit.xz_file(wnn, wnn + ".xz")
        os.remove(wnn)
        for k, v in inputs.items():
            gpu_kit.save_npy_xz(os.path.join(out, f"{name}.in.{k}.npy.xz"), v)
        manifest["graphs"][name] = dict(spec, inputs=sorted(inputs))
        print(f"prepared {name}: {os.path.getsize(wnn + '.xz') / 1e6:.2f} MB compressed, {time.time() - t0:.0f} s",
              flush=True)
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)


def webnn_run(art, feeds, outdir, coopmat, runs):
    """({output: array}, json of the timed run) or (None, the error line)."""
    env = dict(os.environ)
    if not coopmat:
        env["WEBNN_VULKAN_COOPMAT"] = "0"
    base = [os.path.join(BIN, "webnn-run"), art, "--device", "gpu"]
    for k, p in feeds.items():
        base += ["--input", f"{k}={p}"]
    os.makedirs(outdir, exist_ok=True)
    r = sh(base + ["--output-dir", outdir], env)
    if r.returncode:
        return None, (r.stderr.strip() or r.stdout.strip()).splitlines()[-1]
    outs = {f[:-4]: np.load(os.path.join(outdir, f)) for f in os.listdir(outdir) if f.endswith(".npy")}
    r = sh(base + ["--warmup", "3", "--bench", str(runs), "--json"], env)
    if r.returncode:
        return None, (r.stderr.strip() or r.stdout.strip()).splitlines()[-1]
    return outs, json.loads(r.stdout)


def run(mdir):
    with open(os.path.join(mdir, "manifest.json")) as f:
        manifest = json.load(f)
    runs = args.runs or (2 if manifest["quick"] else 10)
    r = sh([os.path.join(BIN, "webnn-run"), "--list-devices"])
    print("devices:", (r.stdout + r.stderr).strip().replace("\n", "\n  "))
    print(f"{runs} timed runs per path, median ms; agree: max|coopmat - fp32 path| <= {TOL:g} * max|fp32 path|")
    failed = False
    any_coopmat = False
    with tempfile.TemporaryDirectory() as work:
        for name, spec in manifest["graphs"].items():
            art = os.path.join(work, name + ".wnn")
            gpu_kit.unxz_file(os.path.join(mdir, name + ".wnn.xz"), art)
            feeds = {}
            for k in spec["inputs"]:
                p = os.path.join(work, f"{name}.{k}.npy")
                np.save(p, gpu_kit.load_npy_xz(os.path.join(mdir, f"{name}.in.{k}.npy.xz")))
                feeds[k] = p
            if spec["kind"] != "bert":
                p = os.path.join(work, f"{name}.a.npy")
                shape = ([spec["batch"]] if "batch" in spec else []) + [spec["m"], spec["k"]]
                np.save(p, np.random.default_rng(11).standard_normal(shape).astype(np.float32))
                feeds["a"] = p
            cm_out, cm = webnn_run(art, feeds, os.path.join(work, name, "cm"), True, runs)
            fp_out, fp = webnn_run(art, feeds, os.path.join(work, name, "fp"), False, runs)
            if cm_out is None or fp_out is None:
                print(f"{name}: FAILED: {cm if cm_out is None else fp}", flush=True)
                failed = True
                continue
            cm_ms, fp_ms = cm["latency_ms"]["median"], fp["latency_ms"]["median"]
            nodes = cm["gpu"].get("coopmat_nodes", 0)
            any_coopmat |= nodes > 0
            line = (f"{name}: coopmat {cm_ms:.3f} ms ({nodes} coopmat nodes), fp32 path {fp_ms:.3f} ms "
                    f"({fp['gpu'].get('coopmat_nodes', 0)}), {fp_ms / cm_ms:.2f}x")
            if spec["kind"] != "bert":
                flop = 2.0 * spec.get("batch", 1) * spec["m"] * spec["n"] * spec["k"]
                line += f"; TFLOP/s {flop / cm_ms / 1e9:.3g} vs {flop / fp_ms / 1e9:.3g}"
            for k, ref in fp_out.items():
                got = cm_out.get(k)
                if got is None or got.shape != ref.shape:
                    line += f"; {k}: MISSING or shape {None if got is None else got.shape} vs {ref.shape}"
                    failed = True
                    continue
                scale = float(np.max(np.abs(ref.astype(np.float64)))) if ref.size else 0.0
                err = float(np.max(np.abs(got.astype(np.float64) - ref.astype(np.float64)))) if ref.size else 0.0
                rel = err / scale if scale else err
                ok = np.all(np.isfinite(got)) and rel <= TOL
                line += f"; {k}: max err / max {rel:.3g} ({'agree' if ok else 'DISAGREE'})"
                failed |= not ok
            print(line, flush=True)
            os.remove(art)
    if not any_coopmat:
        print("no node used cooperative matrices (the device reports none, or WEBNN_VULKAN_COOPMAT=0 is set): "
              "both paths ran matmul.comp")
    return 1 if failed else 0


if args.prepare:
    prepare(args.prepare, args.quick)
    sys.exit(0)
if args.models:
    sys.exit(run(args.models))
with tempfile.TemporaryDirectory() as d:
    prepare(d, args.quick)
    sys.exit(run(d))
EOF
