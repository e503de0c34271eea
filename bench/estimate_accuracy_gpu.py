#!/usr/bin/env python3
"""How well `webnnc estimate --device gpu` predicts `webnn-run --device gpu`
on this machine's Vulkan device (bench/estimate_accuracy.py --device gpu).

    /usr/bin/python3 bench/estimate_accuracy.py --device gpu [--models mlp,mobilenetv2,...]
        [--runs 10] [--profile FILE] [--json OUT] [--markdown OUT]

Calibrates first (`webnn-run calibrate --device gpu`, into the work folder)
unless --profile names a profile. Per model: a full and a weightless
artifact (static shapes: the GPU program needs them), `webnnc estimate
--device gpu --json` on the weightless one, then `webnn-run --device gpu
--bench N --warmup 2 --json` on the full one (median of N), with an empty
pipeline cache so that the first run is cold; every timing under one hold
of /tmp/webnn-bench.lock. Reported, not judged: error of the median, the
p10-p90 interval, tiers, and the cold start (estimated: pipelines without a
cache + constant upload + a run; measured: session creation + first run).

On lavapipe keep LP_NUM_THREADS small (1 or 2) and the same for calibration
and measurement: a CPU-implemented device's speed is its thread count, part
of the profile's key.

Another machine's GPU, measured there (nothing is run here):

    /usr/bin/python3 bench/estimate_accuracy_gpu.py --profile gpu_profile.json \
        --measured gpu_check.log --artifacts DIR

estimates DIR/NAME.wnn with that machine's profile for every line
"NAME: cpu X ms; gpu Y ms" of `bench/gpu_check.sh`'s log and reports the
same table against Y (webnn-run --device gpu's median there).
"""
import argparse
import fcntl
import json
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)
sys.path.insert(0, BENCH)
import run as benchrun  # noqa: E402

LOCK_PATH = "/tmp/webnn-bench.lock"
TIERS = ["excellent", "good", "fair", "moderate", "slow", "very-slow", "poor"]
BOUNDS = [16, 100, 1000, 10000, 30000, 60000, float("inf")]
MODELS = ["mlp", "tiny_cnn", "squeezenet", "mobilenetv2", "ppocr_det", "ppocr_rec", "llama_tiny_prefill",
          "llama_tiny_decode"]
NPM = os.path.join(BENCH, ".models", "npm")


def tier_of(ms):
    for name, bound in zip(TIERS, BOUNDS):
        if ms < bound:
            return name
    return "poor"


def run(cmd, env, timeout=1800):
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)
    if p.returncode != 0:
        raise RuntimeError("%s failed (%d): %s" % (" ".join(cmd), p.returncode, p.stderr.strip()[-600:]))
    return p.stdout


def prepare(name, work, tools, cache_dir, env):
    """(full artifact, weightless artifact, [(input, .npy)]) or None when absent."""
    d = os.path.join(work, name)
    os.makedirs(d, exist_ok=True)
    full, light = os.path.join(d, "model.wnn"), os.path.join(d, "model_wl.wnn")
    flags, source, bindings = [], None, []
    if name == "mlp":
        source = os.path.join(ROOT, "examples", "mlp", "mlp.webnn")
        bindings = [("x", os.path.join(ROOT, "examples", "mlp", "input.npy"))]
    elif name.startswith("ppocr_"):
        kind = name.split("_")[1]
        source = os.path.join(NPM, "ch_PP-OCRv4_%s_infer.onnx" % kind)
        if not os.path.exists(source):
            return None
        shape = (1, 3, 128, 128) if kind == "det" else (1, 3, 48, 160)
        flags = ["--shape", "x=" + "x".join(map(str, shape))]
        x = os.path.join(d, "x.npy")
        np.save(x, np.random.default_rng(0).uniform(0, 1, shape).astype(np.float32))
        bindings = [("x", x)]
    elif name.startswith("llama_tiny_"):
        source = os.path.join(work, "llama_tiny.onnx")
        if not os.path.exists(source):
            run([sys.executable, os.path.join(ROOT, "test", "llm", "make_llama.py"), source, "--size", "tiny",
                 "--accuracy-level", "0"], env)
        past, seq = (3, 5) if name.endswith("prefill") else (8, 1)
        flags = ["--shape", "batch_size:1", "--shape", "sequence_length:%d" % seq, "--shape",
                 "past_sequence_length:%d" % past, "--shape", "total_sequence_length:%d" % (past + seq)]
        rng = np.random.default_rng(0)
        feeds = {"input_ids": rng.integers(0, 256, (1, seq)).astype(np.int64),
                 "attention_mask": np.ones((1, past + seq), np.int64)}
        for i in range(2):
            for kv in ("key", "value"):
                feeds["past_key_values.%d.%s" % (i, kv)] = rng.standard_normal((1, 2, past, 16)).astype(np.float32)
        for k, v in feeds.items():
            f = os.path.join(d, k + ".npy")
            np.save(f, v)
            bindings.append((k, f))
    else:
        source = benchrun.export_model(name, cache_dir)
        os.makedirs(os.path.join(d, "inputs"), exist_ok=True)
        bindings = benchrun.write_inputs(source, os.path.join(d, "inputs"))
    run([tools["webnnc"], "compile", source, "-o", full] + flags, env)
    run([tools["webnnc"], "compile", source, "-o", light, "--weightless"] + flags, env)
    return full, light, bindings


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--device", default="gpu")
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--cache-dir", default=os.path.join(BENCH, ".models"))
    ap.add_argument("--build-dir")
    ap.add_argument("--profile", help="GPU profile (default: calibrate into the work folder first)")
    ap.add_argument("--deadline", type=float, default=30, help="calibration deadline, seconds")
    ap.add_argument("--measured", help="bench/gpu_check.sh's log of another machine (needs --profile, --artifacts)")
    ap.add_argument("--artifacts", help="with --measured: the folder of its NAME.wnn artifacts")
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--markdown", help="write the table here")
    args = ap.parse_args(argv)
    tools = {t: os.path.abspath(benchrun.find_tool(t, args.build_dir)) for t in ("webnnc", "webnn-run")}
    if args.measured:
        if not args.profile or not args.artifacts:
            ap.error("--measured needs --profile and --artifacts")
        return report(args, measured_elsewhere(args, tools), None, [None, None], "")
    work = tempfile.mkdtemp(prefix="webnn-gpu-accuracy-")
    env = dict(os.environ, WEBNN_VULKAN_CACHE_DIR="none")
    env.setdefault("XDG_RUNTIME_DIR", "/tmp")
    prepared = {}
    for m in args.models.split(","):
        try:
            p = prepare(m, work, tools, args.cache_dir, env)
        except RuntimeError as e:
            print("%s: not prepared: %s" % (m, e), file=sys.stderr)
            continue
        if p is None:
            print("%s: model files absent, skipped" % m, file=sys.stderr)
            continue
        prepared[m] = p

    lock = open(LOCK_PATH, "a")
    fcntl.flock(lock, fcntl.LOCK_EX)
    load = [os.getloadavg()[0]]
    profile = args.profile
    calibration = None
    if not profile:
        profile = os.path.join(work, "gpu_profile.json")
        t0 = time.time()
        out = run([tools["webnn-run"], "calibrate", "--device", args.device, "--deadline", str(args.deadline),
                   "-o", profile, "--json", "-q"], env)
        calibration = dict(json.loads(out), wall_s=time.time() - t0)
        print("calibrated %s: %d points in %.1f s" % (calibration["device"], calibration["grid_points"],
                                                    calibration["wall_s"]), file=sys.stderr)
    cases = []
    for m, (full, light, bindings) in prepared.items():
        e = json.loads(run([tools["webnnc"], "estimate", light, "--device", args.device, "--profile", profile,
                            "--json"], env))
        cmd = [tools["webnn-run"], full, "--device", args.device, "--bench", str(args.runs), "--warmup", "2", "--json"]
        for name, path in bindings:
            cmd += ["--input", "%s=%s" % (name, path)]
        r = json.loads(run(cmd, env))
        measured = r["latency_ms"]["median"]
        lat = e["latency_ms"]
        case = {"model": m, "measured_ms": measured, "predicted_ms": lat["median"], "p10_ms": lat["p10"],
                "p90_ms": lat["p90"], "error": lat["median"] / measured - 1,
                "in_interval": lat["p10"] <= measured <= lat["p90"],
                "tier_measured": tier_of(measured), "tier_predicted": e["tier"],
                "cold_predicted_ms": e["cold_ms"], "cold_measured_ms": r["session_ms"] + r["first_run_ms"],
                "pipelines": r["gpu"]["pipelines_created"], "dispatches": r["gpu"]["dispatches"],
                "dispatches_predicted": predicted_dispatches(e["notes"]),
                "notes": e["notes"], "device": r["device"]}
        cases.append(case)
        print("%-20s measured %9.3f ms  predicted %9.3f ms [%8.3f, %8.3f]  %+5.0f%%  cold %8.1f / %8.1f ms" %
              (m, measured, lat["median"], lat["p10"], lat["p90"], 100 * case["error"], case["cold_measured_ms"],
               case["cold_predicted_ms"]), file=sys.stderr)
    load.append(os.getloadavg()[0])
    fcntl.flock(lock, fcntl.LOCK_UN)
    return report(args, cases, calibration, load, os.environ.get("LP_NUM_THREADS"))


def predicted_dispatches(notes):
    """The dispatch count the estimate planned (its notes say it)."""
    for n in notes:
        m = re.match(r"(\d+) dispatches of \d+ program nodes", n)
        if m:
            return int(m.group(1))
    return None


def measured_elsewhere(args, tools):
    """Cases from a gpu_check.sh log: its medians against estimates here."""
    line = re.compile(r"^(\S+): cpu [0-9.]+ ms; gpu ([0-9.]+) ms")
    cases = []
    with open(args.measured) as f:
        for text in f:
            m = line.match(text)
            if not m:
                continue
            name, measured = m.group(1), float(m.group(2))
            art = os.path.join(args.artifacts, name + ".wnn")
            if not os.path.exists(art):
                print("%s: %s absent, skipped" % (name, art), file=sys.stderr)
                continue
            e = json.loads(run([tools["webnnc"], "estimate", art, "--device", "gpu", "--profile", args.profile,
                                "--json"], os.environ))
            lat = e["latency_ms"]
            cases.append({"model": name, "measured_ms": measured, "predicted_ms": lat["median"], "p10_ms": lat["p10"],
                          "p90_ms": lat["p90"], "error": lat["median"] / measured - 1,
                          "in_interval": lat["p10"] <= measured <= lat["p90"], "tier_measured": tier_of(measured),
                          "tier_predicted": e["tier"], "cold_predicted_ms": e["cold_ms"], "cold_measured_ms": None,
                          "pipelines": None, "dispatches": None, "dispatches_predicted": predicted_dispatches(e["notes"]),
                          "notes": e["notes"], "device": e.get("gpu")})
            print("%-24s measured %9.3f ms  predicted %9.3f ms [%8.3f, %8.3f]  %+5.0f%%" %
                  (name, measured, lat["median"], lat["p10"], lat["p90"], 100 * cases[-1]["error"]), file=sys.stderr)
    return cases


def report(args, cases, calibration, load, lp_threads):
    errors = sorted(abs(c["error"]) for c in cases)
    summary = {"cases": len(cases),
               "within_10": sum(e <= 0.10 for e in errors) / max(1, len(errors)),
               "within_20": sum(e <= 0.20 for e in errors) / max(1, len(errors)),
               "within_2x": sum(1 / 2 <= 1 + c["error"] <= 2 for c in cases) / max(1, len(cases)),
               "median_abs_error": errors[len(errors) // 2] if errors else None,
               "in_p10_p90": sum(c["in_interval"] for c in cases) / max(1, len(cases)),
               "tier_agreement": sum(c["tier_measured"] == c["tier_predicted"] for c in cases) / max(1, len(cases)),
               "load": load, "lp_num_threads": lp_threads}
    lines = ["| model | measured ms (median of %s) | predicted ms [p10, p90] | error | tier measured / predicted "
             "| cold measured / predicted ms | dispatches measured / planned |" %
             ("its log's runs" if args.measured else args.runs),
             "|---|---|---|---|---|---|---|"]
    for c in cases:
        if c["cold_measured_ms"] is None:  # --measured: only the steady median was measured there
            lines.append("| %s | %.3f | %.3f [%.3f, %.3f] | %+.0f%% | %s / %s | - / %.0f | - / %s |" %
                         (c["model"], c["measured_ms"], c["predicted_ms"], c["p10_ms"], c["p90_ms"],
                          100 * c["error"], c["tier_measured"], c["tier_predicted"], c["cold_predicted_ms"],
                          c["dispatches_predicted"]))
            continue
        lines.append("| %s | %.3f | %.3f [%.3f, %.3f] | %+.0f%% | %s / %s | %.0f / %.0f | %d / %s |" %
                     (c["model"], c["measured_ms"], c["predicted_ms"], c["p10_ms"], c["p90_ms"], 100 * c["error"],
                      c["tier_measured"], c["tier_predicted"], c["cold_measured_ms"], c["cold_predicted_ms"],
                      c["dispatches"], c["dispatches_predicted"]))
    pct = lambda v: "%.0f%%" % (100 * v)
    lines.append("")
    where = ("measured elsewhere: %s" % args.measured if load[0] is None else
             "load %.2f -> %.2f, LP_NUM_THREADS=%s" % (load[0], load[1], summary["lp_num_threads"]))
    lines.append("%d cases: %s within 10%%, %s within 20%%, %s within 2x, median |error| %s, measured inside "
                 "[p10, p90] %s, tiers %s (%s)" %
                 (len(cases), pct(summary["within_10"]), pct(summary["within_20"]), pct(summary["within_2x"]),
                  pct(summary["median_abs_error"] or 0), pct(summary["in_p10_p90"]), pct(summary["tier_agreement"]),
                  where))
    table = "\n".join(lines)
    print(table)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(table + "\n")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": benchrun.machine_summary(), "calibration": calibration, "cases": cases,
                       "summary": summary}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
