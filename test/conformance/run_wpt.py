#!/usr/bin/python3
"""Runs the W3C WebNN conformance vectors through webnnc and webnn-run.

Every case goes DSL -> `webnnc compile` -> .wnn -> `webnn-run` -> .npy and is
compared with the WPT expected output. The run fails when a case outside
wpt_expected_failures.txt fails, and when a listed case passes (so the list
stays true). Prints the pass rate.

--compile-arg / --run-arg add arguments to every webnnc compile / webnn-run
(e.g. `--compile-arg=--target=gpu`: the executor's Vulkan partitions).
--gpu-check: a `--target gpu` artifact runs wherever the executor can, so a
missing Vulkan device or validation layer would quietly move every case to
the CPU. One case runs first on `--device gpu` (no fallback): if it cannot,
the run stops with webnn-run's own message. Each case's run reports through
`webnn-run --json` whether it made GPU dispatches; the cases that ran wholly
on the CPU are counted and named.
--record DIR / --replay DIR: a machine without webnnc (a lent GPU machine)
runs the cases from artifacts compiled elsewhere. --record keeps each
case's compile result (the artifact, or webnnc's exit status and message)
in DIR under the case's name and a hash of its graph text and compile
arguments; --replay takes it from there instead of running webnnc (a case
with no recorded compile fails, naming it). --progress N prints a count
every N cases, so a run cut short still says how far it got. Runs go through
`webnnc batch` and `webnn-run batch` workers (batch_workers.py), --batch
cases each; --batch 0 starts a process per compile and per run.
"""
import argparse
import concurrent.futures
import hashlib
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import expectations  # noqa: E402
import batch_workers  # noqa: E402
import wpt_to_dsl  # noqa: E402

# Tolerances, in one place. WPT checks with per-operation ULP or absolute
# bounds derived from the precision the spec allows (webnn/resources/utils.js);
# these follow the same classes:
#  exact:  data movement, comparisons, sign/abs/neg/relu, min/max, maxPool2d,
#          rounding, clamp and every integer result: the spec leaves no freedom.
#  ulp:    a single correctly-rounded float op (add/sub/mul/div, sqrt): WPT
#          allows 1 ULP; float16 results computed in float32 and rounded once
#          can differ by 1 more ULP from a reference rounded differently.
#  transcendental: exp/log/tanh/sigmoid/elu/pow...: WPT allows up to 32
#          ULP (float32); float16 results are rounded from float32 (2 ULP).
#  absolute: cos/sin/tan/erf: WPT compares these with an absolute bound
#          (get{Cos,Sin,Tan,Erf}PrecisionTolerance: 1/1024 float32, 1/512
#          float16) rather than in ULP.
#  accumulate: matmul/conv/gemm/reductions/normalizations/softmax:
#          WPT grows the ULP bound with the accumulation length; a relative
#          bound plus a small absolute floor covers it for these sizes.
#  per case: averagePool2d and l2Pool2d at WPT's own window-size bound
#          (CASE_ULP below).
EXACT = {"abs", "neg", "relu", "ceil", "floor", "clamp", "max", "min", "equal", "greater",
         "greaterOrEqual", "lesser", "lesserOrEqual", "logicalNot", "concat", "reshape",
         "transpose", "slice", "split", "expand", "gather", "cast", "where", "pad",
         "gatherElements", "gatherND", "scatterElements", "scatterND", "reverse", "tile", "sign",
         "roundEven", "triangular", "isNaN", "isInfinite", "logicalAnd", "logicalOr", "logicalXor", "notEqual",
         "identity", "maxPool2d"}
ULP = {"add": 1, "sub": 1, "mul": 1, "div": 2, "sqrt": 1, "linear": 2, "leakyRelu": 1,
       "hardSigmoid": 2, "hardSwish": 4, "dequantizeLinear": 1, "prelu": 1,
       # WPT's per-file bounds (get<Op>PrecisionTolerance), not a class's.
       "reciprocal": 2, "softplus": 18, "softsign": 3,
       # (float32, float16): WPT's gelu bound is 18 ULP; float16 keeps the
       # transcendental class's 2 ULP (rounded once from float32), tighter
       # than WPT's 18.
       "gelu": (18, 2),
       # WPT's exp bound is 32 ULP float32 and 1 ULP float16, tighter than
       # the transcendental class's 2 for float16; elu's is 18 ULP (float32;
       # float16 keeps the class's 2, tighter than WPT's 18).
       "exp": (32, 1), "elu": (18, 2)}
TRANSCENDENTAL = {"log", "tanh", "sigmoid", "pow"}
ABSOLUTE = {op: (1 / 1024, 1 / 512) for op in ("cos", "sin", "tan", "erf")}  # (float32, float16)
# Integer results WPT itself compares with a tolerance: quantizeLinear allows
# 1 ULP on its int8/uint8/int4/uint4 output (getQuantizeLinearPrecisionTolerance),
# since roundEven(x / scale) may land either side of a .5 tie after division.
INTEGER_ULP = {"quantizeLinear": 1}
ACCUMULATE = {  # (float32 rtol, float32 atol, float16 rtol, float16 atol)
    "default": (2e-5, 1e-6, 2e-3, 1e-3),
}


def pool_window_ulp(case):
    """WPT's bound for averagePool2d and l2Pool2d
    (getPoolingOperatorsPrecisionTolerance): window height * width + 2 ULP,
    float32 and float16 alike; the window defaults to the input's spatial size."""
    op = case["graph"]["operators"][0]
    options = next((a["options"] for a in op["arguments"] if "options" in a), {})
    window = options.get("windowDimensions")
    if window is None:
        shape = case["graph"]["inputs"][next(iter(op["arguments"][0].values()))]["descriptor"]["shape"]
        window = shape[1:3] if options.get("layout") == "nhwc" else shape[2:4]
    n = window[0] * window[1] + 2
    return (n, n)


# Single-operator cases whose WPT bound depends on the case, not just the op.
CASE_ULP = {"averagePool2d": pool_window_ulp, "l2Pool2d": pool_window_ulp}


def tolerance_for(ops):
    """The loosest class among the case's operators."""
    if any(op in ACCUMULATE or
           not (op in EXACT or op in ULP or op in TRANSCENDENTAL or op in ABSOLUTE)
           for op in ops):
        return ("accumulate", ACCUMULATE["default"])
    if any(op in ABSOLUTE for op in ops):
        return ("absolute", tuple(max(ABSOLUTE[op][i] for op in ops if op in ABSOLUTE)
                                  for i in range(2)))
    if any(op in TRANSCENDENTAL for op in ops):
        return ("ulp", (32, 2))
    if any(op in ULP for op in ops):
        # A bare count n means n ULP for float32 and n + 1 for float16.
        bounds = [b if isinstance(b, tuple) else (b, b + 1)
                  for b in (ULP.get(op, 0) for op in ops)]
        return ("ulp", tuple(max(b[i] for b in bounds) for i in range(2)))
    return ("exact", None)


def ulp_distance(a, b):
    """Distance in units in the last place between same-dtype float arrays."""
    itype = {np.float32: np.int32, np.float16: np.int16}[a.dtype.type]
    ai = a.view(itype).astype(np.int64)
    bi = b.view(itype).astype(np.int64)
    sign = np.int64(1) << (8 * a.itemsize - 1)
    # Map the sign-magnitude bit patterns onto a monotonic integer line.
    ai = np.where(ai < 0, -(ai + sign), ai)
    bi = np.where(bi < 0, -(bi + sign), bi)
    return np.abs(ai - bi)


def compare(actual, expected, ops, case=None):
    if actual.shape != expected.shape:
        return f"shape {list(actual.shape)} != expected {list(expected.shape)}"
    if actual.dtype != expected.dtype:
        return f"dtype {actual.dtype} != expected {expected.dtype}"
    if actual.size == 0:
        return None
    if not np.issubdtype(expected.dtype, np.floating):
        limit = max((INTEGER_ULP.get(op, 0) for op in ops), default=0)
        bad = np.abs(actual.astype(np.int64) - expected.astype(np.int64)) > limit
        if bad.any():
            i = int(np.argmax(bad.ravel()))
            return f"element {i}: {actual.ravel()[i]} != {expected.ravel()[i]}"
        return None
    both_nan = np.isnan(actual) & np.isnan(expected)
    kind, params = tolerance_for(ops)
    if case is not None and len(ops) == 1 and ops[0] in CASE_ULP:
        kind, params = "ulp", CASE_ULP[ops[0]](case)
    half = expected.dtype == np.float16
    if kind == "accumulate":
        rtol, atol = (params[2], params[3]) if half else (params[0], params[1])
        a64, e64 = actual.astype(np.float64), expected.astype(np.float64)
        err = np.abs(a64 - e64)
        bad = ~(both_nan | (a64 == e64) | (err <= atol + rtol * np.abs(e64)))
    elif kind == "absolute":
        a64, e64 = actual.astype(np.float64), expected.astype(np.float64)
        bad = ~(both_nan | (a64 == e64) | (np.abs(a64 - e64) <= params[1 if half else 0]))
    else:
        limit = 0 if kind == "exact" else params[1 if half else 0]
        bad = ~(both_nan | (actual == expected) |
                (ulp_distance(actual, expected) <= limit))
    if bad.any():
        i = int(np.argmax(bad.ravel()))
        return (f"element {i}: {actual.ravel()[i]!r} != expected {expected.ravel()[i]!r} "
                f"({kind} tolerance, {int(bad.sum())} of {bad.size} elements off)")
    return None


def gpu_dispatches(stdout):
    """GPU dispatches webnn-run --json recorded; 0 when it made no device."""
    try:
        return int(json.loads(stdout.strip().splitlines()[-1]).get("gpu", {}).get("dispatches_recorded", 0))
    except (ValueError, IndexError, AttributeError):
        return -1


def run_case(case_id, case, args, workdir, extra_run_args=(), gpu_check=None):
    """(case id, None or the problem, where it ran: 'gpu', 'cpu' or '')."""
    gpu_check = args.gpu_check if gpu_check is None else gpu_check
    d = workdir / re.sub(r"[^A-Za-z0-9_.-]", "_", case_id)[:150]
    d.mkdir(parents=True, exist_ok=True)
    try:
        feeds, expected = wpt_to_dsl.convert(case, d)
    except Exception as e:  # an unconvertible case is a harness failure, reported as such
        return case_id, f"harness: cannot convert: {e}", ""
    art = d / "graph.wnn"
    key = None
    if args.record or args.replay:
        text = (d / "graph.webnn").read_bytes() + "\0".join(args.compile_arg).encode()
        key = f"{d.name}-{hashlib.sha256(text).hexdigest()[:16]}"
    if args.replay:
        stored = {ext: Path(args.replay) / (key + ext) for ext in (".rc", ".err", ".wnn")}
        if not stored[".rc"].exists():
            return case_id, f"harness: no recorded compile {key} in {args.replay}", ""
        if int(stored[".rc"].read_text()) != 0:
            return case_id, "compile: " + (stored[".err"].read_text().strip().splitlines() or ["(no message)"])[0], ""
        shutil.copyfile(stored[".wnn"], art)
    else:
        try:
            r = args.compiler.run([args.webnnc, "compile", str(d / "graph.webnn"), "-o", str(art)] + args.compile_arg,
                                  120)
        except OSError as e:  # e.g. the binary is being relinked: a failure, not a crash
            return case_id, f"harness: cannot run webnnc: {e}", ""
        if args.record:
            stored = {ext: Path(args.record) / (key + ext) for ext in (".rc", ".err", ".wnn")}
            stored[".err"].write_text(r.stderr)
            if r.returncode == 0:
                shutil.copyfile(art, stored[".wnn"])
            stored[".rc"].write_text(str(r.returncode))
        if r.returncode != 0:
            return case_id, "compile: " + (r.stderr.strip().splitlines() or ["(no message)"])[0], ""
    outdir = d / "out"
    cmd = [args.webnn_run, str(art), "--output-dir", str(outdir)] + args.run_arg + list(extra_run_args)
    if gpu_check:
        cmd.append("--json")
    for name, path in feeds.items():
        cmd += ["--input", f"{name}={path}"]
    try:
        r = args.runner.run(cmd, args.timeout)
    except OSError as e:
        return case_id, f"harness: cannot run webnn-run: {e}", ""
    except subprocess.TimeoutExpired:
        return case_id, f"run: no result within {args.timeout} s", ""
    if r.returncode != 0:
        return case_id, "run: " + (r.stderr.strip().splitlines() or ["(no message)"])[0], ""
    where = ""
    if gpu_check:
        dispatches = gpu_dispatches(r.stdout)
        if dispatches < 0:
            return case_id, "run: webnn-run --json printed no JSON object", ""
        where = "gpu" if dispatches > 0 else "cpu"
    ops = [op["name"] for op in case["graph"]["operators"]]
    for name, (_, exp) in expected.items():
        f = outdir / (re.sub(r"[^A-Za-z0-9._-]", "_", name) + ".npy")
        if not f.exists():
            return case_id, f"output {name} missing", where
        problem = compare(np.load(f), exp, ops, case)
        if problem:
            return case_id, f"output {name}: {problem}", where
    if not args.keep:
        shutil.rmtree(d, ignore_errors=True)
    return case_id, None, where


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--webnnc", help="the compiler (not needed with --replay)")
    p.add_argument("--webnn-run", required=True)
    p.add_argument("--wpt-dir", required=True)
    p.add_argument("--expected-failures", required=True)
    p.add_argument("--filter", default="", help="regex on case ids")
    p.add_argument("-j", "--jobs", type=int, default=2)
    p.add_argument("--keep", action="store_true", help="keep the generated files")
    p.add_argument("--write-failures", help="write the failing cases in list format here")
    p.add_argument("--compile-arg", action="append", default=[],
                   help="an argument for every webnnc compile (repeatable; --compile-arg=--target=gpu)")
    p.add_argument("--run-arg", action="append", default=[],
                   help="an argument for every webnn-run (repeatable; --run-arg=--device=gpu)")
    p.add_argument("--gpu-check", action="store_true",
                   help="stop first if a case cannot run on --device gpu; count the cases "
                        "that made GPU dispatches (webnn-run --json)")
    p.add_argument("--max-listed-percent", type=float,
                   help="fail when the expected failures listed exceed this share of the cases")
    p.add_argument("--timeout", type=int, default=120, help="seconds per webnn-run")
    p.add_argument("--record", metavar="DIR", help="keep each case's compile result in DIR")
    p.add_argument("--replay", metavar="DIR", help="take each case's compile result from DIR (no webnnc)")
    p.add_argument("--progress", type=int, default=0, metavar="N", help="print a count every N cases")
    p.add_argument("--batch", type=int, default=200, metavar="N",
                   help="cases per `webnnc batch` / `webnn-run batch` worker process (batch_workers.py); "
                        "0: a process per compile and per run")
    args = p.parse_args()
    if args.record and args.replay:
        p.error("--record and --replay exclude each other")
    if not args.webnnc and not args.replay:
        p.error("--webnnc is required unless --replay is given")
    if args.record:
        Path(args.record).mkdir(parents=True, exist_ok=True)

    cases = []
    for f in sorted(Path(args.wpt_dir).glob("*.json")):
        doc = json.loads(f.read_text())
        for i, case in enumerate(doc["tests"]):
            case_id = f"{f.stem}/{case['name']}"
            if re.search(args.filter, case_id):
                cases.append((case_id, case))
    if not cases:
        print(f"error: no conformance cases found in '{args.wpt_dir}' (filter '{args.filter}')")
        return 1
    expected_fail = expectations.load(args.expected_failures)

    workdir = Path(tempfile.mkdtemp(prefix="wpt-"))
    args.runner = batch_workers.make_runner(args.webnn_run, args.batch)
    args.compiler = batch_workers.make_runner(args.webnnc, args.batch if args.webnnc else 0)
    try:
        return run_cases(args, cases, expected_fail, workdir)
    finally:
        args.runner.close()
        args.compiler.close()


def run_cases(args, cases, expected_fail, workdir):
    if args.gpu_check:
        # A missing device or validation layer would otherwise only show as
        # cases quietly run on the CPU: --device gpu says which it is.
        case_id, problem, _ = run_case(cases[0][0], cases[0][1], args, workdir, ["--device", "gpu"], False)
        if problem:
            print(f"error: the GPU cannot run {case_id} (--device gpu): {problem}")
            shutil.rmtree(workdir, ignore_errors=True)
            return 1
    results, where = {}, {}
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for case_id, problem, ran in pool.map(lambda c: run_case(c[0], c[1], args, workdir), cases):
            results[case_id] = problem
            where[case_id] = ran
            if args.progress and len(results) % args.progress == 0:
                failing = sum(1 for p_ in results.values() if p_ is not None)
                print(f"{len(results)}/{len(cases)} cases run, {failing} failing", flush=True)
    if not args.keep:
        shutil.rmtree(workdir, ignore_errors=True)

    passed = sum(1 for p_ in results.values() if p_ is None)
    unexpected_fail, unexpected_pass = expectations.report(
        results, expected_fail, args.expected_failures, args.write_failures)
    total = len(results)
    print(f"WebNN conformance: {passed}/{total} passed ({100.0 * passed / max(total, 1):.1f}%), "
          f"{len(expected_fail)} expected failures listed, {len(unexpected_fail)} unexpected "
          f"failures, {len(unexpected_pass)} unexpected passes")
    if args.gpu_check:
        on_cpu = sorted(c for c, w in where.items() if w == "cpu")
        print(f"{sum(1 for w in where.values() if w == 'gpu')} cases ran GPU dispatches, "
              f"{len(on_cpu)} ran wholly on the CPU" + (f": {', '.join(on_cpu[:12])}"
                                                        f"{', ...' if len(on_cpu) > 12 else ''}" if on_cpu else ""))
    within = True
    if args.max_listed_percent is not None:
        within = expectations.within_budget(len(expected_fail), total, args.max_listed_percent,
                                            "expected failures")
    return 1 if unexpected_fail or unexpected_pass or not within else 0


if __name__ == "__main__":
    sys.exit(main())
