"""Shared harness of the one-node checks against ONNX Runtime
(check_rotary23.py, check_attention23.py, check_gather_block_quantized.py):
per case, write the model, compile it with webnnc, run it with webnn-run and
with onnxruntime-node (bench/ort_bench.js) on the same inputs, and compare
every named output."""
import os
import subprocess
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ORT_BENCH = os.path.join(ROOT, "bench", "ort_bench.js")


def _run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{os.path.basename(cmd[0]) if cmd[0] != 'node' else 'ONNX Runtime'}: "
                           f"{r.stderr.strip().splitlines()[-1] if r.stderr.strip() else r.returncode}")


def run_cases(bin_dir, work, cases, make, label, tolerance, prefix):
    """make(case, model_path) -> (feeds {name: array}, [output names]);
    label(case) -> str; tolerance(case) -> (rtol, atol). Returns the number of
    failing cases; prints one line per case and a total."""
    work = work or tempfile.mkdtemp(prefix=prefix)
    failures = 0
    for i, case in enumerate(cases):
        d = os.path.join(work, f"case{i}")
        os.makedirs(d, exist_ok=True)
        model = os.path.join(d, "model.onnx")
        feeds, outputs = make(case, model)
        ours_binds, ort_binds = [], []
        for k, v in feeds.items():
            path = os.path.join(d, k + ".npy")
            np.save(path, v)
            ort_binds += ["--input", f"{k}={path}"]
            if v.dtype == np.bool_:  # WebNN has no bool: uint8 0/1
                path = os.path.join(d, k + ".u8.npy")
                np.save(path, v.astype(np.uint8))
            ours_binds += ["--input", f"{k}={path}"]
        wnn = os.path.join(d, "model.wnn")
        try:
            _run([os.path.join(bin_dir, "webnnc"), "compile", model, "-o", wnn])
            _run([os.path.join(bin_dir, "webnn-run"), wnn, "--output-dir", os.path.join(d, "ours")] + ours_binds)
            _run(["node", ORT_BENCH, model, "--bench", "1", "--warmup", "0", "--output-dir", os.path.join(d, "ort")]
                 + ort_binds)
        except RuntimeError as e:
            print(f"[FAIL] {label(case)}: {e}")
            failures += 1
            continue
        rtol, atol = tolerance(case)
        ok, worst = True, 0.0
        for name in outputs:
            x = np.load(os.path.join(d, "ours", name + ".npy")).astype(np.float32)
            y = np.load(os.path.join(d, "ort", name + ".npy")).astype(np.float32)
            if x.shape != y.shape:
                print(f"    {name}: shape {x.shape} vs ONNX Runtime {y.shape}")
                ok = False
                continue
            ok &= bool(np.allclose(x, y, rtol=rtol, atol=atol))
            worst = max(worst, float(np.max(np.abs(x - y))) if x.size else 0.0)
        print(f"[{'PASS' if ok else 'FAIL'}] {label(case)}: {', '.join(outputs)} max |diff| {worst:.2e}")
        failures += not ok
    print(f"{len(cases) - failures} of {len(cases)} pass (work dir {work})")
    return failures
