#!/usr/bin/python3
"""ONNX inputs that WebNN takes as compile-time options, computed at run time,
and constant folding inside If branches and Loop bodies, against ONNX
Runtime (onnxruntime-node, bench/ort_bench.js).

Each model is compiled once by webnnc and run by webnn-run and by ONNX
Runtime for several input values; every output must match (rtol = atol =
1e-5). Covered: Clip with a run-time min (max(x) - 8, as a top-dB floor) and
with both bounds graph inputs (min > max included), on float and int32; Trilu
with k a graph input (upper and lower, k below, on and past the diagonal);
Pad with a run-time constant_value (padding and cropping on different axes);
CumSum with a run-time axis (negative included);
Dropout with a run-time ratio at inference; a run-time If whose branches
compute their Pad pads from constants (ConstantOfShape, Concat, a negative-step
Slice, Transpose, Cast: Silero VAD v5's pattern) and from Shape arithmetic; an
If whose condition folds from Shape (inlined: no webnn.if, and its other branch
could not even be converted); a run-time Loop whose body folds Shape arithmetic
into Reshape and Pad; shape arithmetic through Tile, CumSum, reductions,
Gather, Where, Pow, Mod and Expand. Bad models must fail with an error naming the chain of
nodes that computes a value needed at compile time.
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

F, I32, I64, B = TP.FLOAT, TP.INT32, TP.INT64, TP.BOOL
TOL = 1e-5


def model(nodes, inputs, outputs, inits=(), opset=17):
    return make_model(nodes, inputs, outputs, inits, opset)


def clip_floor_model():
    """y = Clip(x, max(x) - 8, 3): the min is computed at run time."""
    nodes = [h.make_node("ReduceMax", ["x"], ["mx"], keepdims=0), const("eight", np.float32(8)),
             h.make_node("Sub", ["mx", "eight"], ["lo"]), const("hi", np.float32(3)),
             h.make_node("Clip", ["x", "lo", "hi"], ["y"])]
    return model(nodes, [vi("x", F, [2, 8])], [vi("y", F, [2, 8])])


def clip_inputs_model(t=F):
    nodes = [h.make_node("Clip", ["x", "lo", "hi"], ["y"])]
    return model(nodes, [vi("x", t, [3, 5]), vi("lo", t, []), vi("hi", t, [])], [vi("y", t, [3, 5])])


def trilu_model(upper):
    nodes = [h.make_node("Trilu", ["x", "k"], ["y"], upper=upper)]
    return model(nodes, [vi("x", F, [2, 4, 5]), vi("k", I64, [])], [vi("y", F, [2, 4, 5])])


def pad_value_model():
    """Pads [begin 0, 1, -1; end 1, 2, 1] (a crop on the last axis's start)
    with a run-time value."""
    nodes = [const("pads", np.array([0, 1, -1, 1, 2, 1], np.int64)),
             h.make_node("Pad", ["x", "pads", "v"], ["y"], mode="constant")]
    return model(nodes, [vi("x", F, [2, 3, 4]), vi("v", F, [])], [vi("y", F, [3, 6, 4])])


def cumsum_model():
    nodes = [h.make_node("CumSum", ["x", "axis"], ["y"], exclusive=1, reverse=1)]
    return model(nodes, [vi("x", F, [2, 3, 4]), vi("axis", I32, [])], [vi("y", F, [2, 3, 4])])


def dropout_model():
    nodes = [h.make_node("Dropout", ["x", "ratio"], ["y", "mask"])]
    return model(nodes, [vi("x", F, [2, 6]), vi("ratio", F, [])], [vi("y", F, [2, 6]), vi("mask", B, [2, 6])])


def stft_pads(prefix, n):
    """Silero VAD v5's padding chain: [n, n] then two zeros (ConstantOfShape),
    reshaped [-1, 2], rows reversed by a negative-step Slice, transposed,
    flattened and cast: [0, n, 0, n], the pads of a [1, L] input."""
    p = prefix
    return [const(p + "six", np.array([2], np.int64)),
            h.make_node("ConstantOfShape", [p + "six"], [p + "zeros"],
                        value=numpy_helper.from_array(np.array([0], np.int64))),
            const(p + "np", np.array([n, n], np.int64)),
            h.make_node("Concat", [p + "np", p + "zeros"], [p + "cat"], axis=0),
            const(p + "rs", np.array([-1, 2], np.int64)),
            h.make_node("Reshape", [p + "cat", p + "rs"], [p + "r"]),
            const(p + "st", np.array([-1], np.int64)), const(p + "en", np.array([-(2 ** 63) + 1], np.int64)),
            const(p + "ax", np.array([0], np.int64)), const(p + "sp", np.array([-1], np.int64)),
            h.make_node("Slice", [p + "r", p + "st", p + "en", p + "ax", p + "sp"], [p + "sl"]),
            h.make_node("Transpose", [p + "sl"], [p + "tr"], perm=[1, 0]),
            const(p + "flat", np.array([-1], np.int64)),
            h.make_node("Reshape", [p + "tr", p + "flat"], [p + "r2"]),
            h.make_node("Cast", [p + "r2"], [p + "pads"], to=I64)]


def if_folds_model():
    """A run-time If: the then branch reflect-pads x by pads folded from
    constants, the else branch constant-pads by pads from Shape(x)
    arithmetic; both give [1, 24]."""
    then = h.make_graph(stft_pads("t_", 4) + [h.make_node("Pad", ["x", "t_pads"], ["t_out"], mode="reflect")],
                        "then", [], [vi("t_out", F, [1, 24])])
    els = h.make_graph([h.make_node("Shape", ["x"], ["e_shape"]), const("e_one", np.array([1], np.int64)),
                        h.make_node("Gather", ["e_shape", "e_one"], ["e_len"], axis=0),
                        const("e_two", np.array([2], np.int64)),
                        h.make_node("Div", ["e_len", "e_two"], ["e_half"]),
                        const("e_z", np.array([0], np.int64)), const("e_k", np.array([4], np.int64)),
                        h.make_node("Sub", ["e_half", "e_k"], ["e_after"]),
                        h.make_node("Concat", ["e_z", "e_k", "e_z", "e_after"], ["e_pads"], axis=0),
                        h.make_node("Pad", ["x", "e_pads"], ["e_out"], mode="constant")],
                       "else", [], [vi("e_out", F, [1, 24])])
    nodes = [h.make_node("If", ["cond"], ["y"], then_branch=then, else_branch=els)]
    return model(nodes, [vi("cond", B, []), vi("x", F, [1, 16])], [vi("y", F, [1, 24])])


def if_inlined_model():
    """cond = (Shape(x)[1] == 8), known at compile time: the then branch is
    inlined. The else branch reshapes x to 3 elements, which only a run-time
    If would try (and fail) to convert."""
    then = h.make_graph([const("two", np.float32(2)), h.make_node("Mul", ["x", "two"], ["t_out"])],
                        "then", [], [vi("t_out", F, [2, 8])])
    els = h.make_graph([const("s3", np.array([3], np.int64)), h.make_node("Reshape", ["x", "s3"], ["e_out"])],
                       "else", [], [vi("e_out", F, [3])])
    nodes = [h.make_node("Shape", ["x"], ["shape"]), const("one", np.array(1, np.int64)),
             h.make_node("Gather", ["shape", "one"], ["len"], axis=0), const("eight", np.array(8, np.int64)),
             h.make_node("Equal", ["len", "eight"], ["cond"]),
             h.make_node("If", ["cond"], ["y"], then_branch=then, else_branch=els)]
    return model(nodes, [vi("x", F, [2, 8])], [vi("y", F, [2, 8])])


def loop_folds_model():
    """for i < M: v = Pad(v, pads from Shape(v), edge)[:, :3] + Reshape(xT,
    Shape(x)), a run-time loop whose body folds Shape arithmetic (of a body
    argument and of a captured outer value)."""
    body = h.make_graph(
        [h.make_node("Identity", ["c_in"], ["c_out"]),
         h.make_node("Shape", ["v_in"], ["vs"]),
         h.make_node("Sub", ["vs", "vs"], ["zz"]),
         const("s0", np.array([0], np.int64)), const("s1", np.array([1], np.int64)),
         h.make_node("Slice", ["zz", "s0", "s1"], ["zero"]),
         h.make_node("Add", ["zero", "s1"], ["one"]),
         h.make_node("Concat", ["zero", "one", "zero", "zero"], ["pads"], axis=0),
         h.make_node("Pad", ["v_in", "pads"], ["padded"], mode="edge"),
         h.make_node("Slice", ["padded", "zz", "vs"], ["cut"]),
         h.make_node("Transpose", ["x"], ["xt"], perm=[1, 0]),
         h.make_node("Shape", ["x"], ["xs"]),
         h.make_node("Reshape", ["xt", "xs"], ["xr"]),
         h.make_node("Add", ["cut", "xr"], ["v_out"])],
        "body", [vi("i", I64, []), vi("c_in", B, []), vi("v_in", F, [2, 3])],
        [vi("c_out", B, []), vi("v_out", F, [2, 3])])
    nodes = [h.make_node("Loop", ["M", "", "x"], ["v"], body=body)]
    return model(nodes, [vi("M", I64, []), vi("x", F, [2, 3])], [vi("v", F, [2, 3])])


def shape_arith_model():
    """Reshape and Pad whose shape and pads go through ops the importer
    evaluates on constants: Tile, CumSum, ReduceProd, ReduceMax, Gather with
    a negative index, Where, Max, Pow, Mod, Expand."""
    nodes = [h.make_node("Shape", ["x"], ["s"]),                            # [2, 3, 4]
             const("reps", np.array([2], np.int64)), h.make_node("Tile", ["s", "reps"], ["t"]),
             const("ax0", np.array(0, np.int64)),
             h.make_node("CumSum", ["t", "ax0"], ["cs"]),                    # [2, 5, 9, 11, 14, 18]
             const("m1", np.array([-1], np.int64)),
             h.make_node("Gather", ["cs", "m1"], ["last"], axis=0),          # [18]
             h.make_node("ReduceProd", ["s"], ["n"], keepdims=1),            # [24]
             h.make_node("Div", ["n", "last"], ["q"]),                       # [1]
             h.make_node("Max", ["q", "reps"], ["two"]),                     # [2]
             const("neg", np.array([-1], np.int64)),
             h.make_node("Concat", ["two", "neg"], ["shape"], axis=0),       # [2, -1]
             h.make_node("Reshape", ["x", "shape"], ["r"]),                  # [2, 12]
             h.make_node("ReduceMax", ["s"], ["mx"], keepdims=1),           # [4]
             const("three", np.array([3], np.int64)),
             h.make_node("Mod", ["mx", "three"], ["one"]),                   # [1]
             h.make_node("Greater", ["mx", "three"], ["gt"]),
             h.make_node("Where", ["gt", "one", "three"], ["p"]),            # [1]
             const("fl", np.array([2.0], np.float32)),
             h.make_node("Pow", ["fl", "fl"], ["p4"]),                       # [4.0]
             h.make_node("Cast", ["p4"], ["p4i"], to=I64),
             const("z", np.array([0], np.int64)),
             const("shape4", np.array([4], np.int64)),
             h.make_node("Expand", ["z", "shape4"], ["zeros"]),
             h.make_node("Concat", ["zeros", "p", "p4i", "z", "z"], ["pads8"], axis=0),
             const("s0", np.array([2], np.int64)), const("s1", np.array([6], np.int64)),
             h.make_node("Slice", ["pads8", "s0", "s1"], ["pads"]),          # [0, 0, 1, 4]
             h.make_node("Pad", ["r", "pads"], ["y"], mode="constant")]      # [3, 16]
    return model(nodes, [vi("x", F, [2, 3, 4])], [vi("y", F, [3, 16])])


def cases():
    rng = np.random.default_rng(0)
    f = lambda v: np.array(v, dtype=np.float32)
    i64 = lambda v: np.array(v, dtype=np.int64)
    i32 = lambda v: np.array(v, dtype=np.int32)
    b = lambda v: np.array(v, dtype=np.bool_)
    x28 = (rng.standard_normal((2, 8)) * 6).astype(np.float32)
    x35 = (rng.standard_normal((3, 5)) * 2).astype(np.float32)
    x35i = rng.integers(-20, 20, (3, 5)).astype(np.int32)
    x245 = rng.standard_normal((2, 4, 5)).astype(np.float32)
    x234 = rng.standard_normal((2, 3, 4)).astype(np.float32)
    x116 = rng.standard_normal((1, 16)).astype(np.float32)
    x23 = rng.standard_normal((2, 3)).astype(np.float32)
    return [
        ("Clip min = max(x) - 8", clip_floor_model, [("x", {"x": x28}), ("x / 4", {"x": x28 / 4})]),
        ("Clip min/max graph inputs", clip_inputs_model, [
            ("[-0.5, 0.5]", {"x": x35, "lo": f(-0.5), "hi": f(0.5)}),
            ("min > max", {"x": x35, "lo": f(1), "hi": f(-1)})]),
        ("Clip int32 min/max graph inputs", lambda: clip_inputs_model(I32), [
            ("[-3, 7]", {"x": x35i, "lo": i32(-3), "hi": i32(7)})]),
        ("Trilu upper, run-time k", lambda: trilu_model(1), [
            (f"k={k}", {"x": x245, "k": i64(k)}) for k in (-1, 0, 2, 7)]),
        ("Trilu lower, run-time k", lambda: trilu_model(0), [
            (f"k={k}", {"x": x245, "k": i64(k)}) for k in (-2, 1)]),
        ("Pad run-time constant_value", pad_value_model, [
            ("2.5", {"x": x234, "v": f(2.5)}), ("-7", {"x": x234, "v": f(-7)})]),
        ("CumSum run-time axis (exclusive, reverse)", cumsum_model, [
            (f"axis={k}", {"x": x234, "axis": i32(k)}) for k in (0, 1, 2, -2)]),
        ("Dropout run-time ratio", dropout_model, [("ratio 0.3", {"x": x23.repeat(2, 1), "ratio": f(0.3)})]),
        ("shape arithmetic through Tile/CumSum/Reduce/Gather/Where/Pow/Mod", shape_arith_model, [
            ("x", {"x": x234})]),
        ("run-time If, pads folded per branch", if_folds_model, [
            ("then", {"cond": b(True), "x": x116}), ("else", {"cond": b(False), "x": x116})]),
        ("If on Shape, inlined", if_inlined_model, [("x", {"x": x28})]),
        ("run-time Loop, body folds Shape arithmetic", loop_folds_model, [
            ("M=0", {"M": i64(0), "x": x23}), ("M=3", {"M": i64(3), "x": x23})]),
    ]


def bad_models():
    """(label, model, text the error must contain)."""
    reshape = model([const("one", np.array([1], np.int64)),
                     h.make_node("Add", ["s", "one"], ["s1"], name="a0"),
                     h.make_node("Cast", ["s1"], ["shape"], to=I64, name="c1"),
                     h.make_node("Reshape", ["x", "shape"], ["y"], name="reshape")],
                    [vi("x", F, [2, 3]), vi("s", I64, [2])], [vi("y", F, None)])
    pad = model([h.make_node("Abs", ["p"], ["pa"], name="abs_p"),
                 h.make_node("Cast", ["pa"], ["pads"], to=I64, name="cast_p"),
                 h.make_node("Pad", ["x", "pads"], ["y"], name="Pad_3")],
                [vi("x", F, [2, 3]), vi("p", I64, [4])], [vi("y", F, None)])
    dropout = model([h.make_node("Not", ["t"], ["nt"], name="not_t"),
                     h.make_node("Dropout", ["x", "", "nt"], ["y"], name="drop")],
                    [vi("x", F, [2, 3]), vi("t", B, [])], [vi("y", F, [2, 3])])
    then = h.make_graph([h.make_node("Identity", ["x"], ["t_out"])], "then", [], [vi("t_out", F, [2, 3])])
    els = h.make_graph([const("s5", np.array([5], np.int64)), h.make_node("Reshape", ["x", "s5"], ["e_out"])],
                       "else", [], [vi("e_out", F, None)])
    branch = model([h.make_node("Not", ["c"], ["nc"], name="not_c"),
                    h.make_node("If", ["nc"], ["y"], then_branch=then, else_branch=els, name="if0")],
                   [vi("c", B, []), vi("x", F, [2, 3])], [vi("y", F, [2, 3])])
    return [
        ("Reshape shape from graph input", reshape,
         "input 'shape' ('shape') must be a constant (an initializer or computable from constants); "
         "it is computed at run time by Cast 'c1' <- Add 'a0' <- input 's'"),
        ("Pad pads from graph input", pad,
         "node 'Pad_3' (Pad): input 'pads' ('pads') must be a constant (an initializer or computable "
         "from constants); it is computed at run time by Cast 'cast_p' <- Abs 'abs_p' <- input 'p'"),
        ("Dropout run-time training_mode", dropout,
         "node 'drop' (Dropout): input 'training_mode' ('nt') must be a constant (false, or true with a "
         "zero ratio): Dropout in training mode drops at random, which is not supported; it is computed "
         "at run time by Not 'not_t' <- input 't'"),
        ("run-time If with a branch that cannot convert", branch,
         "node 'if0' (If): the else branch cannot be converted (above); the condition ('nc') is "
         "computed at run time by Not 'not_c' <- input 'c'"),
    ]


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True, help="directory with webnnc and webnn-run")
    ap.add_argument("--work", default=None)
    a = ap.parse_args(argv)
    if a.work:
        return check(a.bin, a.work)
    with tempfile.TemporaryDirectory(prefix="webnn-runtime-values-") as work:
        return check(a.bin, work)


def check(bin_dir, work):
    webnnc = os.path.join(bin_dir, "webnnc")
    failures = total = 0
    for mi, (name, make, runs) in enumerate(cases()):
        d = os.path.join(work, f"model{mi}")
        path, wnn, outputs, error = save_and_compile(webnnc, d, make())
        if error:
            print(f"[FAIL] {name}: webnnc: {error}")
            failures += len(runs)
            total += len(runs)
            continue
        if make is if_inlined_model:
            total += 1
            mlir = run([webnnc, "compile", path, "-o", "-", "--emit", "mlir"]).stdout
            inlined = "webnn.if" not in mlir and "webnn.mul" in mlir
            print(f"[{'PASS' if inlined else 'FAIL'}] {name}: no webnn.if in the compiled graph")
            failures += not inlined
        for ri, (label, feeds) in enumerate(runs):
            total += 1
            rd = os.path.join(d, f"run{ri}")
            try:
                ok, worst, messages = ort_compare.run_and_compare(bin_dir, wnn, path, outputs, feeds, rd, TOL, TOL,
                                                                  same_dtype=True)
            except RuntimeError as e:
                print(f"[FAIL] {name} / {label}: {e}")
                failures += 1
                continue
            for msg in messages:
                print("    " + msg)
            print(f"[{'PASS' if ok else 'FAIL'}] {name} / {label}: max |diff| {worst:.1e}")
            failures += not ok
    for bi, (label, m, want) in enumerate(bad_models()):
        total += 1
        path = os.path.join(work, f"bad{bi}.onnx")
        onnx.save(m, path)
        r = run([webnnc, "compile", path, "-o", os.path.join(work, f"bad{bi}.wnn")])
        ok = r.returncode == 1 and want in r.stderr
        print(f"[{'PASS' if ok else 'FAIL'}] bad input: {label}: exit {r.returncode}: {r.stderr.strip()}")
        failures += not ok
    print(f"{total - failures} of {total} pass")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
