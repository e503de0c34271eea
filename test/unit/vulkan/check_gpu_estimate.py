#!/usr/bin/env python3
"""`webnn-run calibrate --device gpu` and `webnnc estimate --device gpu` on
the machine's Vulkan device (lavapipe here), validation on: a short
calibration writes a usable GPU profile into the cache directory; the MLP
example's estimate is sane (positive, p10 <= median <= p90, the tier of the
median, cold >= steady, device memory) and within a loose factor of the
measured `webnn-run --device gpu --bench` median; --requirement/--tier-only
agree with the p90; the errors (no profile yet, a CPU profile, a broken
profile, a bad device name) are one message and exit 1 or 2."""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

TIERS = ["excellent", "good", "fair", "moderate", "slow", "very-slow", "poor"]
BOUNDS = [16, 100, 1000, 10000, 30000, 60000, float("inf")]
# Loose: lavapipe on a shared machine; the accuracy is reported by
# bench/estimate_accuracy.py --device gpu, not judged here.
FACTOR = 4.0


def tier_of(ms):
    for name, bound in zip(TIERS, BOUNDS):
        if ms < bound:
            return name
    return "poor"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--examples", required=True)
    ap.add_argument("--deadline", type=float, default=12)
    args = ap.parse_args()
    webnnc = os.path.join(args.bin, "webnnc")
    webnn_run = os.path.join(args.bin, "webnn-run")
    failures = []

    def check(cond, what):
        if not cond:
            failures.append(what)
            print("FAIL:", what)

    tmp = tempfile.mkdtemp(prefix="webnn-gpu-estimate-")
    env = dict(os.environ, XDG_CACHE_HOME=os.path.join(tmp, "cache"), WEBNN_VULKAN_VALIDATION="1",
               WEBNN_VULKAN_CACHE_DIR=os.path.join(tmp, "pipelines"))
    env.setdefault("XDG_RUNTIME_DIR", tmp)
    env.setdefault("LP_NUM_THREADS", "1")

    def run(cmd, timeout=60):
        return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)

    mlp = os.path.join(args.examples, "mlp")
    full, weightless = os.path.join(tmp, "mlp.wnn"), os.path.join(tmp, "mlp_wl.wnn")
    for cmd in ([webnnc, "compile", os.path.join(mlp, "mlp.webnn"), "-o", full],
                [webnnc, "compile", os.path.join(mlp, "mlp.webnn"), "-o", weightless, "--weightless"]):
        r = run(cmd)
        if r.returncode != 0:
            print("compile failed:", r.stderr)
            return 1

    # No profile yet: one clear error naming the command to run.
    r = run([webnnc, "estimate", weightless, "--device", "gpu"])
    check(r.returncode == 1 and "webnn-run calibrate --device gpu" in r.stderr,
          "estimate before calibrate: exit %d, %r" % (r.returncode, r.stderr))

    t0 = time.time()
    r = run([webnn_run, "calibrate", "--device", "gpu", "--deadline", str(args.deadline), "--json", "-q"])
    took = time.time() - t0
    check(r.returncode == 0, "calibrate --device gpu exit %d: %s" % (r.returncode, r.stderr[-2000:]))
    if r.returncode != 0:
        print("\n".join(failures))
        return 1
    info = json.loads(r.stdout)
    print("calibrated %s in %.1f s: %d grid points, dispatch %.1f us, submit %.1f us, %.2f GB/s, %.2f GFLOP/s"
          % (info["device"], took, info["grid_points"], info["dispatch_us"], info["submit_us"],
             info["bandwidth_gbs"], info["peak_gflops"]))
    check(took < args.deadline + 10, "calibrate --deadline %g took %.1f s" % (args.deadline, took))
    check(info["profile"].startswith(os.path.join(tmp, "cache", "webnn", "gpu-")), "profile path: %s" % info["profile"])
    check(info["grid_points"] >= 3, "grid points: %s" % info["grid_points"])
    # The bandwidth and peak probes run first, grown until the device is full
    # or a cap: each says how far it went and why it stopped.
    probes = {p["name"]: p for p in info.get("probes", [])}
    for name in ("copy", "matmul square"):
        p = probes.get(name)
        check(p is not None and p["steps"] >= 1 and p["stop"] not in ("running", "failed") and p["best_params"],
              "probe %s: %s" % (name, p))
    check(info["dispatch_us"] > 0 and info["submit_us"] > 0 and info["peak_gflops"] > 0, "overheads: %s" % info)

    r = run([webnnc, "estimate", weightless, "--device", "gpu", "--json", "--detail"])
    check(r.returncode == 0, "estimate --device gpu exit %d: %s" % (r.returncode, r.stderr))
    if r.returncode != 0:
        print("\n".join(failures))
        return 1
    e = json.loads(r.stdout)
    lat = e["latency_ms"]
    print("estimate: median %.4f ms [%.4f, %.4f], cold %.2f ms, %s, %d bytes" %
          (lat["median"], lat["p10"], lat["p90"], e["cold_ms"], e["tier"], e["peak_bytes"]))
    check(0 < lat["p10"] <= lat["median"] <= lat["p90"], "p10 <= median <= p90: %s" % lat)
    check(e["tier"] == tier_of(lat["median"]), "tier %s of median %s" % (e["tier"], lat["median"]))
    check(e["cold_ms"] > lat["median"], "cold %s > steady %s" % (e["cold_ms"], lat["median"]))
    check(e["peak_bytes"] >= 9728, "peak bytes hold the 9728 bytes of weights: %s" % e["peak_bytes"])
    check(e.get("device") == "gpu" and e.get("gpu"), "device named: %s" % {k: e.get(k) for k in ("device", "gpu")})
    nodes = e.get("nodes", [])
    check(len(nodes) == 3 and all(n["ms"] > 0 for n in nodes), "3 priced nodes: %s" % nodes)
    check(abs(sum(n["ms"] for n in nodes) - lat["median"]) < lat["median"],
          "nodes sum within the median (run overhead apart): %s" % nodes)

    r = run([webnnc, "estimate", weightless, "--device", "gpu", "--requirement", "excellent", "--tier-only"])
    want = "meets" if tier_of(lat["p90"]) == "excellent" else "does-not-meet"
    check(r.returncode == 0 and r.stdout.strip() == want, "--requirement excellent: %r, want %s" % (r.stdout, want))

    # The measured run: the same artifact with its weights.
    r = run([webnn_run, full, "--device", "gpu", "--input", "x=" + os.path.join(mlp, "input.npy"),
             "--bench", "30", "--warmup", "3", "--json"])
    check(r.returncode == 0, "webnn-run --device gpu exit %d: %s" % (r.returncode, r.stderr))
    if r.returncode == 0:
        measured = json.loads(r.stdout)["latency_ms"]["median"]
        ratio = lat["median"] / measured
        print("measured median %.4f ms: predicted / measured = %.2f" % (measured, ratio))
        check(1 / FACTOR <= ratio <= FACTOR, "estimate %.4f ms vs measured %.4f ms: off by more than %gx"
              % (lat["median"], measured, FACTOR))

    # Errors: a bad device name, a device that is not there, a CPU profile,
    # a broken GPU profile.
    r = run([webnnc, "estimate", weightless, "--device", "tpu"])
    check(r.returncode == 2 and "--device 'tpu'" in r.stderr, "--device tpu: exit %d %r" % (r.returncode, r.stderr))
    r = run([webnnc, "estimate", weightless, "--device", "gpu:99"])
    check(r.returncode == 1 and "gpu:99" in r.stderr, "--device gpu:99: exit %d %r" % (r.returncode, r.stderr))
    cpu_profile = os.path.join(tmp, "cpu.json")
    with open(cpu_profile, "w") as f:
        json.dump({"format": 2, "cpu_model": "x"}, f)
    r = run([webnnc, "estimate", weightless, "--device", "gpu", "--profile", cpu_profile])
    check(r.returncode == 1 and "not a GPU profile" in r.stderr, "CPU profile for --device gpu: %r" % r.stderr)
    broken = os.path.join(tmp, "broken.json")
    with open(info["profile"]) as f:
        p = json.load(f)
    p["peak_gflops"] = -1
    with open(broken, "w") as f:
        json.dump(p, f)
    r = run([webnnc, "estimate", weightless, "--device", "gpu", "--profile", broken])
    check(r.returncode == 1 and broken in r.stderr and "peak_gflops" in r.stderr, "broken profile: %r" % r.stderr)
    r = run([webnn_run, "calibrate", "--device", "gpu:x"])
    check(r.returncode == 2, "calibrate --device gpu:x: exit %d" % r.returncode)

    if failures:
        print("%d failure(s)" % len(failures))
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
