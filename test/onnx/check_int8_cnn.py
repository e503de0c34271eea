#!/usr/bin/python3
"""An int8 QDQ CNN end to end against ONNX Runtime's int8 kernels.

    check_int8_cnn.py --bin BUILD/bin [--work DIR]

A small CNN with the layers of the benchmark's int8 models (a 7x7 stride-2
stem, ResNet bottlenecks with and without a downsampling branch,
MobileNetV2 inverted residuals with depthwise 3x3 layers, a classifier
Gemm) is exported by torch, quantized by bench/quantize_qdq.py (per-channel
int8 weights, uint8 activations with zero points), compiled by webnnc and
run by webnn-run at 1 and 2 threads and by ONNX Runtime (bench/ort_bench.js).
Checks: every Conv became a quantizedConv2d, the residual joins followed
by a quantizeLinear were absorbed and the stem's max pool runs on uint8 (webnnc --report), the joins
write over their residuals (webnn-run --print-plan); the output agrees with ORT's int8 output within
bench/run.py's INT8_ATOL of its largest magnitude (one quantization step
moves everything downstream, so elementwise bounds mean nothing); 1 and 2
threads give identical outputs. Prints the figures; exit 1 on a failure,
77 (skipped) without node or torch.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BENCH = os.path.join(ROOT, "bench")
SKIP = 77
INT8_ATOL = 1e-1  # bench/run.py's


def build_model(path):
    import torch
    from torch import nn

    class Bottleneck(nn.Module):
        def __init__(self, cin, mid, cout, stride):
            super().__init__()
            self.body = nn.Sequential(
                nn.Conv2d(cin, mid, 1), nn.BatchNorm2d(mid), nn.ReLU(),
                nn.Conv2d(mid, mid, 3, stride=stride, padding=1), nn.BatchNorm2d(mid), nn.ReLU(),
                nn.Conv2d(mid, cout, 1), nn.BatchNorm2d(cout))
            self.down = None
            if stride != 1 or cin != cout:
                self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride=stride), nn.BatchNorm2d(cout))
            self.relu = nn.ReLU()

        def forward(self, x):
            return self.relu(self.body(x) + (self.down(x) if self.down is not None else x))

    class Inverted(nn.Module):
        def __init__(self, c, expand):
            super().__init__()
            h = c * expand
            self.body = nn.Sequential(
                nn.Conv2d(c, h, 1), nn.BatchNorm2d(h), nn.ReLU6(),
                nn.Conv2d(h, h, 3, padding=1, groups=h), nn.BatchNorm2d(h), nn.ReLU6(),
                nn.Conv2d(h, c, 1), nn.BatchNorm2d(c))

        def forward(self, x):
            return x + self.body(x)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = nn.Sequential(nn.Conv2d(3, 32, 7, stride=2, padding=3), nn.BatchNorm2d(32), nn.ReLU(),
                                      nn.MaxPool2d(3, stride=2, padding=1))
            self.blocks = nn.Sequential(Bottleneck(32, 16, 64, 1), Bottleneck(64, 16, 64, 1),
                                        Bottleneck(64, 32, 96, 2), Inverted(96, 4), Inverted(96, 2))
            self.head = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(96, 20))

        def forward(self, x):
            return self.head(self.blocks(self.stem(x)))

    torch.manual_seed(0)
    model = Net()
    # Trained-looking BatchNorm statistics, so activations keep their scale.
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.running_mean.uniform_(-0.2, 0.2)
                m.running_var.uniform_(0.5, 2.0)
                m.weight.uniform_(0.5, 1.5)
    model.eval()
    with torch.no_grad():
        torch.onnx.export(model, (torch.randn(1, 3, 64, 64),), path, opset_version=17, input_names=["input"],
                          output_names=["logits"], do_constant_folding=True,
                          training=torch.onnx.TrainingMode.EVAL)


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("%s failed (%d):\n%s" % (" ".join(cmd), r.returncode, r.stderr[-3000:]))
    return r


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--work")
    a = ap.parse_args(argv)
    if not shutil.which("node") or not os.path.isdir(os.path.join(BENCH, "node_modules", "onnxruntime-node")):
        print("skipped: node or onnxruntime-node (bench/node_modules) missing")
        return SKIP
    try:
        import torch  # noqa: F401
        import onnx
    except ImportError as e:
        print("skipped: %s" % e)
        return SKIP
    sys.path.insert(0, BENCH)
    import quantize_qdq

    work = a.work or tempfile.mkdtemp(prefix="int8_cnn_")
    os.makedirs(work, exist_ok=True)
    try:
        float_path = os.path.join(work, "cnn.onnx")
        qdq_path = os.path.join(work, "cnn_int8.onnx")
        build_model(float_path)
        quantize_qdq.quantize(float_path, qdq_path)
        convs = sum(1 for n in onnx.load(qdq_path).graph.node if n.op_type == "Conv")
        art = os.path.join(work, "cnn_int8.wnn")
        report = run([os.path.join(a.bin, "webnnc"), "compile", qdq_path, "-o", art, "--report"]).stderr
        counts = {m.group(1): int(m.group(2)) for m in re.finditer(r"webnn-fuse-qdq\s+(\S+)\s+(\d+)", report)}
        failures = []
        print("Conv nodes %d; fuse-qdq: %s" % (convs, counts))
        if counts.get("convs-fused", 0) != convs:
            failures.append("%d of %d Conv nodes became quantizedConv2d" % (counts.get("convs-fused", 0), convs))
        # Five joins; the last feeds the float average pool (no quantizeLinear
        # after it, as in ResNet-50) and stays an add.
        if counts.get("residuals-fused", 0) != 4:
            failures.append("expected 4 residual joins absorbed, got %d" % counts.get("residuals-fused", 0))
        # The stem's max pool between its dq and q runs on the uint8 tensor.
        if counts.get("max-pools-8bit", 0) != 1:
            failures.append("expected the stem's max pool on uint8, got %d" % counts.get("max-pools-8bit", 0))
        # Each join is its residual's last reader: the memory planner writes
        # the join's output over the residual (docs/FUSED_OPS.md, "In place"),
        # so the runs below compute the joins in place. (The joins' outputs
        # are the plan's 8-bit lines "... uint8 [1,16,16,64] over 'r'"; the
        # classifier's float reshape may be in place too.)
        plan = run([os.path.join(a.bin, "webnn-run"), art, "--print-plan"]).stdout
        in_place = len(re.findall(r"int8 \[[0-9,]*\] over '", plan))
        if in_place != 4:
            failures.append("expected the 4 joins written over their residuals, the plan has %d" % in_place)
        rng = np.random.default_rng(3)
        worst = 0.0
        for i in range(3):
            x = rng.standard_normal((1, 3, 64, 64)).astype(np.float32)
            xin = os.path.join(work, "x%d.npy" % i)
            np.save(xin, x)
            outs = {}
            for t in (1, 2):
                d = os.path.join(work, "ours%d_t%d" % (i, t))
                os.makedirs(d, exist_ok=True)
                run([os.path.join(a.bin, "webnn-run"), art, "-i", "input=" + xin, "-t", str(t), "--output-dir", d])
                outs[t] = np.load(os.path.join(d, "logits.npy"))
            od = os.path.join(work, "ort%d" % i)
            run(["node", os.path.join(BENCH, "ort_bench.js"), qdq_path, "--bench", "1", "--warmup", "0",
                 "--input", "input=" + xin, "--output-dir", od])
            ort = np.load(os.path.join(od, "logits.npy"))
            rel = float(np.abs(outs[1] - ort).max() / max(np.abs(ort).max(), 1e-30))
            worst = max(worst, rel)
            same = np.array_equal(outs[1], outs[2])
            print("input %d: max|ours - ORT int8| / max|ORT| = %.4f, top-1 %d / %d, 1 vs 2 threads %s" %
                  (i, rel, int(outs[1].argmax()), int(ort.argmax()), "identical" if same else "DIFFER"))
            if rel > INT8_ATOL:
                failures.append("input %d: %.4f of the largest magnitude off ORT's int8 output (> %g)" %
                                (i, rel, INT8_ATOL))
            if not same:
                failures.append("input %d: 1 and 2 threads differ" % i)
        for f in failures:
            print("FAIL: " + f)
        print(json.dumps({"max_rel_err_vs_ort_int8": worst, "failures": len(failures)}))
        return 1 if failures else 0
    finally:
        if not a.work:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
