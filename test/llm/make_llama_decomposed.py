#!/usr/bin/python3
"""Writes make_llama.py's Llama with the same weights, decomposed into plain ONNX ops.

The graph is what `torch.onnx.export` of a Hugging Face Llama gives at a fixed
batch and sequence length, with no KV cache (one prefill): the int4 weights of
make_llama.py, dequantized to float32 MatMul weights (so both models compute
the same function); RMSNorm as Pow -> ReduceMean -> Add(eps) -> Sqrt -> Div ->
Mul(weight) (the final norm as Sqrt -> Reciprocal -> Mul, the other export
form); residual Adds; rotate-half rotary (Slice / Neg / Concat, x * cos +
rotate_half(x) * sin, cos/sin [1, 1, S, D] from Unsqueeze of the position
table); grouped-query attention through repeat_kv (Unsqueeze -> Expand ->
Reshape), MatMul(Q, K^T) * scale + a causal mask (0 on and below the
diagonal, float32 min above), Softmax, MatMul(P, V); a SiLU MLP.

webnnc's fusion passes are expected to find rmsNormalization,
skipRmsNormalization, rotaryEmbedding and groupQueryAttention in it again
(test/llm/check_llama_fusion.py).

  make_llama_decomposed.py OUT.onnx [--size tiny|100m] [--seq 8] [--block-size 32] [--seed 0] [--dtype float16]
                           [--position-ids-input]

Only /usr/bin/python3 with Debian's python3-onnx (1.12) and numpy.
"""
import argparse
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from make_llama import SIZES, quantize_int4


def dequantize_int4(packed, scales, zpacked, K):
    """The inverse of make_llama.quantize_int4: [K, N] float32 as MatMulNBits sees it."""
    N, kb, half = packed.shape
    q = np.empty((N, kb, half * 2), np.float32)
    q[:, :, 0::2] = packed & 15
    q[:, :, 1::2] = packed >> 4
    zp = np.empty((N, zpacked.shape[1] * 2), np.float32)
    zp[:, 0::2] = zpacked & 15
    zp[:, 1::2] = zpacked >> 4
    w = (q - zp[:, :kb, None]) * scales[:, :, None]
    return np.ascontiguousarray(w.reshape(N, kb * half * 2)[:, :K].T).astype(np.float32)


class Builder:
    def __init__(self, block, rng, dtype=np.float32):
        self.block, self.rng, self.dtype = block, rng, dtype
        self.nodes, self.inits = [], []

    def init(self, name, array):
        self.inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def node(self, op, inputs, name, **attrs):
        out = name + "/output_0"
        self.nodes.append(helper.make_node(op, inputs, [out], name=name, **attrs))
        return out

    # Same draws, in the same order, as make_llama.Builder.
    def linear(self, x, K, N, name):
        w = (self.rng.standard_normal((K, N)) * (1.0 / np.sqrt(K))).astype(np.float32)
        b, s, z = quantize_int4(w, self.block)
        return self.node("MatMul", [x, self.init(name + ".weight", dequantize_int4(b, s, z, K).astype(self.dtype))],
                         name)

    def norm_weight(self, name, n):
        return self.init(name, (1.0 + 0.1 * self.rng.standard_normal(n)).astype(np.float32).astype(self.dtype))

    @property
    def fp16(self):
        return self.dtype == np.float16

    def rms_norm(self, x, weight, eps, p, reciprocal=False):
        """HF LlamaRMSNorm; in fp16 the statistics run in float32 between casts."""
        if self.fp16:
            x = self.node("Cast", [x], p + "/Cast", to=TensorProto.FLOAT)
        two = self.init(p + "/Constant_2", np.array(2.0, np.float32))
        sq = self.node("Pow", [x, two], p + "/Pow")
        mean = self.node("ReduceMean", [sq], p + "/ReduceMean", axes=[-1], keepdims=1)
        e = self.init(p + "/Constant_eps", np.array(eps, np.float32))
        var = self.node("Add", [mean, e], p + "/Add")
        rms = self.node("Sqrt", [var], p + "/Sqrt")
        if reciprocal:
            inv = self.node("Reciprocal", [rms], p + "/Reciprocal")
            normed = self.node("Mul", [x, inv], p + "/Mul")
        else:
            normed = self.node("Div", [x, rms], p + "/Div")
        if self.fp16:
            normed = self.node("Cast", [normed], p + "/Cast_1", to=TensorProto.FLOAT16)
        return self.node("Mul", [weight, normed], p + "/Mul_1")

    def split_heads(self, x, S, heads, D, p):
        shape = self.init(p + "/shape", np.array([1, S, heads, D], np.int64))
        r = self.node("Reshape", [x, shape], p + "/Reshape")
        return self.node("Transpose", [r], p + "/Transpose", perm=[0, 2, 1, 3])

    def rotate(self, x, cos, sin, D, p):
        """x * cos + rotate_half(x) * sin, rotate_half(x) = concat(-x[..., D/2:], x[..., :D/2])."""
        c = lambda n, v: self.init(f"{p}/{n}", np.array(v, np.int64))
        x1 = self.node("Slice", [x, c("s0", [0]), c("e0", [D // 2]), c("a0", [-1]), c("t0", [1])], p + "/Slice")
        x2 = self.node("Slice", [x, c("s1", [D // 2]), c("e1", [np.iinfo(np.int64).max]), c("a1", [-1]),
                                 c("t1", [1])], p + "/Slice_1")
        neg = self.node("Neg", [x2], p + "/Neg")
        rot = self.node("Concat", [neg, x1], p + "/Concat", axis=-1)
        a = self.node("Mul", [x, cos], p + "/Mul")
        b = self.node("Mul", [rot, sin], p + "/Mul_1")
        return self.node("Add", [a, b], p + "/Add")


def build(cfg, S, block, seed, dtype=np.float32, position_ids_input=False):
    # Draw order of make_llama.build: embeddings, then per layer the input
    # norm, q, k, v, o, post-attention norm, gate, up, down; final norm, lm_head.
    rng = np.random.default_rng(seed)
    g = Builder(block, rng, dtype)
    H, nh, nkv, D = cfg["hidden"], cfg["heads"], cfg["kv_heads"], cfg["head"]
    elem = TensorProto.FLOAT16 if g.fp16 else TensorProto.FLOAT
    rep = nh // nkv
    eps = 1e-5
    inputs = [helper.make_tensor_value_info("input_ids", TensorProto.INT64, [1, S])]
    outputs = [helper.make_tensor_value_info("logits", elem, [1, S, cfg["vocab"]])]

    # HF's rotary: cos/sin = cat(freqs, freqs) at positions 0..S-1, [1, S, D],
    # unsqueezed to [1, 1, S, D] to broadcast over heads. With
    # position_ids_input the positions are a graph input and the tables are
    # computed in the graph as LlamaRotaryEmbedding.forward exports them:
    # inv_freq [1, D/2, 1] @ positions [1, 1, S] -> transpose -> concat(f, f)
    # -> Cos / Sin -> Unsqueeze.
    inv_freq = 1.0 / (10000.0 ** (np.arange(0, D, 2, dtype=np.float64) / D))
    axes1 = g.init("/model/rotary_emb/axes", np.array([1], np.int64))
    if position_ids_input:
        inputs.append(helper.make_tensor_value_info("position_ids", TensorProto.INT64, [1, S]))
        pos = g.node("Cast", [g.node("Unsqueeze", ["position_ids", axes1], "/model/rotary_emb/Unsqueeze_pos")],
                     "/model/rotary_emb/Cast", to=TensorProto.FLOAT)
        inv = g.init("/model/rotary_emb/inv_freq", inv_freq.astype(np.float32).reshape(1, -1, 1))
        freqs = g.node("Transpose", [g.node("MatMul", [inv, pos], "/model/rotary_emb/MatMul")],
                       "/model/rotary_emb/Transpose", perm=[0, 2, 1])
        emb = g.node("Concat", [freqs, freqs], "/model/rotary_emb/Concat", axis=-1)
        cos_t, sin_t = (g.node(op, [emb], "/model/rotary_emb/" + op) for op in ("Cos", "Sin"))
        if g.fp16:
            cos_t, sin_t = (g.node("Cast", [t], t[:-len("/output_0")] + "_Cast", to=TensorProto.FLOAT16)
                            for t in (cos_t, sin_t))
    else:
        freqs = np.outer(np.arange(S, dtype=np.float64), inv_freq)
        emb = np.concatenate([freqs, freqs], axis=-1)[None]
        cos_t = g.init("/model/rotary_emb/cos", np.cos(emb).astype(dtype))
        sin_t = g.init("/model/rotary_emb/sin", np.sin(emb).astype(dtype))
    cos = g.node("Unsqueeze", [cos_t, axes1], "/model/rotary_emb/Unsqueeze")
    sin = g.node("Unsqueeze", [sin_t, axes1], "/model/rotary_emb/Unsqueeze_1")
    # Causal mask: float32 min above the diagonal (HF's _prepare_4d_causal_attention_mask).
    mask = np.triu(np.full((S, S), np.finfo(dtype).min, dtype), k=1)[None, None]
    mask = g.init("/model/causal_mask", mask)
    scale = g.init("/model/attn_scale", np.array(1.0 / np.sqrt(D), dtype))

    embed = g.init("model.embed_tokens.weight",
                   (rng.standard_normal((cfg["vocab"], H)) * 0.5).astype(np.float32).astype(dtype))
    x = g.node("Gather", [embed, "input_ids"], "/model/embed_tokens/Gather")
    for i in range(cfg["layers"]):
        p = f"/model/layers.{i}"
        ln = g.rms_norm(x, g.norm_weight(f"model.layers.{i}.input_layernorm.weight", H), eps,
                        f"{p}/input_layernorm")
        q = g.linear(ln, H, nh * D, f"{p}/self_attn/q_proj/MatMul")
        k = g.linear(ln, H, nkv * D, f"{p}/self_attn/k_proj/MatMul")
        v = g.linear(ln, H, nkv * D, f"{p}/self_attn/v_proj/MatMul")
        q4 = g.rotate(g.split_heads(q, S, nh, D, f"{p}/self_attn/q"), cos, sin, D, f"{p}/self_attn/q_rot")
        k4 = g.rotate(g.split_heads(k, S, nkv, D, f"{p}/self_attn/k"), cos, sin, D, f"{p}/self_attn/k_rot")
        v4 = g.split_heads(v, S, nkv, D, f"{p}/self_attn/v")

        def repeat_kv(t, name):  # [1, nkv, S, D] -> [1, nh, S, D]
            u = g.node("Unsqueeze", [t, g.init(f"{p}/{name}/axes", np.array([2], np.int64))], f"{p}/{name}/Unsqueeze")
            e = g.node("Expand", [u, g.init(f"{p}/{name}/shape", np.array([1, nkv, rep, S, D], np.int64))],
                       f"{p}/{name}/Expand")
            return g.node("Reshape", [e, g.init(f"{p}/{name}/shape_1", np.array([1, nh, S, D], np.int64))],
                          f"{p}/{name}/Reshape")

        kr, vr = repeat_kv(k4, "self_attn/repeat_k"), repeat_kv(v4, "self_attn/repeat_v")
        kt = g.node("Transpose", [kr], f"{p}/self_attn/Transpose_k", perm=[0, 1, 3, 2])
        scores = g.node("MatMul", [q4, kt], f"{p}/self_attn/MatMul")
        scaled = g.node("Mul", [scores, scale], f"{p}/self_attn/Mul")
        masked = g.node("Add", [scaled, mask], f"{p}/self_attn/Add")
        if g.fp16:  # softmax(.., dtype=torch.float32).to(query.dtype)
            up = g.node("Cast", [masked], f"{p}/self_attn/Cast", to=TensorProto.FLOAT)
            probs = g.node("Cast", [g.node("Softmax", [up], f"{p}/self_attn/Softmax", axis=-1)],
                           f"{p}/self_attn/Cast_1", to=TensorProto.FLOAT16)
        else:
            probs = g.node("Softmax", [masked], f"{p}/self_attn/Softmax", axis=-1)
        ctx = g.node("MatMul", [probs, vr], f"{p}/self_attn/MatMul_1")
        merged = g.node("Transpose", [ctx], f"{p}/self_attn/Transpose_o", perm=[0, 2, 1, 3])
        flat = g.node("Reshape", [merged, g.init(f"{p}/self_attn/shape_o", np.array([1, S, nh * D], np.int64))],
                      f"{p}/self_attn/Reshape_o")
        o = g.linear(flat, nh * D, H, f"{p}/self_attn/o_proj/MatMul")
        x = g.node("Add", [x, o], f"{p}/Add")
        ln2 = g.rms_norm(x, g.norm_weight(f"model.layers.{i}.post_attention_layernorm.weight", H), eps,
                         f"{p}/post_attention_layernorm")
        gate = g.linear(ln2, H, cfg["ffn"], f"{p}/mlp/gate_proj/MatMul")
        up = g.linear(ln2, H, cfg["ffn"], f"{p}/mlp/up_proj/MatMul")
        sig = g.node("Sigmoid", [gate], f"{p}/mlp/act_fn/Sigmoid")
        silu = g.node("Mul", [gate, sig], f"{p}/mlp/act_fn/Mul")
        prod = g.node("Mul", [silu, up], f"{p}/mlp/Mul")
        down = g.linear(prod, cfg["ffn"], H, f"{p}/mlp/down_proj/MatMul")
        x = g.node("Add", [x, down], f"{p}/Add_1")

    fn = g.rms_norm(x, g.norm_weight("model.norm.weight", H), eps, "/model/norm", reciprocal=True)
    lm = g.linear(fn, H, cfg["vocab"], "/lm_head/MatMul")
    g.nodes.append(helper.make_node("Identity", [lm], ["logits"], name="/lm_head/Identity"))

    graph = helper.make_graph(g.nodes, "llama_decomposed_" + str(cfg["layers"]) + "l", inputs, outputs, g.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                              producer_name="webnnc test/llm/make_llama_decomposed.py")
    model.ir_version = 8
    return model


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--size", choices=sorted(SIZES), default="tiny")
    ap.add_argument("--seq", type=int, default=8, help="the fixed sequence length (batch is 1)")
    ap.add_argument("--block-size", type=int, default=32)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--dtype", choices=["float32", "float16"], default="float32",
                    help="float16: weights and activations fp16, RMSNorm statistics and softmax in float32 "
                         "between Casts (as HF's fp16 export)")
    ap.add_argument("--position-ids-input", action="store_true",
                    help="positions as an input [1, S]; cos/sin computed in the graph (Cos/Sin of concat(f, f))")
    a = ap.parse_args(argv)
    model = build(SIZES[a.size], a.seq, a.block_size, a.seed, np.dtype(a.dtype).type, a.position_ids_input)
    onnx.save(model, a.out)
    print(f"{a.out}: {a.size}, seq {a.seq}, {len(model.graph.node)} nodes")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
