#!/usr/bin/python3
"""Writes a Llama-style decoder in the onnxruntime-genai layout (int4 weights).

The graph is what genai's model builder emits for an int4 CPU Llama:
Gather embeddings; per layer SimplifiedLayerNormalization (first) or
SkipSimplifiedLayerNormalization (carrying the residual), q/k/v/o projections
as com.microsoft MatMulNBits, GroupQueryAttention with do_rotary over the KV
cache (inputs past_key_values.N.key/value, outputs present.N.key/value, BNSH),
a SiLU MLP (Sigmoid * Mul) with MatMulNBits gate/up/down; attention_mask ->
seqlens_k (ReduceSum - 1, int32) and total_sequence_length (Shape -> Gather ->
Cast) like genai's attn_mask_reformat subgraph; final SkipSimplified norm and
an int4 lm_head. Weights are random (seeded) and quantized asymmetrically per
block of K with packed uint8 zero points, as onnxruntime's MatMul4BitsQuantizer
does by default.

  make_llama.py OUT.onnx [--size tiny|100m] [--accuracy-level N] [--block-size 32] [--seed 0]

Only /usr/bin/python3 with Debian's python3-onnx (1.12) and numpy.
"""
import argparse
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

SIZES = {
    # layers, hidden, heads, kv heads, head size, ffn, vocab, max positions
    "tiny": dict(layers=2, hidden=64, heads=4, kv_heads=2, head=16, ffn=128, vocab=256, max_pos=256),
    "100m": dict(layers=12, hidden=768, heads=12, kv_heads=4, head=64, ffn=2048, vocab=32000, max_pos=2048),
}


def quantize_int4(w, block):
    """w [K, N] float32 -> (B uint8 [N, kBlocks, block/2], scales [N, kBlocks], zp uint8 [N, ceil(kBlocks/2)])."""
    K, N = w.shape
    kb = (K + block - 1) // block
    wt = np.zeros((N, kb * block), np.float32)
    wt[:, :K] = w.T
    blocks = wt.reshape(N, kb, block)
    lo = np.minimum(blocks.min(axis=2), 0.0)
    hi = np.maximum(blocks.max(axis=2), 0.0)
    scale = (hi - lo) / 15.0
    scale[scale == 0] = 1.0
    zp = np.clip(np.round(-lo / scale), 0, 15).astype(np.uint8)
    q = np.clip(np.round(blocks / scale[:, :, None]) + zp[:, :, None], 0, 15).astype(np.uint8)
    packed = (q[:, :, 0::2] | (q[:, :, 1::2] << 4)).astype(np.uint8)
    zpad = np.zeros((N, kb + (kb & 1)), np.uint8)
    zpad[:, :kb] = zp
    zpacked = (zpad[:, 0::2] | (zpad[:, 1::2] << 4)).astype(np.uint8)
    return packed, scale.astype(np.float32), zpacked


class Builder:
    def __init__(self, cfg, accuracy_level, block, rng):
        self.cfg, self.acc, self.block, self.rng = cfg, accuracy_level, block, rng
        self.nodes, self.inits = [], []

    def init(self, name, array):
        self.inits.append(numpy_helper.from_array(array, name))
        return name

    def node(self, op, inputs, outputs, name, domain="", **attrs):
        self.nodes.append(helper.make_node(op, inputs, outputs, name=name, domain=domain, **attrs))
        return outputs[0] if len(outputs) == 1 else outputs

    def matmul_nbits(self, x, K, N, name, std=None):
        std = std if std is not None else 1.0 / np.sqrt(K)
        w = (self.rng.standard_normal((K, N)) * std).astype(np.float32)
        b, s, z = quantize_int4(w, self.block)
        return self.node("MatMulNBits",
                         [x, self.init(name + ".qweight", b), self.init(name + ".scales", s),
                          self.init(name + ".qzeros", z)],
                         [name + "/output_0"], name, domain="com.microsoft",
                         K=K, N=N, bits=4, block_size=self.block, accuracy_level=self.acc)

    def norm_weight(self, name, n):
        return self.init(name, (1.0 + 0.1 * self.rng.standard_normal(n)).astype(np.float32))


def build(cfg, accuracy_level, block, seed, fixed_lengths=None):
    """fixed_lengths=(past, seq): seqlens_k and total_sequence_length become
    constants for that one step and attention_mask is not an input (for
    checks that need them known at compile time)."""
    rng = np.random.default_rng(seed)
    g = Builder(cfg, accuracy_level, block, rng)
    H, nh, nkv, D = cfg["hidden"], cfg["heads"], cfg["kv_heads"], cfg["head"]
    eps = 1e-5
    inputs = [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch_size", "sequence_length"])]
    if fixed_lengths is None:
        inputs.append(helper.make_tensor_value_info("attention_mask", TensorProto.INT64,
                                                    ["batch_size", "total_sequence_length"]))
    outputs = [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch_size", "sequence_length", cfg["vocab"]])]
    for i in range(cfg["layers"]):
        for kv in ("key", "value"):
            inputs.append(helper.make_tensor_value_info(f"past_key_values.{i}.{kv}", TensorProto.FLOAT,
                                                        ["batch_size", nkv, "past_sequence_length", D]))
            outputs.append(helper.make_tensor_value_info(f"present.{i}.{kv}", TensorProto.FLOAT,
                                                         ["batch_size", nkv, "total_sequence_length", D]))

    if fixed_lengths is not None:
        past, seq = fixed_lengths
        seqlens = g.init("/model/attn_mask_reformat/seqlens_k", np.array([past + seq - 1], np.int32))
        total = g.init("/model/attn_mask_reformat/total_seq_len", np.array(past + seq, np.int32))
    else:
        # attention_mask -> seqlens_k [B] int32, total_sequence_length scalar int32.
        one = g.init("/model/constants/INT64/1", np.array(1, np.int64))
        axis1 = g.init("/model/constants/INT64/[1]", np.array([1], np.int64))
        msum = g.node("ReduceSum", ["attention_mask", axis1], ["/model/attn_mask_reformat/ReduceSum/output_0"],
                      "/model/attn_mask_reformat/ReduceSum", keepdims=0)
        msub = g.node("Sub", [msum, one], ["/model/attn_mask_reformat/Sub/output_0"], "/model/attn_mask_reformat/Sub")
        seqlens = g.node("Cast", [msub], ["/model/attn_mask_reformat/seqlens_k"], "/model/attn_mask_reformat/Cast",
                         to=TensorProto.INT32)
        shape = g.node("Shape", ["attention_mask"], ["/model/attn_mask_reformat/Shape/output_0"],
                       "/model/attn_mask_reformat/Shape")
        tot = g.node("Gather", [shape, one], ["/model/attn_mask_reformat/Gather/output_0"],
                     "/model/attn_mask_reformat/Gather", axis=0)
        total = g.node("Cast", [tot], ["/model/attn_mask_reformat/total_seq_len"], "/model/attn_mask_reformat/Cast_1",
                       to=TensorProto.INT32)

    # RoPE caches [max_pos, D/2], theta 10000.
    inv_freq = 1.0 / (10000.0 ** (np.arange(0, D, 2, dtype=np.float64) / D))
    angles = np.outer(np.arange(cfg["max_pos"], dtype=np.float64), inv_freq)
    cos = g.init("cos_cache", np.cos(angles).astype(np.float32))
    sin = g.init("sin_cache", np.sin(angles).astype(np.float32))

    embed = g.init("model.embed_tokens.weight", (rng.standard_normal((cfg["vocab"], H)) * 0.5).astype(np.float32))
    x = g.node("Gather", [embed, "input_ids"], ["/model/embed_tokens/Gather/output_0"], "/model/embed_tokens/Gather")

    residual, pending = x, None
    for i in range(cfg["layers"]):
        p = f"/model/layers.{i}"
        w = g.norm_weight(f"model.layers.{i}.input_layernorm.weight", H)
        if pending is None:
            ln = g.node("SimplifiedLayerNormalization", [residual, w], [f"{p}/input_layernorm/output_0"],
                        f"{p}/input_layernorm/LayerNorm", axis=-1, epsilon=eps, stash_type=1)
        else:
            outs = [f"{p}/input_layernorm/output_0", "", "", f"{p}/input_layernorm/output_3"]
            ln, _, _, residual = g.node("SkipSimplifiedLayerNormalization", [pending, residual, w], outs,
                                        f"{p}/input_layernorm/SkipLayerNorm", domain="com.microsoft", epsilon=eps)
        q = g.matmul_nbits(ln, H, nh * D, f"{p}/attn/q_proj/MatMul")
        k = g.matmul_nbits(ln, H, nkv * D, f"{p}/attn/k_proj/MatMul")
        v = g.matmul_nbits(ln, H, nkv * D, f"{p}/attn/v_proj/MatMul")
        attn = g.node("GroupQueryAttention",
                      [q, k, v, f"past_key_values.{i}.key", f"past_key_values.{i}.value", seqlens, total, cos, sin],
                      [f"{p}/attn/GroupQueryAttention/output_0", f"present.{i}.key", f"present.{i}.value"],
                      f"{p}/attn/GroupQueryAttention", domain="com.microsoft",
                      num_heads=nh, kv_num_heads=nkv, scale=float(1.0 / np.sqrt(D)), local_window_size=-1,
                      do_rotary=1, rotary_interleaved=0, softcap=0.0)[0]
        o = g.matmul_nbits(attn, nh * D, H, f"{p}/attn/o_proj/MatMul")
        w2 = g.norm_weight(f"model.layers.{i}.post_attention_layernorm.weight", H)
        outs = [f"{p}/post_attention_layernorm/output_0", "", "", f"{p}/post_attention_layernorm/output_3"]
        ln2, _, _, residual = g.node("SkipSimplifiedLayerNormalization", [o, residual, w2], outs,
                                     f"{p}/post_attention_layernorm/SkipLayerNorm", domain="com.microsoft", epsilon=eps)
        gate = g.matmul_nbits(ln2, H, cfg["ffn"], f"{p}/mlp/gate_proj/MatMul")
        up = g.matmul_nbits(ln2, H, cfg["ffn"], f"{p}/mlp/up_proj/MatMul")
        sig = g.node("Sigmoid", [gate], [f"{p}/mlp/act_fn/Sigmoid/output_0"], f"{p}/mlp/act_fn/Sigmoid")
        silu = g.node("Mul", [gate, sig], [f"{p}/mlp/act_fn/Mul/output_0"], f"{p}/mlp/act_fn/Mul")
        prod = g.node("Mul", [silu, up], [f"{p}/mlp/Mul/output_0"], f"{p}/mlp/Mul")
        pending = g.matmul_nbits(prod, cfg["ffn"], H, f"{p}/mlp/down_proj/MatMul")

    wf = g.norm_weight("model.norm.weight", H)
    fn = g.node("SkipSimplifiedLayerNormalization", [pending, residual, wf],
                ["/model/norm/output_0", "", "", "/model/norm/output_3"], "/model/norm/SkipLayerNorm",
                domain="com.microsoft", epsilon=eps)[0]
    lm = g.matmul_nbits(fn, H, cfg["vocab"], "/lm_head/MatMul")
    g.node("Identity", [lm], ["logits"], "/lm_head/Identity")

    graph = helper.make_graph(g.nodes, "llama_" + str(cfg["layers"]) + "l", inputs, outputs, g.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                     helper.make_opsetid("com.microsoft", 1)],
                              producer_name="webnnc test/llm/make_llama.py")
    model.ir_version = 8
    return model


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--size", choices=sorted(SIZES), default="tiny")
    ap.add_argument("--accuracy-level", type=int, default=4,
                    help="MatMulNBits accuracy_level (genai's CPU int4 default is 4; 0 = float activations)")
    ap.add_argument("--block-size", type=int, default=32)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    model = build(SIZES[a.size], a.accuracy_level, a.block_size, a.seed)
    onnx.save(model, a.out)
    params = sum(int(np.prod(t.dims)) * (2 if t.data_type == TensorProto.UINT8 and "qweight" in t.name else 1)
                 for t in model.graph.initializer if t.data_type in (TensorProto.FLOAT, TensorProto.UINT8)
                 and ("qweight" in t.name or t.name.endswith("weight")))
    print(f"{a.out}: {a.size}, {len(model.graph.node)} nodes, ~{params / 1e6:.1f}M parameters")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
