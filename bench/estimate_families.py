#!/usr/bin/env python3
"""Does `webnnc estimate` price each convolution as the kernel the CPU backend runs?

    /usr/bin/python3 bench/estimate_families.py --profile P.json [--threads 1] [--build-dir build] [MODEL...]

For each model of bench/.models/work/<model>/ (bench/run.py's artifacts and
inputs; default: every one there), it runs the full artifact once with
`webnn-run --verbose` (the kernel chosen for each node, KernelCandidates.h)
and estimates it with `webnnc estimate --detail --json`, then lists every
conv2d / fusedConv2d node whose cost family is not one that kernel's
(CostFunctions.cpp restates Conv2dSelection.cpp's conditions: this checks
them on real models). Pointwise-depthwise pairs are counted apart (the
estimate prices them as two nodes: their factory reads the filters), and
so are depthwise-pointwise pairs (d09bf4f: a 3x3 depthwise and the narrow
1x1 that alone reads it, priced as the two nodes) and affine-pointwise pairs (9efa73b: a depthwise 1x1 from a
batchNormalization + relu, run inside the 1x1 after it), priced as the
depthwise 1x1's pass and the 1x1: DenseNet-121's 58 pairs at one thread
within -3% of their measured time in all.
It also checks the kernel pairs that run one node inside the other's
kernel (batchnorm-relu, instancenorm-gelu: the consumer; scaled-pointwise:
the mul): the nodes the run pairs away and those the estimate prices as
"paired" (CostFunctions.cpp's pairedAway) must be the same.
Exit status 1 when any node differs. No timing: a loaded machine is fine.
"""
import argparse
import json
import os
import re
import subprocess
import sys

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)
# The families each kernel's nodes may be priced on.
FAMILIES = {
    "depthwise-avx512": {"conv2d.depthwise"},
    "depthwise-avx512-after-onednn": {"conv2d.depthwise"},
    "pointwise-narrow": {"conv2d.pointwise"},
    "pointwise-packed-sgemm": {"conv2d.pointwise"},
    "pointwise-packed-sgemm-after-onednn": {"conv2d.pointwise"},  # 9b5aa2a: where oneDNN refuses
    "pointwise-packed-sgemm-then-epilogue-after-onednn": {"conv2d.pointwise"},  # its sigmoid/SiLU: a pass after
    "im2col-packed-sgemm": {"conv2d.im2col"},
    "row-window-packed-sgemm": {"conv2d.rowwindow"},
    "grouped-narrow-avx512": {"conv2d.grouped4"},
    "onednn": {"conv2d", "conv2d.grouped.onednn", "conv2d.winograd", "conv2d.winograd4", "conv2d.depthwise.onednn",
               "conv2d.pointwise"},
    "portable": {"conv2d.portable"},
}
SINGLE = re.compile(r"cpu kernel: (?:conv2d|fusedConv2d) '(.*)': (\S+)(?: \[([^\]]*)\])?")
PAIR = re.compile(r"cpu kernel: \S+ \+ \S+ '(.*)' \+ '(.*)': "
                  r"(pointwise-depthwise pair|depthwise-pointwise pair|affine-pointwise pair|scaled-pointwise pair)$")
ANY_PAIR = re.compile(r"cpu kernel: \S+ \+ \S+ '(.*)' \+ '(.*)': (\S+(?: pair)?)$")
# Which node of each such pair runs nothing of its own (0 producer, 1 consumer).
PAIRED_AWAY = {"batchnorm-relu": 1, "instancenorm-gelu": 1, "scaled-pointwise pair": 0}


def paired_away(log):
    away = []
    for line in log.splitlines():
        p = ANY_PAIR.search(line)
        if p and p.group(3) in PAIRED_AWAY:
            away.append(p.group(1 + PAIRED_AWAY[p.group(3)]))
    return sorted(away)


def kernels_chosen(run_tool, artifact, inputs, threads):
    err = subprocess.run([run_tool, artifact, "--threads", str(threads), "--verbose"] + inputs,
                         capture_output=True, text=True).stderr
    chosen = {}
    for line in err.splitlines():
        p = PAIR.search(line)
        if p:
            if p.group(3) == "scaled-pointwise pair":  # the mul folded into the narrow 1x1's filter
                chosen.setdefault(p.group(2), []).append("pointwise-narrow")
            else:
                for name in p.group(1, 2):
                    chosen.setdefault(name, []).append("pair")
            continue
        m = SINGLE.search(line)
        if m:
            kernel = m.group(2)
            if kernel.startswith(("silu-after-own", "hardswish-after-own")):
                kernel = m.group(3) or kernel  # the kernel the pass wraps
            if kernel == "silu-after-onednn":
                kernel = "onednn"
            chosen.setdefault(m.group(1), []).append(kernel)
    return chosen, err


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("models", nargs="*")
    ap.add_argument("--profile", required=True)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    args = ap.parse_args(argv)
    work = os.path.join(BENCH, ".models", "work")
    models = args.models or sorted(os.listdir(work))
    run_tool = os.path.join(args.build_dir, "bin", "webnn-run")
    est_tool = os.path.join(args.build_dir, "bin", "webnnc")
    total = differ = pairs = paired_total = paired_differ = 0
    for m in models:
        d = os.path.join(work, m)
        artifact = os.path.join(d, m + ".wnn")
        if not os.path.isfile(artifact):
            continue
        # The input names, from webnn-run's refusal; bench/run.py wrote input_<k>.npy in their order.
        err = subprocess.run([run_tool, artifact], capture_output=True, text=True).stderr
        names = re.findall(r"input '([^']*)' not given", err)
        if len(names) != 1:
            continue  # one input at a time is named; the convolutional models have one
        inputs = ["--input", "%s=%s" % (names[0], os.path.join(d, "input_0.npy"))]
        chosen, log = kernels_chosen(run_tool, artifact, inputs, args.threads)
        est = json.loads(subprocess.run([est_tool, "estimate", artifact, "--profile", args.profile, "--threads",
                                         str(args.threads), "--json", "--detail"], capture_output=True,
                                        text=True).stdout)
        ran_away = paired_away(log)
        priced_away = sorted(n["name"] for n in est["nodes"] if n["family"] == "paired")
        paired_total += len(ran_away)
        for name in sorted(set(ran_away) ^ set(priced_away)) if ran_away != priced_away else []:
            paired_differ += 1
            print("%-18s %-28s %-26s %s" % (m, "paired away" if name in ran_away else "run",
                                           "paired" if name in priced_away else "priced", name))
        seen = {}
        for n in est["nodes"]:
            if n["op"] not in ("conv2d", "fusedConv2d"):
                continue
            k = seen.get(n["name"], 0)
            seen[n["name"]] = k + 1
            got = chosen.get(n["name"], [])
            kernel = got[k] if k < len(got) else "?"
            if kernel == "pair":
                pairs += 1
                continue
            total += 1
            if n["family"] not in FAMILIES.get(kernel, set()):
                differ += 1
                print("%-18s %-28s %-26s %s" % (m, kernel, n["family"], n["name"]))
    print("%d conv nodes at %d thread(s) (and %d in pointwise-depthwise, depthwise-pointwise or affine-pointwise pairs), %d priced on a family not of "
          "their kernel" % (total, args.threads, pairs, differ))
    print("%d nodes paired away by the run, %d where the estimate disagrees" % (paired_total, paired_differ))
    return 1 if differ or paired_differ else 0


if __name__ == "__main__":
    sys.exit(main())
