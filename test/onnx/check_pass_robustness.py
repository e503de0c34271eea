#!/usr/bin/python3
"""Pass robustness: every model of the corpus through `webnnc compile
--verify-each` (the whole default pipeline, the graph verified after every
pass, the artifact written).

The corpus is every ONNX backend test model of Debian's libonnx-testdata
(node, simple, pytorch-converted, pytorch-operator), the project's own zoo
of torchvision / torch.nn exports (export_zoo.py, cached in --zoo-dir), and
--fuzz-count random graphs around the fusion patterns (fuzz_graphs.py, a
fixed seed), which must also expand back through --webnn-decompose-fused;
every --fuzz-numerics-every'th of them also runs optimized and with
--no-optimize, and the results must agree (--rtol, --atol).

A run fails on
- a crash (webnnc killed by a signal) or a pass that fails or leaves an
  invalid graph: never expected, whatever a list says; for a generated
  graph, any compile error;
- any other compile error (an unsupported op, a value WebNN needs at compile
  time) of a model listed neither in --expected-failures nor, for backend
  tests, in --onnx-expected-failures (the conformance runner's list, whose
  reasons cover the backend models that do not compile);
- a model in --expected-failures that compiles (the list stays true).

As run_onnx_tests.py does, a backend model that WebNN cannot compile with
its integer inputs (shapes, axes) left as inputs is compiled again with them
frozen from test_data_set_0, so that the passes see the graph.

With --compare, the named zoo models (or all of them) also run through
webnn-run and ONNX Runtime (test/common/ort_compare.py) on the inputs
exported with them and must agree within --rtol / --atol.
"""
import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "conformance"))
sys.path.insert(0, str(HERE.parent / "common"))
import batch_workers  # noqa: E402
import expectations  # noqa: E402
import fuzz_graphs  # noqa: E402
import ort_compare  # noqa: E402

BACKEND_SETS = ("node", "simple", "pytorch-converted", "pytorch-operator")
PASS_ERROR = re.compile(r"does not verify after pass|pass '[^']+' failed")


def zoo_flags(model):
    """The webnnc flags export_zoo.py wrote beside a zoo model (NAME.flags)."""
    f = Path(model).with_suffix(".flags")
    return f.read_text().split() if f.exists() else []


def compile_once(webnnc, model, out, frozen, extra=()):
    """(kind, message, stderr): kind ok | error | pass | crash | hang | harness."""
    cmd = [webnnc, "compile", "--verify-each", str(model), "-o", str(out)] + zoo_flags(model) + list(extra)
    for name, f in frozen.items():
        cmd += ["--const-input", f"{name}={f}"]
    return run_tool(cmd, COMPILER if getattr(COMPILER, "tool", None) == webnnc else None)


# The webnnc compiles go through `webnnc batch` workers (batch_workers.py;
# a crash still ends its job alone, as a signal), set in main().
COMPILER = None


def run_tool(cmd, runner=None):
    """Runs webnnc or webnn-opt and classifies the outcome (see compile_once)."""
    tool = os.path.basename(cmd[0])
    try:
        r = runner.run(cmd, 300) if runner else subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        return "hang", f"{tool} ran over 300 s", ""
    except OSError as e:  # missing, or being relinked
        return "harness", f"cannot run {cmd[0]}: {e}", ""
    if r.returncode < 0 or r.returncode >= 128:
        sig = -r.returncode if r.returncode < 0 else r.returncode - 128
        return "crash", f"{tool} killed by signal {sig}: " + " | ".join(r.stderr.strip().splitlines()[-3:])[:400], r.stderr
    if r.returncode == 0:
        return "ok", "", r.stderr
    lines = r.stderr.strip().splitlines()
    if PASS_ERROR.search(r.stderr):
        return "pass", " | ".join(l for l in lines if "error" in l)[:400], r.stderr
    return "error", (next((l for l in lines if "error" in l), lines[0] if lines else "(no message)"))[:300], r.stderr


def check_classification(work):
    """The harness itself must tell a crash and a broken pass from a compile
    error: stand-in webnnc scripts that die by SIGSEGV, report a pass that
    broke the graph, or report an import error, are classified first."""
    fakes = {
        "crash": "kill -SEGV $$",
        "pass": "echo \"webnnc: error: the graph does not verify after pass 'webnn-fuse-rotary'\" >&2; exit 1",
        "error": "echo 'm.onnx: error: unsupported ONNX operator: ai.onnx::Foo (opset 1)' >&2; exit 1",
        "ok": "exit 0",
    }
    for want, body in fakes.items():
        fake = work / f"fake-webnnc-{want}"
        fake.write_text(f"#!/bin/sh\n{body}\n")
        fake.chmod(0o755)
        got = compile_once(str(fake), work / "m.onnx", work / "m.wnn", {})[0]
        if got != want:
            raise SystemExit(f"harness self-check: a webnnc that does '{body}' was classified {got}, not {want}")


def backend_inputs(test_dir):
    """{input name: input_K.pb} and the names of the integer ones."""
    import onnx
    model = onnx.load(str(test_dir / "model.onnx"), load_external_data=False)
    init = {i.name for i in model.graph.initializer}
    files, ints = {}, set()
    for k, inp in enumerate(i for i in model.graph.input if i.name not in init):
        f = test_dir / "test_data_set_0" / f"input_{k}.pb"
        if not f.exists():
            continue
        files[inp.name] = f
        if inp.type.tensor_type.elem_type in (onnx.TensorProto.INT64, onnx.TensorProto.INT32):
            ints.add(inp.name)
    return files, ints


def fuzz_numerics(graph, args, d):
    """None when the optimized artifact of a generated graph computes what
    the --no-optimize one does (random inputs in [0.1, 1)), else the
    difference: a rewrite that changed the results."""
    d.mkdir()
    rng = np.random.default_rng(zlib.crc32(graph.name.encode()))
    feeds = []
    for name, ty in re.findall(r'webnn.input "([^"]+)" : tensor<([^>]*)>', graph.read_text()):
        *dims, elem = ty.split("x")
        shape = [int(x) for x in dims]
        value = (rng.integers(0, 2, shape).astype(np.uint8) if elem == "ui8"
                 else rng.uniform(0.1, 1.0, shape).astype(np.float32))
        np.save(d / f"{name}.npy", value)
        feeds += ["--input", f"{name}={d / f'{name}.npy'}"]
    for tag, flags in (("opt", []), ("ref", ["--no-optimize"])):
        kind, msg, _ = compile_once(args.webnnc, graph, d / f"{tag}.wnn", {}, flags)
        if kind != "ok":
            return f"webnnc {' '.join(flags)}: {msg}"
        kind, msg, _ = run_tool([os.path.join(args.bin, "webnn-run"), str(d / f"{tag}.wnn"),
                                 "--output-dir", str(d / tag)] + feeds)
        if kind != "ok":
            return f"webnn-run ({tag}): {msg}"
    for ref in sorted((d / "ref").glob("*.npy")):
        x, y = np.load(ref), np.load(d / "opt" / ref.name)
        finite = np.isfinite(x)
        # Inputs are O(1): an absolute floor of rtol-ish size where a
        # reference cancels to 0 and the fused form leaves rounding residue.
        scale = max(float(np.max(np.abs(x[finite]))) if finite.any() else 0.0, 1.0)
        if x.shape != y.shape:
            return f"{ref.stem}: shape {list(y.shape)}, unoptimized {list(x.shape)}"
        if not np.allclose(y, x, rtol=args.rtol, atol=args.atol * scale, equal_nan=True):
            diff = float(np.nanmax(np.abs(x.astype(np.float64) - y)))
            return f"{ref.stem}: max |diff| {diff:.3g} from the unoptimized graph (max |value| {scale:.3g})"
    shutil.rmtree(d, ignore_errors=True)
    return None


def check_fuzz_graph(case, graph, args, work):
    """A generated graph through the cpu pipeline, then its fused ops back
    into spec ops (--webnn-decompose-fused, verified after the pass); every
    --fuzz-numerics-every'th one also run against its unoptimized form."""
    out = work / (case.replace("/", "__") + ".opt.mlir")
    kind, msg, _ = compile_once(args.webnnc, graph, out, {}, ["--emit", "mlir"])
    if kind == "ok":
        kind, msg, _ = run_tool([os.path.join(args.bin, "webnn-opt"), "--webnn-decompose-fused", str(out),
                                 "-o", os.devnull])
        if kind == "error":  # webnn-opt names no pass: its only pass failed
            kind, msg = "pass", f"--webnn-decompose-fused: {msg}"
    if out.exists():
        out.unlink()
    index = int(re.sub(r"\D", "", graph.stem) or 0)
    if kind == "ok" and args.fuzz_numerics_every and index % args.fuzz_numerics_every == 0:
        problem = fuzz_numerics(graph, args, work / (case.replace("/", "__") + ".run"))
        if problem:
            kind, msg = "numerics", problem
    return case, kind, msg


def check_model(case, model, args, work):
    """(case, kind, message): as compile_once's."""
    if case.startswith("fuzz/"):
        return check_fuzz_graph(case, model, args, work)
    out = work / (case.replace("/", "__") + ".wnn")
    kind, msg, stderr = compile_once(args.webnnc, model, out, {})
    if kind == "error" and case.split("/")[0] in BACKEND_SETS:
        # Freeze integer inputs, then any an error names, until it compiles.
        try:
            files, ints = backend_inputs(model.parent)
        except Exception:  # sequence/optional inputs: keep the first error
            files, ints = {}, set()
        frozen = {}
        while kind == "error":
            want = dict(frozen)
            want.update({n: files[n] for n in ints})
            names = re.findall(r"\('([^']+)'\) (?:must be a constant|is computed at run time)", stderr)
            for m in re.finditer(r"computed from graph inputs ((?:'[^']+'(?:, )?)+)", stderr):
                names += re.findall(r"'([^']+)'", m.group(1))
            want.update({n: files[n] for n in names if n in files})
            if want == frozen:
                break
            frozen = want
            kind, msg, stderr = compile_once(args.webnnc, model, out, frozen)
    if out.exists():
        out.unlink()
    return case, kind, msg


def compare_with_ort(name, zoo_dir, args, work):
    """(problem or None, max |diff|, max |output|) of webnn-run against ONNX
    Runtime on the inputs exported with the model."""
    import onnx
    model = zoo_dir / f"{name}.onnx"
    feeds = dict(np.load(zoo_dir / f"{name}.inputs.npz"))
    outputs = [o.name for o in onnx.load(str(model), load_external_data=False).graph.output]
    d = work / f"ort_{name}"
    d.mkdir()
    wnn = d / "model.wnn"
    kind, msg, _ = compile_once(args.webnnc, model, wnn, {})
    if kind != "ok":
        return f"webnnc: {msg}", None, None
    try:
        # In a webnn-run process: a crash on one generated graph fails that case alone.
        ort_compare.run_both(args.bin, str(wnn), str(model), feeds, str(d), isolated=True)
    except RuntimeError as e:
        return f"{e}", None, None
    # atol relative to the output's scale: random weights can leave logits
    # far from 1 either way, where a fixed atol is vacuous or too strict.
    scale = max(float(np.max(np.abs(np.load(d / "ort" / f"{o}.npy")))) for o in outputs)
    ok, worst, messages = ort_compare.compare(outputs, str(d), args.rtol, args.atol * scale)
    return (None if ok else "; ".join(messages) or f"outside rtol {args.rtol}"), worst, scale


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--bin", required=True, help="directory with webnnc and webnn-run")
    p.add_argument("--data-dir", default="/usr/share/libonnx-testdata/data")
    p.add_argument("--zoo-dir", required=True, help="cache of the zoo's exports")
    p.add_argument("--expected-failures", required=True)
    p.add_argument("--onnx-expected-failures", required=True)
    p.add_argument("--compare", default="",
                   help="zoo models to check against ONNX Runtime, comma-separated, or 'all'")
    p.add_argument("--rtol", type=float, default=1e-3)
    p.add_argument("--atol", type=float, default=1e-4, help="times the largest |output| of ONNX Runtime")
    p.add_argument("--fuzz-count", type=int, default=300, help="graphs from fuzz_graphs.py")
    p.add_argument("--fuzz-seed", type=int, default=0)
    p.add_argument("--fuzz-numerics-every", type=int, default=2,
                   help="run every Nth generated graph optimized and not, and compare (0: none)")
    p.add_argument("--filter", default="")
    p.add_argument("-j", "--jobs", type=int, default=2)
    p.add_argument("--batch", type=int, default=200, metavar="N",
                   help="compiles per `webnnc batch` worker (batch_workers.py); 0: a process per compile")
    args = p.parse_args()
    args.webnnc = os.path.join(args.bin, "webnnc")
    for tool in ("webnnc", "webnn-run", "webnn-opt"):
        if not os.access(os.path.join(args.bin, tool), os.X_OK):
            print(f"error: {os.path.join(args.bin, tool)} is not an executable")
            return 1
    start = time.time()

    cases = []
    for s in BACKEND_SETS:
        d = Path(args.data_dir) / s
        if d.is_dir():
            cases += [(f"{s}/{t.name}", t / "model.onnx") for t in sorted(d.iterdir()) if (t / "model.onnx").exists()]
    n_backend = len(cases)
    zoo_dir = Path(args.zoo_dir)
    r = subprocess.run([sys.executable, str(HERE / "export_zoo.py"), "--out-dir", str(zoo_dir)],
                       capture_output=True, text=True)
    print(r.stdout, end="")
    if r.returncode != 0:
        print(f"error: exporting the zoo failed\n{r.stderr[-2000:]}")
        return 1
    zoo = sorted(f.stem for f in zoo_dir.glob("*.onnx"))
    cases += [(f"zoo/{n}", zoo_dir / f"{n}.onnx") for n in zoo]
    work = Path(tempfile.mkdtemp(prefix="pass-robustness-"))
    graphs = fuzz_graphs.write_graphs(work / "fuzz", args.fuzz_count, args.fuzz_seed)
    cases += [(f"fuzz/{p.stem}", p) for p in graphs]
    cases = [c for c in cases if re.search(args.filter, c[0])]
    print(f"exports ready after {time.time() - start:.0f} s; compiling {len(cases)} models "
          f"({n_backend} backend tests, {len(zoo)} zoo exports, {len(graphs)} generated graphs of seed "
          f"{args.fuzz_seed})")

    expected = expectations.load(args.expected_failures)
    onnx_expected = expectations.load(args.onnx_expected_failures)
    check_classification(work)
    global COMPILER
    COMPILER = batch_workers.make_runner(args.webnnc, args.batch)
    try:
        return check_all(args, cases, expected, onnx_expected, work, zoo, zoo_dir, start)
    finally:
        COMPILER.close()


def check_all(args, cases, expected, onnx_expected, work, zoo, zoo_dir, start):
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(lambda c: check_model(c[0], c[1], args, work), cases))

    bad = 0
    counts = {}
    for case, kind, msg in results:
        counts[kind] = counts.get(kind, 0) + 1
        if kind in ("crash", "pass", "hang", "harness", "numerics"):
            print(f"FAIL {case}: {msg}")
            bad += 1
        elif kind == "error" and case.startswith("fuzz/"):
            print(f"FAIL {case}: a generated graph must compile (kept in {work}): {msg}")
            bad += 1
        elif kind == "error" and case not in expected and case not in onnx_expected:
            print(f"FAIL {case}: compile error, not listed in {args.expected_failures}: {msg}")
            bad += 1
        elif kind == "ok" and case in expected:
            print(f"UNEXPECTED PASS {case} (remove it from {args.expected_failures})")
            bad += 1
    print(f"compiled {counts.get('ok', 0)} of {len(results)}; listed compile errors "
          f"{sum(1 for c, k, _ in results if k == 'error' and (c in expected or c in onnx_expected))}; "
          f"crashes {counts.get('crash', 0)}, pass failures {counts.get('pass', 0)}, hangs {counts.get('hang', 0)}, "
          f"generated graphs whose results changed {counts.get('numerics', 0)} "
          f"({time.time() - start:.0f} s)")

    compare = zoo if args.compare == "all" else [n for n in args.compare.split(",") if n]
    for name in compare:
        if name not in zoo:
            print(f"FAIL compare {name}: not in the zoo")
            bad += 1
            continue
        problem, worst, scale = compare_with_ort(name, zoo_dir, args, work)
        if problem:
            print(f"FAIL compare {name} vs ONNX Runtime: {problem}")
            bad += 1
        else:
            print(f"[PASS] {name} vs ONNX Runtime: max |diff| {worst:.2e}, max |output| {scale:.2e} "
                  f"(rtol {args.rtol}, atol {args.atol} x max |output|)")
    if not bad:
        shutil.rmtree(work, ignore_errors=True)
    print(f"pass robustness: {'FAILED' if bad else 'passed'} ({time.time() - start:.0f} s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
