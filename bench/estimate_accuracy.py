#!/usr/bin/env python3
"""How well `webnnc estimate` predicts webnn-run's latency on this machine.

    /usr/bin/python3 bench/estimate_accuracy.py [--models a,b] [--threads 1,2] [--blocks 8] [--block-runs 4]
                                                [--cache-dir DIR] [--profile FILE] [--json OUT] [--no-cpu-time]

For each held-out case (never one of FIT_MODELS, on which the model's
constants were looked at): the benchmark suite's models (HELD_OUT,
bench/models/export_models.py, exported as bench/run.py does), the real npm
models (REAL_MODELS, when bench/fetch_real_models.sh has put them in
bench/.models/npm) and the int4 Llama's prefills and decode steps
(LLM_CASES, one artifact with dynamic dimensions, `--shape` per input), it
compiles a full artifact and a weightless one, estimates
the weightless one (`webnnc estimate --json`, default device profile or
--profile), then measures the full one as a user would see it over time: in
--blocks passes over all cases, each case once per pass as `webnn-run --bench
--block-runs --warmup W` (8 blocks of 4 runs by default; W warm-up runs, at
least 3 and as many as take 20 ms by the estimate: warmup_runs), the median of its
blocks' medians (>= 20 runs, none dropped), with each block's median and
their spread reported; every timing under one hold of
/tmp/webnn-bench.lock (the lock `flock /tmp/webnn-bench.lock` takes: no
other benchmark overlaps). Per case (model, threads), per group
(suite, npm, llm) and in total it reports: the error of the predicted median, the share within
+-10% and +-20%, the median absolute percentage error, tier agreement, and
false "meets" answers: `--requirement` asked for the measured tier and the
next faster one, counted wrong when it says "meets" and the measured median
is not in that tier. At one thread it also reports the CPU time per run
(two runs of different lengths, differenced; --no-cpu-time leaves them out,
for a run under `quiet` where wall time is what the model takes alone): on
a machine other work shares, wall time counts the time slices that work
takes.

Why blocks, and why the median of their medians: this host's speed moves
by minutes, the same way for every case (a quiet held-out run's 30-second
windows ran 0.93-1.23x the cases' own medians; within a block the runs
after 3 warm-ups show no trend). A block is one moment of the host; 8
short blocks sample each case at 8 moments of the run instead of 4, and the
median of their medians lets one slow moment move a case's figure by one
block of 8, not by its share of the pooled runs. The two halves (even and
odd passes) are measured by the same rule; the per-pass speed factors (the
median over cases of block median / case median) are reported beside them.

The calibration grid (runtime/estimate/Calibrate.cpp: synthetic single
kernels) is the only thing fitted; no model's timings enter the profile
(no `calibrate --add`) in this test.
"""
import argparse
import json
import fcntl
import os
import resource
import subprocess
import sys
import time

BENCH = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, BENCH)
import run as benchrun  # noqa: E402  (export, tool lookup, inputs)

# Looked at while choosing the cost model's families and fallbacks (and
# efficientnet_b0, whose held-out miss led to the per-op transcendental
# families; audio_encoder, compared node by node when the conv families were
# split into Winograd / im2col / direct): never counted as held out.
# The synthetic blocks of bench/models/estimate_synthetic.py (an inception
# block, dilated convolutions, resampling) were built to find what the model
# priced wrong in those kernel families: fitting models too.
SYNTHETIC = ["inception_block", "dilated_convs", "resample_head", "strided_block", "tiny_audio", "upsample_head",
             "se_grouped_block"]
# A decoder of make_llama.py's layout at sizes of its own (not the held-out
# Llama's): 6 layers, hidden 1024, 16 heads over 4 KV heads, FFN 2816, vocab
# 16000, int4 at accuracy level 4; its working set (~70 MB) exceeds the L3,
# so it checks the pricing of weights and KV cache streamed from DRAM.
FIT_DECODER = dict(layers=6, hidden=1024, heads=16, kv_heads=4, head=64, ffn=2816, vocab=16000, max_pos=2048)
FIT_DECODER_CASES = ["decoder_fit_prefill_16", "decoder_fit_prefill_32", "decoder_fit_decode_at_128", "decoder_fit_decode_at_768"]
FIT_MODELS = (["tiny_cnn", "mobilenetv2", "minilm", "efficientnet_b0", "audio_encoder"] + SYNTHETIC +
              FIT_DECODER_CASES)
HELD_OUT = ["resnet50", "squeezenet", "shufflenetv2", "mnasnet", "regnety_400mf",
            "mobilenetv3_large", "googlenet", "densenet121", "convnext_tiny", "bert_base",
            "transformer", "resnext50", "deeplabv3_mbv3", "swin_t", "vit_b16"]
# The real npm models (bench/fetch_real_models.sh; counted only when their
# files are present: nothing is downloaded here), with the shapes and frozen
# inputs test/onnx/check_real_models.py compiles them with.
REAL_MODELS = ["ppocr-det", "ppocr-rec", "silero-vad", "silero-vad-v5", "melspectrogram"]
# The int4 Llama of bench/llm.py (test/llm/make_llama.py, 100M, accuracy
# level 4), one artifact with dynamic sequence dimensions: a prefill of N
# tokens (empty past) and a decode step after L tokens.
LLM_PREFILL = [16, 64, 128]
LLM_DECODE_AT = [64, 256, 1024]
LLM_CASES = ["llama_prefill_%d" % n for n in LLM_PREFILL] + ["llama_decode_at_%d" % n for n in LLM_DECODE_AT]
LLM_MAX_SEQ, LLM_MAX_PAST = 256, 1024
LOCK_PATH = "/tmp/webnn-bench.lock"  # what `flock /tmp/webnn-bench.lock` takes
TIERS = ["excellent", "good", "fair", "moderate", "slow", "very-slow", "poor"]
BOUNDS = [16, 100, 1000, 10000, 30000, 60000, float("inf")]


def tier_of(ms):
    for name, bound in zip(TIERS, BOUNDS):
        if ms < bound:
            return name
    return "poor"


def run(cmd, timeout=1800):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if p.returncode != 0:
        raise RuntimeError("%s failed (%d): %s" % (" ".join(cmd), p.returncode, p.stderr.strip()[-400:]))
    return p.stdout


def estimate(tools, wnn, threads, profile, requirement=None, shapes=()):
    cmd = [tools["webnnc"], "estimate", wnn, "--threads", str(threads), "--json"] + list(shapes)
    if profile:
        cmd += ["--profile", profile]
    if requirement:
        cmd += ["--requirement", requirement]
    return json.loads(run(cmd))


def group_of(name):
    if name in REAL_MODELS:
        return "npm"
    if name in LLM_CASES:
        return "llm"
    if name in FIT_DECODER_CASES:
        return "fit decoder"
    return "suite"


def prepare_suite(m, cache_dir, work, tools, stale):
    """An exported benchmark or synthetic model: (full, light, bindings, estimate args)."""
    if m in SYNTHETIC:
        sys.path.insert(0, os.path.join(BENCH, "models"))
        import estimate_synthetic
        onnx_path = estimate_synthetic.export(m, cache_dir)
    else:
        onnx_path = benchrun.export_model(m, cache_dir)
    full = os.path.join(work, m + ".wnn")
    light = os.path.join(work, m + ".graph.wnn")
    if stale(full):
        run([tools["webnnc"], "compile", onnx_path, "-o", full])
    if stale(light):
        run([tools["webnnc"], "compile", onnx_path, "-o", light, "--weightless", "--weights-out",
             os.path.join(work, m + ".weights")])
    in_dir = os.path.join(work, m + "_inputs")
    os.makedirs(in_dir, exist_ok=True)
    return [(m, full, light, benchrun.write_inputs(onnx_path, in_dir), [])]


def prepare_real(m, work, tools, stale):
    """A real npm model, compiled as test/onnx/check_real_models.py does; [] when absent."""
    import numpy as np
    from onnx import numpy_helper
    sys.path.insert(0, os.path.join(os.path.dirname(BENCH), "test", "onnx"))
    import check_real_models as real
    spec = real.MODELS[m]
    src = os.path.join(os.environ.get("WEBNN_REAL_MODELS_DIR", os.path.join(BENCH, ".models", "npm")), spec["file"])
    if not os.path.exists(src):
        print("%s: %s absent (bench/fetch_real_models.sh): not counted" % (m, src), file=sys.stderr)
        return []
    d = os.path.join(work, m + "_inputs")
    os.makedirs(d, exist_ok=True)
    inputs = spec["inputs"](np.random.default_rng(0))
    flags = []
    for sh in spec["shape"]:
        flags += ["--shape", sh]
    for k in spec["frozen"]:
        pb = os.path.join(d, k + ".pb")
        with open(pb, "wb") as f:
            f.write(numpy_helper.from_array(inputs[k], k).SerializeToString())
        flags += ["--const-input", "%s=%s" % (k, pb)]
    bindings = []
    for k, v in inputs.items():
        if k not in spec["frozen"]:
            np.save(os.path.join(d, k + ".npy"), v)
            bindings.append((k, os.path.join(d, k + ".npy")))
    full = os.path.join(work, m + ".wnn")
    light = os.path.join(work, m + ".graph.wnn")
    if stale(full):
        run([tools["webnnc"], "compile", src, "-o", full] + flags)
    if stale(light):
        run([tools["webnnc"], "compile", src, "-o", light, "--weightless", "--weights-out",
             os.path.join(work, m + ".weights")] + flags)
    return [(m, full, light, bindings, [])]


def prepare_llm(names, cache_dir, work, tools, stale, fit=False):
    """The int4 Llama's prefill and decode cases among `names`, one artifact for all
    (fit: the fitting decoder's, FIT_DECODER)."""
    import numpy as np
    sys.path.insert(0, os.path.join(os.path.dirname(BENCH), "test", "llm"))
    import make_llama
    cfg = FIT_DECODER if fit else make_llama.SIZES["100m"]
    stem = "decoder_fit" if fit else "llama"
    onnx_path = os.path.join(cache_dir, "decoder_fit_acc4.onnx" if fit else "llama_100m_acc4.onnx")
    if not os.path.exists(onnx_path):
        import onnx
        onnx.save(make_llama.build(cfg, 4, 32, 0), onnx_path)
    full = os.path.join(work, stem + ".wnn")
    light = os.path.join(work, stem + ".graph.wnn")
    dims = ["--shape", "batch_size:1", "--dynamic-dim", "sequence_length=%d" % LLM_MAX_SEQ,
            "--dynamic-dim", "past_sequence_length=%d" % LLM_MAX_PAST,
            "--dynamic-dim", "total_sequence_length=%d" % (LLM_MAX_SEQ + LLM_MAX_PAST)]
    if stale(full):
        run([tools["webnnc"], "compile", onnx_path, "-o", full] + dims)
    if stale(light):
        run([tools["webnnc"], "compile", onnx_path, "-o", light, "--weightless", "--weights-out",
             os.path.join(work, stem + ".weights")] + dims)
    out = []
    rng = np.random.default_rng(0)
    for name in names:
        prefill = "_prefill_" in name
        n = int(name.rsplit("_", 1)[1])
        seq, past = (n, 0) if prefill else (1, n)
        d = os.path.join(work, name + "_inputs")
        os.makedirs(d, exist_ok=True)
        arrays = {"input_ids": rng.integers(0, 1000, (1, seq)).astype(np.int64),
                  "attention_mask": np.ones((1, seq + past), np.int64)}
        kv = rng.standard_normal((1, cfg["kv_heads"], past, cfg["head"])).astype(np.float32)
        for layer in range(cfg["layers"]):
            for part in ("key", "value"):
                arrays["past_key_values.%d.%s" % (layer, part)] = kv
        bindings, shapes = [], []
        for k, v in arrays.items():
            path = os.path.join(d, k + ".npy")
            np.save(path, v)
            bindings.append((k, path))
            shapes += ["--shape", "%s=%s" % (k, "x".join(str(x) for x in v.shape))]
        out.append((name, full, light, bindings, shapes))
    return out


def markdown(cases, summary):
    pct = lambda v: "%.0f%%" % (100 * v)
    lines = ["| model | threads | measured ms (median of block medians) | predicted ms [p10, p90] | error | "
             "block medians ms (spread) | 1-thread CPU ms/run | error vs CPU | tier measured / predicted | "
             "false meets | load |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for c in cases:
        cpu = "-" if c["cpu_ms_per_run"] is None else "%.2f" % c["cpu_ms_per_run"]
        cpu_err = "-" if c["cpu_error_pct"] is None else "%+.0f%%" % c["cpu_error_pct"]
        spread = "%s (%.0f%%)" % (" / ".join("%.2f" % v for v in c["block_medians_ms"]), c["block_spread_pct"])
        lines.append("| %s | %d | %.2f | %.2f [%.2f, %.2f] | %+.0f%% | %s | %s | %s | %s / %s | %d of %d | %s |" % (
            c["model"], c["threads"], c["measured_ms"], c["predicted_ms"], c["p10_ms"], c["p90_ms"],
            c["error_pct"], spread, cpu, cpu_err, c["tier_measured"], c["tier_predicted"], c["false_meets"],
            c["requirements_asked"], c["loadavg"]))
    lines.append("")
    lines.append("| against | cases | within +-10% | within +-20% | > 2x off | median abs error | tier agreement |")
    lines.append("|---|---|---|---|---|---|---|")
    for t in sorted(k for k in summary if k.startswith("threads_")):
        v = summary[t]
        lines.append("| wall median, %s thread(s) | %d | %s | %s | | %.0f%% | |" % (
            t.split("_")[1], v["cases"], pct(v["within_10pct"]), pct(v["within_20pct"]), v["median_abs_pct_error"]))
    lines.append("| wall median, all | %d | %s | %s | %d | %.0f%% | %s |" % (
        summary["cases"], pct(summary["within_10pct"]), pct(summary["within_20pct"]), summary["over_2x"],
        summary["median_abs_pct_error"], pct(summary["tier_agreement"])))
    for g, v in sorted(summary.get("groups", {}).items()):
        lines.append("| wall median, %s | %d | %s | %s | %d | %.0f%% | %s |" % (
            {"suite": "benchmark suite", "npm": "real npm models", "llm": "int4 Llama"}.get(g, g), v["cases"],
            pct(v["within_10pct"]), pct(v["within_20pct"]), v["over_2x"], v["median_abs_pct_error"],
            pct(v["tier_agreement"])))
    if "one_thread_cpu_time" in summary:
        v = summary["one_thread_cpu_time"]
        lines.append("| 1-thread CPU time per run | %d | %s | %s | | %.0f%% | %s |" % (
            v["cases"], pct(v["within_10pct"]), pct(v["within_20pct"]), v["median_abs_pct_error"],
            pct(v["tier_agreement"])))
    if "split_half" in summary:
        v = summary["split_half"]
        lines.append("| the measurement itself: even blocks' median vs odd blocks' | %d | %s | %s | | %.0f%% | |" % (
            v["cases"], pct(v["within_10pct"]), pct(v["within_20pct"]), v["median_abs_pct_error"]))
    for name, v in summary.get("graph_terms", {}).items():
        lines.append("| in-graph terms %s | %d | %s | %s | %d | %.0f%% | |" % (
            name, v["cases"], pct(v["within_10pct"]), pct(v["within_20pct"]), v["over_2x"],
            v["median_abs_pct_error"]))
    if "pass_speed" in summary:
        lines.append("")
        lines.append("The host's speed per pass (the median over cases of a block's median over the case's): %s." %
                     " / ".join("%.2f" % v for v in summary["pass_speed"]))
    worst = max(cases, key=lambda c: c["block_spread_pct"])
    lines.append("")
    lines.append("Blocks: %d runs per case; the spread of a case's block medians (largest - smallest, over its "
                 "median): median %.0f%%, largest %.0f%% (%s, %d thread(s))." % (
                     min(c["runs"] for c in cases), median([c["block_spread_pct"] for c in cases]),
                     worst["block_spread_pct"], worst["model"], worst["threads"]))
    lines.append("False \"meets\": %d of %d `--requirement` answers; tiers off by more than one: %d; slowest "
                 "estimate %.1f ms." % (summary["false_meets"], summary["requirements_asked"],
                                         summary["tier_off_by_more_than_one"], summary["max_estimate_ms"]))
    return "\n".join(lines) + "\n"


CPU_RUNS = 20  # the 1-thread CPU time: runs of CPU_RUNS and 3 * CPU_RUNS, differenced
WARMUP_MS = 20  # each block's warm-up: at least this long (by the estimate), at least 3 runs


def warmup_runs(predicted_ms):
    """A block's warm-up runs: 3, or as many as take WARMUP_MS by the estimate, at most 500. A
    microsecond model is not at its steady state after 3 runs in a fresh process (the mel front end on
    the Xeon: 0.10 ms a run after 3 warm-ups, 0.064 after 300)."""
    if not predicted_ms or predicted_ms <= 0:
        return 3
    return int(max(3, min(500, -(-WARMUP_MS // predicted_ms))))


def median(values):
    v = sorted(values)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def pooled_median(blocks):
    """The median of every timed run of every block (webnn-run's own median rule)."""
    return median([x for blk in blocks for x in blk["runs"]])


def block_median(blocks):
    """The measured latency: the median of the blocks' medians, each block one moment of the host."""
    return median([median(blk["runs"]) for blk in blocks])


def split_half_pct(blocks):
    """The measurement against itself: block_median of the even-numbered blocks against the odd-numbered
    blocks' (100 * |even / odd - 1|), None with fewer than two blocks. On a host whose speed moves between
    minutes, no estimate agrees with a measured median better than two halves of that measurement agree
    with each other (each half has half the blocks, so this is a pessimistic floor)."""
    if len(blocks) < 2:
        return None
    even = block_median(blocks[0::2])
    odd = block_median(blocks[1::2])
    return 100.0 * abs(even / odd - 1)


def pass_speed(blocks_by_case):
    """Per pass, the median over cases of (the case's block median in that pass / its block_median): the
    host's speed at that pass as every case saw it (> 1: slower)."""
    ratios = {}
    for bl in blocks_by_case:
        m = block_median(bl)
        for blk in bl:
            ratios.setdefault(blk["pass"], []).append(median(blk["runs"]) / m)
    return [median(ratios[p]) for p in sorted(ratios)]


def block_schedule(keys, passes):
    """The order of the timing blocks: `passes` passes, each over every case
    once in the same order, so that two blocks of one case are always a whole
    pass apart (a reversed pass would time the last case twice in a row)."""
    return [list(keys) for _ in range(passes)]


def child_cpu(cmd):
    """The CPU time (user + system) the child `cmd` took, in seconds."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    run(cmd)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def cpu_run_commands(cmd, runs):
    """One thread's CPU time per run is the CPU time of `cmd` with 3 * runs
    and with runs runs, differenced (load, warm-up and start-up cancel), over
    2 * runs: the two commands. On a machine shared with other work this is
    what the run would take alone; wall time also counts the slices others
    take."""
    i = cmd.index("--bench")
    return cmd[:i + 1] + [str(runs)] + cmd[i + 2:], cmd[:i + 1] + [str(3 * runs)] + cmd[i + 2:]


def main(argv=None):
    # --device gpu[:N]: the Vulkan backend's estimate against webnn-run
    # --device gpu (bench/estimate_accuracy_gpu.py).
    argv = sys.argv[1:] if argv is None else list(argv)
    device = next((argv[i + 1] for i, a in enumerate(argv[:-1]) if a == "--device"), "cpu")
    if device != "cpu":
        import estimate_accuracy_gpu
        return estimate_accuracy_gpu.main(argv)
    argv = [a for i, a in enumerate(argv) if a != "--device" and (i == 0 or argv[i - 1] != "--device")]
    ap = argparse.ArgumentParser(description="webnnc estimate against measured webnn-run latency")
    ap.add_argument("--models", default=",".join(HELD_OUT + REAL_MODELS + LLM_CASES),
                    help="default: every held-out case (the suite's models, the real npm models present, "
                         "the LLM's prefill and decode cases)")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--blocks", type=int, default=8,
                    help="timing blocks per case, one per interleaved pass over all cases (default 8)")
    ap.add_argument("--block-runs", type=int, default=4,
                    help="timed runs per block, after >= 3 warm-up runs (>= 20 ms by the estimate; default 4)")
    ap.add_argument("--no-cpu-time", action="store_true",
                    help="leave out the 1-thread CPU time per run (its two longer runs per case): for a run "
                         "under `quiet`, where the wall time is the model's alone")
    ap.add_argument("--cache-dir", default=os.path.join(BENCH, ".models"))
    ap.add_argument("--build-dir")
    ap.add_argument("--profile", help="device profile (default: webnnc estimate's own lookup)")
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--markdown", help="write the per-case table and totals here (docs/ESTIMATE.md's form)")
    ap.add_argument("--without-graph-terms", action="store_true",
                    help="also estimate every case with --profile's in-graph terms left out (graph_node_us 0, "
                         "graph_cold_factor 1: calibration's chains) and report both against the same timings")
    ap.add_argument("--no-lock", action="store_true",
                    help="time without taking /tmp/webnn-bench.lock: only when every other process is paused "
                         "(a paused holder of the lock would stall the run)")
    ap.add_argument("--prepare-only", action="store_true",
                    help="export, compile and write inputs, then stop (no timing): a later run starts timing at once")
    ap.add_argument("--fit", action="store_true",
                    help="allow FIT_MODELS (for looking at the cost model; not a held-out result)")
    args = ap.parse_args(argv)
    if args.blocks < 1 or args.block_runs < 1 or args.blocks * args.block_runs < 20:
        ap.error("--blocks x --block-runs must be >= 20 runs (each >= 1)")
    models = [m for m in args.models.split(",") if m]
    for m in models:
        if m in FIT_MODELS and not args.fit:
            ap.error("%s was used to fit the model; it cannot be held out (--fit runs the fitting set)" % m)
    threads = [int(t) for t in args.threads.split(",")]
    tools = {t: os.path.abspath(benchrun.find_tool(t, args.build_dir)) for t in ("webnnc", "webnn-run")}
    work = os.path.join(args.cache_dir, "estimate")
    os.makedirs(work, exist_ok=True)
    # Phase 1, no lock: export, compile (full and weightless), inputs.
    # Artifacts older than the compiler are compiled again: the plan
    # estimated and the plan timed are the current compiler's.
    def stale(path):
        return not os.path.exists(path) or os.path.getmtime(path) < os.path.getmtime(tools["webnnc"])
    prepared = []
    llm = [m for m in models if m in LLM_CASES]
    fit_llm = [m for m in models if m in FIT_DECODER_CASES]
    for m in ([m for m in models if m not in LLM_CASES and m not in FIT_DECODER_CASES] +
              (["llama"] if llm else []) + (["decoder_fit"] if fit_llm else [])):
        try:
            if m == "llama":
                prepared += prepare_llm(llm, args.cache_dir, work, tools, stale)
            elif m == "decoder_fit":
                prepared += prepare_llm(fit_llm, args.cache_dir, work, tools, stale, fit=True)
            elif m in REAL_MODELS:
                prepared += prepare_real(m, work, tools, stale)
            else:
                prepared += prepare_suite(m, args.cache_dir, work, tools, stale)
        except RuntimeError as e:
            print("%s: cannot compile: %s" % (m, e), file=sys.stderr)
        except Exception as e:  # an exporter torch lacks: reported, not counted
            print("%s: cannot export: %s" % (m, str(e).splitlines()[-1][:200]), file=sys.stderr)
    if args.prepare_only:
        print("prepared %d case(s) in %s" % (len(prepared), work))
        return 0
    # Phase 2: every estimate first (nothing runs beside them), then the
    # timings, all under one hold of the benchmark lock, so that no other
    # benchmark overlaps and the run is not queued behind each one.
    keys = [(p, t) for p in prepared for t in threads]
    estimates = {}
    for (m, full, light, bindings, shapes), t in keys:
        t0 = time.time()
        est = estimate(tools, light, t, args.profile, shapes=shapes)
        estimates[(m, t)] = (est, time.time() - t0)
    # The same profile without the in-graph terms, for an A/B on one set of timings.
    without = {}
    if args.without_graph_terms:
        if not args.profile:
            ap.error("--without-graph-terms needs --profile")
        with open(args.profile) as f:
            plain = json.load(f)
        for tp in plain["threads"]:
            tp["graph_node_us"] = 0.0
            tp["graph_cold_factor"] = 1.0
        plain_path = os.path.join(work, "profile-without-graph-terms.json")
        with open(plain_path, "w") as f:
            json.dump(plain, f)
        for (m, full, light, bindings, shapes), t in keys:
            without[(m, t)] = estimate(tools, light, t, plain_path, shapes=shapes)["latency_ms"]["median"]
    lock = None
    if not args.no_lock:
        lock = open(LOCK_PATH, "a")
        print("waiting for %s ..." % LOCK_PATH, flush=True)
        fcntl.flock(lock, fcntl.LOCK_EX)
    # Each case is timed in args.blocks blocks of args.block_runs runs (each
    # block its own webnn-run process with its warm-up), in interleaved passes
    # over every case: a burst in which the second vCPU gives nothing (tens of
    # seconds here) lands on one block of a case, not on all of its runs. The
    # measured latency is the median of every run of every block, none dropped.
    # At one thread the CPU time per run's two longer runs go into the
    # second and third passes, which pulls a case's blocks further apart.
    blocks = {k: [] for k in estimates}
    cpu_seconds = {}
    started = time.time()
    for b, order in enumerate(block_schedule([k for k in estimates], args.blocks)):
        for m, t in order:
            full, bindings = next((p[1], p[3]) for p in prepared if p[0] == m)
            warmup = warmup_runs(estimates[(m, t)][0]["latency_ms"]["median"])
            cmd = benchrun.webnn_run_cmd(tools["webnn-run"], full, bindings, t, args.block_runs, warmup)
            with open("/proc/loadavg") as f:
                load = float(f.read().split()[0])
            runs = json.loads(run(cmd))["latency_ms"]["runs"]
            blocks[(m, t)].append({"pass": b, "start_s": time.time() - started, "load": load, "runs": runs})
            if t == 1 and not args.no_cpu_time:
                short, longer = cpu_run_commands(
                    benchrun.webnn_run_cmd(tools["webnn-run"], full, bindings, t, CPU_RUNS, warmup), CPU_RUNS)
                if b == min(1, args.blocks - 1):
                    cpu_seconds[(m, "short")] = child_cpu(short)
                if b == min(2, args.blocks - 1):
                    cpu_seconds[(m, "long")] = child_cpu(longer)
        print("pass %d of %d done at %.0f s" % (b + 1, args.blocks, time.time() - started), flush=True)
    # The raw timings first: an error in the report below loses no measurement.
    if args.json:
        with open(args.json + ".timings", "w") as f:
            json.dump({"blocks": {"%s@%d" % k: v for k, v in blocks.items()},
                       "cpu_seconds": {"%s@%s" % k: v for k, v in cpu_seconds.items()}}, f)
    cases = []
    for (m, full, light, bindings, shapes), t in keys:
        est, est_wall = estimates[(m, t)]
        bl = blocks[(m, t)]
        measured = block_median(bl)
        block_medians = [median([x for x in blk["runs"]]) for blk in bl]
        loads = [blk["load"] for blk in bl]
        cpu_ms = (max(0.0, cpu_seconds[(m, "long")] - cpu_seconds[(m, "short")]) / (2 * CPU_RUNS) * 1e3
                  if t == 1 and (m, "long") in cpu_seconds else None)
        # Microsecond models: the two runs' CPU times (getrusage, ticks of a
        # few ms) can difference to nothing; no CPU figure then.
        if cpu_ms is not None and cpu_ms <= 0:
            cpu_ms = None
        pred = est["latency_ms"]["median"]
        true_tier = tier_of(measured)
        ask = [true_tier] + ([TIERS[TIERS.index(true_tier) - 1]] if true_tier != TIERS[0] else [])
        false_meets, asked = 0, 0
        for req in ask:
            r = estimate(tools, light, t, args.profile, req, shapes)
            asked += 1
            if r["meets_requirement"] and TIERS.index(true_tier) > TIERS.index(req):
                false_meets += 1
        c = {"model": m, "group": group_of(m), "threads": t, "measured_ms": measured, "predicted_ms": pred,
             "p10_ms": est["latency_ms"]["p10"], "p90_ms": est["latency_ms"]["p90"],
             "error_pct": 100.0 * (pred - measured) / measured, "tier_measured": true_tier,
             "tier_predicted": est["tier"], "requirements_asked": asked, "false_meets": false_meets,
             "estimate_wall_ms": est_wall * 1e3, "estimate_ms": est["estimate_ms"],
             "cpu_ms_per_run": cpu_ms,
             "cpu_error_pct": None if cpu_ms is None else 100.0 * (pred - cpu_ms) / cpu_ms,
             "runs": sum(len(blk["runs"]) for blk in bl), "block_medians_ms": block_medians,
             "block_spread_pct": 100.0 * (max(block_medians) - min(block_medians)) / measured,
             "split_half_pct": split_half_pct(bl),
             "blocks": bl, "loadavg": "%.2f..%.2f" % (min(loads), max(loads))}
        if without:
            c["predicted_without_graph_terms_ms"] = without[(m, t)]
            c["error_without_graph_terms_pct"] = 100.0 * (without[(m, t)] - measured) / measured
        cases.append(c)
        cpu_text = "" if cpu_ms is None else "  cpu/run %.3f ms (%+.1f%%)" % (cpu_ms, c["cpu_error_pct"])
        print("%-18s t=%d measured %9.3f ms  predicted %9.3f ms (p10 %.3g, p90 %.3g)  %+6.1f%%  tier %s/%s  "
              "blocks %s (spread %.0f%%)  load %s%s" % (
                  m, t, measured, pred, c["p10_ms"], c["p90_ms"], c["error_pct"], true_tier, est["tier"],
                  "/".join("%.3g" % v for v in block_medians), c["block_spread_pct"], c["loadavg"], cpu_text),
              flush=True)
    if lock:
        fcntl.flock(lock, fcntl.LOCK_UN)
    if not cases:
        print("no cases ran", file=sys.stderr)
        return 1
    summary = totals(cases)
    groups = sorted({c["group"] for c in cases})
    if len(groups) > 1:
        summary["groups"] = {g: totals([c for c in cases if c["group"] == g]) for g in groups}
    cpu_errs = sorted(abs(c["cpu_error_pct"]) for c in cases if c["cpu_error_pct"] is not None)
    if cpu_errs:
        summary["one_thread_cpu_time"] = {
            "cases": len(cpu_errs), "within_10pct": sum(e <= 10 for e in cpu_errs) / len(cpu_errs),
            "within_20pct": sum(e <= 20 for e in cpu_errs) / len(cpu_errs),
            "median_abs_pct_error": cpu_errs[len(cpu_errs) // 2],
            "tier_agreement": sum(tier_of(c["cpu_ms_per_run"]) == c["tier_predicted"] for c in cases
                                  if c["cpu_ms_per_run"] is not None) / len(cpu_errs)}
    summary["pass_speed"] = pass_speed([c["blocks"] for c in cases])
    halves = sorted(c["split_half_pct"] for c in cases if c["split_half_pct"] is not None)
    if halves:
        summary["split_half"] = {"cases": len(halves), "within_10pct": sum(e <= 10 for e in halves) / len(halves),
                                 "within_20pct": sum(e <= 20 for e in halves) / len(halves),
                                 "median_abs_pct_error": halves[len(halves) // 2]}
    for t in threads:
        sub = [abs(c["error_pct"]) for c in cases if c["threads"] == t]
        if sub:
            summary["threads_%d" % t] = {"cases": len(sub), "within_10pct": sum(e <= 10 for e in sub) / len(sub),
                                         "within_20pct": sum(e <= 20 for e in sub) / len(sub),
                                         "median_abs_pct_error": sorted(sub)[len(sub) // 2]}
    if without:
        for t in threads + [None]:
            sub = [c for c in cases if t is None or c["threads"] == t]
            for key, name in (("error_pct", "with"), ("error_without_graph_terms_pct", "without")):
                errs = sorted(abs(c[key]) for c in sub)
                if errs:
                    summary.setdefault("graph_terms", {})["%s, %s" % (name, "all" if t is None else "%d thread(s)" % t)] = {
                        "cases": len(errs), "within_10pct": sum(e <= 10 for e in errs) / len(errs),
                        "within_20pct": sum(e <= 20 for e in errs) / len(errs),
                        "over_2x": sum(1 for c in sub if max(c["measured_ms"], c["measured_ms"] * (1 + c[key] / 100)) >
                                       2 * min(c["measured_ms"], c["measured_ms"] * (1 + c[key] / 100))),
                        "median_abs_pct_error": errs[len(errs) // 2]}
    print(json.dumps(summary, indent=2))
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(markdown(cases, summary))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": benchrun.machine_summary(), "fit_models": FIT_MODELS, "cases": cases,
                       "summary": summary, "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}, f, indent=1)
    return 0


def totals(cases):
    """The issue's measures over `cases`."""
    errs = sorted(abs(c["error_pct"]) for c in cases)
    n = len(cases)
    return {
        "cases": n,
        "within_10pct": sum(e <= 10 for e in errs) / n,
        "within_20pct": sum(e <= 20 for e in errs) / n,
        "over_2x": sum(max(c["predicted_ms"] / c["measured_ms"], c["measured_ms"] / c["predicted_ms"]) > 2
                       for c in cases),
        "median_abs_pct_error": errs[n // 2] if n % 2 else (errs[n // 2 - 1] + errs[n // 2]) / 2,
        "tier_agreement": sum(c["tier_measured"] == c["tier_predicted"] for c in cases) / n,
        "tier_off_by_more_than_one": sum(abs(TIERS.index(c["tier_measured"]) - TIERS.index(c["tier_predicted"])) > 1
                                         for c in cases),
        "false_meets": sum(c["false_meets"] for c in cases),
        "requirements_asked": sum(c["requirements_asked"] for c in cases),
        "max_estimate_ms": max(c["estimate_ms"] for c in cases),
    }


if __name__ == "__main__":
    sys.exit(main())
