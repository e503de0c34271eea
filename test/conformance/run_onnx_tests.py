#!/usr/bin/python3
"""Runs ONNX backend node tests (Debian's libonnx-testdata) through webnnc and webnn-run.

Each test directory holds model.onnx and test_data_set_0/{input,output}_N.pb.
The model is compiled with `webnnc compile`, run with `webnn-run` on the
inputs saved as .npy, and every output is compared with rtol 1e-3, atol 1e-7.
The run fails when a test outside the expected-failures list fails, or when a
listed test passes. Prints the pass rate.

WebNN takes shapes, axes, pads, scales, k, ... as compile-time values; the
node tests often feed them as graph inputs. When a compile fails and webnnc
has `--const-input`, the harness compiles again with every int64/int32 input frozen
from test_data_set_0 (`--const-input NAME=input_K.pb`), then also every input
an error names as one that must be a constant, and does not feed the frozen
inputs at run time. Such passes are counted and reported separately.

--compile-arg / --run-arg add arguments to every webnnc compile / webnn-run
(`--run-arg=--device=gpu`: the whole graph on the Vulkan backend).
--expected-failures may be given twice: a base list (the CPU's) and one of
failures only this configuration has; --max-extra-percent P fails the run when
the second list's entries exceed P% of the tests the base list lets pass.
--check-first runs the first test alone and stops if it fails unexpectedly: a
broken setup (a GPU run without its Vulkan validation layer) then gives one
message instead of one per test. Compiles and runs go through `webnnc batch`
and `webnn-run batch` workers (batch_workers.py), --batch tests each;
--batch 0 starts a process per compile and per run.
"""
import argparse
import concurrent.futures
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx
from onnx import numpy_helper

sys.path.insert(0, str(Path(__file__).resolve().parent))
import expectations  # noqa: E402
import batch_workers  # noqa: E402

RTOL, ATOL = 1e-3, 1e-7
FROZEN_PASSES = []  # tests that passed with inputs frozen (list.append is thread-safe)


def read_tensor(path, declared_type=None):
    """The tensor as numpy. numpy has no bfloat16: onnx hands its raw bits
    back as uint16, and webnn-run exchanges bfloat16 as float32 (exactly
    widened), so a tensor the model declares bfloat16 is widened here."""
    t = onnx.TensorProto()
    t.ParseFromString(Path(path).read_bytes())
    arr = numpy_helper.to_array(t)
    if declared_type == onnx.TensorProto.BFLOAT16 and arr.dtype == np.uint16:
        arr = (arr.astype(np.uint32) << 16).view(np.float32)
    return arr


def compare(actual, expected):
    if actual.shape != expected.shape:
        return f"shape {list(actual.shape)} != expected {list(expected.shape)}"
    if actual.dtype != expected.dtype:
        return f"dtype {actual.dtype} != expected {expected.dtype}"
    if actual.size == 0:
        return None
    if np.issubdtype(expected.dtype, np.floating):
        a, e = actual.astype(np.float64), expected.astype(np.float64)
        ok = (np.isnan(a) & np.isnan(e)) | (a == e) | (np.abs(a - e) <= ATOL + RTOL * np.abs(e))
    else:
        ok = actual == expected
    if not ok.all():
        i = int(np.argmax(~ok.ravel()))
        return (f"element {i}: {actual.ravel()[i]!r} != expected {expected.ravel()[i]!r} "
                f"({int((~ok).sum())} of {ok.size} off)")
    return None


def run_test(test_dir, args, workdir):
    name = f"{test_dir.parent.name}/{test_dir.name}"
    d = workdir / name.replace("/", "__")
    d.mkdir(parents=True, exist_ok=True)
    try:
        model = onnx.load(str(test_dir / "model.onnx"), load_external_data=False)
        data = test_dir / "test_data_set_0"
        init = {i.name for i in model.graph.initializer}
        inputs = [i for i in model.graph.input if i.name not in init]
        feeds, int64_inputs, input_files = [], {}, {}
        for k, inp in enumerate(inputs):
            f = data / f"input_{k}.pb"
            if not f.exists():
                return name, "harness: missing input file"
            arr = read_tensor(f, inp.type.tensor_type.elem_type)
            input_files[inp.name] = f
            if arr.dtype in (np.int64, np.int32):
                int64_inputs[inp.name] = f
            p = d / f"in{k}.npy"
            np.save(p, arr)
            feeds.append((inp.name, p))
        outputs = [(o.name, read_tensor(data / f"output_{k}.pb", o.type.tensor_type.elem_type))
                   for k, o in enumerate(model.graph.output)]
    except Exception as e:  # non-tensor inputs (sequences, optionals) land here
        return name, f"harness: unsupported test data: {str(e).splitlines()[0][:120]}"
    art = d / "model.wnn"
    compile_cmd = [args.webnnc, "compile", str(test_dir / "model.onnx"), "-o", str(art)] + args.compile_arg
    try:
        r = args.compiler.run(compile_cmd, 300)
    except OSError as e:  # e.g. the binary is being relinked: a failure, not a crash
        return name, f"harness: cannot run webnnc: {e}"
    frozen = {}
    # Inputs that must be constant in WebNN: freeze the integer ones, then any
    # input an error names as "('NAME') must be a constant" or as a graph input
    # such a value is computed from, until it compiles.
    while r.returncode != 0 and args.const_input:
        want = dict(frozen)
        want.update(int64_inputs)
        names = [m.group(1) for m in re.finditer(r"\('([^']+)'\) must be a constant", r.stderr)]
        # "...; it is computed from graph inputs 'a', 'b' (freeze them ...)"
        for m in re.finditer(r"computed from graph inputs ((?:'[^']+'(?:, )?)+)", r.stderr):
            names += re.findall(r"'([^']+)'", m.group(1))
        for n in names:
            if n in input_files:
                want[n] = input_files[n]
        if want == frozen:
            break
        frozen = want
        retry = list(compile_cmd)
        for n, f in frozen.items():
            retry += ["--const-input", f"{n}={f}"]
        try:
            r = args.compiler.run(retry, 300)
        except OSError as e:
            return name, f"harness: cannot run webnnc: {e}"
    if r.returncode != 0:
        frozen = {}
    if r.returncode != 0:
        lines = [l for l in r.stderr.strip().splitlines() if "error" in l] or ["(no message)"]
        return name, "compile: " + lines[0][:300]
    outdir = d / "out"
    cmd = [args.webnn_run, str(art), "--output-dir", str(outdir)] + args.run_arg
    for n, p in feeds:
        if n not in frozen:
            cmd += ["--input", f"{n}={p}"]
    try:
        r = args.runner.run(cmd, 300)
    except OSError as e:
        return name, f"harness: cannot run webnn-run: {e}"
    except subprocess.TimeoutExpired:
        return name, "run: no result within 300 s"
    if r.returncode != 0:
        return name, "run: " + (r.stderr.strip().splitlines() or ["(no message)"])[0][:300]
    for n, exp in outputs:
        f = outdir / (re.sub(r"[^A-Za-z0-9._-]", "_", n) + ".npy")
        if not f.exists():
            return name, f"output {n} missing"
        problem = compare(np.load(f), exp)
        if problem:
            return name, f"output {n}: {problem}"
    shutil.rmtree(d, ignore_errors=True)
    if frozen:
        FROZEN_PASSES.append(name)
    return name, None


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--webnnc", required=True)
    p.add_argument("--webnn-run", required=True)
    p.add_argument("--data-dir", default="/usr/share/libonnx-testdata/data")
    p.add_argument("--sets", default="node,pytorch-converted,pytorch-operator")
    p.add_argument("--expected-failures", required=True, action="append",
                   help="a list of expected failures; a second one holds this configuration's own")
    p.add_argument("--max-extra-percent", type=float,
                   help="fail when the second list's entries exceed this share of the base list's passes")
    p.add_argument("--compile-arg", action="append", default=[],
                   help="an argument for every webnnc compile (repeatable; --compile-arg=--target=gpu)")
    p.add_argument("--run-arg", action="append", default=[],
                   help="an argument for every webnn-run (repeatable; --run-arg=--device=gpu)")
    p.add_argument("--filter", default="")
    p.add_argument("-j", "--jobs", type=int, default=2)
    p.add_argument("--write-failures")
    p.add_argument("--check-first", action="store_true",
                   help="run the first test alone first; stop if it fails unexpectedly")
    p.add_argument("--batch", type=int, default=200, metavar="N",
                   help="tests per `webnnc batch` / `webnn-run batch` worker process (batch_workers.py); "
                        "0: a process per compile and per run")
    args = p.parse_args()
    help_text = subprocess.run([args.webnnc, "compile", "--help"], capture_output=True,
                               text=True).stdout
    args.const_input = "--const-input" in help_text

    tests = []
    for s in args.sets.split(","):
        for t in sorted((Path(args.data_dir) / s).iterdir()):
            if (t / "model.onnx").exists() and re.search(args.filter, f"{s}/{t.name}"):
                tests.append(t)
    if not tests:
        print(f"error: no ONNX tests found under {args.data_dir} ({args.sets})")
        return 1
    if len(args.expected_failures) > 2:
        print("error: --expected-failures given more than twice (a base list and one of extras)")
        return 1
    if args.max_extra_percent is not None and len(args.expected_failures) != 2:
        print("error: --max-extra-percent needs two --expected-failures lists")
        return 1
    lists = [expectations.load(f) for f in args.expected_failures]
    expected_fail = {}
    for listed in lists:
        for case, reason in listed.items():
            if case in expected_fail:
                print(f"error: {case} is listed in both {' and '.join(args.expected_failures)}")
                return 1
            expected_fail[case] = reason

    workdir = Path(tempfile.mkdtemp(prefix="onnx-tests-"))
    args.runner = batch_workers.make_runner(args.webnn_run, args.batch)
    args.compiler = batch_workers.make_runner(args.webnnc, args.batch)
    try:
        return run_tests(args, tests, lists, expected_fail, workdir)
    finally:
        args.runner.close()
        args.compiler.close()


def run_tests(args, tests, lists, expected_fail, workdir):
    if args.check_first:
        name, problem = run_test(tests[0], args, workdir)
        if problem and name not in expected_fail:
            print(f"error: the first test fails, so the setup is broken: {name}: {problem}")
            shutil.rmtree(workdir, ignore_errors=True)
            return 1
        FROZEN_PASSES.clear()  # counted again below
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = dict(pool.map(lambda t: run_test(t, args, workdir), tests))
    shutil.rmtree(workdir, ignore_errors=True)

    passed = sum(1 for v in results.values() if v is None)
    bad, unexpected_pass = expectations.report(
        results, expected_fail, " or ".join(args.expected_failures), args.write_failures,
        keep_listed_reasons=False)
    for s in args.sets.split(","):
        sub = {k: v for k, v in results.items() if k.startswith(s + "/")}
        ok = sum(1 for v in sub.values() if v is None)
        print(f"ONNX {s}: {ok}/{len(sub)} passed ({100.0 * ok / max(len(sub), 1):.1f}%)")
    if FROZEN_PASSES:
        print(f"({len(FROZEN_PASSES)} of the passes compiled with inputs frozen by --const-input)")
    print(f"ONNX backend tests: {passed}/{len(results)} passed, {len(bad)} unexpected failures, "
          f"{len(unexpected_pass)} unexpected passes")
    within = True
    if args.max_extra_percent is not None:
        base_passes = sum(1 for t in results if t not in lists[0])
        extra = sum(1 for t in results if t in lists[1])
        within = expectations.within_budget(extra, base_passes, args.max_extra_percent,
                                            f"failures beyond {Path(args.expected_failures[0]).name}")
    return 1 if bad or unexpected_pass or not within else 0


if __name__ == "__main__":
    sys.exit(main())
