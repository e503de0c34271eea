#!/usr/bin/python3
"""A relaxed-precision CNN end to end on the GPU: torchvision's MobileNetV2
(random weights, fixed seed, batch norms randomized so every layer matters)
exported at 1x3x64x64, compiled `webnnc compile --precision relaxed`, run by
`webnn-run --device gpu --json` (validation on in ctest's environment), and
compared with the exact artifact on the CPU backend (float32):

- the GPU ran its conv2d/gemm nodes with float16 weights: `gpu.fp16_nodes`
  equals the artifact's conv2d + gemm count, `gpu.fp16_weight_bytes` is half
  their float32 bytes, and `gpu.constant_bytes` shrank by about that much
  against the exact artifact on the GPU;
- the logits are within |gpu - cpu| <= 2e-3 * max|cpu| (float16 weights
  round each to 11 significant bits; 53 layers compound it) and the top-1
  class is the CPU's;
- the exact artifact on the GPU uses no float16 (`fp16_nodes` 0), and
  differs from the relaxed GPU run (the rounding is really there);
- with WEBNN_VULKAN_FP16=0 the relaxed artifact runs float32 weights, its
  logits bit-identical to the exact artifact's on the GPU, and webnn-run
  says so in one note line on stderr.

The same again through the executor's partitions: the model compiled
`--target gpu` (with and without `--precision relaxed`) and run by a plain
`webnn-run --json`: every dot-product node on the GPU reads float16 weights
(`gpu.fp16_nodes`), the constants uploaded to the device
(`gpu.constant_bytes`) shrink by the float16 weights' bytes, the logits are
within the same tolerance of the CPU's float32 and differ from the exact
artifact's; with WEBNN_VULKAN_FP16=0 they are the exact artifact's bit for
bit, with one note.

--keep DIR writes the artifacts and outputs there (for measurements).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

from gpu_compare import run

SIZE = 64
TOLERANCE = 2e-3  # of the largest |logit|
SKIP = 77


def export(path):
    try:
        import torch
        import torchvision
    except ImportError as e:
        print(f"skipped: the model is exported with torch and torchvision ({e})")
        sys.exit(SKIP)

    torch.manual_seed(0)
    model = torchvision.models.mobilenet_v2(weights=None).eval()
    gen = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.copy_(torch.randn(m.num_features, generator=gen) * 0.1)
                m.running_var.copy_(torch.rand(m.num_features, generator=gen) * 0.5 + 0.75)
                m.weight.copy_(torch.rand(m.num_features, generator=gen) * 0.5 + 0.75)
                m.bias.copy_(torch.randn(m.num_features, generator=gen) * 0.1)
    torch.onnx.export(model, torch.randn(1, 3, SIZE, SIZE), path, opset_version=17, input_names=["x"],
                      output_names=["logits"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--keep", help="folder for the artifacts and outputs (default: a temporary one)")
    args = ap.parse_args()
    webnnc, webnn_run = os.path.join(args.bin, "webnnc"), os.path.join(args.bin, "webnn-run")
    with tempfile.TemporaryDirectory() as tmp:
        work = args.keep or tmp
        os.makedirs(work, exist_ok=True)
        onnx_path = os.path.join(work, "mobilenetv2_64.onnx")
        if not os.path.exists(onnx_path):
            export(onnx_path)
        exact, relaxed = os.path.join(work, "exact.wnn"), os.path.join(work, "relaxed.wnn")
        run([webnnc, "compile", onnx_path, "-o", exact])
        run([webnnc, "compile", onnx_path, "--precision", "relaxed", "-o", relaxed])
        x = np.random.default_rng(0).standard_normal((1, 3, SIZE, SIZE)).astype(np.float32)
        np.save(os.path.join(work, "x.npy"), x)

        def go(artifact, label, gpu, env=None):
            out = os.path.join(work, label)
            cmd = [webnn_run, artifact, "--input", "x=" + os.path.join(work, "x.npy"), "--output-dir", out, "--json"]
            if gpu:
                cmd += ["--device", "gpu"]
            r = subprocess.run(cmd, capture_output=True, text=True, env=env)
            if r.returncode != 0:
                raise RuntimeError(f"{' '.join(cmd)} failed ({r.returncode}):\n{r.stdout}\n{r.stderr}")
            stats = json.loads(r.stdout.strip().splitlines()[-1])
            stats["stderr"] = r.stderr
            return np.load(os.path.join(out, "logits.npy")), stats

        cpu, _ = go(exact, "cpu_exact", False)
        gpu_exact, se = go(exact, "gpu_exact", True)
        gpu_relaxed, sr = go(relaxed, "gpu_relaxed", True)
        gpu_off, so = go(relaxed, "gpu_relaxed_fp16_off", True, dict(os.environ, WEBNN_VULKAN_FP16="0"))
        ge, gr = se["gpu"], sr["gpu"]
        info = json.loads(run([webnnc, "inspect", relaxed, "--json"]))
        dot_nodes = sum(n for op, n in info.get("ops", {}).items()
                        if op in ("conv2d", "fusedConv2d", "matmul", "fusedMatmul", "gemm"))
        print(f"exact on GPU: {ge['dispatches']} dispatches, constants {ge['constant_bytes']} B, "
              f"fp16 nodes {ge['fp16_nodes']}, median {se['latency_ms']['median']:.1f} ms")
        print(f"relaxed on GPU: {gr['dispatches']} dispatches, constants {gr['constant_bytes']} B, "
              f"fp16 nodes {gr['fp16_nodes']} of {dot_nodes} dot-product nodes, fp16 weights "
              f"{gr['fp16_weight_bytes']} B, median {sr['latency_ms']['median']:.1f} ms")
        scale = float(np.abs(cpu).max())
        err_relaxed = float(np.abs(gpu_relaxed.astype(np.float64) - cpu).max())
        err_exact = float(np.abs(gpu_exact.astype(np.float64) - cpu).max())
        diff = float(np.abs(gpu_relaxed.astype(np.float64) - gpu_exact).max())
        print(f"max |logit| {scale:.4g}; relaxed GPU vs CPU float32 max abs err {err_relaxed:.3g} "
              f"(bound {TOLERANCE * scale:.3g}); exact GPU vs CPU {err_exact:.3g}; relaxed vs exact GPU {diff:.3g}")
        print(f"top-1: cpu {int(cpu.argmax())} gpu relaxed {int(gpu_relaxed.argmax())} "
              f"gpu exact {int(gpu_exact.argmax())}")
        failures = []
        if sr.get("precision") != "relaxed" or se.get("precision") != "exact":
            failures.append("webnn-run --json precision fields wrong")
        if ge["fp16_nodes"] != 0 or ge["fp16_weight_bytes"] != 0:
            failures.append("the exact artifact used float16 weights")
        if dot_nodes == 0 or gr["fp16_nodes"] != dot_nodes or gr["relaxed_float32_nodes"] != 0:
            failures.append(f"fp16 nodes {gr['fp16_nodes']}, float32 relaxed nodes {gr['relaxed_float32_nodes']},"
                            f" expected {dot_nodes} and 0")
        saved = ge["constant_bytes"] - gr["constant_bytes"]
        if not (gr["fp16_weight_bytes"] > 0 and abs(saved - gr["fp16_weight_bytes"]) <= 256 * gr["fp16_nodes"]):
            failures.append(f"constants shrank by {saved} B, expected about the fp16 weights' "
                            f"{gr['fp16_weight_bytes']} B")
        if gr["dispatches"] != ge["dispatches"]:
            failures.append("relaxed and exact dispatch counts differ")
        if not err_relaxed <= TOLERANCE * scale:
            failures.append("relaxed GPU logits outside the tolerance")
        if int(gpu_relaxed.argmax()) != int(cpu.argmax()):
            failures.append("top-1 differs from the CPU's")
        if not diff > 0:
            failures.append("relaxed GPU logits equal the exact GPU's: no float16 rounding happened")
        notes = [l for l in so["stderr"].splitlines() if "keep float32 weights" in l]
        if so["gpu"]["fp16_nodes"] != 0 or so["gpu"]["relaxed_float32_nodes"] != dot_nodes or len(notes) != 1:
            failures.append("WEBNN_VULKAN_FP16=0: expected no fp16 node and one note, got "
                            f"{so['gpu']['fp16_nodes']} and {so['stderr']!r}")
        if not np.array_equal(gpu_off, gpu_exact):
            failures.append("WEBNN_VULKAN_FP16=0: logits differ from the exact artifact's on the GPU")
        if sr["stderr"].strip():
            failures.append(f"relaxed run printed {sr['stderr']!r}")

        # The executor's partitions (--target gpu, a plain webnn-run).
        placed_exact, placed_relaxed = os.path.join(work, "exact_gpu.wnn"), os.path.join(work, "relaxed_gpu.wnn")
        run([webnnc, "compile", onnx_path, "--target", "gpu", "-o", placed_exact])
        run([webnnc, "compile", onnx_path, "--target", "gpu", "--precision", "relaxed", "-o", placed_relaxed])
        pinfo = json.loads(run([webnnc, "inspect", placed_relaxed, "--json"]))
        placed_dots = sum(n for op, n in pinfo.get("ops", {}).items()
                          if op in ("conv2d", "fusedConv2d", "matmul", "fusedMatmul", "gemm"))
        pe_out, pe = go(placed_exact, "placed_exact", False)
        pr_out, pr = go(placed_relaxed, "placed_relaxed", False)
        po_out, po = go(placed_relaxed, "placed_relaxed_fp16_off", False, dict(os.environ, WEBNN_VULKAN_FP16="0"))
        pge, pgr = pe["gpu"], pr["gpu"]
        p_err = float(np.abs(pr_out.astype(np.float64) - cpu).max())
        p_diff = float(np.abs(pr_out.astype(np.float64) - pe_out).max())
        print(f"--target gpu exact: constants on the GPU {pge['constant_bytes']} B, fp16 nodes {pge['fp16_nodes']}, "
              f"submits per run {pge['submits_per_run']}")
        print(f"--target gpu relaxed: constants on the GPU {pgr['constant_bytes']} B, fp16 nodes {pgr['fp16_nodes']} "
              f"of {placed_dots}, fp16 weights {pgr['fp16_weight_bytes']} B, submits per run {pgr['submits_per_run']}; "
              f"vs CPU float32 max abs err {p_err:.3g} (bound {TOLERANCE * scale:.3g}), vs exact {p_diff:.3g}")
        if pge["fp16_nodes"] != 0 or pge["fp16_weight_bytes"] != 0 or pge["relaxed_float32_nodes"] != 0:
            failures.append("--target gpu: the exact artifact used float16 weights")
        if placed_dots == 0 or pgr["fp16_nodes"] != placed_dots or pgr["relaxed_float32_nodes"] != 0:
            failures.append(f"--target gpu: fp16 nodes {pgr['fp16_nodes']}, float32 relaxed nodes "
                            f"{pgr['relaxed_float32_nodes']}, expected {placed_dots} and 0")
        # Each halved weight is half its float32 bytes; the buffers' 64-byte
        # slack is the same either way.
        placed_saved = pge["constant_bytes"] - pgr["constant_bytes"]
        if not (pgr["fp16_weight_bytes"] > 0 and placed_saved == pgr["fp16_weight_bytes"]):
            failures.append(f"--target gpu: constants shrank by {placed_saved} B, expected the fp16 weights' "
                            f"{pgr['fp16_weight_bytes']} B")
        if not p_err <= TOLERANCE * scale:
            failures.append("--target gpu: relaxed logits outside the tolerance")
        if int(pr_out.argmax()) != int(cpu.argmax()):
            failures.append("--target gpu: top-1 differs from the CPU's")
        if not p_diff > 0:
            failures.append("--target gpu: relaxed logits equal the exact artifact's: no float16 rounding happened")
        pnotes = [l for l in po["stderr"].splitlines() if "keep float32 weights" in l]
        if po["gpu"]["fp16_nodes"] != 0 or po["gpu"]["relaxed_float32_nodes"] != placed_dots or len(pnotes) != 1:
            failures.append("--target gpu, WEBNN_VULKAN_FP16=0: expected no fp16 node and one note, got "
                            f"{po['gpu']['fp16_nodes']} and {po['stderr']!r}")
        if po["gpu"]["constant_bytes"] != pge["constant_bytes"]:
            failures.append("--target gpu, WEBNN_VULKAN_FP16=0: constants differ from the exact artifact's")
        if not np.array_equal(po_out, pe_out):
            failures.append("--target gpu, WEBNN_VULKAN_FP16=0: logits differ from the exact artifact's")
        if any("keep float32 weights" in l for l in pr["stderr"].splitlines()):
            failures.append(f"--target gpu relaxed run printed {pr['stderr']!r}")
        for f in failures:
            print("FAIL:", f)
        return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
