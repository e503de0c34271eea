#!/usr/bin/python3
"""Decoder-LLM benchmark: `webnn-run generate` against ONNX Runtime's greedy
loop (bench/ort_generate.js) on the ~100M-parameter int4 Llama of
test/llm/make_llama.py (genai layout), alternating the two in the same
minutes, several rounds, medians.

  bench/llm.py [--build build] [--threads 1,2] [--rounds 3] [--accuracy-levels 0,4]
               [--prompt-tokens 128] [--new-tokens 65] [--cache-dir DIR] [--no-spin]
               [--wait default|spin|block]

One artifact per accuracy level, compiled once with dynamic sequence
dimensions, serves the prefill (the prompt, empty past) and every decode step.
Reported per (accuracy level, threads): prefill ms of the prompt, decode ms per
token and tokens/s (steps after the first token), the ORT/webnnc ratios, and
decode against the memory roofline: the bytes a token must read (every
MatMulNBits weight, scale and zero point; the embedding contributes one row)
divided by the DRAM read bandwidth bench/micro/peak.cpp measures at that
thread count. Generated tokens are compared too.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)
sys.path.insert(0, BENCH)
sys.path.insert(0, os.path.join(ROOT, "test", "llm"))
import make_llama  # noqa: E402
import run as bench_run  # noqa: E402  (peaks, machine summary)


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def weight_bytes_per_token(onnx_path):
    import onnx
    m = onnx.load(onnx_path, load_external_data=False)
    sizes = {t.name: len(t.raw_data) if t.raw_data else 0 for t in m.graph.initializer}
    total = 0
    for n in m.graph.node:
        if n.op_type == "MatMulNBits":
            total += sum(sizes.get(i, 0) for i in n.input[1:4] if i)
    return total


def prepare(args, level):
    os.makedirs(args.cache_dir, exist_ok=True)
    onnx_path = os.path.join(args.cache_dir, f"llama_100m_acc{level}.onnx")
    if not os.path.exists(onnx_path):
        import onnx
        log(f"writing {onnx_path}")
        onnx.save(make_llama.build(make_llama.SIZES["100m"], level, 32, 0), onnx_path)
    wnn = os.path.join(args.cache_dir, f"llama_100m_acc{level}.wnn")
    max_seq = max(args.prompt_tokens, 2)
    subprocess.run([os.path.join(args.build, "bin", "webnnc"), "compile", onnx_path, "-o", wnn,
                    "--shape", "batch_size:1", "--dynamic-dim", f"sequence_length={max_seq}",
                    "--dynamic-dim", f"past_sequence_length={args.prompt_tokens + args.new_tokens}",
                    "--dynamic-dim", f"total_sequence_length={args.prompt_tokens + args.new_tokens + 1}"],
                   check=True)
    return onnx_path, wnn


def once(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: {r.stderr.strip()}")
    return json.loads(r.stdout)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--accuracy-levels", default="0,4")
    ap.add_argument("--prompt-tokens", type=int, default=128)
    ap.add_argument("--new-tokens", type=int, default=65)
    ap.add_argument("--cache-dir", default=os.path.join(os.path.expanduser("~"), ".cache", "webnnc-bench"))
    ap.add_argument("--no-spin", action="store_true", help="ORT intra-op threads sleep instead of spinning")
    ap.add_argument("--wait", choices=["default", "spin", "block"], default="default",
                    help="webnn-run --wait: how its idle kernel threads wait")
    ap.add_argument("--no-peak", action="store_true", help="skip the bandwidth microbenchmark")
    a = ap.parse_args(argv)
    threads = [int(t) for t in a.threads.split(",")]
    levels = [int(v) for v in a.accuracy_levels.split(",")]
    prompt = ",".join(str((i * 7919 + 11) % 32000) for i in range(a.prompt_tokens))
    bench_run._MAXRSS = bench_run.build_micro("maxrss", a.cache_dir)  # run.py's child launcher
    peaks = None if a.no_peak else bench_run.measure_peaks(a.cache_dir)
    log(f"load average {os.getloadavg()[0]:.2f}")
    rows = []
    for level in levels:
        onnx_path, wnn = prepare(a, level)
        wbytes = weight_bytes_per_token(onnx_path)
        for t in threads:
            ours, ort = [], []
            for r in range(a.rounds):
                common = ["--prompt-ids", prompt, "--max-new-tokens", str(a.new_tokens), "--threads", str(t),
                          "--warmup", "1"]
                load_before = os.getloadavg()[0]
                ours.append(once([os.path.join(a.build, "bin", "webnn-run"), "generate", wnn, "--json",
                                  "--wait", a.wait] + common))
                ort.append(once(["node", os.path.join(BENCH, "ort_generate.js"), onnx_path] + common +
                                (["--no-spin"] if a.no_spin else [])))
                log(f"acc {level} T{t} round {r + 1}: webnnc prefill {ours[-1]['prefill_ms']:.1f} ms, "
                    f"decode {ours[-1]['decode_tokens_per_s']:.1f} tok/s; ORT {ort[-1]['prefill_ms']:.1f} ms, "
                    f"{ort[-1]['decode_tokens_per_s']:.1f} tok/s; decode ratio "
                    f"{ours[-1]['decode_tokens_per_s'] / ort[-1]['decode_tokens_per_s']:.2f}x; "
                    f"load average {load_before:.2f} -> {os.getloadavg()[0]:.2f}")
            med = lambda runs, f: statistics.median(f(x) for x in runs)  # noqa: E731
            row = {"accuracy_level": level, "threads": t, "weight_mb_per_token": wbytes / 1e6,
                   "ours_prefill_ms": med(ours, lambda x: x["prefill_ms"]),
                   "ort_prefill_ms": med(ort, lambda x: x["prefill_ms"]),
                   "ours_decode_ms": med(ours, lambda x: x["decode_ms"]["total"] / x["decode_steps"]),
                   "ort_decode_ms": med(ort, lambda x: x["decode_ms"]["total"] / x["decode_steps"]),
                   "tokens_agree": sum(int(p == q) for p, q in zip(ours[0]["generated_ids"], ort[0]["generated_ids"])),
                   "tokens": len(ours[0]["generated_ids"])}
            if peaks and t in peaks["read_gbps"]:
                roofline_ms = wbytes / (peaks["read_gbps"][t] * 1e9) * 1e3
                row["roofline_ms"] = roofline_ms
                row["ours_roofline_fraction"] = roofline_ms / row["ours_decode_ms"]
                row["ort_roofline_fraction"] = roofline_ms / row["ort_decode_ms"]
            rows.append(row)
    print("| acc | threads | prefill %d tok ORT / webnnc ms | ratio | decode ms/token ORT / webnnc | ratio "
          "| tok/s webnnc | roofline ms (%% reached webnnc / ORT) | tokens equal |" % a.prompt_tokens)
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        roof = ("%.2f (%.0f%% / %.0f%%)" % (r["roofline_ms"], 100 * r["ours_roofline_fraction"],
                                            100 * r["ort_roofline_fraction"])) if "roofline_ms" in r else "-"
        print("| %d | %d | %.1f / %.1f | %.2fx | %.2f / %.2f | %.2fx | %.1f | %s | %d/%d |" % (
            r["accuracy_level"], r["threads"], r["ort_prefill_ms"], r["ours_prefill_ms"],
            r["ort_prefill_ms"] / r["ours_prefill_ms"], r["ort_decode_ms"], r["ours_decode_ms"],
            r["ort_decode_ms"] / r["ours_decode_ms"], 1000 / r["ours_decode_ms"], roof, r["tokens_agree"],
            r["tokens"]))
    if peaks:
        print("DRAM read GB/s (bench/micro/peak.cpp): " +
              ", ".join("%d thread(s) %.1f" % (k, v) for k, v in sorted(peaks["read_gbps"].items())))
    print(f"weights read per decode token: {rows[0]['weight_mb_per_token']:.1f} MB; load average at the end "
          f"{os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
