#!/usr/bin/python3
"""The com.microsoft ops of ONNX Runtime's transformer optimizer (Attention,
MultiHeadAttention, SkipLayerNormalization, EmbedLayerNormalization, Gelu,
BiasGelu, FastGelu, QuickGelu, BiasAdd, BiasSplitGelu, GroupNorm), one small
model per op and optional-input / mask form, compiled by webnnc, run by
webnn-run and compared with ONNX Runtime (onnxruntime-node, CPU) on the same
inputs: |webnn - ort| <= atol + rtol |ort|, rtol 1e-3, atol 1e-5. Then a
small BERT-like encoder made only of these ops (EmbedLayerNormalization ->
Attention -> SkipLayerNormalization -> MatMul + BiasGelu / FastGelu ->
SkipLayerNormalization) end to end, and one float16 chain (Attention ->
SkipLayerNormalization -> FastGelu) against ORT's float32 run of the same
values (ORT's CPU has no float16 kernels for them), rtol 1e-2.

ORT's CPU provider has no kernel for some forms (BiasAdd, BiasSplitGelu and
GroupNorm are CUDA-only; MultiHeadAttention's packed QKV / packed KV and
Attention's 4-D mask are not implemented on CPU). For those, ORT runs an
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


def group_norm_ref(p, feeds, inits, groups, eps, swish, channels_last):
    """GroupNorm's formula in standard ops: reshape into groups, normalize,
    per-channel affine, optional swish."""
    x = feeds["x"]
    N, C = x.shape[0], x.shape[3] if channels_last else x.shape[1]
    nodes, consts = [], {"eps": np.array(eps, np.float32)}
    src = "x"
    if channels_last:
        nodes.append(std("Transpose", ["x"], ["xt"], perm=[0, 3, 1, 2]))
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
    model(p, nodes, feeds, {**inits, **consts}, ["y"])


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
REFUSED = [
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
