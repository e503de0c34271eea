#!/usr/bin/python3
"""ONNX If and Loop whose condition or trip count are graph inputs, so they
run as webnn.if / webnn.loop (control flow at run time) rather than being
inlined or unrolled: each model is compiled once with webnnc, run with
webnn-run and with ONNX Runtime (onnxruntime-node, bench/ort_bench.js) for
several input values (both branches, zero iterations, early exit by the
condition, the trip count reached first), and every output compared. Bad
models (branch types that differ, a missing body, scan outputs of a run-time
loop, a carried value that grows) must each fail to compile with one clear
error.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto as TP, helper as h, numpy_helper

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import ort_compare  # noqa: E402
from onnx_graphs import const, make_model, save_and_compile, vi  # noqa: E402

F, I64, B = TP.FLOAT, TP.INT64, TP.BOOL


def model(nodes, inputs, outputs, inits=(), opset=16):
    return make_model(nodes, inputs, outputs, inits, opset)


def if_model():
    """y = cond ? x + w + 2x : x * x - w; both branches read the outer
    initializer w and the outer intermediate x2 (captured values)."""
    w = numpy_helper.from_array(np.arange(6, dtype=np.float32).reshape(2, 3) / 4, "w")
    then = h.make_graph([h.make_node("Add", ["x", "w"], ["t0"]), h.make_node("Add", ["t0", "x2"], ["t_out"])],
                        "then", [], [vi("t_out", F, [2, 3])])
    els = h.make_graph([h.make_node("Mul", ["x", "x"], ["e0"]), h.make_node("Sub", ["e0", "w"], ["e_out"])],
                       "else", [], [vi("e_out", F, [2, 3])])
    nodes = [h.make_node("Add", ["x", "x"], ["x2"]),
             h.make_node("If", ["cond"], ["y"], then_branch=then, else_branch=els)]
    return model(nodes, [vi("cond", B, []), vi("x", F, [2, 3])], [vi("y", F, [2, 3])], [w])


def loop_model():
    """for i < M while cond: v = v * 0.5 + s + float(i); cond = sum(v) < limit.
    s and limit are graph inputs the body captures; `count` counts iterations."""
    body = h.make_graph(
        [const("half", np.float32(0.5)),
         h.make_node("Mul", ["v_in", "half"], ["b0"]),
         h.make_node("Add", ["b0", "s"], ["b1"]),
         h.make_node("Cast", ["i"], ["fi"], to=F),
         h.make_node("Add", ["b1", "fi"], ["v_out"]),
         const("one", np.int64(1)),
         h.make_node("Add", ["n_in", "one"], ["n_out"]),
         h.make_node("ReduceSum", ["v_out"], ["sum"], keepdims=0),
         h.make_node("Less", ["sum", "limit"], ["c_out"])],
        "body", [vi("i", I64, []), vi("c_in", B, []), vi("v_in", F, [4]), vi("n_in", I64, [])],
        [vi("c_out", B, []), vi("v_out", F, [4]), vi("n_out", I64, [])])
    nodes = [const("zero", np.int64(0)),
             h.make_node("Loop", ["M", "cond", "x", "zero"], ["v", "count"], body=body)]
    return model(nodes, [vi("M", I64, []), vi("cond", B, []), vi("x", F, [4]), vi("s", F, [4]),
                         vi("limit", F, [])], [vi("v", F, [4]), vi("count", I64, [])])


def while_model():
    """No trip count: while cond: v = v * 2 + 1 (cond = max(v) < limit), with
    an If inside the body on the iteration's parity, nested control flow."""
    even = h.make_graph([const("two", np.float32(2)), h.make_node("Mul", ["v_in", "two"], ["ev"])],
                        "even", [], [vi("ev", F, [3])])
    odd = h.make_graph([const("three", np.float32(3)), h.make_node("Add", ["v_in", "three"], ["od"])],
                       "odd", [], [vi("od", F, [3])])
    body = h.make_graph(
        [const("k2", np.int64(2)), h.make_node("Mod", ["i", "k2"], ["r"]), const("z", np.int64(0)),
         h.make_node("Equal", ["r", "z"], ["is_even"]),
         h.make_node("If", ["is_even"], ["v_out"], then_branch=even, else_branch=odd),
         h.make_node("ReduceMax", ["v_out"], ["mx"], keepdims=0),
         h.make_node("Less", ["mx", "limit"], ["c_out"])],
        "body", [vi("i", I64, []), vi("c_in", B, []), vi("v_in", F, [3])],
        [vi("c_out", B, []), vi("v_out", F, [3])])
    nodes = [h.make_node("Loop", ["", "cond", "x"], ["v"], body=body)]
    return model(nodes, [vi("cond", B, []), vi("x", F, [3]), vi("limit", F, [])], [vi("v", F, [3])])


def long_loop_model():
    """A constant trip count over the unrolling limit (10000): run, not unrolled."""
    body = h.make_graph([const("one", np.float32(1)), h.make_node("Add", ["v_in", "one"], ["v_out"]),
                         h.make_node("Identity", ["c_in"], ["c_out"])],
                        "body", [vi("i", I64, []), vi("c_in", B, []), vi("v_in", F, [2])],
                        [vi("c_out", B, []), vi("v_out", F, [2])])
    nodes = [const("M", np.int64(10000)), h.make_node("Loop", ["M", "", "x"], ["v"], body=body)]
    return model(nodes, [vi("x", F, [2])], [vi("v", F, [2])])


def for_model():
    """A trip count and no condition input: the body's condition still ends
    the loop early (i < stop), as ONNX Runtime does."""
    body = h.make_graph([h.make_node("Less", ["i", "stop"], ["c_out"]),
                         h.make_node("Add", ["v_in", "v_in"], ["v_out"])],
                        "body", [vi("i", I64, []), vi("c_in", B, []), vi("v_in", F, [2])],
                        [vi("c_out", B, []), vi("v_out", F, [2])])
    nodes = [h.make_node("Loop", ["M", "", "x"], ["v"], body=body)]
    return model(nodes, [vi("M", I64, []), vi("stop", I64, []), vi("x", F, [2])], [vi("v", F, [2])])


def conv_model():
    """Convolutions inside both branches and the loop body: the layout
    conversion (NCHW -> NHWC) and conv fusions run inside regions too."""
    rng = np.random.default_rng(0)
    w = numpy_helper.from_array(rng.standard_normal((4, 3, 3, 3)).astype(np.float32), "W")
    w2 = numpy_helper.from_array(rng.standard_normal((4, 4, 3, 3)).astype(np.float32) / 4, "W2")
    then = h.make_graph([h.make_node("Conv", ["x", "W"], ["t0"], pads=[1, 1, 1, 1]), h.make_node("Relu", ["t0"], ["t_out"])],
                        "then", [], [vi("t_out", F, [1, 4, 8, 8])])
    els = h.make_graph([h.make_node("Conv", ["x", "W"], ["e0"], pads=[1, 1, 1, 1]), h.make_node("Sigmoid", ["e0"], ["e_out"])],
                       "else", [], [vi("e_out", F, [1, 4, 8, 8])])
    body = h.make_graph([h.make_node("Identity", ["c_in"], ["c_out"]),
                         h.make_node("Conv", ["v_in", "W2"], ["b0"], pads=[1, 1, 1, 1]), h.make_node("Tanh", ["b0"], ["v_out"])],
                        "body", [vi("i", I64, []), vi("c_in", B, []), vi("v_in", F, [1, 4, 8, 8])],
                        [vi("c_out", B, []), vi("v_out", F, [1, 4, 8, 8])])
    nodes = [h.make_node("If", ["cond"], ["y"], then_branch=then, else_branch=els),
             h.make_node("Loop", ["M", "", "y"], ["z"], body=body),
             h.make_node("Conv", ["z", "W2"], ["out"], pads=[1, 1, 1, 1])]
    return model(nodes, [vi("cond", B, []), vi("M", I64, []), vi("x", F, [1, 3, 8, 8])],
                 [vi("out", F, [1, 4, 8, 8])], [w, w2])


def scan_model():
    """A constant trip count (the scan outputs' bound) with a run-time
    condition: the scan outputs hold one row per iteration that ran."""
    body = h.make_graph([const("one", np.float32(1)), h.make_node("Add", ["v_in", "one"], ["v_out"]),
                         h.make_node("ReduceSum", ["v_out"], ["sum"], keepdims=0),
                         h.make_node("Less", ["sum", "limit"], ["c_out"]),
                         h.make_node("Mul", ["v_out", "v_out"], ["sq"]),
                         h.make_node("Cast", ["i"], ["fi"], to=F)],
                        "body", [vi("i", I64, []), vi("c_in", B, []), vi("v_in", F, [2])],
                        [vi("c_out", B, []), vi("v_out", F, [2]), vi("sq", F, [2]), vi("fi", F, [])])
    nodes = [const("M", np.int64(6)),
             h.make_node("Loop", ["M", "cond", "x"], ["v", "squares", "steps"], body=body)]
    return model(nodes, [vi("cond", B, []), vi("x", F, [2]), vi("limit", F, [])],
                 [vi("v", F, [2]), vi("squares", F, ["N", 2]), vi("steps", F, ["N"])])


def cases():
    x23 = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
    x4 = np.array([1, -2, 0.5, 3], np.float32)
    s4 = np.array([0.25, 0.5, -1, 2], np.float32)
    x3 = np.array([0.5, 1, 1.5], np.float32)
    b = lambda v: np.array(v, dtype=np.bool_)
    i = lambda v: np.array(v, dtype=np.int64)
    f = lambda v: np.array(v, dtype=np.float32)
    xconv = np.random.default_rng(1).standard_normal((1, 3, 8, 8)).astype(np.float32)
    return [
        ("if", if_model, [("then", {"cond": b(True), "x": x23}), ("else", {"cond": b(False), "x": x23})]),
        ("loop", loop_model, [
            ("M=0 (no iteration)", {"M": i(0), "cond": b(True), "x": x4, "s": s4, "limit": f(1e9)}),
            ("cond=false (no iteration)", {"M": i(5), "cond": b(False), "x": x4, "s": s4, "limit": f(1e9)}),
            ("M=1", {"M": i(1), "cond": b(True), "x": x4, "s": s4, "limit": f(1e9)}),
            ("M=7 reached", {"M": i(7), "cond": b(True), "x": x4, "s": s4, "limit": f(1e9)}),
            ("early exit by cond", {"M": i(50), "cond": b(True), "x": x4, "s": s4, "limit": f(20)})]),
        ("while+nested if", while_model, [
            ("cond=false", {"cond": b(False), "x": x3, "limit": f(100)}),
            ("exits after several", {"cond": b(True), "x": x3, "limit": f(100)}),
            ("exits after one", {"cond": b(True), "x": x3, "limit": f(0)})]),
        ("10000 iterations", long_loop_model, [("x", {"x": f([0.5, -3])})]),
        ("for without cond input", for_model, [
            ("body condition ends it", {"M": i(10), "stop": i(3), "x": f([1, -0.5])}),
            ("trip count ends it", {"M": i(2), "stop": i(30), "x": f([1, -0.5])})]),
        ("scan outputs", scan_model, [
            ("all 6 iterations", {"cond": b(True), "x": f([0, 1]), "limit": f(100)}),
            ("early exit after 3", {"cond": b(True), "x": f([0, 1]), "limit": f(7.5)}),
            ("no iteration", {"cond": b(False), "x": f([0, 1]), "limit": f(100)})]),
        ("convs in regions", conv_model, [
            ("then, 3 iterations", {"cond": b(True), "M": i(3), "x": xconv}),
            ("else, 0 iterations", {"cond": b(False), "M": i(0), "x": xconv})]),
    ]


def bad_models():
    """(label, model, text the one error must contain)."""
    then = h.make_graph([const("a", np.zeros(2, np.float32))], "then", [], [vi("a", F, [2])])
    els = h.make_graph([const("b", np.zeros(3, np.float32))], "else", [], [vi("b", F, [3])])
    mismatch = model([h.make_node("If", ["cond"], ["y"], then_branch=then, else_branch=els)],
                     [vi("cond", B, [])], [vi("y", F, None)])
    no_else = model([h.make_node("If", ["cond"], ["y"], then_branch=then)], [vi("cond", B, [])], [vi("y", F, [2])])
    no_body = model([h.make_node("Loop", ["M", "", "x"], ["v"])], [vi("M", I64, []), vi("x", F, [2])],
                    [vi("v", F, [2])])
    scan_body = h.make_graph([h.make_node("Identity", ["c_in"], ["c_out"]), h.make_node("Identity", ["v_in"], ["v_out"]),
                              h.make_node("Identity", ["v_in"], ["scan"])],
                             "body", [vi("i", I64, []), vi("c_in", B, []), vi("v_in", F, [2])],
                             [vi("c_out", B, []), vi("v_out", F, [2]), vi("scan", F, [2])])
    scan = model([h.make_node("Loop", ["M", "", "x"], ["v", "s"], body=scan_body)],
                 [vi("M", I64, []), vi("x", F, [2])], [vi("v", F, [2]), vi("s", F, None)])
    read_scan = model([const("M5", np.int64(5)), h.make_node("Loop", ["M5", "cond", "x"], ["v", "s"], body=scan_body),
                       h.make_node("Relu", ["s"], ["r"])],
                      [vi("cond", B, []), vi("x", F, [2])], [vi("v", F, [2]), vi("r", F, None)])
    grow_body = h.make_graph([h.make_node("Identity", ["c_in"], ["c_out"]),
                              h.make_node("Concat", ["v_in", "v_in"], ["v_out"], axis=0)],
                             "body", [vi("i", I64, []), vi("c_in", B, []), vi("v_in", F, None)],
                             [vi("c_out", B, []), vi("v_out", F, None)])
    grow = model([h.make_node("Loop", ["M", "", "x"], ["v"], body=grow_body)],
                 [vi("M", I64, []), vi("x", F, [2])], [vi("v", F, None)])
    # The else branch names a value only the then branch defines.
    t2 = h.make_graph([h.make_node("Neg", ["x"], ["inner"])], "then", [], [vi("inner", F, [2])])
    e2 = h.make_graph([h.make_node("Abs", ["inner"], ["e"])], "else", [], [vi("e", F, [2])])
    leak = model([h.make_node("If", ["cond"], ["y"], then_branch=t2, else_branch=e2)],
                 [vi("cond", B, []), vi("x", F, [2])], [vi("y", F, [2])])
    return [
        ("else branch reads a then-branch value", leak, "input 'inner' is not produced by any earlier node"),
        ("If branches of different types", mismatch, "needs both branches to produce the same static type"),
        ("If without else_branch", no_else, "missing 'else_branch' subgraph"),
        ("Loop without body", no_body, "missing 'body' subgraph"),
        ("scan output without a constant trip count", scan, "scan outputs need a compile-time bound"),
        ("scan output read by another node", read_scan, "a scan result can only be a graph output"),
        ("carried value that grows", grow, "needs each carried value's type fixed across iterations"),
    ]


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--work", default=None)
    a = ap.parse_args(argv)
    work = a.work or tempfile.mkdtemp(prefix="webnn-control-flow-")
    webnnc = os.path.join(a.bin, "webnnc")
    failures = total = 0
    for mi, (name, make, runs) in enumerate(cases()):
        d = os.path.join(work, f"model{mi}")
        path, wnn, outputs, error = save_and_compile(webnnc, d, make())
        if error:
            print(f"[FAIL] {name}: webnnc: {error}")
            failures += len(runs)
            total += len(runs)
            continue
        for ri, (label, feeds) in enumerate(runs):
            total += 1
            rd = os.path.join(d, f"run{ri}")
            # Convolutions may differ in summation order (Winograd, blocking).
            tol = 1e-4 if make is conv_model else 1e-5
            try:
                ok, worst, messages = ort_compare.run_and_compare(a.bin, wnn, path, outputs, feeds, rd, tol, tol,
                                                                  same_dtype=True)
            except RuntimeError as e:
                print(f"[FAIL] {name} / {label}: {e}")
                failures += 1
                continue
            for msg in messages:
                print("    " + msg)
            shown = [f"{o}={np.load(os.path.join(rd, 'ort', o + '.npy')).ravel()[:4].tolist()}" for o in outputs]
            print(f"[{'PASS' if ok else 'FAIL'}] {name} / {label}: max |diff| {worst:.1e} ({'; '.join(shown)})")
            failures += not ok
    for bi, (label, m, want) in enumerate(bad_models()):
        total += 1
        path = os.path.join(work, f"bad{bi}.onnx")
        onnx.save(m, path)
        r = run([webnnc, "compile", path, "-o", os.path.join(work, f"bad{bi}.wnn")])
        errors = [l for l in r.stderr.splitlines() if "error" in l]
        ok = r.returncode == 1 and len(errors) == 1 and want in errors[0]
        print(f"[{'PASS' if ok else 'FAIL'}] bad input: {label}: exit {r.returncode}: {r.stderr.strip()}")
        failures += not ok
    print(f"{total - failures} of {total} pass (work dir {work})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
