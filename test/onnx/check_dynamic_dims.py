#!/usr/bin/python3
"""Dynamic dimensions through one ONNX op at a time: each small model takes
x [1, seq, 8] (or ids [1, seq]) with `seq` a dim_param, is compiled ONCE with
`webnnc compile --dynamic-dim seq=16` (attention with a past also
past=31), and the artifact is run at seq 3 and 16 (with a past: three
(seq, past) points) through webnn-run and ONNX Runtime (rtol 1e-4, atol
1e-5).

Cases with a `batch` dimension too (batch=3) run at (1, 3) and (3, 16).

UNSUPPORTED lists the forms webnnc still refuses with dynamic dimensions;
each must fail to compile with the error named there (one clear message, no
crash), so that a form that starts working, or starts failing differently,
is noticed.

Then a GPT-2-style decoder block and a BERT-style encoder exported by
torch.onnx with dynamic batch and sequence (export_transformer_blocks.py)
are compiled once each with --dynamic-dim batch=4 --dynamic-dim seq=16 and
compared with ONNX Runtime at (batch, seq) = (1, 1) and (3, 11).

  check_dynamic_dims.py --bin BUILD/bin [--work DIR] [-j N]
"""
import argparse
import concurrent.futures
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper, numpy_helper

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
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


# Several dynamic entries and the ops that build tensors from shape values
# (exporters' attention, position ids and causal masks). Each entry follows
# the dynamic dimensions as an affine expression (seq - seq is 0, seq - 1
# stays one); a Reshape keeps each dynamic entry at the input's index;
# Range, ConstantOfShape, Expand and Slice take their sizes from tensors
# that carry them; other ops read the entries as computed values.
BS = dict(dims={"batch": 3, "seq": SEQ_MAX}, points=[{"batch": 1, "seq": 3}, {"batch": 3, "seq": 16}])
case("Reshape_from_Shape_two_dynamic_entries",  # [batch, seq, 2, 4] over [batch, seq, 8]
     [N("Shape", ["x"], ["sh"]), N("Slice", ["sh", "st", "en"], ["s2"]),
      N("Concat", ["s2", "tail"], ["s"], axis=0), N("Reshape", ["x", "s"], ["y"])],
     [init("st", i64(0)), init("en", i64(2)), init("tail", i64(2, 4))], [vi("x", ("batch", "seq", H))], **BS)
case("Reshape_heads_merge_two_dynamic_entries",  # [b, s, 2, 4] -> transpose -> back to [b, s, 8]
     [N("Shape", ["x"], ["sh"]), N("Gather", ["sh", "i0"], ["b"], axis=0), N("Gather", ["sh", "i1"], ["n"], axis=0),
      N("Unsqueeze", ["b", "a0"], ["bu"]), N("Unsqueeze", ["n", "a0"], ["nu"]),
      N("Concat", ["bu", "nu", "heads", "hd"], ["s"], axis=0), N("Reshape", ["x", "s"], ["h"]),
      N("Transpose", ["h"], ["t"], perm=[0, 2, 1, 3]), N("Transpose", ["t"], ["u"], perm=[0, 2, 1, 3]),
      N("Shape", ["u"], ["su"]), N("Slice", ["su", "z", "two"], ["bs"]), N("Concat", ["bs", "d"], ["s2"], axis=0),
      N("Reshape", ["u", "s2"], ["y"])],
     [init("i0", np.array(0, np.int64)), init("i1", np.array(1, np.int64)), init("a0", i64(0)),
      init("heads", i64(2)), init("hd", i64(4)), init("z", i64(0)), init("two", i64(2)), init("d", i64(H))],
     [vi("x", ("batch", "seq", H))], **BS)
case("Reshape_from_Shape_dynamic_entry_and_minus_one",  # [1, seq, -1, 4]: the -1 is 2
     [N("Shape", ["x"], ["sh"]), N("Slice", ["sh", "st", "en"], ["s2"]),
      N("Concat", ["s2", "tail"], ["s"], axis=0), N("Reshape", ["x", "s"], ["y"])],
     [init("st", i64(0)), init("en", i64(2)), init("tail", i64(-1, 4))])
case("Reshape_batch_entry_and_minus_one_mask",  # GPT-2's attention_mask.view(batch, -1), then [:, None, None, :]
     [N("Shape", ["m"], ["sh"]), N("Gather", ["sh", "i0"], ["b"], axis=0), N("Unsqueeze", ["b", "a0"], ["bu"]),
      N("Concat", ["bu", "m1"], ["s"], axis=0), N("Reshape", ["m", "s"], ["r"]),
      N("Unsqueeze", ["r", "a12"], ["u"]), N("Cast", ["u"], ["f"], to=T.FLOAT),
      N("Transpose", ["x"], ["xt"], perm=[0, 2, 1]), N("Unsqueeze", ["xt", "a1"], ["x4"]),
      N("Add", ["x4", "f"], ["y"])],
     [init("i0", np.array(0, np.int64)), init("a0", i64(0)), init("m1", i64(-1)), init("a12", i64(1, 2)),
      init("a1", i64(1))],
     [vi("x", ("batch", "seq", H)), vi("m", ("batch", "seq"), T.INT64)],
     {"m": lambda z: (np.arange(z["batch"] * z["seq"]).reshape(z["batch"], z["seq"]) % 3 > 0).astype(np.int64)},
     **BS)
case("Reshape_from_Shape_exact_division",  # [1, (2 * seq) / 2, 16] over Concat(x, x) on seq
     [N("Concat", ["x", "x"], ["xx"], axis=1), N("Shape", ["xx"], ["sh"]), N("Gather", ["sh", "i1"], ["n"], axis=0),
      N("Div", ["n", "two"], ["n2"]), N("Unsqueeze", ["n2", "a0"], ["nu"]),
      N("Concat", ["one", "nu", "w"], ["s"], axis=0), N("Reshape", ["xx", "s"], ["y"])],
     [init("i1", np.array(1, np.int64)), init("two", np.array(2, np.int64)), init("a0", i64(0)),
      init("one", i64(1)), init("w", i64(2 * H))])
case("Range_from_Shape",  # position ids: Range(0, seq) added along seq
     [N("Shape", ["x"], ["sh"]), N("Gather", ["sh", "one"], ["n"], axis=0), N("Range", ["z", "n", "o"], ["r"]),
      N("Cast", ["r"], ["rf"], to=T.FLOAT), N("Unsqueeze", ["rf", "a"], ["ru"]), N("Add", ["x", "ru"], ["y"])],
     [init("one", np.array(1, np.int64)), init("z", np.array(0, np.int64)), init("o", np.array(1, np.int64)),
      init("a", i64(0, 2))])
case("Range_past_to_total_gathers_positions",  # Range(past, past + seq) as position ids into a table
     [N("Shape", ["pk"], ["shp"]), N("Gather", ["shp", "two"], ["p"], axis=0), N("Shape", ["x"], ["shx"]),
      N("Gather", ["shx", "one"], ["n"], axis=0), N("Add", ["p", "n"], ["t"]), N("Range", ["p", "t", "o"], ["r"]),
      N("Gather", ["tbl", "r"], ["e"], axis=0), N("Unsqueeze", ["e", "z0"], ["eu"]), N("Add", ["x", "eu"], ["y"])],
     [init("two", np.array(2, np.int64)), init("one", np.array(1, np.int64)), init("o", np.array(1, np.int64)),
      init("tbl", rand(48, H, seed=7)), init("z0", i64(0))],
     [vi("x"), vi("pk", (1, 1, "past", 4))], {"pk": lambda z: rand(1, 1, z["past"], 4, seed=3)},
     dims={"seq": SEQ_MAX, "past": 31}, points=[{"seq": 3, "past": 5}, {"seq": 1, "past": 0},
                                                 {"seq": 16, "past": 31}])
case("Range_minus_one_and_data_division",  # Gather(x, Range(1, seq)); a mask from Range(0, seq - 1) < seq / 2
     [N("Shape", ["x"], ["sh"]), N("Gather", ["sh", "one"], ["n"], axis=0), N("Range", ["o", "n", "o"], ["r"]),
      N("Gather", ["x", "r"], ["g"], axis=1), N("Sub", ["n", "o"], ["nm"]), N("Range", ["z", "nm", "o"], ["r2"]),
      N("Div", ["n", "two"], ["h"]), N("Less", ["r2", "h"], ["lt"]), N("Cast", ["lt"], ["ltf"], to=T.FLOAT),
      N("Unsqueeze", ["ltf", "a"], ["m"]), N("Mul", ["g", "m"], ["y"])],
     [init("one", np.array(1, np.int64)), init("o", np.array(1, np.int64)), init("z", np.array(0, np.int64)),
      init("two", np.array(2, np.int64)), init("a", i64(0, 2))])
case("ConstantOfShape_causal_mask",  # Trilu(ConstantOfShape([seq, seq], 1)) masking x x^T, then Softmax
     [N("Shape", ["x"], ["sh"]), N("Gather", ["sh", "one"], ["n"], axis=0), N("Unsqueeze", ["n", "a0"], ["nu"]),
      N("Concat", ["nu", "nu"], ["ss"], axis=0),
      N("ConstantOfShape", ["ss"], ["ones"], value=helper.make_tensor("v", T.FLOAT, [1], [1.0])),
      N("Trilu", ["ones"], ["tri"], upper=0), N("Cast", ["tri"], ["mask"], to=T.BOOL),
      N("Transpose", ["x"], ["xt"], perm=[0, 2, 1]), N("MatMul", ["x", "xt"], ["sc"]),
      N("Where", ["mask", "sc", "neg"], ["w"]), N("Softmax", ["w"], ["y"], axis=-1)],
     [init("one", np.array(1, np.int64)), init("a0", i64(0)), init("neg", np.array(-1e9, np.float32))])
case("ConstantOfShape_of_whole_shape_int",  # ConstantOfShape(Shape(x)) of int64 7, cast and added
     [N("Shape", ["x"], ["sh"]),
      N("ConstantOfShape", ["sh"], ["c"], value=helper.make_tensor("v", T.INT64, [1], [7])),
      N("Cast", ["c"], ["cf"], to=T.FLOAT), N("Add", ["x", "cf"], ["y"])],
     [init("one", np.array(1, np.int64))], [vi("x", ("batch", "seq", H))], **BS)
case("Expand_constant_to_Shape",  # a [1, 1, 8] bias expanded to Shape(x), mask [b, 1, 1, s] expanded to [b, 1, s, s]
     [N("Shape", ["x"], ["sh"]), N("Expand", ["bias", "sh"], ["e"]), N("Add", ["x", "e"], ["y0"]),
      N("Gather", ["sh", "i0"], ["b"], axis=0), N("Gather", ["sh", "i1"], ["n"], axis=0),
      N("Unsqueeze", ["b", "a0"], ["bu"]), N("Unsqueeze", ["n", "a0"], ["nu"]),
      N("Concat", ["bu", "one", "nu", "nu"], ["s4"], axis=0), N("Unsqueeze", ["m", "a12"], ["m4"]),
      N("Expand", ["m4", "s4"], ["me"]), N("ReduceSum", ["me", "ax23"], ["ms"], keepdims=0),
      N("Cast", ["ms"], ["msf"], to=T.FLOAT), N("Unsqueeze", ["msf", "a2"], ["msu"]),
      N("Add", ["y0", "msu"], ["y"])],
     [init("bias", rand(1, 1, H, seed=5)), init("i0", np.array(0, np.int64)), init("i1", np.array(1, np.int64)),
      init("a0", i64(0)), init("one", i64(1)), init("a12", i64(1, 2)), init("ax23", i64(1, 3)), init("a2", i64(2))],
     [vi("x", ("batch", "seq", H)), vi("m", ("batch", "seq"), T.INT64)],
     {"m": lambda z: (np.arange(z["batch"] * z["seq"]).reshape(z["batch"], z["seq"]) % 4 > 0).astype(np.int64)},
     **BS)
case("Slice_constant_to_seq",  # BERT's position_ids[:, :seq] and GPT-2's bias[:, :, past:seq, :seq] of buffers
     [N("Shape", ["x"], ["sh"]), N("Slice", ["sh", "st1", "en2"], ["n"]),
      N("Slice", ["tbl", "z", "n", "ax"], ["t"]), N("Add", ["x", "t"], ["y0"]),
      N("Sub", ["n", "n"], ["zero"]), N("Slice", ["tri", "zero", "n", "ax"], ["tr"]),
      N("Slice", ["tr", "z", "n", "ax2"], ["tq"]), N("MatMul", ["tq", "y0"], ["y1"]),
      N("Sub", ["n", "three"], ["n3"]), N("Slice", ["tbl", "n3", "n", "ax"], ["last3"]),
      N("ReduceSum", ["last3", "ax"], ["l3"], keepdims=1), N("Add", ["y1", "l3"], ["y"])],
     [init("st1", i64(1)), init("en2", i64(2)), init("z", i64(0)), init("ax", i64(1)), init("ax2", i64(2)),
      init("three", i64(3)), init("tbl", rand(1, 20, H, seed=6)),
      init("tri", np.tril(np.ones((1, 20, 20), np.float32)))])

# Forms that still need static shapes, and the error each gives.
UNSUPPORTED = {
    "Reshape_from_Shape_division_of_dynamic_entry": (
        "entry 1 is (seq) / 2, which is not an affine function of the dynamic dimensions",
        [N("Shape", ["x"], ["sh"]), N("Gather", ["sh", "i1"], ["n"], axis=0), N("Div", ["n", "two"], ["n2"]),
         N("Unsqueeze", ["n2", "a0"], ["nu"]), N("Concat", ["one", "nu", "four"], ["s"], axis=0),
         N("Reshape", ["x", "s"], ["y"])],
        [init("i1", np.array(1, np.int64)), init("two", np.array(2, np.int64)), init("a0", i64(0)),
         init("one", i64(1)), init("four", i64(4))]),
    "Reshape_from_Shape_entries_swapped": (
        "entry 0 (seq) is not the input's dimension 0 (batch)",
        [N("Shape", ["x"], ["sh"]), N("Gather", ["sh", "p"], ["s2"], axis=0),
         N("Concat", ["s2", "tail"], ["s"], axis=0), N("Reshape", ["x", "s"], ["y"])],
        [init("p", i64(1, 0)), init("tail", i64(H))],
        [vi("x", ("batch", "seq", H))], ["--dynamic-dim", "batch=3"]),
    "Range_length_not_affine": (
        "its length ceil((seq - (0)) / 2) is not an affine function of the dynamic dimensions",
        [N("Shape", ["x"], ["sh"]), N("Gather", ["sh", "one"], ["n"], axis=0),
         N("Range", ["z", "n", "two"], ["r"]), N("Cast", ["r"], ["y"], to=T.FLOAT)],
        [init("one", np.array(1, np.int64)), init("z", np.array(0, np.int64)),
         init("two", np.array(2, np.int64))]),
    "Range_to_half_seq": (
        "input 'h' (computed from the shape of 'x') decides a size and is (seq) / 2, which is not an affine function",
        [N("Shape", ["x"], ["sh"]), N("Gather", ["sh", "one"], ["n"], axis=0), N("Div", ["n", "two"], ["h"]),
         N("Range", ["z", "h", "one"], ["r"]), N("Cast", ["r"], ["y"], to=T.FLOAT)],
        [init("one", np.array(1, np.int64)), init("z", np.array(0, np.int64)),
         init("two", np.array(2, np.int64))]),
    "Slice_constant_past_its_end": (
        "a bound can pass the end, so the length is not an affine function",
        [N("Shape", ["x"], ["sh"]), N("Slice", ["sh", "st", "en"], ["n"]),
         N("Slice", ["tbl", "z", "n", "ax"], ["y"])],
        [init("st", i64(1)), init("en", i64(2)), init("z", i64(0)), init("ax", i64(1)),
         init("tbl", rand(1, 10, H))]),
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
}


def build(path, nodes, inits, inputs, opset):
    graph = helper.make_graph(nodes, "dyn", inputs, [helper.make_tensor_value_info("y", T.FLOAT, None)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 10 if opset >= 23 else 8
    onnx.save(model, path)


def default_feed(vinfo, z):
    """A random float input of the declared shape, dim_params at their sizes in z."""
    shape = [z[d.dim_param] if d.dim_param else d.dim_value for d in vinfo.type.tensor_type.shape.dim]
    return rand(*shape, seed=sum(z.values()))


def run_case(a, work, name, c):
    """Compiles once and runs at each point; returns (ok, report line)."""
    d = os.path.join(work, name)
    os.makedirs(d, exist_ok=True)
    model, wnn = os.path.join(d, "model.onnx"), os.path.join(d, "model.wnn")
    build(model, c["nodes"], c["inits"], c["inputs"], c["opset"])
    flags = [f for k, m in c["dims"].items() for f in ("--dynamic-dim", f"{k}={m}")]
    try:
        ort_compare.compile_model(a.bin, model, wnn, flags)
    except RuntimeError as e:
        return False, f"[FAIL] {name}: {e}"
    worst, bad = 0.0, []
    for z in c["points"]:
        label = ", ".join(f"{k}={v}" for k, v in z.items())
        r = os.path.join(d, label.replace(", ", "_").replace("=", ""))
        os.makedirs(r, exist_ok=True)
        feeds = {i.name: (c["feeds"][i.name](z) if i.name in c["feeds"] else default_feed(i, z)) for i in c["inputs"]}
        try:
            ort_compare.run_both(a.bin, wnn, model, feeds, r, isolated=True)
        except RuntimeError as e:
            bad.append(f"{label}: {e}")
            continue
        ok, w, messages = ort_compare.compare(["y"], r, 1e-4, 1e-5, same_dtype=True)
        worst = max(worst, w)
        if not ok:
            bad.append(f"{label}: max |diff| {w:.2e} {' '.join(messages)}")
    points = "; ".join(", ".join(f"{k}={v}" for k, v in z.items()) for z in c["points"])
    return not bad, (f"[{'FAIL' if bad else 'PASS'}] {name}: at {points}: max |diff| {worst:.2e}"
                     + "".join("\n    " + b for b in bad))


def run_unsupported(a, work, name, entry):
    want, nodes, inits, *more = entry
    inputs, flags = (more + [[vi("x")], []])[:2] if len(more) < 2 else more
    d = os.path.join(work, name)
    os.makedirs(d, exist_ok=True)
    model = os.path.join(d, "model.onnx")
    build(model, nodes, inits, inputs, 17)
    r = subprocess.run([os.path.join(a.bin, "webnnc"), "compile", model, "-o", os.path.join(d, "model.wnn"),
                        "--dynamic-dim", f"seq={SEQ_MAX}"] + flags, capture_output=True, text=True)
    errors = [l for l in r.stderr.splitlines() if "error:" in l]
    ok = r.returncode == 1 and len(errors) == 1 and want in errors[0]
    return ok, (f"[{'PASS' if ok else 'FAIL'}] {name} (unsupported): "
                + (f"refused: {errors[0].split('error: ', 1)[1][:160]}" if ok else
                   f"expected one error naming '{want}', got exit {r.returncode}: {r.stderr.strip()[-300:]}"))


# Exports of a GPT-2-style decoder block and a BERT-style encoder
# (export_transformer_blocks.py), compiled once each with dynamic batch and
# sequence, compared at these (batch, seq) points (rtol 1e-3, atol 1e-4:
# several layers of float32 arithmetic in a different order).
EXPORT_DIMS = {"batch": 4, "seq": 16}
EXPORT_POINTS = [{"batch": 1, "seq": 1}, {"batch": 3, "seq": 11}]


def run_export(a, work, file_name, inputs, outputs):
    d = os.path.join(work, "export_" + file_name.replace(".onnx", ""))
    os.makedirs(d, exist_ok=True)
    model, wnn = os.path.join(work, file_name), os.path.join(d, "model.wnn")
    flags = [f for k, m in EXPORT_DIMS.items() for f in ("--dynamic-dim", f"{k}={m}")]
    try:
        ort_compare.compile_model(a.bin, model, wnn, flags)
    except RuntimeError as e:
        return False, f"[FAIL] export {file_name}: {e}"
    worst, bad = 0.0, []
    for z in EXPORT_POINTS:
        b, n = z["batch"], z["seq"]
        rng = np.random.default_rng(b * 100 + n)
        mask = (rng.random((b, n)) > 0.25).astype(np.int64)
        mask[:, 0] = 1
        all_feeds = {"input_ids": rng.integers(0, 50, (b, n)).astype(np.int64), "attention_mask": mask,
                     "token_type_ids": rng.integers(0, 2, (b, n)).astype(np.int64)}
        r = os.path.join(d, f"batch{b}_seq{n}")
        os.makedirs(r, exist_ok=True)
        try:
            ort_compare.run_both(a.bin, wnn, model, {k: all_feeds[k] for k in inputs}, r, isolated=True)
        except RuntimeError as e:
            bad.append(f"batch={b}, seq={n}: {e}")
            continue
        ok, w, messages = ort_compare.compare(outputs, r, 1e-3, 1e-4, same_dtype=True)
        worst = max(worst, w)
        if not ok:
            bad.append(f"batch={b}, seq={n}: max |diff| {w:.2e} {' '.join(messages)}")
    points = "; ".join(f"batch={z['batch']}, seq={z['seq']}" for z in EXPORT_POINTS)
    return not bad, (f"[{'FAIL' if bad else 'PASS'}] export {file_name} (--dynamic-dim batch=4 seq=16): at {points}: "
                     f"max |diff| {worst:.2e}" + "".join("\n    " + x for x in bad))


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--work", default=None)
    ap.add_argument("-j", type=int, default=3, help="cases at a time (each mostly waits on subprocesses)")
    a = ap.parse_args(argv)
    work = a.work or tempfile.mkdtemp(prefix="webnn-dyn-")
    os.makedirs(work, exist_ok=True)
    try:
        import export_transformer_blocks  # torch: imported here, so the rest runs without it
    except ImportError as e:
        print(f"[SKIP] torch exports: {e} (Debian's python3-torch provides it)")
        exports = {}
    else:
        exports = export_transformer_blocks.export(work)
    jobs = [lambda n=n, c=c: run_case(a, work, n, c) for n, c in CASES.items()]
    jobs += [lambda n=n, e=e: run_unsupported(a, work, n, e) for n, e in UNSUPPORTED.items()]
    jobs += [lambda f=f, io=io: run_export(a, work, f, *io) for f, io in exports.items()]
    failures = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.j)) as pool:
        for ok, line in pool.map(lambda job: job(), jobs):
            print(line, flush=True)
            failures += not ok
    total = len(jobs)
    print(f"{total - failures} of {total} pass ({len(CASES)} models run at 2-3 sizes from one artifact each, "
          f"{len(UNSUPPORTED)} refused as expected, {len(exports)} torch exports at {len(EXPORT_POINTS)} "
          f"(batch, seq) points; work dir {work})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
