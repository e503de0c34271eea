#!/usr/bin/env python3
"""webnn-run calibrate and webnnc estimate from the command line: a short
calibration writes a usable profile; estimate's text, JSON, --tier-only and
--requirement forms; bad input (corrupt artifact, bad --shape, unknown
tier, missing or broken profile) fails with one message and exit 1 or 2."""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

TIERS = ["excellent", "good", "fair", "moderate", "slow", "very-slow", "poor"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--webnnc", required=True)
    ap.add_argument("--webnn-run", required=True)
    ap.add_argument("--artifacts", required=True)
    args = ap.parse_args()
    failures = []

    def check(cond, what):
        if not cond:
            failures.append(what)
            print("FAIL:", what)

    def run(cmd, env=None):
        return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=60)

    tmp = tempfile.mkdtemp(prefix="webnn-estimate-cli-")
    env = dict(os.environ, XDG_CACHE_HOME=os.path.join(tmp, "cache"))
    # Calibration with a 2 s deadline, into the cache directory.
    t0 = time.time()
    r = run([args.webnn_run, "calibrate", "--threads", "1", "--deadline", "2", "--json", "-q"], env)
    took = time.time() - t0
    check(r.returncode == 0, "calibrate exit %d: %s" % (r.returncode, r.stderr))
    info = json.loads(r.stdout) if r.returncode == 0 else {}
    check(took < 6, "calibrate --deadline 2 took %.1f s" % took)  # + process start on a busy machine
    check(info.get("profile", "").startswith(os.path.join(tmp, "cache", "webnn")), "profile in XDG_CACHE_HOME: %s" % info)
    check(info.get("grid_points", 0) > 0, "profile has grid points: %s" % info)
    # The build info every webnn-run JSON carries (webnn_run_test.py checks the others).
    check(info.get("tool") == "webnn-run" and "isa" in info.get("cpu", {}) and "runtime_version" in info
          and "artifact_schema_version" in info, "calibrate --json build info: %s" % sorted(info))
    r = run([args.webnn_run, "calibrate", "--version"], env)
    check(r.returncode == 0 and r.stdout.startswith("webnn-run "), "calibrate --version: %r" % r.stdout)
    r = run([args.webnn_run, "calibrate", "--deadline", "31"], env)
    check(r.returncode == 2, "calibrate --deadline 31 refused (exit %d)" % r.returncode)

    art = os.path.join(args.artifacts, "add_relu_wl.wnn")
    r = run([args.webnnc, "estimate", art, "--json", "--detail"], env)
    check(r.returncode == 0, "estimate --json exit %d: %s" % (r.returncode, r.stderr))
    if r.returncode == 0:
        j = json.loads(r.stdout)
        for key in ("latency_ms", "cold_ms", "peak_bytes", "tier", "threads", "profile", "nodes", "notes"):
            check(key in j, "JSON has %s" % key)
        lat = j["latency_ms"]
        check(0 < lat["p10"] <= lat["median"] <= lat["p90"], "p10 <= median <= p90: %s" % lat)
        check(j["tier"] == "excellent", "a 2-node graph is excellent: %s" % j["tier"])
        check([n["op"] for n in j["nodes"]] == ["add", "relu"], "nodes: %s" % j["nodes"])
    r = run([args.webnnc, "estimate", art], env)
    check(r.returncode == 0 and "latency" in r.stdout and "tier      excellent" in r.stdout, "text form: " + r.stdout)
    r = run([args.webnnc, "estimate", art, "--tier-only"], env)
    check(r.returncode == 0 and r.stdout.strip() == "excellent", "--tier-only: %r" % r.stdout)
    r = run([args.webnnc, "estimate", art, "--tier-only", "--requirement", "good"], env)
    check(r.returncode == 0 and r.stdout.strip() == "meets", "--requirement good: %r" % r.stdout)
    r = run([args.webnnc, "estimate", art, "--json", "--requirement", "excellent"], env)
    check(r.returncode == 0 and json.loads(r.stdout)["meets_requirement"] is True, "meets excellent")

    # Bad input: one message, non-zero exit.
    corrupt = os.path.join(tmp, "corrupt.wnn")
    with open(art, "rb") as f:
        data = bytearray(f.read())
    data[100:164] = b"\xff" * 64  # inside the FlatBuffer: the verifier refuses it
    with open(corrupt, "wb") as f:
        f.write(data)
    r = run([args.webnnc, "estimate", corrupt], env)
    check(r.returncode == 1 and "corrupt.wnn" in r.stderr and r.stderr.count("\n") == 1,
          "corrupt artifact: exit %d, %r" % (r.returncode, r.stderr))
    r = run([args.webnnc, "estimate", art, "--shape", "x=2xq"], env)
    check(r.returncode == 2 and "--shape" in r.stderr, "bad --shape: exit %d %r" % (r.returncode, r.stderr))
    r = run([args.webnnc, "estimate", art, "--shape", "x=4x3"], env)
    check(r.returncode == 1 and "static" in r.stderr, "static input resized: exit %d %r" % (r.returncode, r.stderr))
    dyn = os.path.join(args.artifacts, "dynamic_relu.wnn")
    r = run([args.webnnc, "estimate", dyn, "--shape", "x=3x2", "--json"], env)
    check(r.returncode == 0, "dynamic --shape x=3x2: %s" % r.stderr)
    r = run([args.webnnc, "estimate", dyn, "--shape", "x=99x2"], env)
    check(r.returncode == 1, "dynamic past its maximum: exit %d %r" % (r.returncode, r.stderr))
    r = run([args.webnnc, "estimate", art, "--requirement", "quick"], env)
    check(r.returncode == 2 and "not a tier" in r.stderr, "bad tier: %r" % r.stderr)
    empty_env = dict(os.environ, XDG_CACHE_HOME=os.path.join(tmp, "empty"))
    r = run([args.webnnc, "estimate", art], empty_env)
    check(r.returncode == 1 and "webnn-run calibrate" in r.stderr, "no profile: %r" % r.stderr)
    broken = os.path.join(tmp, "broken.json")
    with open(broken, "w") as f:
        f.write('{"format": 1, "cpu_model": "x"}')
    r = run([args.webnnc, "estimate", art, "--profile", broken], env)
    check(r.returncode == 1 and "broken.json" in r.stderr, "broken profile: %r" % r.stderr)
    r = run([args.webnn_run, "calibrate", "--threads", "1", "--add", os.path.join(tmp, "absent.json")], env)
    check(r.returncode == 1 and "absent.json" in r.stderr, "--add missing file: %r" % r.stderr)

    # calibrate --merge: calibrations of this machine taken at different times as one profile (their
    # medians); a profile of another CPU, or of another format, is refused with its file named.
    mine = info.get("profile", "")
    merged = os.path.join(tmp, "merged.json")
    r = run([args.webnn_run, "calibrate", "--merge", mine, mine, "-o", merged, "--json"], env)
    check(r.returncode == 0 and json.loads(r.stdout).get("calibrations") == 2, "--merge: %r %r" % (r.stdout, r.stderr))
    r = run([args.webnnc, "estimate", art, "--profile", merged, "--tier-only"], env)
    check(r.returncode == 0 and r.stdout.strip() == "excellent", "estimate on a merged profile: %r" % r.stderr)
    if os.path.exists(mine):
        with open(mine) as f:
            other = json.load(f)
        other["cpu_model"] = "Another CPU"
        foreign = os.path.join(tmp, "foreign.json")
        with open(foreign, "w") as f:
            json.dump(other, f)
        r = run([args.webnn_run, "calibrate", "--merge", mine, foreign, "-o", os.path.join(tmp, "m2.json")], env)
        check(r.returncode == 1 and "foreign.json" in r.stderr and "CPU model" in r.stderr
              and not os.path.exists(os.path.join(tmp, "m2.json")), "--merge of another CPU: %r" % r.stderr)
    r = run([args.webnn_run, "calibrate", "--merge", mine, broken, "-o", os.path.join(tmp, "m3.json")], env)
    check(r.returncode == 1 and "broken.json" in r.stderr, "--merge of another format: %r" % r.stderr)
    r = run([args.webnn_run, "calibrate", "--merge", mine, mine, "--restate-speed", "-o", os.path.join(tmp, "m4.json")], env)
    check(r.returncode == 0, "--merge --restate-speed: %r" % r.stderr)
    r = run([args.webnn_run, "calibrate", "--restate-speed", "-o", os.path.join(tmp, "m5.json")], env)
    check(r.returncode == 2 and "--merge" in r.stderr, "--restate-speed without --merge: %r" % r.stderr)
    r = run([args.webnn_run, "calibrate", "--merge", mine], env)
    check(r.returncode == 2 and "-o" in r.stderr, "--merge without -o: exit %d %r" % (r.returncode, r.stderr))

    # What bench/estimate_accuracy.py measures with: webnn-run's per-run
    # latencies (latency_ms.runs) in blocks timed in interleaved passes, the
    # median of the blocks' medians, every run kept.
    import numpy as np
    np.save(os.path.join(tmp, "x.npy"), np.ones((2, 3), np.float32))
    r = run([args.webnn_run, os.path.join(args.artifacts, "add_relu.wnn"), "-i",
             "x=" + os.path.join(tmp, "x.npy"), "--bench", "5", "--warmup", "1", "--json"], env)
    check(r.returncode == 0, "webnn-run --bench 5 --json: %s" % r.stderr)
    if r.returncode == 0:
        lat = json.loads(r.stdout)["latency_ms"]
        runs = lat.get("runs", [])
        check(len(runs) == 5 and min(runs) == lat["min"] and max(runs) == lat["max"]
              and sorted(runs)[2] == lat["median"], "latency_ms.runs: %s" % lat)
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "bench"))
    import estimate_accuracy as acc
    cases = [("a", 1), ("a", 2), ("b", 1)]
    order = acc.block_schedule(cases, 4)
    check(len(order) == 4 and all(p == cases for p in order), "4 passes, each over every case once: %s" % order)
    blocks = [{"runs": [1.0, 9.0, 2.0]}, {"runs": [3.0, 4.0]}, {"runs": [50.0, 60.0, 70.0]}]
    # All 8 runs: 1 2 3 4 9 50 60 70 -> (4 + 9) / 2; the slow block is kept, not dropped.
    check(acc.pooled_median(blocks) == 6.5, "pooled median: %s" % acc.pooled_median(blocks))
    # The measured latency: the median of the block medians 2, 3.5 and 60, one slow block one value of three.
    check(acc.block_median(blocks) == 3.5, "median of block medians: %s" % acc.block_median(blocks))
    # The measurement against itself: blocks 0 and 2 (medians 2 and 60: 31) against block 1 (3.5).
    check(abs(acc.split_half_pct(blocks) - 100 * (31 / 3.5 - 1)) < 1e-9, "split half: %s" % acc.split_half_pct(blocks))
    check(acc.split_half_pct(blocks[:1]) is None, "one block has no halves")
    # The host's speed per pass: case a's blocks 2 (pass 0) and 4 (pass 1) around its median 3, case b's 10 and
    # 10 around 10: pass 0 at median(2/3, 1), pass 1 at median(4/3, 1).
    a = [{"pass": 0, "runs": [2.0]}, {"pass": 1, "runs": [4.0]}]
    b = [{"pass": 0, "runs": [10.0]}, {"pass": 1, "runs": [10.0]}]
    speed = acc.pass_speed([a, b])
    check(len(speed) == 2 and abs(speed[0] - 5 / 6) < 1e-9 and abs(speed[1] - 7 / 6) < 1e-9, "pass speed: %s" % speed)
    short, longer = acc.cpu_run_commands(["webnn-run", "m.wnn", "--bench", "8", "--warmup", "3", "--json"], 20)
    check(short[3] == "20" and longer[3] == "60" and short[:3] == longer[:3] == ["webnn-run", "m.wnn", "--bench"]
          and short[4:] == longer[4:] == ["--warmup", "3", "--json"], "CPU-time runs of 20 and 60: %s %s" % (short, longer))
    # Warm-up: 3 runs, or 20 ms by the estimate for a microsecond model, at most 500.
    check([acc.warmup_runs(x) for x in (None, 100.0, 5.0, 0.064, 0.001)] == [3, 3, 4, 313, 500],
          "warm-up runs: %s" % [acc.warmup_runs(x) for x in (None, 100.0, 5.0, 0.064, 0.001)])
    r = run([sys.executable, acc.__file__, "--blocks", "2", "--block-runs", "8"], env)
    check(r.returncode == 2 and ">= 20 runs" in r.stderr, "2 blocks of 8 refused: exit %d %r" % (r.returncode, r.stderr))

    # Calibrations into the default profile keep the newest few beside it
    # (PROFILE.calibrations/, --history, default 5) and write their median;
    # an earlier one that no longer loads is skipped with a warning; with
    # -o, or --history 1, the profile is this calibration alone.
    env2 = dict(os.environ, XDG_CACHE_HOME=os.path.join(tmp, "cache2"))
    cal = [args.webnn_run, "calibrate", "--threads", "1", "--deadline", "1", "--json", "-q"]
    counts, prof = [], ""
    for _ in range(3):
        r = run(cal + ["--history", "2"], env2)
        check(r.returncode == 0, "calibrate --history 2: exit %d %r" % (r.returncode, r.stderr))
        j = json.loads(r.stdout) if r.returncode == 0 else {}
        counts.append(j.get("calibrations"))
        prof = j.get("profile", "")
    check(counts == [1, 2, 2], "calibrations merged, --history 2: %s" % counts)
    kept = sorted(os.listdir(prof + ".calibrations")) if os.path.isdir(prof + ".calibrations") else []
    check(len(kept) == 2, "the newest 2 kept: %s" % kept)
    if os.path.exists(prof):
        with open(prof) as f:
            check(json.load(f).get("calibrations") == 2, "the profile written is the median of 2")
    if kept:
        with open(os.path.join(prof + ".calibrations", kept[-1]), "w") as f:
            f.write("{ not json")
    r = run([args.webnn_run, "calibrate", "--threads", "1", "--deadline", "1", "--json", "--history", "3"], env2)
    check(r.returncode == 0 and json.loads(r.stdout).get("calibrations") == 2 and kept and kept[-1] in r.stderr
          and "warning" in r.stderr, "a broken earlier calibration skipped: %r" % r.stderr[-300:])
    r = run(cal + ["--history", "1"], env2)
    check(r.returncode == 0 and json.loads(r.stdout).get("calibrations") == 1, "--history 1: %r" % r.stdout)
    r = run(cal + ["-o", os.path.join(tmp, "alone.json")], env2)
    check(r.returncode == 0 and json.loads(r.stdout).get("calibrations") == 1
          and not os.path.exists(os.path.join(tmp, "alone.json.calibrations")), "-o: this calibration alone: %r" % r.stdout)
    r = run(cal + ["--history", "0"], env2)
    check(r.returncode == 2, "--history 0 refused: exit %d" % r.returncode)

    print("%d failure(s)" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
