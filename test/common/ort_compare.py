"""Running one ONNX model through webnnc + the runtime and through ONNX Runtime
(onnxruntime-node, bench/ort_bench.js) on the same inputs, and comparing the
outputs. Shared by the one-node contrib/opset-23 checks in test/llm
(run_cases) and the control-flow check in test/onnx (save_feeds, run_both,
compare). Our side compiles and runs in this process through the Python
package webnn (BUILD/python, beside BUILD/bin) when the build has it, else
through webnnc and webnn-run."""
import os
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ORT_BENCH = os.path.join(ROOT, "bench", "ort_bench.js")


def _run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{os.path.basename(cmd[0]) if cmd[0] != 'node' else 'ONNX Runtime'}: "
                           f"{r.stderr.strip().splitlines()[-1] if r.stderr.strip() else r.returncode}")


def _compile_keywords(flags):
    """webnnc compile's --shape, --dynamic-dim, --const-input and
    --no-optimize as webnn.compile keywords; None for any other flag."""
    lists = {"--shape": "shapes", "--dynamic-dim": "dynamic_dims", "--const-input": "const_inputs"}
    keywords = {k: [] for k in lists.values()}
    flags = list(flags)
    while flags:
        flag = flags.pop(0)
        if flag in lists and flags:
            keywords[lists[flag]].append(flags.pop(0))
        elif flag == "--no-optimize":
            keywords["optimize"] = False
        else:
            return None
    return keywords


def compile_model(bin_dir, model, wnn, flags=()):
    """Compiles `model` to `wnn` as `webnnc compile` (plus `flags`, e.g.
    --dynamic-dim) does: in this process through webnn.compile when the build
    has the package, else with webnnc. Raises RuntimeError with the last error
    line either way."""
    webnn = bindings(bin_dir)
    keywords = _compile_keywords(flags) if webnn is not None else None
    if keywords is None:
        _run([os.path.join(bin_dir, "webnnc"), "compile", model, "-o", wnn] + list(flags))
        return
    try:
        webnn.compile(model, wnn, **keywords)
    except webnn.CompileError as e:
        lines = str(e).strip().splitlines()
        raise RuntimeError(f"webnnc: {lines[-1] if lines else e}") from None


def save_feeds(feeds, d):
    """Writes each input as .npy in d; returns (webnn-run args, ORT args).
    Both take the same files (webnn-run exchanges bool as bool .npy)."""
    ours, ort = [], []
    for k, v in feeds.items():
        path = os.path.join(d, k + ".npy")
        np.save(path, v)
        ort += ["--input", f"{k}={path}"]
        ours += ["--input", f"{k}={path}"]
    return ours, ort


def bindings(bin_dir):
    """The webnn package built beside bin_dir, or None when the build has none."""
    python_dir = os.path.join(os.path.dirname(os.path.abspath(bin_dir)), "python")
    if not os.path.exists(os.path.join(python_dir, "webnn", "__init__.py")):
        return None
    if python_dir not in sys.path:
        sys.path.insert(0, python_dir)
    import webnn
    return webnn


def _npy_name(name):
    """webnn-run's file name for an output (--output-dir)."""
    return "".join(c if c.isalnum() or c in "._-" else "_" for c in name) + ".npy"


def run_ours(bin_dir, wnn, feeds, out_dir, isolated=False, threads=1):
    """Runs the compiled wnn on `feeds` (one session of `threads` threads, one
    as webnn-run's default) and writes each output to out_dir/NAME.npy. Raises
    RuntimeError with the runtime's message. `isolated`: in a webnn-run
    process, so that a crash costs one case, not the whole check."""
    webnn = None if isolated else bindings(bin_dir)
    if webnn is None:
        ours, _ = save_feeds(feeds, os.path.dirname(out_dir) or ".")
        _run([os.path.join(bin_dir, "webnn-run"), wnn, "--output-dir", out_dir, "--threads", str(threads)] + ours)
        return
    try:
        outputs = webnn.load(wnn).session(threads=threads).run(feeds)
    except webnn.Error as e:
        raise RuntimeError(f"webnn: {e}") from None
    os.makedirs(out_dir, exist_ok=True)
    for name, value in outputs.items():
        np.save(os.path.join(out_dir, _npy_name(name)), value)


def run_both(bin_dir, wnn, model, feeds, d, isolated=False):
    """Runs the compiled wnn and the ONNX model on `feeds`; outputs land in
    d/ours and d/ort. Raises RuntimeError naming the runtime that failed."""
    _, ort = save_feeds(feeds, d)
    run_ours(bin_dir, wnn, feeds, os.path.join(d, "ours"), isolated)
    _run(["node", ORT_BENCH, model, "--bench", "1", "--warmup", "0", "--output-dir", os.path.join(d, "ort")] + ort)


def compare(outputs, d, rtol, atol, same_dtype=False):
    """Compares d/ours/NAME.npy with d/ort/NAME.npy for each output name.
    Returns (ok, max |diff|, messages); a shape (or, with same_dtype, a
    dtype) mismatch fails with a message."""
    ok, worst, messages = True, 0.0, []
    for name in outputs:
        x = np.load(os.path.join(d, "ours", name + ".npy"))
        y = np.load(os.path.join(d, "ort", name + ".npy"))
        if x.shape != y.shape or (same_dtype and x.dtype != y.dtype):
            messages.append(f"{name}: {x.dtype}{list(x.shape)} vs ONNX Runtime {y.dtype}{list(y.shape)}")
            ok = False
            continue
        x64, y64 = x.astype(np.float64), y.astype(np.float64)
        ok &= bool(np.allclose(x64, y64, rtol=rtol, atol=atol))
        worst = max(worst, float(np.max(np.abs(x64 - y64))) if x.size else 0.0)
    return ok, worst, messages


def run_and_compare(bin_dir, wnn, model, outputs, feeds, d, rtol, atol, same_dtype=False):
    """run_both into d (created), then compare: (ok, max |diff|, messages).
    Raises RuntimeError naming the runtime that failed."""
    os.makedirs(d, exist_ok=True)
    run_both(bin_dir, wnn, model, feeds, d)
    return compare(outputs, d, rtol, atol, same_dtype)


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
        wnn = os.path.join(d, "model.wnn")
        rtol, atol = tolerance(case)
        try:
            compile_model(bin_dir, model, wnn)
            ok, worst, messages = run_and_compare(bin_dir, wnn, model, outputs, feeds, d, rtol, atol)
        except RuntimeError as e:
            print(f"[FAIL] {label(case)}: {e}")
            failures += 1
            continue
        for m in messages:
            print("    " + m)
        print(f"[{'PASS' if ok else 'FAIL'}] {label(case)}: {', '.join(outputs)} max |diff| {worst:.2e}")
        failures += not ok
    print(f"{len(cases) - failures} of {len(cases)} pass (work dir {work})")
    return failures
