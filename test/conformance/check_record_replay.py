#!/usr/bin/python3
"""run_wpt.py --record / --replay round trip (the GPU-machine path: cases
compiled here, run where there is no webnnc): a few operators' cases are
recorded with webnnc, then replayed without it and must pass alike; a
replay from an empty folder must fail every case, naming the missing
compile.

    check_record_replay.py WEBNNC WEBNN_RUN WPT_DIR EXPECTED_FAILURES
"""
import re
import subprocess
import sys
import tempfile
from pathlib import Path

RUN_WPT = Path(__file__).resolve().parent / "run_wpt.py"
FILTER = "^(abs|add|gemm|reduce_sum)/"


def run(*args):
    r = subprocess.run([sys.executable, str(RUN_WPT), *args], capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def passed(out):
    m = re.search(r"WebNN conformance: (\d+)/(\d+) passed", out)
    return (int(m.group(1)), int(m.group(2))) if m else None


def main():
    webnnc, webnn_run, wpt_dir, expected = sys.argv[1:5]
    common = ["--webnn-run", webnn_run, "--wpt-dir", wpt_dir, "--expected-failures", expected,
              "--filter", FILTER, "-j", "2"]
    with tempfile.TemporaryDirectory() as store, tempfile.TemporaryDirectory() as empty:
        rc, out = run("--webnnc", webnnc, "--record", store, "--progress", "25", *common)
        recorded = passed(out)
        if rc or not recorded or recorded[0] != recorded[1] or recorded[1] < 20:
            sys.exit(f"record run failed (rc {rc}):\n{out}")
        if len(list(Path(store).glob("*.rc"))) != recorded[1]:
            sys.exit(f"{len(list(Path(store).glob('*.rc')))} compiles kept for {recorded[1]} cases")
        if "25/" not in out:
            sys.exit(f"no --progress line:\n{out}")
        rc, out = run("--replay", store, *common)
        if rc or passed(out) != recorded:
            sys.exit(f"replay gave {passed(out)} (rc {rc}), recording {recorded}:\n{out}")
        rc, out = run("--replay", empty, *common)
        if rc == 0 or passed(out) != (0, recorded[1]) or "no recorded compile" not in out:
            sys.exit(f"replay from an empty folder did not fail every case (rc {rc}):\n{out}")
    print(f"record/replay: {recorded[0]}/{recorded[1]} cases alike; an empty store fails all")


if __name__ == "__main__":
    main()
