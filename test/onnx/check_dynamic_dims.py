#!/usr/bin/python3
"""Dynamic dimensions through one ONNX op at a time: each small model takes
x [1, seq, 8] (or ids [1, seq]) with `seq` a dim_param, is compiled ONCE with
`webnnc compile --dynamic-dim seq=16` (attention with a past also
past=31), and the artifact is run at seq 3 and 16 (with a past: three
(seq, past) points) through webnn-run and ONNX Runtime (rtol 1e-4, atol
1e-5).

UNSUPPORTED lists the forms webnnc still refuses with dynamic dimensions;
each must fail to compile with the error named there (one clear message, no
crash), so that a form that starts working, or starts failing differently,
is noticed.

  check_dynamic_dims.py --bin BUILD/bin [--work DIR]
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper, numpy_helper

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import ort_compare  # noqa: E402

H = 8
SEQ_MAX = 16
SEQ_LENGTHS = (3, 16)
BIG = 2 ** 62  # "to the end" in Slice


def rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def init(name, value):
    return numpy_helper.from_array(np.asarray(value), name)


def i64(*v):
    return np.array(v, np.int64)


def vi(name, shape=(1, "seq", H), elem=T.FLOAT):
    return helper.make_tensor_value_info(name, elem, list(shape))


N = helper.make_node
CASES = {}


def case(name, nodes, inits=(), inputs=None, feeds=None, opset=17, dims=None, points=None):
    """feeds: {input name: sizes -> array}, sizes a {dim_param: size} dict;
    inputs default to x [1, seq, 8] (random). dims: {dim_param: max} kept
    dynamic (default seq <= 16); points: the sizes to run at."""
    CASES[name] = dict(nodes=nodes, inits=list(inits), inputs=inputs or [vi("x")], feeds=feeds or {}, opset=opset,
                       dims=dims or {"seq": SEQ_MAX}, points=points or [{"seq": s} for s in SEQ_LENGTHS])


case("Relu", [N("Relu", ["x"], ["y"])])
case("Add_broadcast", [N("Add", ["x", "b"], ["y"])], [init("b", rand(H))])
case("MatMul", [N("MatMul", ["x", "w"], ["y"])], [init("w", rand(H, 4))])
case("Softmax_last_axis", [N("Softmax", ["x"], ["y"], axis=-1)])
case("Softmax_seq_axis", [N("Softmax", ["x"], ["y"], axis=1)])
case("LayerNormalization", [N("LayerNormalization", ["x", "g", "b"], ["y"], axis=-1)],
     [init("g", rand(H)), init("b", rand(H, seed=1))])
case("ReduceMean_seq_axis", [N("ReduceMean", ["x"], ["y"], axes=[1])])
case("Transpose", [N("Transpose", ["x"], ["y"], perm=[0, 2, 1])])
case("Concat_seq_axis", [N("Concat", ["x", "x"], ["y"], axis=1)])
case("Split_last_axis", [N("Split", ["x", "sp"], ["y", "z"], axis=2)], [init("sp", i64(3, 5))])
case("Gather_embedding", [N("Gather", ["e", "ids"], ["y"], axis=0)], [init("e", rand(20, H))],
     [vi("ids", (1, "seq"), T.INT64)], {"ids": lambda z: (np.arange(z["seq"]) % 20).reshape(1, z["seq"])})
case("Where_bool_mask", [N("Where", ["m", "x", "z"], ["y"])], [init("z", np.zeros(1, np.float32))],
     [vi("m", elem=T.BOOL), vi("x")], {"m": lambda z: np.arange(z["seq"] * H).reshape(1, z["seq"], H) % 3 == 0})
case("Pad_seq_axis", [N("Pad", ["x", "p"], ["y"])], [init("p", i64(0, 1, 0, 0, 2, 0))])
case("CumSum_seq_axis", [N("CumSum", ["x", "a"], ["y"])], [init("a", np.array(1, np.int64))])
# Through webnn.reshape with one dynamic newShape value.
case("Reshape_minus_one", [N("Reshape", ["x", "s"], ["y"])], [init("s", i64(1, -1, 2, 4))])
case("Reshape_zero_copies", [N("Reshape", ["x", "s"], ["y"])], [init("s", i64(0, 0, 2, 4))])
case("Reshape_zero_and_minus_one", [N("Reshape", ["x", "s"], ["y"])], [init("s", i64(0, 0, 2, -1))])
case("Unsqueeze", [N("Unsqueeze", ["x", "a"], ["y"])], [init("a", i64(1))])
case("Squeeze", [N("Squeeze", ["x", "a"], ["y"])], [init("a", i64(0))])
case("Flatten", [N("Flatten", ["x"], ["y"], axis=2)])
case("Conv1d_over_seq", [N("Transpose", ["x"], ["t"], perm=[0, 2, 1]), N("Conv", ["t", "w"], ["y"], pads=[1, 1])],
     [init("w", rand(4, H, 3))])
case("InstanceNormalization", [N("Transpose", ["x"], ["t"], perm=[0, 2, 1]),
                               N("InstanceNormalization", ["t", "g", "b"], ["y"])],
     [init("g", rand(H)), init("b", rand(H, seed=1))])
case("Heads_split_and_merge", [N("Reshape", ["x", "s"], ["h"]), N("Transpose", ["h"], ["t"], perm=[0, 2, 1, 3]),
                               N("Transpose", ["t"], ["u"], perm=[0, 2, 1, 3]), N("Reshape", ["u", "s2"], ["y"])],
     [init("s", i64(1, -1, 2, 4)), init("s2", i64(1, -1, H))])
# Through webnn.slice with a `to the end` size on the dynamic axis.
case("Slice_static_axis", [N("Slice", ["x", "st", "en", "ax"], ["y"])], [init("st", i64(1)), init("en", i64(5)),
                                                                          init("ax", i64(2))])
case("Slice_seq_last_row", [N("Slice", ["x", "st", "en", "ax"], ["y"])],
     [init("st", i64(-1)), init("en", i64(BIG)), init("ax", i64(1))])
case("Slice_seq_from_end_window_and_last_axis", [N("Slice", ["x", "st", "en", "ax"], ["y"])],
     [init("st", i64(-3, 2)), init("en", i64(-1, 7)), init("ax", i64(1, 2))])
case("Expand_keeps_dynamic", [N("Unsqueeze", ["x", "a"], ["u"]), N("Expand", ["u", "s"], ["y"])],
     [init("a", i64(1)), init("s", i64(1, 3, 1, 1))])
case("Gather_seq_first", [N("Gather", ["x", "i"], ["y"], axis=1)], [init("i", i64(0, 2))])
case("Gather_seq_last", [N("Gather", ["x", "i"], ["y"], axis=1)], [init("i", np.array(-1, np.int64))])
case("Softmax_opset11_coerced", [N("Softmax", ["x"], ["y"], axis=1)], opset=11)
case("DepthToSpace_dynamic_width", [N("DepthToSpace", ["x"], ["y"], blocksize=2)], [], [vi("x", (1, 4, 2, "seq"))],
     {"x": lambda z: rand(1, 4, 2, z["seq"])})
case("TopK_last_axis", [N("TopK", ["x", "k"], ["y", "i"], axis=-1)], [init("k", i64(3))])
case("Slice_seq_from_start_to_end", [N("Slice", ["x", "st", "en", "ax"], ["y"])],
     [init("st", i64(1)), init("en", i64(BIG)), init("ax", i64(1))])

# Opset-23 Attention: heads split and merged by reshapes, KV heads repeated by
# a gather, the causal mask computed from position ramps (with a past: T =
# past + seq, bottom-right aligned as ONNX Runtime does).
kv = lambda n, seed: (lambda z: rand(1, z["seq"], n, seed=seed + z["seq"]))
case("Attention_gqa", [N("Attention", ["x", "k", "v"], ["y"], q_num_heads=2, kv_num_heads=1)], [],
     [vi("x"), vi("k", (1, "seq", 4)), vi("v", (1, "seq", 4))], {"k": kv(4, 1), "v": kv(4, 2)}, opset=23)
case("Attention_causal", [N("Attention", ["x", "k", "v"], ["y"], q_num_heads=2, kv_num_heads=2, is_causal=1)], [],
     [vi("x"), vi("k"), vi("v")], {"k": kv(H, 1), "v": kv(H, 2)}, opset=23)
case("Attention_causal_past", [N("Attention", ["x", "k", "v", "", "pk", "pv"], ["y", "present_k", "present_v"],
                                 q_num_heads=2, kv_num_heads=1,
                                 is_causal=1)], [],
     [vi("x"), vi("k", (1, "seq", 4)), vi("v", (1, "seq", 4)), vi("pk", (1, 1, "past", 4)),
      vi("pv", (1, 1, "past", 4))],
     {"k": kv(4, 1), "v": kv(4, 2), "pk": lambda z: rand(1, 1, z["past"], 4, seed=3),
      "pv": lambda z: rand(1, 1, z["past"], 4, seed=4)},
     opset=23, dims={"seq": SEQ_MAX, "past": 31}, points=[{"seq": 3, "past": 5}, {"seq": 1, "past": 9},
                                                           {"seq": 16, "past": 31}])

# Reshape targets computed from Shape of the dynamic tensor, as exporters
# write them: the shape value's entries are followed through Gather, Slice,
# Squeeze/Unsqueeze, Cast, Reshape, Concat, and Add / Mul (positive
# operands); static entries fold to constants (so arithmetic on them works),
# and the one dynamic entry becomes webnn.reshape's inferred size.
case("Reshape_from_Shape_slice_concat", [N("Shape", ["x"], ["sh"]), N("Slice", ["sh", "st", "en"], ["s2"]),
                                         N("Concat", ["s2", "tail"], ["s"], axis=0), N("Reshape", ["x", "s"], ["y"])],
     [init("st", i64(0)), init("en", i64(2)), init("tail", i64(2, 4))])
case("Reshape_from_Shape_gather_unsqueeze_concat",
     [N("Shape", ["x"], ["sh"]), N("Gather", ["sh", "i0"], ["b"], axis=0), N("Gather", ["sh", "i1"], ["n"], axis=0),
      N("Unsqueeze", ["b", "a0"], ["bu"]), N("Unsqueeze", ["n", "a0"], ["nu"]),
      N("Concat", ["bu", "nu", "heads", "hd"], ["s"], axis=0), N("Reshape", ["x", "s"], ["h"]),
      N("Transpose", ["h"], ["y"], perm=[0, 2, 1, 3])],
     [init("i0", np.array(0, np.int64)), init("i1", np.array(1, np.int64)), init("a0", i64(0)),
      init("heads", i64(2)), init("hd", i64(4))])
case("Reshape_from_Shape_static_entry_arithmetic",  # head_dim = Shape(x)[2] / 2, folded
     [N("Shape", ["x"], ["sh"]), N("Gather", ["sh", "i2"], ["d"], axis=0), N("Div", ["d", "two"], ["hd"]),
      N("Unsqueeze", ["hd", "a0"], ["hdu"]), N("Slice", ["sh", "st", "en"], ["bs"]),
      N("Concat", ["bs", "hdu", "two1"], ["s"], axis=0), N("Reshape", ["x", "s"], ["y"])],
     [init("i2", np.array(2, np.int64)), init("two", np.array(2, np.int64)), init("a0", i64(0)),
      init("st", i64(0)), init("en", i64(2)), init("two1", i64(2))])
case("Reshape_from_Shape_cast_squeeze_negative_slice",  # entries through Cast, Slice(-2, -1), Squeeze, Unsqueeze
     [N("Shape", ["x"], ["sh"]), N("Cast", ["sh"], ["sh32"], to=T.INT32), N("Slice", ["sh32", "m2", "m1"], ["n1"]),
      N("Squeeze", ["n1", "a0"], ["n"]), N("Cast", ["n"], ["n64"], to=T.INT64), N("Unsqueeze", ["n64", "a0"], ["nu"]),
      N("Concat", ["nu", "rest"], ["s"], axis=0), N("Reshape", ["x", "s"], ["y"])],
     [init("m2", i64(-2)), init("m1", i64(-1)), init("a0", i64(0)), init("rest", i64(H))])
case("Reshape_from_Shape_merge_heads_opset11",  # Unsqueeze's axes as an attribute
     [N("Reshape", ["x", "split"], ["h"]), N("Shape", ["h"], ["sh"]), N("Gather", ["sh", "i1"], ["n"], axis=0),
      N("Unsqueeze", ["n"], ["nu"], axes=[0]), N("Concat", ["one", "nu", "d"], ["s"], axis=0),
      N("Reshape", ["h", "s"], ["y"])],
     [init("split", i64(1, -1, 2, 4)), init("i1", np.array(1, np.int64)), init("one", i64(1)), init("d", i64(H))],
     opset=11)

case("Reshape_from_Shape_products_of_dims",  # [batch * seq * 2, 4]: Mul of entries and a constant
     [N("Shape", ["x"], ["sh"]), N("Gather", ["sh", "i0"], ["b"], axis=0), N("Gather", ["sh", "i1"], ["n"], axis=0),
      N("Mul", ["b", "n"], ["bn"]), N("Mul", ["bn", "two"], ["bn2"]), N("Unsqueeze", ["bn2", "a0"], ["r"]),
      N("Concat", ["r", "four"], ["s"], axis=0), N("Reshape", ["x", "s"], ["y"])],
     [init("i0", np.array(0, np.int64)), init("i1", np.array(1, np.int64)), init("two", np.array(2, np.int64)),
      init("a0", i64(0)), init("four", i64(4))])
case("Reshape_from_Shape_sum_of_dims",  # Concat(x, x) on seq, target [1, seq + seq, 8]
     [N("Concat", ["x", "x"], ["xx"], axis=1), N("Shape", ["x"], ["sh"]), N("Slice", ["sh", "st", "en"], ["n"]),
      N("Add", ["n", "n"], ["n2"]), N("Concat", ["one", "n2", "d"], ["s"], axis=0), N("Reshape", ["xx", "s"], ["y"])],
     [init("st", i64(1)), init("en", i64(2)), init("one", i64(1)), init("d", i64(H))])

# Forms that still need static shapes, and the error each gives.
UNSUPPORTED = {
    "Reshape_from_Shape_two_dynamic_entries": (
        "2 of its entries are known only at run time: WebNN's reshape infers one",
        [N("Shape", ["x"], ["sh"]), N("Slice", ["sh", "st", "en"], ["s2"]),
         N("Concat", ["s2", "tail"], ["s"], axis=0), N("Reshape", ["x", "s"], ["y"])],
        [init("st", i64(0)), init("en", i64(2)), init("tail", i64(2, 4))],
        [vi("x", ("batch", "seq", H))], ["--dynamic-dim", "batch=2"]),
    "Reshape_from_Shape_dynamic_entry_and_minus_one": (
        "1 of its entries are known only at run time besides a -1",
        [N("Shape", ["x"], ["sh"]), N("Slice", ["sh", "st", "en"], ["s2"]),
         N("Concat", ["s2", "tail"], ["s"], axis=0), N("Reshape", ["x", "s"], ["y"])],
        [init("st", i64(0)), init("en", i64(2)), init("tail", i64(-1, 4))]),
    "Reshape_from_Shape_division_of_dynamic_entry": (
        "so Div cannot use it",
        [N("Shape", ["x"], ["sh"]), N("Gather", ["sh", "i1"], ["n"], axis=0), N("Div", ["n", "two"], ["n2"]),
         N("Unsqueeze", ["n2", "a0"], ["nu"]), N("Concat", ["one", "nu", "four"], ["s"], axis=0),
         N("Reshape", ["x", "s"], ["y"])],
        [init("i1", np.array(1, np.int64)), init("two", np.array(2, np.int64)), init("a0", i64(0)),
         init("one", i64(1)), init("four", i64(4))]),
    "Slice_seq_first_rows": ("along dynamic dimension 1",
                             [N("Slice", ["x", "st", "en", "ax"], ["y"])],
                             [init("st", i64(0)), init("en", i64(2)), init("ax", i64(1))]),
    "Expand_dynamic_to_static": ("Expand of dynamic dimension 1 to size 4 is not supported",
                                 [N("Expand", ["x", "s"], ["y"])], [init("s", i64(1, 4, 8))]),
    "Split_dynamic_axis": ("Split along dynamic dimension 1 is not supported",
                           [N("Split", ["x"], ["y", "z"], axis=1)], []),
    "Resize_dynamic": ("Resize of a tensor with dynamic dimensions [1, ?, 8] is not supported",
                       [N("Resize", ["x", "", "sc"], ["y"], mode="nearest")],
                       [init("sc", np.array([1, 1, 2], np.float32))]),
    "LSTM_dynamic_sequence": ("a dynamic sequence length is not supported",
                              [N("Transpose", ["x"], ["t"], perm=[1, 0, 2]),
                               N("LSTM", ["t", "W", "R"], ["y"], hidden_size=4)],
                              [init("W", rand(1, 16, H)), init("R", rand(1, 16, 4))]),
    "EyeLike_dynamic": ("needs a constant of shape [?, 8], which depends on a dynamic dimension",
                        [N("Squeeze", ["x", "a"], ["s"]), N("EyeLike", ["s"], ["y"])], [init("a", i64(0))]),
    "Range_from_Shape": ("so Range cannot use it",
                         [N("Shape", ["x"], ["sh"]), N("Gather", ["sh", "one"], ["n"], axis=0),
                          N("Range", ["z", "n", "o"], ["y"])],
                         [init("one", np.array(1, np.int64)), init("z", np.array(0, np.int64)),
                          init("o", np.array(1, np.int64))]),
}


def build(path, nodes, inits, inputs, opset):
    graph = helper.make_graph(nodes, "dyn", inputs, [helper.make_tensor_value_info("y", T.FLOAT, None)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 10 if opset >= 23 else 8
    onnx.save(model, path)


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--work", default=None)
    a = ap.parse_args(argv)
    work = a.work or tempfile.mkdtemp(prefix="webnn-dyn-")
    failures = 0
    for name, c in CASES.items():
        d = os.path.join(work, name)
        os.makedirs(d, exist_ok=True)
        model, wnn = os.path.join(d, "model.onnx"), os.path.join(d, "model.wnn")
        build(model, c["nodes"], c["inits"], c["inputs"], c["opset"])
        flags = [f for k, m in c["dims"].items() for f in ("--dynamic-dim", f"{k}={m}")]
        try:
            ort_compare.compile_model(a.bin, model, wnn, flags)
        except RuntimeError as e:
            print(f"[FAIL] {name}: {e}")
            failures += 1
            continue
        worst, bad = 0.0, []
        for z in c["points"]:
            label = ", ".join(f"{k}={v}" for k, v in z.items())
            r = os.path.join(d, label.replace(", ", "_").replace("=", ""))
            os.makedirs(r, exist_ok=True)
            feeds = {i.name: (c["feeds"][i.name](z) if i.name in c["feeds"] else rand(1, z["seq"], H, seed=z["seq"]))
                     for i in c["inputs"]}
            try:
                ort_compare.run_both(a.bin, wnn, model, feeds, r)
            except RuntimeError as e:
                bad.append(f"{label}: {e}")
                continue
            ok, w, messages = ort_compare.compare(["y"], r, 1e-4, 1e-5, same_dtype=True)
            worst = max(worst, w)
            if not ok:
                bad.append(f"{label}: max |diff| {w:.2e} {' '.join(messages)}")
        points = "; ".join(", ".join(f"{k}={v}" for k, v in z.items()) for z in c["points"])
        print(f"[{'FAIL' if bad else 'PASS'}] {name}: at {points}: max |diff| {worst:.2e}"
              + ("".join("\n    " + b for b in bad)))
        failures += bool(bad)
    for name, (want, nodes, inits, *more) in UNSUPPORTED.items():
        inputs, flags = (more + [[vi("x")], []])[:2] if len(more) < 2 else more
        d = os.path.join(work, name)
        os.makedirs(d, exist_ok=True)
        model = os.path.join(d, "model.onnx")
        build(model, nodes, inits, inputs, 17)
        r = subprocess.run([os.path.join(a.bin, "webnnc"), "compile", model, "-o", os.path.join(d, "model.wnn"),
                            "--dynamic-dim", f"seq={SEQ_MAX}"] + flags, capture_output=True, text=True)
        errors = [l for l in r.stderr.splitlines() if "error:" in l]
        ok = r.returncode == 1 and len(errors) == 1 and want in errors[0]
        print(f"[{'PASS' if ok else 'FAIL'}] {name} (unsupported): "
              + (f"refused: {errors[0].split('error: ', 1)[1][:140]}" if ok else
                 f"expected one error naming '{want}', got exit {r.returncode}: {r.stderr.strip()[-300:]}"))
        failures += not ok
    total = len(CASES) + len(UNSUPPORTED)
    print(f"{total - failures} of {total} pass ({len(CASES)} models run at 2-3 sizes from one artifact each, "
          f"{len(UNSUPPORTED)} refused as expected; work dir {work})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
