#!/bin/bash
# The real-GPU check (docs/GPU.md): ResNet-50 (batch 1 and 32), BERT-base
# (seq 128) and the int4 Llama decode step of test/llm/make_llama.py, each run
# by `webnn-run --device gpu` and on the CPU, the GPU's outputs checked against
# the CPU's, median ms per run for both, and PyTorch CUDA's median for the same
# architecture and shapes where `torch.cuda.is_available()` holds. Nothing is
# fetched: the models are exported from torch/torchvision constructors with
# random weights (bench/models/export_models.py) and make_llama.py.
#
#   bench/gpu_check.sh BIN_DIR [--quick] [--runs N]
#       compile here (needs webnnc, torch, torchvision, onnx) and run
#   bench/gpu_check.sh BIN_DIR --prepare DIR [--quick]
#       only compile: DIR gets the artifacts (.wnn.xz), inputs and a manifest
#   bench/gpu_check.sh BIN_DIR --models DIR [--runs N]
#       run the artifacts of --prepare (a machine without webnnc)
#
# --quick: small shapes for lavapipe (ResNet-50 at 64x64, batch 1 and 2; a
# 2-layer BERT-base at seq 16; the tiny Llama). Full: ResNet-50 224x224 batch
# 1 and 32, MobileNetV2, EfficientNet-B0, ConvNeXt-T and ViT-B/16 at 224x224
# batch 1, BERT-base 12 layers seq 128, the ~100M Llama (bench/llm.py's),
# decode of one token after 128.
#
# The large weight tensors (conv/matmul/gemm weights, embeddings, int4 blocks
# and their scales) are redrawn from two values per tensor (+-std of the
# original; two int4 byte codes; mean|scale| and 1.5x it) in a random pattern
# of 4099 elements repeated over the tensor, so the artifacts compress to
# about a MB and can travel to a GPU machine; speed does not depend on the
# values and the GPU/CPU comparison still sees every weight.
#
# Tolerance: an output passes when max|gpu - cpu| <= 1e-3 * max|cpu| + 1e-5
# (float32 sums in another order; GPU exp/erf within a few ulp).
# A model the GPU refuses prints the refusal line from webnn-run, no number.
# BERT is also compiled with --no-optimize (row NAME.noopt: plain matmul/
# softmax/layerNormalization instead of the fused ops, to compare the two).
# Environment: PYTHON (a python3 with numpy; default: the first of python3,
# /usr/bin/python3 that has it), plus the Vulkan variables of docs/GPU.md.
set -euo pipefail

source "$(dirname "$0")/gpu_kit.sh"
gpu_kit_init 33 "$@"

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

ap = gpu_kit.arguments("gpu_check.sh", "timed runs per model (default 20, --quick 3)")
ap.add_argument("--only", default="", help="comma-separated model names")
args = ap.parse_args(sys.argv[3:])
RTOL_OF_MAX, ATOL = 1e-3, 1e-5


def models(quick):
    """name -> spec: torch export or Llama, with shapes."""
    if quick:
        return {
            "resnet50_b1": dict(kind="image", batch=1, size=64),
            "resnet50_b2": dict(kind="image", batch=2, size=64),
            "bert_base_s16_l2": dict(kind="bert", layers=2, seq=16),
            "llama_tiny_int4_decode": dict(kind="llama", size="tiny", past=16),
        }
    return {
        "resnet50_b1": dict(kind="image", batch=1, size=224),
        "resnet50_b32": dict(kind="image", batch=32, size=224),
        "mobilenetv2_b1": dict(kind="image", arch="mobilenet_v2", batch=1, size=224),
        "efficientnet_b0_b1": dict(kind="image", arch="efficientnet_b0", batch=1, size=224),
        "convnext_tiny_b1": dict(kind="image", arch="convnext_tiny", batch=1, size=224),
        "vit_b16_b1": dict(kind="image", arch="vit_b_16", batch=1, size=224),
        "bert_base_s128": dict(kind="bert", layers=12, seq=128),
        "llama_100m_int4_decode": dict(kind="llama", size="100m", past=128),
    }


def torch_model(spec):
    """The torch module and example input for an image/bert spec (export_models.py's classes)."""
    import torch
    sys.path.insert(0, os.path.join(ROOT, "bench", "models"))
    import export_models as em
    torch.manual_seed(0)
    if spec["kind"] == "image":
        import torchvision
        m = getattr(torchvision.models, spec.get("arch", "resnet50"))(weights=None)
        em.randomize_batchnorm(m, torch.Generator().manual_seed(1))
        em.randomize_zero_linears(m, torch.Generator().manual_seed(2))
        x = torch.randn(spec["batch"], 3, spec["size"], spec["size"])
        return m.eval(), x, "input", "logits"
    m = em.Encoder(spec["layers"], 768, 12, 3072, spec["seq"])
    x = torch.randint(0, 30522, (1, spec["seq"]), dtype=torch.int64)
    return m.eval(), x, "input_ids", "last_hidden_state"


def two_value_weights(model):
    """Redraws the large weight tensors from two values each (module docstring)."""
    from onnx import numpy_helper
    rng = np.random.default_rng(7)
    feeds = {}
    for n in model.graph.node:
        if n.op_type in ("Conv", "MatMul", "Gemm") and len(n.input) > 1:
            feeds.setdefault(n.input[1], "float")
        elif n.op_type == "Gather":
            feeds.setdefault(n.input[0], "float")
        elif n.op_type == "MatMulNBits":
            feeds.setdefault(n.input[1], "int4")
            feeds.setdefault(n.input[2], "scale")
    for i, t in enumerate(model.graph.initializer):
        kind = feeds.get(t.name)
        if kind is None:
            continue
        a = numpy_helper.to_array(t)
        if a.size < 1024:
            continue
        if kind == "float" and a.dtype == np.float32:
            s = np.float32(a.std() or 0.02)
            b = gpu_kit.two_values(a.shape, rng, -s, s)
        elif kind == "int4" and a.dtype == np.uint8:
            b = gpu_kit.two_values(a.shape, rng, 0x5A, 0xA5, np.uint8)
        elif kind == "scale" and a.dtype == np.float32:
            s = np.float32(np.abs(a).mean())
            b = gpu_kit.two_values(a.shape, rng, s, 1.5 * s)
        else:
            continue
        model.graph.initializer[i].CopyFrom(numpy_helper.from_array(b, t.name))


def prepare(out, quick):
    import onnx
    os.makedirs(out, exist_ok=True)
    manifest = {"quick": quick, "models": {}}
    for name, spec in models(quick).items():
        if args.only and name not in args.only.split(","):
            continue
        t0 = time.time()
        onnx_path = os.path.join(out, name + ".onnx")
        rng = np.random.default_rng(0)
        shapes = []
        if spec["kind"] == "llama":
            sys.path.insert(0, os.path.join(ROOT, "test", "llm"))
            import make_llama
            cfg = make_llama.SIZES[spec["size"]]
            past = spec["past"]
            model = make_llama.build(cfg, 0, 32, 0, fixed_lengths=(past, 1))
            inputs = {"input_ids": np.array([[5]], np.int64)}
            for i in range(cfg["layers"]):
                for kv in ("key", "value"):
                    inputs[f"past_key_values.{i}.{kv}"] = rng.standard_normal(
                        (1, cfg["kv_heads"], past, cfg["head"])).astype(np.float32)
            shapes = ["batch_size:1", "sequence_length:1", f"past_sequence_length:{past}",
                      f"total_sequence_length:{past + 1}"]
        else:
            import torch
            m, x, iname, oname = torch_model(spec)
            import inspect
            kw = {"dynamo": False} if "dynamo" in inspect.signature(torch.onnx.export).parameters else {}
            sys.path.insert(0, os.path.join(ROOT, "bench", "models"))
            import export_models as em
            # GradOn keeps torch off its fused attention kernels, which
            # have no ONNX export (ViT); PyTorch's own timing runs m itself.
            with torch.no_grad():
                torch.onnx.export(em.GradOn(m), (x,), onnx_path, opset_version=17, input_names=[iname],
                                  output_names=[oname], do_constant_folding=True, **kw)
            model = onnx.load(onnx_path)
            if spec["kind"] == "image":
                # Up to 4 distinct images repeated across the batch: the
                # carried input then compresses like the weights.
                b = x.shape[0]
                imgs = rng.standard_normal((min(b, 4),) + tuple(x.shape[1:])).astype(np.float32)
                inputs = {iname: np.ascontiguousarray(np.resize(imgs, tuple(x.shape)))}
            else:
                inputs = {iname: rng.integers(0, 30522, tuple(x.shape)).astype(np.int64)}
        two_value_weights(model)
        onnx.save(model, onnx_path)
        wnn = os.path.join(out, name + ".wnn")
        cmd = [os.path.join(BIN, "webnnc"), "compile", onnx_path, "-o", wnn]
        for s in shapes:
            cmd += ["--shape", s]
        r = sh(cmd)
        if r.returncode:
            sys.exit(f"gpu_check: {' '.join(cmd)} failed:\n{r.stderr}")
        arts = [wnn]
        if spec["kind"] == "bert":
            # A second artifact keeps the plain ops (matmul, softmax,
            # layerNormalization) that the default pipeline fuses.
            arts.append(os.path.join(out, name + ".noopt.wnn"))
            r = sh(cmd[:-1] + [arts[1], "--no-optimize"])
            if r.returncode:
                sys.exit(f"gpu_check: --no-optimize compile of {name} failed:\n{r.stderr}")
        os.remove(onnx_path)
        for a in arts:
            gpu_kit.xz_file(a, a + ".xz")
            os.remove(a)
        for k, v in inputs.items():
            gpu_kit.save_npy_xz(os.path.join(out, f"{name}.in.{k}.npy.xz"), v)
        manifest["models"][name] = dict(spec, inputs=sorted(inputs))
        print(f"prepared {name}: {os.path.getsize(wnn + '.xz') / 1e6:.1f} MB compressed, "
              f"{time.time() - t0:.0f} s", flush=True)
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)


def webnn(art, name, mdir, work, gpu, runs):
    """(median ms, {output: array}) or (None, refusal text)."""
    outdir = os.path.join(work, "gpu" if gpu else "cpu")
    os.makedirs(outdir, exist_ok=True)
    base = [os.path.join(BIN, "webnn-run"), art] + (["--device", "gpu"] if gpu else [])
    stem = name[:-len(".noopt")] if name.endswith(".noopt") else name
    for f in sorted(os.listdir(mdir)):
        if f.startswith(stem + ".in.") and f.endswith(".npy.xz"):
            npy = os.path.join(work, f[:-3])
            if not os.path.exists(npy):
                np.save(npy, gpu_kit.load_npy_xz(os.path.join(mdir, f)))
            base += ["--input", f"{f[len(stem) + 4:-7]}={npy}"]
    r = sh(base + ["--output-dir", outdir])
    if r.returncode:
        return None, (r.stderr.strip() or r.stdout.strip()).splitlines()[-1]
    outs = {f[:-4]: np.load(os.path.join(outdir, f)) for f in os.listdir(outdir) if f.endswith(".npy")}
    r = sh(base + ["--warmup", "2", "--bench", str(runs), "--json"])
    if r.returncode:
        return None, (r.stderr.strip() or r.stdout.strip()).splitlines()[-1]
    return json.loads(r.stdout)["latency_ms"]["median"], outs


def torch_cuda_ms(spec, runs):
    try:
        import torch
    except ImportError:
        return None, "PyTorch absent"
    if not torch.cuda.is_available():
        return None, "PyTorch CUDA absent (torch.cuda.is_available() is false)"
    if spec["kind"] == "llama":
        return None, "not timed: PyTorch has no MatMulNBits (int4 block) kernel to run the same model"
    m, x, _, _ = torch_model(spec)
    m, x = m.cuda(), x.cuda()
    times = []
    with torch.no_grad():
        for _ in range(3):
            m(x)
        torch.cuda.synchronize()
        for _ in range(runs):
            t0 = time.perf_counter()
            m(x)
            torch.cuda.synchronize()
            times.append((time.perf_counter() - t0) * 1e3)
    return float(np.median(times)), f"PyTorch {torch.__version__} on {torch.cuda.get_device_name(0)}, float32 eager"


def run(mdir):
    with open(os.path.join(mdir, "manifest.json")) as f:
        manifest = json.load(f)
    runs = args.runs or (3 if manifest["quick"] else 20)
    r = sh([os.path.join(BIN, "webnn-run"), "--list-devices"])
    print("devices:", (r.stdout + r.stderr).strip().replace("\n", "\n  "))
    print(f"tolerance: max|gpu-cpu| <= {RTOL_OF_MAX:g} * max|cpu| + {ATOL:g}; {runs} timed runs, median ms")
    failed = False
    with tempfile.TemporaryDirectory() as work:
        todo = []
        for name, spec in manifest["models"].items():
            # Either artifact may be left out of a directory carried elsewhere.
            for label in (name, name + ".noopt"):
                if os.path.exists(os.path.join(mdir, label + ".wnn.xz")):
                    todo.append((label, name, spec))
        for label, name, spec in todo:
            if args.only and name not in args.only.split(","):
                continue
            art = os.path.join(work, label + ".wnn")
            gpu_kit.unxz_file(os.path.join(mdir, label + ".wnn.xz"), art)
            mw = os.path.join(work, label)
            cpu_ms, cpu_out = webnn(art, name, mdir, mw, False, runs)
            if cpu_ms is None:
                print(f"{label}: CPU FAILED: {cpu_out}")
                failed = True
                continue
            gpu_ms, gpu_out = webnn(art, name, mdir, mw, True, runs)
            line = f"{label}: cpu {cpu_ms:.3f} ms"
            if gpu_ms is None:
                line += f"; gpu refused: {gpu_out}"
            else:
                worst, ok = [], True
                for k, c in cpu_out.items():
                    g = gpu_out.get(k)
                    if g is None or g.shape != c.shape:
                        ok = False
                        worst.append(f"{k}: shape {None if g is None else g.shape} vs {c.shape}")
                        continue
                    err = float(np.max(np.abs(g.astype(np.float64) - c.astype(np.float64)))) if c.size else 0.0
                    scale = float(np.max(np.abs(c.astype(np.float64)))) if c.size else 0.0
                    ok = ok and err <= RTOL_OF_MAX * scale + ATOL
                    worst.append(f"{k}: max err {err:.3g} of max {scale:.3g}")
                line += f"; gpu {gpu_ms:.3f} ms ({cpu_ms / gpu_ms:.2f}x cpu); {'match' if ok else 'MISMATCH'} ({', '.join(worst)})"
                failed |= not ok
            t_ms, t_note = torch_cuda_ms(spec, runs)
            line += f"; pytorch cuda {t_ms:.3f} ms ({t_note})" if t_ms is not None else f"; pytorch: {t_note}"
            print(line, flush=True)
            import shutil
            shutil.rmtree(mw, ignore_errors=True)
            os.remove(art)
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
