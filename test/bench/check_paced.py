#!/usr/bin/python3
"""bench/run.py --paced against two fake runtimes (no model, no ORT, no build).

Each fake speaks webnn-run --paced's protocol (docs/CLI.md), answers with
made-up run times and logs every burst to a shared file; "ORT" busy-spins
for a while after each answer, as ORT's intra-op pool does at 2 threads.
Checks: the bursts alternate A B, B A, ...; a burst asks for the sized run
count plus one and the first run is dropped; the cell's medians, ratio and
pair percentiles; no burst of one runtime starts before the other stopped
spinning; a runtime that dies mid-cell is an error line, not a hang.
"""
import argparse
import json
import os
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench"))

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, file=sys.stderr)


def fake(name, base_ms, spin_ms, log_path, die_after):
    """The fake runtime: run i of a burst takes base_ms * (1 + i) (so keeping
    or dropping the first run moves the median), then spins spin_ms."""
    print(json.dumps({"paced": True, "load_ms": 1.0, "session_ms": 2.0, "first_run_ms": 3.0, "threads": 1}),
          flush=True)
    bursts = 0
    for line in sys.stdin:
        n = int(line)
        bursts += 1
        if die_after and bursts > die_after:
            print("fake: error: died on purpose", file=sys.stderr)
            sys.exit(1)
        with open(log_path, "a") as f:
            f.write("%s start %d %.6f\n" % (name, n, time.monotonic()))
        print(json.dumps({"runs": [base_ms * (1 + i) for i in range(n)]}), flush=True)
        t0 = time.monotonic()
        while time.monotonic() - t0 < spin_ms / 1e3:
            pass
        with open(log_path, "a") as f:
            f.write("%s idle %d %.6f\n" % (name, n, time.monotonic()))


def run_cell(benchrun, work, pairs, ort_die_after=0):
    log_path = os.path.join(work, "bursts.log")
    if os.path.exists(log_path):
        os.remove(log_path)
    me = [sys.executable, os.path.abspath(__file__), "--fake"]
    benchrun.webnn_run_cmd = lambda *a, **k: me + ["ours", "2.0", "0", log_path, "0"]
    benchrun.ort_cmd = lambda *a, **k: me + ["ort", "3.0", "30", log_path, str(ort_die_after)]
    args = argparse.Namespace(pairs=pairs, burst_ms=10.0, gap_ms=1000.0, warmup=1, no_spin=False, no_pin=True,
                              ours_env_dict={})
    cell = {"model": "fake", "threads": 2, "ours": None, "ort": None, "errors": []}
    got = benchrun.paced_bursts(cell, "m.onnx", "m.wnn", [], 2, args, {"webnn-run": "unused"},
                                os.path.join(work, "o1"), os.path.join(work, "o2"))
    with open(log_path) as f:
        events = [line.split() for line in f]
    return cell, got, events


def main():
    import run as benchrun
    with tempfile.TemporaryDirectory() as work:
        benchrun._MAXRSS = benchrun.build_micro("maxrss", work)
        cell, (ours, ort, ours_failed, ort_failed), events = run_cell(benchrun, work, pairs=4)
        check(cell["errors"] == [] and not ours_failed and not ort_failed, f"errors {cell['errors']}")
        starts = [(e[0], int(e[2])) for e in events if e[1] == "start"]
        # The probe (2 runs each), then bursts of ceil(10 / 4) = 3 timed runs + 1
        # dropped: the probe's second run is the faster runtime's 2 x 2.0 ms.
        want = [("ours", 2), ("ort", 2)] + [(w, 4) for w in ["ours", "ort", "ort", "ours"] * 2]
        check(starts == want, f"burst order and sizes {starts}, want {want}")
        check(cell.get("burst_runs") == 3, f"burst_runs {cell.get('burst_runs')}")
        # Kept runs of a burst: base x 2, 3, 4 (the first, base x 1, dropped).
        check(len(ours) == 1 and ours[0]["median_ms"] == 6.0 and ours[0]["min_ms"] == 4.0
              and ours[0]["bursts"] == [6.0] * 4 and ours[0]["timed_runs"] == 12, f"ours {ours}")
        check(len(ort) == 1 and ort[0]["median_ms"] == 9.0 and ort[0]["timed_runs"] == 12, f"ort {ort}")
        check(cell["pairs"] == [1.5] * 4 and cell["pair_ratio_p10"] == 1.5 and cell["pair_ratio_p90"] == 1.5,
              f"pairs {cell.get('pairs')}")
        check(ours and ours[0]["startup_ms"] == 6.0 and ours[0]["max_rss_mb"], f"start-up / RSS {ours}")
        # No burst of ours starts while ORT runs or spins (30 ms after each answer).
        ort_events = [e for e in events if e[0] == "ort"]
        ort_busy = [(float(a[3]), float(b[3])) for a, b in zip(ort_events[::2], ort_events[1::2])]
        ours_starts = [float(e[3]) for e in events if e[0] == "ours" and e[1] == "start"]
        check(len(ort_busy) == 5, f"ORT's bursts in the log: {len(ort_busy)}")
        for t in ours_starts:
            check(not any(s <= t <= e for s, e in ort_busy), f"ours started at {t} while ORT spun")
        waits = cell["idle_wait_ms"]
        check(waits["after_ort"]["max"] >= 25 and waits["after_webnnc"]["max"] < 25, f"idle waits {waits}")

        # ORT dies in its third burst: one error line with its message, no hang.
        t0 = time.monotonic()
        cell, (ours, ort, ours_failed, ort_failed), _ = run_cell(benchrun, work, pairs=4, ort_die_after=2)
        check(ort_failed and not ours_failed and ours == [] and ort == [], f"failure flags {ours_failed} {ort_failed}")
        check(cell["errors"] == ["ORT failed: fake: error: died on purpose"], f"errors {cell['errors']}")
        check(time.monotonic() - t0 < 30, "a dead runtime held the cell")
    print(f"bench --paced check: {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--fake":
        fake(sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), sys.argv[5], int(sys.argv[6]))
        sys.exit(0)
    sys.exit(main())
