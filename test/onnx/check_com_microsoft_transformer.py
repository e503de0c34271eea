#!/usr/bin/python3
"""The com.microsoft ops of ONNX Runtime's transformer optimizer (Attention,
MultiHeadAttention, DecoderMaskedMultiHeadAttention, SkipLayerNormalization,
EmbedLayerNormalization, Gelu, BiasGelu, FastGelu, QuickGelu, BiasAdd,
BiasSplitGelu, GroupNorm, SkipGroupNorm, NhwcConv, RelativePositionBias,
GatedRelativePositionBias), one small
model per op and optional-input / mask form, compiled by webnnc, run by
webnn-run and compared with ONNX Runtime (onnxruntime-node, CPU) on the same
inputs: |webnn - ort| <= atol + rtol |ort|, rtol 1e-3, atol 1e-5. Then a
small BERT-like encoder made only of these ops (EmbedLayerNormalization ->
Attention -> SkipLayerNormalization -> MatMul + BiasGelu / FastGelu ->
SkipLayerNormalization) end to end, and one float16 chain (Attention ->
SkipLayerNormalization -> FastGelu) against ORT's float32 run of the same
values (ORT's CPU has no float16 kernels for them), rtol 1e-2.

ORT's CPU provider has no kernel for some forms (BiasAdd, BiasSplitGelu,
GroupNorm, SkipGroupNorm, NhwcConv, RelativePositionBias and
GatedRelativePositionBias are CUDA-only; MultiHeadAttention's packed QKV /
packed KV, Attention's 4-D mask, DecoderMaskedMultiHeadAttention's packed
QKV and its past without a shared buffer fail on CPU). For those, ORT runs an
equivalent model instead (the same com.microsoft op on the unpacked or
pre-sliced inputs, or the op's documented formula in standard ONNX ops);
the case's label says "ORT ref: ...". A few forms ONNX Runtime documents
but webnnc refuses must fail to compile with an error naming the node and
input/attribute.

  check_com_microsoft_transformer.py --bin BUILD/bin [--work DIR] [-k SUBSTR]
"""
import argparse
import math
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import ort_compare  # noqa: E402

RTOL, ATOL = 1e-3, 1e-5
MS = "com.microsoft"
ONNX_TYPES = {np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.float16): TensorProto.FLOAT16,
              np.dtype(np.int32): TensorProto.INT32, np.dtype(np.int64): TensorProto.INT64}
rng = np.random.default_rng(13)


def f32(*shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def model(path, nodes, feeds, inits, outputs, out_type=TensorProto.FLOAT):
    """Writes a model: `feeds` become graph inputs, `inits` initializers,
    `outputs` (names) of `out_type` (int32 for a mask_index)."""
    inputs = [helper.make_tensor_value_info(k, ONNX_TYPES[v.dtype], v.shape) for k, v in feeds.items()]
    outs = [helper.make_tensor_value_info(n, TensorProto.INT32 if n.endswith("mask_index") else out_type, None)
            for n in outputs]
    graph = helper.make_graph(nodes, "g", inputs, outs,
                              [numpy_helper.from_array(v, k) for k, v in inits.items()])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(MS, 1)])
    m.ir_version = 8
    onnx.save(m, path)


def ms(op, inputs, outputs, **attrs):
    return helper.make_node(op, inputs, outputs, domain=MS, **attrs)


# Each case: name -> fn(dir) returning (model path, ORT model path, feeds, outputs).
CASES = []


def case(name):
    def reg(fn):
        CASES.append((name, fn))
        return fn
    return reg


def single(d, nodes, feeds, inits, outputs, ref=None):
    """The model (and, for forms ORT's CPU lacks, a reference model built by
    ref(path))."""
    path = os.path.join(d, "model.onnx")
    model(path, nodes, feeds, inits, outputs)
    ort_path = path
    if ref:
        ort_path = os.path.join(d, "ref.onnx")
        ref(ort_path)
    return path, ort_path, feeds, outputs


# ------------------------------------------------------------ the GELU family
@case("Gelu")
def _(d):
    return single(d, [ms("Gelu", ["x"], ["y"])], {"x": f32(2, 5, 16, scale=2)}, {}, ["y"])


@case("BiasGelu")
def _(d):
    return single(d, [ms("BiasGelu", ["x", "b"], ["y"])], {"x": f32(2, 5, 16, scale=2)}, {"b": f32(16)}, ["y"])


@case("FastGelu")
def _(d):
    return single(d, [ms("FastGelu", ["x"], ["y"])], {"x": f32(2, 5, 16, scale=3)}, {}, ["y"])


@case("FastGelu bias")
def _(d):
    return single(d, [ms("FastGelu", ["x", "b"], ["y"])], {"x": f32(2, 5, 16, scale=3)}, {"b": f32(16)}, ["y"])


@case("QuickGelu default alpha")
def _(d):
    return single(d, [ms("QuickGelu", ["x"], ["y"])], {"x": f32(3, 7, 8, scale=3)}, {}, ["y"])


@case("QuickGelu alpha 1.0")
def _(d):
    return single(d, [ms("QuickGelu", ["x"], ["y"], alpha=1.0)], {"x": f32(3, 7, 8, scale=3)}, {}, ["y"])


def std(op, inputs, outputs, **attrs):
    return helper.make_node(op, inputs, outputs, **attrs)


@case("BiasAdd (ORT ref: Add + Add)")
def _(d):
    feeds = {"x": f32(2, 16, 8), "skip": f32(2, 16, 8)}
    inits = {"b": f32(8)}
    ref = lambda p: model(p, [std("Add", ["x", "b"], ["t"]), std("Add", ["t", "skip"], ["y"])], feeds, inits, ["y"])
    return single(d, [ms("BiasAdd", ["x", "b", "skip"], ["y"])], feeds, inits, ["y"], ref)


def erf_gelu(x, y, prefix):
    """y = 0.5 x (1 + erf(x / sqrt 2)) in standard ops."""
    return [std("Div", [x, prefix + "sqrt2"], [prefix + "a"]), std("Erf", [prefix + "a"], [prefix + "e"]),
            std("Add", [prefix + "e", prefix + "one"], [prefix + "p"]), std("Mul", [x, prefix + "p"], [prefix + "m"]),
            std("Mul", [prefix + "m", prefix + "half"], [y])]


def gelu_consts(prefix):
    return {prefix + "sqrt2": np.array(math.sqrt(2), np.float32), prefix + "one": np.array(1, np.float32),
            prefix + "half": np.array(0.5, np.float32)}


@case("BiasSplitGelu (ORT ref: Add, Split, erf gelu, Mul)")
def _(d):
    feeds, inits = {"x": f32(2, 12, 32, scale=2)}, {"b": f32(32)}

    def ref(p):
        nodes = [std("Add", ["x", "b"], ["s"]), std("Split", ["s"], ["l", "r"], axis=2)]
        nodes += erf_gelu("r", "g", "") + [std("Mul", ["l", "g"], ["y"])]
        model(p, nodes, feeds, {**inits, **gelu_consts("")}, ["y"])
    return single(d, [ms("BiasSplitGelu", ["x", "b"], ["y"])], feeds, inits, ["y"], ref)


def group_norm_ref(p, feeds, inits, groups, eps, swish, channels_last, pre=(), src="x", outputs=("y",)):
    """GroupNorm's formula in standard ops: reshape into groups, normalize,
    per-channel affine, optional swish; of `src`, which `pre` nodes may
    compute (SkipGroupNorm's sum), of X's shape."""
    x = feeds["x"]
    N, C = x.shape[0], x.shape[3] if channels_last else x.shape[1]
    nodes, consts = list(pre), {"eps": np.array(eps, np.float32)}
    if channels_last:
        nodes.append(std("Transpose", [src], ["xt"], perm=[0, 3, 1, 2]))
        src = "xt"
    consts["gshape"] = np.array([N, groups, -1], np.int64)
    consts["xshape"] = np.array([N, C, x.shape[1] if channels_last else x.shape[2],
                                 x.shape[2] if channels_last else x.shape[3]], np.int64)
    consts["cshape"] = np.array([C, 1, 1], np.int64)
    nodes += [std("Reshape", [src, "gshape"], ["g"]),
              std("ReduceMean", ["g"], ["mean"], axes=[2]), std("Sub", ["g", "mean"], ["c"]),
              std("Mul", ["c", "c"], ["c2"]), std("ReduceMean", ["c2"], ["var"], axes=[2]),
              std("Add", ["var", "eps"], ["ve"]), std("Sqrt", ["ve"], ["sd"]), std("Div", ["c", "sd"], ["n"]),
              std("Reshape", ["n", "xshape"], ["n4"]), std("Reshape", ["gamma", "cshape"], ["g3"]),
              std("Reshape", ["beta", "cshape"], ["b3"]), std("Mul", ["n4", "g3"], ["s"]),
              std("Add", ["s", "b3"], ["a"])]
    last = "a"
    if swish:
        nodes += [std("Sigmoid", ["a"], ["sg"]), std("Mul", ["a", "sg"], ["sw"])]
        last = "sw"
    nodes.append(std("Transpose", [last], ["y"], perm=[0, 2, 3, 1]) if channels_last else
                 std("Identity", [last], ["y"]))
    model(p, nodes, feeds, {**inits, **consts}, list(outputs))


def group_norm_case(d, channels_last, swish, groups, shape):
    feeds = {"x": f32(*shape, scale=2) + 1}
    C = shape[3] if channels_last else shape[1]
    inits = {"gamma": f32(C), "beta": f32(C)}
    attrs = dict(groups=groups, epsilon=1e-5, activation=int(swish))
    if not channels_last:
        attrs["channels_last"] = 0
    return single(d, [ms("GroupNorm", ["x", "gamma", "beta"], ["y"], **attrs)], feeds, inits, ["y"],
                  lambda p: group_norm_ref(p, feeds, inits, groups, 1e-5, swish, channels_last))


@case("GroupNorm NHWC (ORT ref: formula in standard ops)")
def _(d):
    return group_norm_case(d, True, False, 4, (2, 5, 6, 16))


@case("GroupNorm NHWC swish (ORT ref: formula in standard ops)")
def _(d):
    return group_norm_case(d, True, True, 8, (1, 4, 4, 32))


@case("GroupNorm NCHW channels_last=0 swish (ORT ref: formula in standard ops)")
def _(d):
    return group_norm_case(d, False, True, 2, (2, 8, 3, 5))


def skip_group_norm_case(d, channels_last, swish, groups, shape, skip_shape, bias=True, sum_out=False):
    feeds = {"x": f32(*shape, scale=2) + 1, "skip": f32(*skip_shape)}
    C = shape[3] if channels_last else shape[1]
    inits = {"gamma": f32(C), "beta": f32(C)}
    if bias:
        inits["bias"] = f32(C)
    attrs = dict(groups=groups, epsilon=1e-5, activation=int(swish))
    if not channels_last:
        attrs["channels_last"] = 0
    outputs = ["y", "ssum"] if sum_out else ["y"]
    node = ms("SkipGroupNorm", ["x", "gamma", "beta", "skip"] + (["bias"] if bias else []), outputs, **attrs)
    # The reference: skip reshaped to broadcast, X + skip (+ bias), then GroupNorm's formula.
    per = [shape[0], 1, 1, C] if channels_last else [shape[0], C, 1, 1]
    consts = {"skshape": np.array(per if len(skip_shape) == 2 else skip_shape, np.int64),
              "bshape": np.array([C] if channels_last else [C, 1, 1], np.int64)}
    pre = [std("Reshape", ["skip", "skshape"], ["sk"]), std("Add", ["x", "sk"], ["s0" if bias else "ssum"])]
    if bias:
        pre += [std("Reshape", ["bias", "bshape"], ["b1"]), std("Add", ["s0", "b1"], ["ssum"])]
    return single(d, [node], feeds, inits, outputs,
                  lambda p: group_norm_ref(p, feeds, {**inits, **consts}, groups, 1e-5, swish, channels_last, pre, "ssum",
                                           outputs))


@case("SkipGroupNorm NHWC skip (N, H, W, C), bias, sum output (ORT ref: Add, Add, formula)")
def _(d):
    return skip_group_norm_case(d, True, False, 4, (2, 5, 6, 16), (2, 5, 6, 16), sum_out=True)


@case("SkipGroupNorm NHWC skip (N, C), swish, no bias (ORT ref: Reshape, Add, formula)")
def _(d):
    return skip_group_norm_case(d, True, True, 8, (2, 4, 4, 32), (2, 32), bias=False)


@case("SkipGroupNorm NHWC skip (N, 1, 1, C), bias, swish, sum output (ORT ref: Add, Add, formula)")
def _(d):
    return skip_group_norm_case(d, True, True, 2, (1, 3, 5, 8), (1, 1, 1, 8), sum_out=True)


@case("SkipGroupNorm NCHW channels_last=0 skip (N, C, H, W), bias (ORT ref: Add, Add, formula)")
def _(d):
    return skip_group_norm_case(d, False, False, 2, (2, 8, 3, 5), (2, 8, 3, 5))


# ------------------------------------------------------------------ NhwcConv
def nhwc_conv_case(d, x_shape, w_oihw, bias=True, **attrs):
    """NhwcConv takes the filter in OHWI (ORT's NHWC fusion transposes the
    OIHW weights); ORT's CPU has no NhwcConv: ORT runs Transpose, Conv with
    the OIHW filter, Transpose."""
    feeds = {"x": f32(*x_shape)}
    w = f32(*w_oihw, scale=0.3)
    inits = {"w": np.ascontiguousarray(w.transpose(0, 2, 3, 1))}
    if bias:
        inits["b"] = f32(w_oihw[0])
    ins = ["x", "w"] + (["b"] if bias else [])

    def ref(p):
        nodes = [std("Transpose", ["x"], ["xt"], perm=[0, 3, 1, 2]),
                 std("Conv", ["xt", "w_oihw"] + (["b"] if bias else []), ["yt"], **attrs),
                 std("Transpose", ["yt"], ["y"], perm=[0, 2, 3, 1])]
        model(p, nodes, feeds, {**{k: v for k, v in inits.items() if k != "w"}, "w_oihw": w}, ["y"])
    return single(d, [ms("NhwcConv", ins, ["y"], **attrs)], feeds, inits, ["y"], ref)


@case("NhwcConv 3x3 pads 1, bias (ORT ref: Transpose, Conv, Transpose)")
def _(d):
    return nhwc_conv_case(d, (2, 7, 6, 8), (16, 8, 3, 3), pads=[1, 1, 1, 1])


@case("NhwcConv 3x3 stride 2, dilations 2, group 2, asymmetric pads, no bias (ORT ref: Transpose, Conv, Transpose)")
def _(d):
    return nhwc_conv_case(d, (1, 11, 9, 8), (6, 4, 3, 3), bias=False, strides=[2, 2], dilations=[2, 2], group=2,
                          pads=[0, 1, 2, 1])


@case("NhwcConv 1x1, auto_pad SAME_UPPER 2x4 kernel, stride 2 (ORT ref: Transpose, Conv, Transpose)")
def _(d):
    return nhwc_conv_case(d, (1, 9, 10, 4), (5, 4, 2, 4), auto_pad="SAME_UPPER", strides=[2, 2])


# ---------------------------------------------------- SkipLayerNormalization
@case("SkipLayerNormalization gamma, beta")
def _(d):
    return single(d, [ms("SkipLayerNormalization", ["x", "s", "g", "b"], ["y"], epsilon=1e-5)],
                  {"x": f32(2, 6, 32), "s": f32(2, 6, 32)}, {"g": f32(32), "b": f32(32)}, ["y"])


@case("SkipLayerNormalization no beta, bias, every output")
def _(d):
    return single(d, [ms("SkipLayerNormalization", ["x", "s", "g", "", "bias"], ["y", "mean", "isd", "sum"],
                         epsilon=1e-5)],
                  {"x": f32(2, 6, 32), "s": f32(2, 6, 32)}, {"g": f32(32), "bias": f32(32)},
                  ["y", "mean", "isd", "sum"])


@case("SkipLayerNormalization gamma, beta, bias, sum output")
def _(d):
    return single(d, [ms("SkipLayerNormalization", ["x", "s", "g", "b", "bias"], ["y", "", "", "sum"])],
                  {"x": f32(1, 5, 16), "s": f32(1, 5, 16)}, {"g": f32(16), "b": f32(16), "bias": f32(16)},
                  ["y", "sum"])


@case("SkipLayerNormalization 2-D input")
def _(d):
    return single(d, [ms("SkipLayerNormalization", ["x", "s", "g", "b"], ["y"], epsilon=1e-6)],
                  {"x": f32(10, 24), "s": f32(10, 24)}, {"g": f32(24), "b": f32(24)}, ["y"])


@case("SkipLayerNormalization skip broadcast (1, S, H)")
def _(d):
    return single(d, [ms("SkipLayerNormalization", ["x", "s", "g", "b"], ["y"])],
                  {"x": f32(3, 4, 16)}, {"s": f32(1, 4, 16), "g": f32(16), "b": f32(16)}, ["y"])


# --------------------------------------------------- EmbedLayerNormalization
def embed_inits(V=30, P=16, T=2, H=32):
    return {"word": f32(V, H), "pos": f32(P, H), "seg": f32(T, H), "gamma": f32(H), "beta": f32(H)}


@case("EmbedLayerNormalization segment, mask -> mask_index, embedding_sum")
def _(d):
    ids = rng.integers(0, 30, (2, 7)).astype(np.int32)
    seg = rng.integers(0, 2, (2, 7)).astype(np.int32)
    mask = np.array([[1] * 7, [1] * 4 + [0] * 3], np.int32)
    node = ms("EmbedLayerNormalization", ["ids", "segids", "word", "pos", "seg", "gamma", "beta", "mask"],
              ["y", "mask_index", "sum"], epsilon=1e-12)
    return single(d, [node], {"ids": ids, "segids": seg, "mask": mask}, embed_inits(), ["y", "mask_index", "sum"])


@case("EmbedLayerNormalization no segment, no mask")
def _(d):
    ids = rng.integers(0, 30, (3, 5)).astype(np.int32)
    inits = embed_inits()
    del inits["seg"]
    node = ms("EmbedLayerNormalization", ["ids", "", "word", "pos", "", "gamma", "beta"], ["y", "mask_index"],
              epsilon=1e-5)
    return single(d, [node], {"ids": ids}, inits, ["y", "mask_index"])


@case("EmbedLayerNormalization position_ids (B, S)")
def _(d):
    ids = rng.integers(0, 30, (2, 6)).astype(np.int32)
    seg = rng.integers(0, 2, (2, 6)).astype(np.int32)
    pids = rng.integers(0, 16, (2, 6)).astype(np.int32)
    node = ms("EmbedLayerNormalization", ["ids", "segids", "word", "pos", "seg", "gamma", "beta", "", "pids"],
              ["y", "mask_index"], epsilon=1e-12)
    return single(d, [node], {"ids": ids, "segids": seg, "pids": pids}, embed_inits(), ["y", "mask_index"])


# ----------------------------------------------------- position biases (T5)
def t5_buckets(S, num_buckets, max_distance, bidirectional):
    """ORT's bucketing of key - query (relative_attn_bias_impl.cu), in
    numpy: float32 logs, truncation toward zero."""
    rel = np.arange(S)[None, :] - np.arange(S)[:, None]
    half = num_buckets // 2 if bidirectional else num_buckets
    out = np.zeros((S, S), np.int64)
    if bidirectional:
        out += np.where(rel > 0, half, 0)
        rel = np.abs(rel)
    else:
        rel = np.where(rel > 0, 0, -rel)
    exact = half // 2
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.log(rel.astype(np.float32) / np.float32(exact)) / np.log(np.float32(max_distance) / np.float32(exact))
        large = exact + (ratio * np.float32(half - exact)).astype(np.int64)
    return out + np.where(rel < exact, rel, np.minimum(large, half - 1))


def relative_position_bias_case(d, S, num_buckets, heads, max_distance, bidirectional):
    """ORT's CPU has no RelativePositionBias: ORT runs Gather of the
    column-major table (reshaped to (heads, buckets)) at buckets computed in
    numpy by the kernel's formula."""
    inits = {"table": f32(num_buckets, heads), "ql": np.array(S, np.int64), "kl": np.array(S, np.int64)}
    node = ms("RelativePositionBias", ["table", "ql", "kl"], ["y"], max_distance=max_distance,
              is_bidirectional=int(bidirectional))

    def ref(p):
        consts = {"table": inits["table"], "tshape": np.array([heads, num_buckets], np.int64),
                  "idx": t5_buckets(S, num_buckets, max_distance, bidirectional),
                  "oshape": np.array([1, heads, S, S], np.int64)}
        nodes = [std("Reshape", ["table", "tshape"], ["t2"]), std("Gather", ["t2", "idx"], ["g"], axis=1),
                 std("Reshape", ["g", "oshape"], ["y"])]
        model(p, nodes, {}, consts, ["y"])
    return single(d, [node], {}, inits, ["y"], ref)


@case("RelativePositionBias bidirectional, 32 buckets, max_distance 128, S 20 (ORT ref: Gather at the kernel's buckets)")
def _(d):
    return relative_position_bias_case(d, 20, 32, 4, 128, True)


@case("RelativePositionBias unidirectional, 32 buckets, max_distance 24, S 40 (ORT ref: Gather at the kernel's buckets)")
def _(d):
    return relative_position_bias_case(d, 40, 32, 3, 24, False)


@case("RelativePositionBias bidirectional, 8 buckets, max_distance 10, S 13 (ORT ref: Gather at the kernel's buckets)")
def _(d):
    return relative_position_bias_case(d, 13, 8, 2, 10, True)


def gated_rpb_case(d, Bt, St, heads, head, Dg):
    """ORT's CPU has no GatedRelativePositionBias: ORT runs its documented
    formula in standard ops."""
    feeds = {"q": f32(Bt, St, heads * head), "rel": f32(1, heads, St, St)}
    inits = {"qb": f32(heads * head), "w": f32(head, Dg, scale=0.5), "b": f32(Dg), "eco": f32(1, heads, 1, 1)}
    node = ms("GatedRelativePositionBias", ["q", "qb", "rel", "w", "b", "eco"], ["y"], num_heads=heads)

    def ref(p):
        consts = {"s4": np.array([Bt, St, heads, head], np.int64), "s5": np.array([Bt, heads, St, 2, Dg // 2], np.int64),
                  "ax": np.array([4], np.int64), "one": np.array(1, np.float32), "two": np.array(2, np.float32)}
        nodes = [std("Add", ["q", "qb"], ["qa"]), std("Reshape", ["qa", "s4"], ["q4"]),
                 std("Transpose", ["q4"], ["qh"], perm=[0, 2, 1, 3]), std("MatMul", ["qh", "w"], ["g0"]),
                 std("Add", ["g0", "b"], ["g1"]), std("Reshape", ["g1", "s5"], ["g5"]),
                 std("ReduceSum", ["g5", "ax"], ["g2"], keepdims=0), std("Sigmoid", ["g2"], ["sg"]),
                 std("Split", ["sg"], ["u", "r"], axis=3), std("Mul", ["r", "eco"], ["re"]),
                 std("Sub", ["re", "one"], ["rm"]), std("Mul", ["u", "rm"], ["ur"]), std("Add", ["ur", "two"], ["gate"]),
                 std("Mul", ["gate", "rel"], ["y"])]
        model(p, nodes, feeds, {**inits, **consts}, ["y"])
    return single(d, [node], feeds, inits, ["y"], ref)


@case("GatedRelativePositionBias B 2, S 6, 4 heads of 8, D 8 (ORT ref: formula in standard ops)")
def _(d):
    return gated_rpb_case(d, 2, 6, 4, 8, 8)


@case("GatedRelativePositionBias B 1, S 5, 2 heads of 16, D 4 (ORT ref: formula in standard ops)")
def _(d):
    return gated_rpb_case(d, 1, 5, 2, 16, 4)


# ----------------------------------------------------------------- Attention
B, S, DIN, NH = 2, 6, 32, 4


def attention_case(d, mask=None, past=None, unidirectional=0, attn_bias=False, bias=True, qkv=None, present=False,
                   ref=None, **attrs):
    hq, hv = (qkv[0], qkv[2]) if qkv else (DIN, DIN)
    inits = {"w": f32(DIN, 2 * hq + hv, scale=0.3)}
    inputs = ["x", "w", "b" if bias else ""]
    if bias:
        inits["b"] = f32(2 * hq + hv, scale=0.3)
    feeds = {"x": f32(B, S, DIN)}
    inputs.append("mask" if mask is not None else "")
    if mask is not None:
        feeds["mask"] = mask
    inputs.append("past" if past is not None else "")
    if past is not None:
        feeds["past"] = f32(2, B, NH, past, hq // NH)
    if attn_bias:
        inputs.append("ab")
        feeds["ab"] = f32(1, NH, S, (past or 0) + S)
    while inputs and inputs[-1] == "":
        inputs.pop()
    outputs = ["y", "present"] if present else ["y"]
    if qkv:
        attrs["qkv_hidden_sizes"] = list(qkv)
    node = ms("Attention", inputs, outputs, num_heads=NH, unidirectional=unidirectional, **attrs)
    path, ort_path, feeds, outputs = single(d, [node], feeds, inits, outputs)
    if not ref:
        return path, ort_path, feeds, outputs
    ort_path = os.path.join(d, "ref.onnx")
    return path, ort_path, feeds, outputs, ref(ort_path, node, feeds, inits, outputs)


@case("Attention no mask (fusedAttention)")
def _(d):
    return attention_case(d)


def zero_bias_ref(p, node, feeds, inits, outputs):
    """ORT's CPU kernel crashes without the optional bias: ORT runs a zero one."""
    n = onnx.NodeProto()
    n.CopyFrom(node)
    n.input[2] = "zero_bias"
    model(p, [n], feeds, {**inits, "zero_bias": np.zeros(inits["w"].shape[1], np.float32)}, outputs)
    return feeds


@case("Attention no bias, (B) mask (ORT ref: zero bias)")
def _(d):
    return attention_case(d, bias=False, mask=np.array([4, 6], np.int32), ref=zero_bias_ref)


@case("Attention mask_index (B) key lengths")
def _(d):
    return attention_case(d, mask=np.array([6, 3], np.int32))


@case("Attention mask_index (2B) end and start positions")
def _(d):
    return attention_case(d, mask=np.array([6, 5, 0, 2], np.int32))


def raw_mask(*shape):
    m = (rng.random(shape) > 0.3).astype(np.int32)
    m[..., 0] = 1
    return m


@case("Attention mask_index (B, T) 0/1")
def _(d):
    return attention_case(d, mask=raw_mask(B, S))


@case("Attention mask_index (B, S, T) 0/1")
def _(d):
    return attention_case(d, mask=raw_mask(B, S, S))


def mask4d_ref(p, node, feeds, inits, outputs):
    """ORT's CPU kernel has no 4-D mask: ORT runs the (B, S, T) rows it
    selects (rows past..past+S-1, columns 0..T-1) as a 3-D mask."""
    past = feeds["past"].shape[3] if "past" in feeds else 0
    f = dict(feeds)
    f["mask"] = np.ascontiguousarray(feeds["mask"][:, 0, past:past + S, :past + S])
    model(p, [node], f, inits, outputs)
    return f


@case("Attention mask_index (B, 1, M, M) with past (ORT ref: the sliced (B, S, T) mask)")
def _(d):
    return attention_case(d, mask=raw_mask(B, 1, 12, 12), past=3, present=True, ref=mask4d_ref)


@case("Attention unidirectional")
def _(d):
    return attention_case(d, unidirectional=1)


@case("Attention unidirectional, (B, T) mask, past -> present")
def _(d):
    return attention_case(d, unidirectional=1, mask=raw_mask(B, 4 + S), past=4, present=True)


@case("Attention past -> present, no mask")
def _(d):
    return attention_case(d, past=5, present=True)


@case("Attention zero-length past (a decoder's first step) -> present, unidirectional, (B, T) mask")
def _(d):
    return attention_case(d, past=0, present=True, unidirectional=1, mask=raw_mask(B, S))


@case("Attention qkv_hidden_sizes (V wider), (B) mask")
def _(d):
    return attention_case(d, qkv=(16, 16, 24), mask=np.array([4, 6], np.int32))


@case("Attention attention_bias")
def _(d):
    return attention_case(d, attn_bias=True)


@case("Attention scale, mask_filter_value, (B, T) mask")
def _(d):
    return attention_case(d, mask=raw_mask(B, S), scale=0.2, mask_filter_value=-50.0)


# -------------------------------------------------------- MultiHeadAttention
L = 5  # key/value length for cross attention


def mha_case(d, q, k=None, v=None, bias=None, mask=None, ab=None, past=None, outputs=("y",), ref=None, **attrs):
    feeds = {"q": q}
    inputs = ["q", "", "", "", "", "", "", ""]
    for i, (name, arr) in enumerate([("k", k), ("v", v), ("bias", bias), ("mask", mask), ("ab", ab)], start=1):
        if arr is not None:
            feeds[name] = arr
            inputs[i] = name
    if past is not None:
        feeds["pk"], feeds["pv"] = past
        inputs[6], inputs[7] = "pk", "pv"
    while inputs[-1] == "":
        inputs.pop()
    node = ms("MultiHeadAttention", inputs, list(outputs), num_heads=NH, **attrs)
    refgen = (lambda p: ref(p, feeds, list(outputs), attrs)) if ref else None
    return single(d, [node], feeds, {}, list(outputs), refgen)


@case("MultiHeadAttention self, no mask (fusedAttention)")
def _(d):
    return mha_case(d, f32(B, S, 32), f32(B, S, 32), f32(B, S, 32))


@case("MultiHeadAttention cross (L != S), bias, V wider")
def _(d):
    return mha_case(d, f32(B, S, 32), f32(B, L, 32), f32(B, L, 48), bias=f32(32 + 32 + 48))


@case("MultiHeadAttention key_padding_mask (B)")
def _(d):
    return mha_case(d, f32(B, S, 32), f32(B, L, 32), f32(B, L, 32), mask=np.array([5, 2], np.int32))


@case("MultiHeadAttention key_padding_mask (B, L) 0/1")
def _(d):
    return mha_case(d, f32(B, S, 32), f32(B, L, 32), f32(B, L, 32), bias=f32(96), mask=raw_mask(B, L))


@case("MultiHeadAttention key_padding_mask (B, S, L) 0/1")
def _(d):
    return mha_case(d, f32(B, S, 32), f32(B, L, 32), f32(B, L, 32), mask=raw_mask(B, S, L))


@case("MultiHeadAttention attention_bias (1, N, S, L)")
def _(d):
    return mha_case(d, f32(B, S, 32), f32(B, L, 32), f32(B, L, 32), ab=f32(1, NH, S, L))


@case("MultiHeadAttention attention_bias (B, N, S, L), scale")
def _(d):
    return mha_case(d, f32(B, S, 32), f32(B, L, 32), f32(B, L, 32), ab=f32(B, NH, S, L), scale=0.3)


@case("MultiHeadAttention past_key/past_value -> present, unidirectional, bias")
def _(d):
    P = 4
    return mha_case(d, f32(B, S, 32), f32(B, S, 32), f32(B, S, 32), bias=f32(96),
                    past=(f32(B, NH, P, 8), f32(B, NH, P, 8)), outputs=("y", "present_key", "present_value"),
                    unidirectional=1)


@case("MultiHeadAttention past + (B, T) mask + attention_bias -> present")
def _(d):
    P = 3
    return mha_case(d, f32(B, S, 32), f32(B, S, 32), f32(B, S, 32), mask=raw_mask(B, P + S),
                    ab=f32(1, NH, S, P + S), past=(f32(B, NH, P, 8), f32(B, NH, P, 8)),
                    outputs=("y", "present_key", "present_value"))


@case("MultiHeadAttention zero-length past_key/past_value -> present, unidirectional")
def _(d):
    return mha_case(d, f32(B, S, 32), f32(B, S, 32), f32(B, S, 32), past=(f32(B, NH, 0, 8), f32(B, NH, 0, 8)),
                    outputs=("y", "present_key", "present_value"), unidirectional=1)


@case("MultiHeadAttention key/value in heads (B, N, L, H) (cross attention cache)")
def _(d):
    return mha_case(d, f32(B, S, 32), f32(B, NH, L, 8), f32(B, NH, L, 8), mask=np.array([5, 3], np.int32))


def unpacked_mha_ref(slots):
    """ORT's CPU has no packed QKV/KV: ORT runs the same op on the slices."""
    def ref(p, feeds, outputs, attrs):
        nodes, consts = [], {}
        names = []
        for i, (src, slot, count) in enumerate(slots):
            shape = feeds[src].shape
            consts[f"st{i}"] = np.array([slot], np.int64)
            consts[f"en{i}"] = np.array([slot + 1], np.int64)
            consts[f"ax{i}"] = np.array([3], np.int64)
            consts[f"sh{i}"] = np.array([shape[0], shape[1], shape[2] * shape[4]], np.int64)
            nodes += [std("Slice", [src, f"st{i}", f"en{i}", f"ax{i}"], [f"s{i}"]),
                      std("Reshape", [f"s{i}", f"sh{i}"], [f"u{i}"])]
            names.append(f"u{i}")
        if len(names) == 2:
            names = ["q"] + names
        rest = ["bias"] if "bias" in feeds else []
        nodes.append(ms("MultiHeadAttention", names + rest, outputs, num_heads=NH, **attrs))
        model(p, nodes, feeds, consts, outputs)
    return ref


@case("MultiHeadAttention packed QKV (B, S, N, 3, H) + bias (ORT ref: unpacked)")
def _(d):
    return mha_case(d, f32(B, S, NH, 3, 8), bias=f32(96),
                    ref=unpacked_mha_ref([("q", 0, 3), ("q", 1, 3), ("q", 2, 3)]))


@case("MultiHeadAttention packed KV (B, L, N, 2, H) (ORT ref: unpacked)")
def _(d):
    return mha_case(d, f32(B, S, 32), f32(B, L, NH, 2, 8), ref=unpacked_mha_ref([("k", 0, 2), ("k", 1, 2)]))


# ------------------------------------------ DecoderMaskedMultiHeadAttention
M_BUF = 7  # the shared KV buffer's rows


def dmmha_case(d, form, psl=3, mask=False, bias=False, ab=False, ref=None, **attrs):
    """One decoding step. form: 'shared' (past_present_share_buffer, a
    run-time past_sequence_length fed as a graph input), 'packed' (the same
    with Q, K, V packed in the query), 'past' (past_key/value concatenated),
    'cross' ((B, N, L, H) key/value)."""
    D = NH * 8
    feeds, ins = {}, [""] * 11
    if form == "packed":
        feeds["q"] = f32(B, 1, 3 * D)
    else:
        feeds["q"] = f32(B, 1, D)
        feeds["k"], feeds["v"] = (f32(B, NH, L, 8), f32(B, NH, L, 8)) if form == "cross" else (f32(B, 1, D), f32(B, 1, D))
        ins[1], ins[2] = "k", "v"
    ins[0] = "q"
    total = L if form == "cross" else psl + 1
    if form in ("shared", "packed", "past"):
        rows = M_BUF if form != "past" else psl
        feeds["pk"], feeds["pv"] = f32(B, NH, rows, 8), f32(B, NH, rows, 8)
        ins[5], ins[6] = "pk", "pv"
    if form in ("shared", "packed"):
        feeds["psl"] = np.array(psl, np.int32)
        ins[7] = "psl"
        attrs["past_present_share_buffer"] = 1
    if mask:
        m = raw_mask(B, total)
        feeds["mask"] = m
        ins[3] = "mask"
    if ab:
        feeds["ab"] = f32(1, NH, 1, total)
        ins[4] = "ab"
    if bias:
        feeds["bias"] = f32(3 * D)
        ins[10] = "bias"
    while ins[-1] == "":
        ins.pop()
    outputs = ["y"] if form == "cross" else ["y", "present_key", "present_value"]
    node = ms("DecoderMaskedMultiHeadAttention", ins, outputs, num_heads=NH, **attrs)
    return single(d, [node], feeds, {}, outputs, (lambda p: ref(p, node, feeds, outputs)) if ref else None)


@case("DecoderMaskedMultiHeadAttention shared buffer, run-time past_sequence_length 3")
def _(d):
    return dmmha_case(d, "shared")


# (past_sequence_length 0 is not compared: ORT's CPU kernel takes 0 as "not
# given" and attends to the whole buffer plus the new row.)
@case("DecoderMaskedMultiHeadAttention shared buffer, past_sequence_length 1, (B, 2) mask, bias, scale")
def _(d):
    return dmmha_case(d, "shared", psl=1, mask=True, bias=True, scale=0.4)


@case("DecoderMaskedMultiHeadAttention shared buffer, last row (past_sequence_length 6), (B, 7) mask, "
      "attention_bias, mask_filter_value")
def _(d):
    return dmmha_case(d, "shared", psl=M_BUF - 1, mask=True, ab=True, mask_filter_value=-30.0)


@case("DecoderMaskedMultiHeadAttention cross attention (B, N, L, H) key/value")
def _(d):
    return dmmha_case(d, "cross")


@case("DecoderMaskedMultiHeadAttention cross attention, bias (query part), (B, L) mask, scale")
def _(d):
    return dmmha_case(d, "cross", mask=True, bias=True, scale=0.25)


def dmmha_unpacked_ref(p, node, feeds, outputs):
    """ORT's CPU kernel fails on a packed QKV query: ORT runs the same op on
    the query's three slices."""
    D = feeds["q"].shape[2] // 3
    n = onnx.NodeProto()
    n.CopyFrom(node)
    n.input[0], n.input[1], n.input[2] = "q0", "k0", "v0"
    consts = {"sp": np.array([D, D, D], np.int64)}
    model(p, [std("Split", ["q", "sp"], ["q0", "k0", "v0"], axis=2), n], feeds, consts, outputs)


@case("DecoderMaskedMultiHeadAttention packed QKV, shared buffer, bias, (B, T) mask (ORT ref: the query's slices)")
def _(d):
    return dmmha_case(d, "packed", psl=4, bias=True, mask=True, ref=dmmha_unpacked_ref)


def dmmha_as_mha_ref(p, node, feeds, outputs):
    """ORT's CPU kernel needs a shared buffer: ORT runs MultiHeadAttention,
    whose past_key/past_value are concatenated the same way."""
    ins = list(node.input) + [""] * (11 - len(node.input))
    mha = ms("MultiHeadAttention", [ins[0], ins[1], ins[2], ins[10], ins[3], ins[4], ins[5], ins[6]], outputs,
             num_heads=NH, **{a.name: helper.get_attribute_value(a) for a in node.attribute if a.name != "num_heads"})
    model(p, [mha], feeds, {}, outputs)


@case("DecoderMaskedMultiHeadAttention past_key/past_value (4 rows) concatenated, bias, (B, T) mask "
      "(ORT ref: MultiHeadAttention)")
def _(d):
    return dmmha_case(d, "past", psl=4, bias=True, mask=True, ref=dmmha_as_mha_ref)


# ------------------------------------------- a BERT-like encoder, end to end
@case("BERT-like encoder: EmbedLayerNorm -> Attention -> SkipLayerNorm -> MatMul+BiasGelu -> SkipLayerNorm, "
      "x2 layers (FastGelu in the second)")
def _(d):
    Bt, St, H, V, FF = 2, 8, 32, 40, 64
    inits = {"word": f32(V, H), "pos": f32(16, H), "seg": f32(2, H, scale=0.5), "eg": 1 + f32(H, scale=0.1),
             "eb": f32(H, scale=0.1)}
    nodes = [ms("EmbedLayerNormalization", ["ids", "segids", "word", "pos", "seg", "eg", "eb", "mask"],
                ["h0", "mask_index"], epsilon=1e-12)]
    h = "h0"
    for layer, gelu in enumerate(["BiasGelu", "FastGelu"]):
        p = f"l{layer}_"
        inits.update({p + "wqkv": f32(H, 3 * H, scale=0.2), p + "bqkv": f32(3 * H, scale=0.1),
                      p + "wo": f32(H, H, scale=0.2), p + "bo": f32(H, scale=0.1),
                      p + "g1": 1 + f32(H, scale=0.1), p + "b1": f32(H, scale=0.1),
                      p + "w1": f32(H, FF, scale=0.2), p + "bf1": f32(FF, scale=0.1),
                      p + "w2": f32(FF, H, scale=0.2), p + "bf2": f32(H, scale=0.1),
                      p + "g2": 1 + f32(H, scale=0.1), p + "b2": f32(H, scale=0.1)})
        nodes += [ms("Attention", [h, p + "wqkv", p + "bqkv", "mask_index"], [p + "att"], num_heads=4),
                  std("MatMul", [p + "att", p + "wo"], [p + "proj"]),
                  ms("SkipLayerNormalization", [p + "proj", h, p + "g1", p + "b1", p + "bo"], [p + "ln1"],
                     epsilon=1e-12),
                  std("MatMul", [p + "ln1", p + "w1"], [p + "ff"]),
                  ms(gelu, [p + "ff", p + "bf1"], [p + "act"]),
                  std("MatMul", [p + "act", p + "w2"], [p + "ff2"]),
                  ms("SkipLayerNormalization", [p + "ff2", p + "ln1", p + "g2", p + "b2", p + "bf2"], [p + "out"],
                     epsilon=1e-12)]
        h = p + "out"
    nodes.append(std("Identity", [h], ["y"]))
    feeds = {"ids": rng.integers(0, V, (Bt, St)).astype(np.int32),
             "segids": (np.arange(St)[None, :] >= 5).astype(np.int32).repeat(Bt, 0),
             "mask": np.array([[1] * St, [1] * 5 + [0] * (St - 5)], np.int32)}
    return single(d, nodes, feeds, inits, ["y", "mask_index"])


@case("float16 Attention (B, T) mask unidirectional -> SkipLayerNorm -> FastGelu (ORT ref: the float32 model; "
      "rtol 1e-2: float16 rounding)")
def _(d):
    inits = {"w": f32(32, 96, scale=0.3), "b": f32(96, scale=0.3), "g": 1 + f32(32, scale=0.1), "be": f32(32, scale=0.1)}
    feeds = {"x": f32(B, S, 32), "mask": np.array([[1] * S, [1] * 4 + [0] * (S - 4)], np.int32)}
    nodes = [ms("Attention", ["x", "w", "b", "mask"], ["a"], num_heads=NH, unidirectional=1),
             ms("SkipLayerNormalization", ["a", "x", "g", "be"], ["s"]), ms("FastGelu", ["s", "be"], ["y"])]
    half = lambda t: {k: v.astype(np.float16) if v.dtype == np.float32 else v for k, v in t.items()}
    path = os.path.join(d, "model.onnx")
    model(path, nodes, half(feeds), half(inits), ["y"], TensorProto.FLOAT16)
    ref = os.path.join(d, "ref.onnx")
    ref_feeds = {**feeds, "x": half(feeds)["x"].astype(np.float32)}  # the same values in both
    model(ref, nodes, ref_feeds, {k: v.astype(np.float16).astype(np.float32) for k, v in inits.items()}, ["y"])
    return path, ref, half(feeds), ["y"], ref_feeds, (1e-2, 1e-3)


# ------------------------------------------------------------- refused forms
def refused_single(op, ins, feeds, inits, outputs=("y",), **attrs):
    return lambda d: single(d, [ms(op, ins, list(outputs), **attrs)], feeds, inits, list(outputs))


REFUSED = [
    ("RelativePositionBias query_length != key_length", "must be positive and equal key_length (6)",
     refused_single("RelativePositionBias", ["t", "ql", "kl"], {}, {"t": f32(8, 2), "ql": np.array(5, np.int64),
                    "kl": np.array(6, np.int64)}, max_distance=16)),
    ("RelativePositionBias run-time query_length", "input 'query_length' ('ql') must be a constant",
     refused_single("RelativePositionBias", ["t", "ql", "ql"], {"ql": np.array(5, np.int64)}, {"t": f32(8, 2)},
                    max_distance=16)),
    ("GatedRelativePositionBias token_offset (packed rows)", "input 6 ('token_offset') is not supported",
     refused_single("GatedRelativePositionBias", ["q", "qb", "rel", "w", "b", "eco", "off"],
                    {"q": f32(1, 4, 16), "off": np.zeros((1, 4), np.int32)},
                    {"qb": f32(16), "rel": f32(1, 2, 4, 4), "w": f32(8, 4), "b": f32(4), "eco": f32(1, 2, 1, 1)},
                    num_heads=2)),
    ("NhwcConv 1-D", "only 2-D convolution is supported",
     refused_single("NhwcConv", ["x", "w"], {"x": f32(1, 8, 4)}, {"w": f32(2, 3, 4)})),
    ("SkipGroupNorm skip of another shape", "skip must have the input's shape, (N, 1, 1, C) or (N, C)",
     refused_single("SkipGroupNorm", ["x", "g", "b", "s"], {"x": f32(1, 2, 2, 8), "s": f32(1, 2, 1, 8)},
                    {"g": f32(8), "b": f32(8)}, groups=2, activation=0)),
    ("DecoderMaskedMultiHeadAttention cache_indirection (beam search)", "input 9 ('cache_indirection', beam search)",
     refused_single("DecoderMaskedMultiHeadAttention", ["q", "k", "v", "", "", "", "", "", "", "ci"],
                    {"q": f32(2, 1, 32), "k": f32(2, 4, 5, 8), "v": f32(2, 4, 5, 8),
                     "ci": np.zeros((2, 1, 5), np.int32)}, {}, num_heads=4)),
    ("DecoderMaskedMultiHeadAttention beam_width 2", "beam_width other than 1",
     refused_single("DecoderMaskedMultiHeadAttention", ["q", "k", "v", "", "", "", "", "", "bw"],
                    {"q": f32(2, 1, 32), "k": f32(2, 4, 5, 8), "v": f32(2, 4, 5, 8)}, {"bw": np.array([2], np.int32)},
                    num_heads=4)),
    ("DecoderMaskedMultiHeadAttention output_qk", "output 3 (qk) / output_qk is not supported",
     refused_single("DecoderMaskedMultiHeadAttention", ["q", "k", "v"],
                    {"q": f32(2, 1, 32), "k": f32(2, 4, 5, 8), "v": f32(2, 4, 5, 8)}, {}, ("y", "", "", "qk"),
                    num_heads=4, output_qk=1)),
    ("DecoderMaskedMultiHeadAttention two query positions", "one decoding step",
     refused_single("DecoderMaskedMultiHeadAttention", ["q", "k", "v"],
                    {"q": f32(2, 2, 32), "k": f32(2, 4, 5, 8), "v": f32(2, 4, 5, 8)}, {}, num_heads=4)),
    ("Attention mask_index (3B + 2)", "mask_index of shape (3 * batch + 2)",
     lambda d: attention_case(d, mask=np.zeros(3 * B + 2, np.int32))),
    ("MultiHeadAttention qk output", "output 3 (qk) is not supported",
     lambda d: mha_case(d, f32(B, S, 32), f32(B, S, 32), f32(B, S, 32), outputs=("y", "", "", "qk"))),
    ("Attention past_present_share_buffer", "past_present_share_buffer",
     lambda d: attention_case(d, past_present_share_buffer=1)),
    ("MultiHeadAttention key_padding_mask (B, L) with a past", "key_padding_mask of shape (2, 6) is none of",
     lambda d: mha_case(d, f32(B, S, 32), f32(B, S, 32), f32(B, S, 32), mask=raw_mask(B, S),
                        past=(f32(B, NH, 3, 8), f32(B, NH, 3, 8)))),
    ("MultiHeadAttention 2-D query", "query must be 3-D",
     lambda d: mha_case(d, f32(S, 32), f32(B, S, 32), f32(B, S, 32))),
    ("BiasSplitGelu odd width", "must be even",
     lambda d: single(d, [ms("BiasSplitGelu", ["x", "b"], ["y"])], {"x": f32(1, 4, 7)}, {"b": f32(7)}, ["y"])),
    ("GroupNorm groups not dividing C", "must be positive and divide the 16 channels",
     lambda d: single(d, [ms("GroupNorm", ["x", "g", "b"], ["y"], groups=3, activation=0)], {"x": f32(1, 2, 2, 16)},
                      {"g": f32(16), "b": f32(16)}, ["y"])),
    ("EmbedLayerNormalization position_embedding of another width", "of the same hidden size",
     lambda d: single(d, [ms("EmbedLayerNormalization", ["ids", "", "word", "pos", "", "g", "b"], ["y"])],
                      {"ids": np.zeros((1, 4), np.int32)},
                      {"word": f32(10, 16), "pos": f32(8, 12), "g": f32(16), "b": f32(16)}, ["y"])),
]


def run_case(bin_dir, d, result):
    path, ort_path, feeds, outputs = result[:4]
    ort_feeds = result[4] if len(result) > 4 else feeds
    wnn = os.path.join(d, "model.wnn")
    ort_compare.compile_model(bin_dir, path, wnn)
    if ort_feeds is feeds:
        ort_compare.run_both(bin_dir, wnn, ort_path, feeds, d)
    else:  # the reference model takes different inputs: run each side on its own feeds
        ours, _ = ort_compare.save_feeds(feeds, d)
        ort_dir = os.path.join(d, "ref_in")
        os.makedirs(ort_dir, exist_ok=True)
        _, theirs = ort_compare.save_feeds(ort_feeds, ort_dir)
        ort_compare._run([os.path.join(bin_dir, "webnn-run"), wnn, "--output-dir", os.path.join(d, "ours")] + ours)
        ort_compare._run(["node", ort_compare.ORT_BENCH, ort_path, "--bench", "1", "--warmup", "0",
                          "--output-dir", os.path.join(d, "ort")] + theirs)
    tolerance = result[5] if len(result) > 5 else (RTOL, ATOL)
    return ort_compare.compare([o for o in outputs if o], d, *tolerance) + (tolerance,)


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--work", default=None)
    ap.add_argument("-k", default="", help="only the cases whose name contains this")
    a = ap.parse_args(argv)
    work = a.work or tempfile.mkdtemp(prefix="webnn-ms-transformer-")
    start, failures, count, worst_all = time.time(), 0, 0, 0.0
    for i, (name, fn) in enumerate(CASES):
        if a.k not in name:
            continue
        count += 1
        d = os.path.join(work, f"case{i}")
        os.makedirs(d, exist_ok=True)
        try:
            ok, worst, messages, tolerance = run_case(a.bin, d, fn(d))
        except RuntimeError as e:
            print(f"[FAIL] {name}: {e}")
            failures += 1
            continue
        for m in messages:
            print("    " + m)
        if tolerance == (RTOL, ATOL):  # the float16 case has its own, printed on its line
            worst_all = max(worst_all, worst)
        print(f"[{'PASS' if ok else 'FAIL'}] {name}: max |diff| {worst:.2e}")
        failures += not ok
    for j, (name, expect, fn) in enumerate(REFUSED):
        if a.k not in name:
            continue
        count += 1
        d = os.path.join(work, f"refused{j}")
        os.makedirs(d, exist_ok=True)
        path = fn(d)[0]
        r = subprocess.run([os.path.join(a.bin, "webnnc"), "compile", path, "-o", os.path.join(d, "m.wnn")],
                           capture_output=True, text=True)
        ok = r.returncode == 1 and expect in r.stderr and "node '" in r.stderr
        print(f"[{'PASS' if ok else 'FAIL'}] refused: {name}: "
              f"{r.stderr.strip().splitlines()[-1] if r.stderr.strip() else 'exit ' + str(r.returncode)}")
        failures += not ok
    print(f"{count - failures} of {count} pass, max |diff| {worst_all:.2e} over the float32 cases "
          f"(rtol {RTOL}, atol {ATOL}); "
          f"{time.time() - start:.1f} s (work dir {work})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
