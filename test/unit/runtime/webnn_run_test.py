#!/usr/bin/python3
"""webnn-run end to end on the artifacts of webnn-make-test-artifacts.

Every bad input must give exit 1 (2 for usage), exactly one stderr line
starting "webnn-run: error:", and leave no output or temporary file behind.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, file=sys.stderr)


def run(args, cwd, stdin=None):
    return subprocess.run([ARGS.webnn_run] + args, cwd=cwd, capture_output=True, text=True, timeout=60,
                          input=stdin if stdin is not None else "")


def expect_error(args, cwd, code, fragment):
    r = run(args, cwd)
    lines = r.stderr.strip().splitlines()
    check(r.returncode == code, f"{args}: exit {r.returncode}, want {code} ({r.stderr.strip()})")
    check(len(lines) == 1 and lines[0].startswith("webnn-run: error: "), f"{args}: stderr {r.stderr!r}")
    check(fragment in r.stderr, f"{args}: {fragment!r} not in {r.stderr!r}")
    check(r.stdout == "", f"{args}: stdout not empty: {r.stdout!r}")


def main():
    a = ARGS.artifacts
    with tempfile.TemporaryDirectory() as d:
        np.save(f"{d}/x.npy", np.ones((2, 3), np.float32))
        np.save(f"{d}/x_wide.npy", np.ones((2, 4), np.float32))
        np.save(f"{d}/x_f64.npy", np.ones((2, 3), np.float64))
        np.save(f"{d}/x_fortran.npy", np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3)))
        np.save(f"{d}/x4.npy", np.arange(4, dtype=np.float32))
        np.save(f"{d}/q.npy", np.array([-8, -1, 0, 7, 3], np.int8))
        np.save(f"{d}/q_bad.npy", np.array([-8, -1, 0, 8, 3], np.int8))
        with open(f"{d}/x_be.npy", "wb") as f:
            np.save(f, np.ones((2, 3), ">f4"))

        # Happy paths.
        r = run([f"{a}/add_relu.wnn", "--input", "x=x.npy"], d)
        check(r.returncode == 0 and "y: float32 [2,3] = [0, 0, 0, 2, 3, 4]" in r.stdout, f"summary: {r}")

        r = run([f"{a}/add_relu.wnn", "-i", "x=x.npy", "--output", "y=y.npy", "--threads", "2"], d)
        check(r.returncode == 0, f"--output: {r.stderr}")
        check(np.array_equal(np.load(f"{d}/y.npy"), np.array([[0, 0, 0], [2, 3, 4]], np.float32)), "y.npy values")

        r = run([f"{a}/add_relu_wl.wnn", "--weights", f"{a}/add_relu_wl.weights", "--input", "x=x.npy",
                 "--bench", "20", "--warmup", "2", "--json"], d)
        check(r.returncode == 0, f"--json: {r.stderr}")
        j = json.loads(r.stdout)
        for k in ("median", "min", "mean", "max"):
            check(k in j["latency_ms"] and j["latency_ms"][k] >= 0, f"latency_ms.{k}")
        check(j["latency_ms"]["min"] <= j["latency_ms"]["median"] <= j["latency_ms"]["max"], "latency order")
        check(j["iterations"] == 20 and j["threads"] == 1 and j["arena_bytes"] == 128, f"json fields {j}")
        check("load_ms" in j and "first_run_ms" in j, "load_ms / first_run_ms")
        # What made the result: versions and the CPU path (the same in every JSON webnn-run prints).
        r_version = run(["--version"], d)
        check(r_version.returncode == 0 and r_version.stdout.strip() == f"webnn-run {j['version']}",
              f"--version {r_version.stdout!r} vs json {j.get('version')}")
        r_gen = run(["generate", "--version"], d)
        check(r_gen.returncode == 0 and r_gen.stdout == r_version.stdout, f"generate --version: {r_gen}")
        check(j["tool"] == "webnn-run" and j["runtime_version"] == j["version"], "tool / runtime_version")
        check(isinstance(j["artifact_schema_version"], int) and j["artifact_schema_version"] > 0, "schema version")
        check(j["cpu"]["isa"].startswith("x86-64-v3") and "avx2" in j["cpu"]["features"]
              and isinstance(j["cpu"]["bf16_dot_products"], bool), f"cpu {j.get('cpu')}")
        for sub in ("limits", "calibrate"):
            r_sub = run([sub, "--version"], d)
            check(r_sub.returncode == 0 and r_sub.stdout == r_version.stdout, f"{sub} --version: {r_sub}")
        r = run(["limits", "--json"], d)
        check(r.returncode == 0, f"limits --json: {r.stderr}")
        jl = json.loads(r.stdout)
        check(all(jl.get(k) == j[k] for k in ("tool", "version", "runtime_version", "artifact_schema_version", "cpu"))
              and jl["backends"], f"limits --json lacks the build info: {sorted(jl)}")
        r = run([f"{a}/add_relu.wnn", "--input", "x=x.npy", "--json", "--profile"], d)
        check(r.returncode == 0, f"--json --profile: {r.stderr}")
        jp = json.loads(r.stdout)
        check(jp["cpu"] == j["cpu"] and jp["version"] == j["version"] and jp["profile"]["runs"] == 1,
              "--profile JSON carries versions and cpu")

        r = run([f"{a}/odd_names.wnn", "--input", "x=x4.npy", "--output-dir", "out/nested"], d)
        check(r.returncode == 0, f"--output-dir: {r.stderr}")
        check(sorted(os.listdir(f"{d}/out/nested")) == ["k_0_a_b.npy", "x.npy"], os.listdir(f"{d}/out/nested"))
        check(np.array_equal(np.load(f"{d}/out/nested/k_0_a_b.npy"), np.array([7, -9], np.int32)), "k values")
        check(np.array_equal(np.load(f"{d}/out/nested/x.npy"), np.arange(4, dtype=np.float32)), "x values")

        r = run([f"{a}/int4.wnn", "--input", "q=q.npy", "--output", "q=q_out.npy"], d)
        check(r.returncode == 0, f"int4: {r.stderr}")
        check(np.array_equal(np.load(f"{d}/q_out.npy"), np.load(f"{d}/q.npy")), "int4 round trip")

        # Bad inputs: exit 1, one line, no files.
        expect_error([f"{a}/add_relu.wnn", "--input", "x=x_wide.npy", "--output", "y=bad1.npy"], d, 1,
                     "input 'x': expected float32 [2,3], got float32 [2,4] from x_wide.npy")
        expect_error([f"{a}/add_relu.wnn", "--input", "x=x_f64.npy"], d, 1, "float64")
        expect_error([f"{a}/add_relu.wnn", "--input", "x=x_fortran.npy"], d, 1, "Fortran-order")
        expect_error([f"{a}/add_relu.wnn", "--input", "x=x_be.npy"], d, 1, "big-endian")
        expect_error([f"{a}/add_relu.wnn", "--input", "x=missing.npy"], d, 1, "cannot open 'missing.npy'")
        expect_error([f"{a}/add_relu.wnn", "--input", "z=x.npy"], d, 1, "model has no input 'z' (inputs: 'x')")
        expect_error([f"{a}/add_relu.wnn"], d, 1, "input 'x' not given")
        expect_error([f"{a}/add_relu.wnn", "--input", "x=x.npy", "--input", "x=x.npy"], d, 1, "given twice")
        expect_error([f"{a}/add_relu.wnn", "--input", "x=x.npy", "--output", "nope=n.npy"], d, 1,
                     "model has no output 'nope' (outputs: 'y')")
        expect_error([f"{a}/int4.wnn", "--input", "q=q_bad.npy"], d, 1, "element 3 = 8 does not fit in int4")
        expect_error([f"{a}/add_relu_wl.wnn", "--input", "x=x.npy"], d, 1, "--weights")
        expect_error([f"{a}/passthrough.wnn", "--weights", f"{a}/add_relu_wl.weights", "--input", "x=x4.npy"], d, 1,
                     "weights are embedded")
        expect_error([f"{a}/add_relu_wl.wnn", "--weights", f"{a}/add_relu.wnn", "--input", "x=x.npy"], d, 1,
                     "is an artifact, not a weights file")
        expect_error(["x.npy", "--input", "x=x.npy"], d, 1, "not a webnn artifact")
        expect_error(["/nonexistent.wnn"], d, 1, "cannot open '/nonexistent.wnn'")

        # A failure writing the second output leaves the first unwritten too.
        os.mkdir(f"{d}/good")
        expect_error([f"{a}/passthrough.wnn", "--input", "x=x4.npy", "--output", "x=good/x.npy",
                      "--output", "k=no/such/dir/k.npy"], d, 1, "cannot create 'no/such/dir/k.npy'")
        check(os.listdir(f"{d}/good") == [], f"partial output left: {os.listdir(f'{d}/good')}")

        with open(f"{a}/add_relu.wnn", "rb") as f:
            whole = f.read()
        for n in (0, 10, 63, 64, 100, len(whole) // 2, len(whole) - 1):
            with open(f"{d}/cut.wnn", "wb") as f:
                f.write(whole[:n])
            expect_error(["cut.wnn", "--input", "x=x.npy", "--output-dir", "cutout"], d, 1, "cut.wnn: truncated")
        check(not os.path.exists(f"{d}/cutout") or os.listdir(f"{d}/cutout") == [], "outputs after a failed load")

        # A hostile artifact the fuzz smoke found: a reshape whose only input
        # is absent (-1) once read the planner's offsets at index -1; it loads
        # and is refused, naming the node, with no output written.
        hostile = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "fuzz", "corpus",
                               "artifact", "regression_crash_89588c66")
        np.save(f"{d}/q6.npy", np.arange(6, dtype=np.float32))
        np.save(f"{d}/scale.npy", np.array(0.5, np.float32))
        np.save(f"{d}/zero.npy", np.array(3, np.uint8))
        expect_error([hostile, "-i", "x=q6.npy", "-i", "y_scale=scale.npy", "-i", "y_zero_point=zero.npy",
                      "--output-dir", "hostileout"], d, 1, "required operand 0 is missing")
        check(not os.path.exists(f"{d}/hostileout") or os.listdir(f"{d}/hostileout") == [],
              "outputs after a refused node")

        # Usage errors: exit 2.
        expect_error([], d, 2, "artifact")
        expect_error([f"{a}/add_relu.wnn", "--input", "x"], d, 2, "NAME=FILE.npy")
        expect_error([f"{a}/add_relu.wnn", "--threads", "0", "--input", "x=x.npy"], d, 2, "--threads")
        expect_error([f"{a}/add_relu.wnn", "--frobnicate"], d, 2, "--frobnicate")
        expect_error([f"{a}/add_relu.wnn", "--timeout", "-1", "--input", "x=x.npy"], d, 2, "--timeout")

        # --timeout: a loop of 2^62 iterations is cancelled after 0.3 s with one line and exit 3,
        # naming where it stopped; a run inside the limit is unaffected.
        np.save(f"{d}/m_huge.npy", np.array(1 << 62, np.int64))
        np.save(f"{d}/m3.npy", np.array(3, np.int64))
        np.save(f"{d}/ab.npy", np.array([10, 20], np.float32))
        loop = [f"{a}/loop.wnn", "-i", "a=ab.npy", "-i", "b=ab.npy"]
        expect_error(loop + ["-i", "m=m_huge.npy", "--timeout", "0.3", "--output-dir", "loopout"], d, 3,
                     "timed out after 0.3 s: node 0 'loop0' (loop): "
                     "run cancelled at node 0 'body_add' (add) of subgraph 0")
        check(not os.path.exists(f"{d}/loopout") or os.listdir(f"{d}/loopout") == [], "outputs after a timeout")
        r = run(loop + ["-i", "m=m3.npy", "--timeout", "30", "--bench", "3"], d)
        check(r.returncode == 0 and "x: float32 [2] = [13, 23]" in r.stdout, f"--timeout within the limit: {r}")

        # Limits: a loop past --max-loop-iterations fails with one line naming the limit (exit 1);
        # raised, it runs. The limit flags are refused when not numbers.
        expect_error(loop + ["-i", "m=m3.npy", "--max-loop-iterations", "2"], d, 1,
                     "node 0 'loop0' (loop): the number of loop iterations in this run is 3, above the limit of 2 "
                     "(maxLoopIterations; raise it with SessionOptions::limits.maxLoopIterations, the C session "
                     "option max_loop_iterations or webnn-run --max-loop-iterations)")
        r = run(loop + ["-i", "m=m3.npy", "--max-loop-iterations", "3"], d)
        check(r.returncode == 0 and "x: float32 [2] = [13, 23]" in r.stdout, f"--max-loop-iterations 3: {r}")
        expect_error([f"{a}/add_relu.wnn", "--input", "x=x.npy", "--max-nodes", "1"], d, 1,
                     "the graph's node count is 2, above the limit of 1")
        expect_error([f"{a}/add_relu.wnn", "--input", "x=x.npy", "--max-arena-bytes", "lots"], d, 2,
                     "--max-arena-bytes")

        # --paced (bench/run.py --paced): one JSON line once warm, then one line of run
        # times per stdin line, the outputs written at EOF; "\r" and spaces around a
        # count are allowed. A bad line stops it: exit 1, one error line naming the
        # line, no outputs.
        paced = [f"{a}/add_relu.wnn", "-i", "x=x.npy", "--paced", "--warmup", "2", "--output-dir", "paced"]
        r = run(paced, d, stdin="3\n 1\r\n")
        lines = r.stdout.splitlines()
        check(r.returncode == 0 and len(lines) == 3 and r.stderr == "", f"--paced: {r}")
        if len(lines) == 3:
            head = json.loads(lines[0])
            check(head["paced"] is True and head["warmup"] == 2 and head["threads"] == 1 and head["tool"] == "webnn-run"
                  and head["load_ms"] >= 0 and head["first_run_ms"] >= 0 and "latency_ms" not in head,
                  f"--paced header {head}")
            bursts = [json.loads(line)["runs"] for line in lines[1:]]
            check([len(b) for b in bursts] == [3, 1] and all(v >= 0 for b in bursts for v in b),
                  f"--paced bursts {bursts}")
        check(os.path.exists(f"{d}/paced/y.npy")
              and np.array_equal(np.load(f"{d}/paced/y.npy"), np.array([[0, 0, 0], [2, 3, 4]], np.float32)),
              "--paced: y.npy at EOF")
        r = run(paced[:-1] + ["paced_eof"], d, stdin="")
        check(r.returncode == 0 and len(r.stdout.splitlines()) == 1 and os.path.exists(f"{d}/paced_eof/y.npy"),
              f"--paced, EOF at once: {r}")
        for bad in ("x", "0", "-2", "2 2", "", "1000001", "1e3"):
            out = "paced_bad"
            r = run(paced[:-1] + [out], d, stdin=f"2\n{bad}\n4\n")
            err = r.stderr.strip().splitlines()
            check(r.returncode == 1 and len(r.stdout.splitlines()) == 2, f"--paced bad line {bad!r}: {r}")
            check(len(err) == 1 and err[0] == "webnn-run: error: --paced: stdin line 2: expected a run count in "
                  f"[1, 1000000], got '{bad}'", f"--paced bad line {bad!r}: stderr {r.stderr!r}")
            check(os.listdir(f"{d}/{out}") == [], f"--paced bad line {bad!r}: outputs written")
        for other in (["--bench", "3"], ["--profile"], ["--timeout", "5"], ["--expected", "y=x.npy"]):
            expect_error(paced + other, d, 2, "--paced takes its run counts from stdin: not with --bench, "
                         "--profile, --expected or --timeout")

        leftovers = [f for root, _, files in os.walk(d) for f in files if ".tmp-" in f]
        check(not leftovers, f"temporary files left: {leftovers}")

    print(f"webnn-run CLI test: {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--webnn-run", required=True)
    p.add_argument("--artifacts", required=True)
    ARGS = p.parse_args()
    ARGS.webnn_run = os.path.abspath(ARGS.webnn_run)
    ARGS.artifacts = os.path.abspath(ARGS.artifacts)
    sys.exit(main())
