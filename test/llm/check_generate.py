#!/usr/bin/python3
"""One artifact, prefill then decode: the tiny genai-layout Llama (make_llama.py)
compiled ONCE with dynamic sequence dimensions, run by `webnn-run generate`
(prefill of the prompt with an empty past, then one token per step with the
KV cache growing each step), against ONNX Runtime's greedy loop on the same
.onnx (bench/ort_generate.js). The generated token ids must be identical, with
both KV cache layouts: `--kv-cache shared` (past and present one buffer, the
present computed in place) and `--kv-cache swap` (two buffers per cache).

  check_generate.py --bin BUILD/bin [--work DIR] [--new-tokens 65] [--threads N]

MatMulNBits runs at accuracy_level 0 in both runtimes (float activations).
Exit 0 when the tokens agree, 1 otherwise.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
ORT_GENERATE = os.path.join(ROOT, "bench", "ort_generate.js")
sys.path.insert(0, HERE)
import make_llama  # noqa: E402


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"FAIL: {' '.join(cmd)} exited {r.returncode}:\n{r.stdout}{r.stderr}")
    return r.stdout


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--work", default=None)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--new-tokens", type=int, default=65, help="1 from the prefill + decode steps")
    ap.add_argument("--prompt-ids", default="3,14,15,92,65,35,89,79")
    a = ap.parse_args(argv)
    work = a.work or tempfile.mkdtemp(prefix="webnn-generate-")
    os.makedirs(work, exist_ok=True)
    import onnx
    model = os.path.join(work, "llama_tiny.onnx")
    onnx.save(make_llama.build(make_llama.SIZES["tiny"], 0, 32, 0), model)
    wnn = os.path.join(work, "llama_tiny.wnn")
    run([os.path.join(a.bin, "webnnc"), "compile", model, "-o", wnn, "--shape", "batch_size:1",
         "--dynamic-dim", "sequence_length=128", "--dynamic-dim", "past_sequence_length=255",
         "--dynamic-dim", "total_sequence_length=256"])
    ort = json.loads(run(["node", ORT_GENERATE, model, "--prompt-ids", a.prompt_ids,
                          "--max-new-tokens", str(a.new_tokens), "--threads", str(a.threads)]))
    theirs = ort["generated_ids"]
    print(f"  ORT:    {theirs}")
    failed = 0
    for mode in ("shared", "swap"):
        ours = json.loads(run([os.path.join(a.bin, "webnn-run"), "generate", wnn, "--prompt-ids", a.prompt_ids,
                               "--max-new-tokens", str(a.new_tokens), "--threads", str(a.threads),
                               "--kv-cache", mode, "--json"]))
        mine = ours["generated_ids"]
        print(f"webnn-run generate --kv-cache {mode}: {ours['decode_steps']} decode steps after a "
              f"{ours['prefill_tokens']}-token prefill")
        print(f"  webnnc: {mine}")
        if ours.get("kv_cache") != mode:
            print(f"FAIL: asked for a {mode} KV cache, ran {ours.get('kv_cache')}")
            failed = 1
        elif len(mine) != a.new_tokens or mine != theirs:
            first = next((i for i, (x, y) in enumerate(zip(mine, theirs)) if x != y), min(len(mine), len(theirs)))
            print(f"FAIL: tokens differ from position {first}")
            failed = 1
        else:
            print(f"PASS: {len(mine)} tokens identical")
    # At the artifact's limit: a shared cache needs prompt + new - 1 <= 255
    # positions, the swapped ones one fewer; auto falls back to swap, and the
    # two layouts agree on every token they both generate.
    n_prompt = len(a.prompt_ids.split(","))
    runs = {}
    for mode, n in (("shared", 256 - n_prompt), ("auto", 257 - n_prompt)):
        runs[mode] = json.loads(run([os.path.join(a.bin, "webnn-run"), "generate", wnn, "--prompt-ids", a.prompt_ids,
                                     "--max-new-tokens", str(n), "--threads", str(a.threads), "--kv-cache", mode,
                                     "--json"]))
    if runs["shared"]["kv_cache"] != "shared" or runs["auto"]["kv_cache"] != "swap":
        print(f"FAIL: at the limit expected shared/swap, ran {runs['shared']['kv_cache']}/{runs['auto']['kv_cache']}")
        failed = 1
    elif runs["auto"]["generated_ids"][:-1] != runs["shared"]["generated_ids"]:
        print("FAIL: at the limit the shared and swapped caches generate different tokens")
        failed = 1
    else:
        print(f"PASS: at the artifact's limit, {len(runs['shared']['generated_ids'])} tokens shared = swapped "
              f"(auto fell back to swap for one more)")
    # --timeout: generations that would take minutes (100000 warmup ones) are
    # cancelled after 0.2 s with one error line naming the node, exit 3.
    r = subprocess.run([os.path.join(a.bin, "webnn-run"), "generate", wnn, "--prompt-ids", a.prompt_ids,
                        "--max-new-tokens", "8", "--warmup", "100000", "--timeout", "0.2"],
                       capture_output=True, text=True, timeout=120)
    lines = r.stderr.strip().splitlines()
    if r.returncode != 3 or len(lines) != 1 or r.stdout or \
            not lines[0].startswith("webnn-run: error: timed out after 0.2 s: ") or "cancelled at node " not in lines[0]:
        print(f"FAIL: generate --timeout 0.2: exit {r.returncode}, stdout {r.stdout!r}, stderr {r.stderr!r}")
        failed = 1
    else:
        print(f"PASS: generate --timeout: {lines[0]}")
    print(f"work dir {work}")
    return failed


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
