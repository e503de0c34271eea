#!/usr/bin/python3
"""Exports a tiny Llama written like Hugging Face's modeling_llama.py with torch.onnx.export.

The module mirrors transformers' LlamaRMSNorm (x * rsqrt(mean(x^2) + eps) *
weight), LlamaRotaryEmbedding (cos/sin of cat(freqs, freqs) from position_ids,
an input), apply_rotary_pos_emb with rotate_half, repeat_kv (expand +
reshape), eager attention (Q K^T * scaling + causal mask, softmax in
float32, P V) and the SiLU MLP, so the graph is what the real exporter
writes for these layers, not a hand-written imitation. Static shapes: batch
1, one prefill of --seq tokens, no KV cache. Random weights (seeded).

  export_torch_llama.py OUT.onnx [--seq 8] [--seed 0] [--opset 17] [--reference-dir DIR]

Needs /usr/bin/python3 with PyTorch (Debian's python3-torch).
"""
import argparse
import math
import sys

import torch
from torch import nn

CFG = dict(layers=2, hidden=64, heads=4, kv_heads=2, head=16, ffn=128, vocab=256, eps=1e-5, theta=10000.0)


class RMSNorm(nn.Module):
    def __init__(self, n, eps):
        super().__init__()
        self.weight = nn.Parameter(1.0 + 0.1 * torch.randn(n))
        self.eps = eps

    def forward(self, x):
        dtype = x.dtype
        x = x.to(torch.float32)
        variance = x.pow(2).mean(-1, keepdim=True)
        x = x * torch.rsqrt(variance + self.eps)
        return self.weight * x.to(dtype)


def rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def repeat_kv(x, n_rep):
    b, kv, s, d = x.shape
    if n_rep == 1:
        return x
    x = x[:, :, None, :, :].expand(b, kv, n_rep, s, d)
    return x.reshape(b, kv * n_rep, s, d)


class Attention(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.h, self.kv, self.d = c["heads"], c["kv_heads"], c["head"]
        self.q_proj = nn.Linear(c["hidden"], self.h * self.d, bias=False)
        self.k_proj = nn.Linear(c["hidden"], self.kv * self.d, bias=False)
        self.v_proj = nn.Linear(c["hidden"], self.kv * self.d, bias=False)
        self.o_proj = nn.Linear(self.h * self.d, c["hidden"], bias=False)
        self.scaling = self.d ** -0.5

    def forward(self, x, cos, sin, mask):
        b, s, _ = x.shape
        q = self.q_proj(x).view(b, s, self.h, self.d).transpose(1, 2)
        k = self.k_proj(x).view(b, s, self.kv, self.d).transpose(1, 2)
        v = self.v_proj(x).view(b, s, self.kv, self.d).transpose(1, 2)
        cos, sin = cos.unsqueeze(1), sin.unsqueeze(1)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        k = repeat_kv(k, self.h // self.kv)
        v = repeat_kv(v, self.h // self.kv)
        w = torch.matmul(q, k.transpose(2, 3)) * self.scaling
        w = w + mask
        w = nn.functional.softmax(w, dim=-1, dtype=torch.float32).to(q.dtype)
        o = torch.matmul(w, v).transpose(1, 2).contiguous().reshape(b, s, -1)
        return self.o_proj(o)


class Layer(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.input_layernorm = RMSNorm(c["hidden"], c["eps"])
        self.self_attn = Attention(c)
        self.post_attention_layernorm = RMSNorm(c["hidden"], c["eps"])
        self.gate_proj = nn.Linear(c["hidden"], c["ffn"], bias=False)
        self.up_proj = nn.Linear(c["hidden"], c["ffn"], bias=False)
        self.down_proj = nn.Linear(c["ffn"], c["hidden"], bias=False)

    def forward(self, x, cos, sin, mask):
        x = x + self.self_attn(self.input_layernorm(x), cos, sin, mask)
        h = self.post_attention_layernorm(x)
        return x + self.down_proj(nn.functional.silu(self.gate_proj(h)) * self.up_proj(h))


class Llama(nn.Module):
    def __init__(self, c, seq):
        super().__init__()
        self.embed_tokens = nn.Embedding(c["vocab"], c["hidden"])
        self.layers = nn.ModuleList([Layer(c) for _ in range(c["layers"])])
        self.norm = RMSNorm(c["hidden"], c["eps"])
        self.lm_head = nn.Linear(c["hidden"], c["vocab"], bias=False)
        d = c["head"]
        self.register_buffer("inv_freq", 1.0 / (c["theta"] ** (torch.arange(0, d, 2).float() / d)))
        # _prepare_4d_causal_attention_mask for a prefill without padding.
        self.register_buffer("causal_mask", torch.full((seq, seq), torch.finfo(torch.float32).min).triu(1)[None, None])

    def forward(self, input_ids, position_ids):
        x = self.embed_tokens(input_ids)
        # LlamaRotaryEmbedding.forward
        inv = self.inv_freq[None, :, None].float().expand(position_ids.shape[0], -1, 1)
        freqs = (inv @ position_ids[:, None, :].float()).transpose(1, 2)
        emb = torch.cat((freqs, freqs), dim=-1)
        cos, sin = emb.cos(), emb.sin()
        for layer in self.layers:
            x = layer(x, cos, sin, self.causal_mask)
        return self.lm_head(self.norm(x))


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--seq", type=int, default=8)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--opset", type=int, default=17)
    ap.add_argument("--reference-dir", help="also write input_ids.npy, position_ids.npy (positions with a gap) "
                                            "and PyTorch's logits.npy for them here")
    a = ap.parse_args(argv)
    torch.manual_seed(a.seed)
    model = Llama(CFG, a.seq).eval()
    ids = torch.randint(0, CFG["vocab"], (1, a.seq))
    pos = torch.arange(a.seq)[None]
    with torch.no_grad():
        torch.onnx.export(model, (ids, pos), a.out, input_names=["input_ids", "position_ids"],
                          output_names=["logits"], opset_version=a.opset, do_constant_folding=True)
        if a.reference_dir:
            import os
            import numpy as np
            os.makedirs(a.reference_dir, exist_ok=True)
            half = a.seq // 2
            gap = torch.cat([torch.arange(half), torch.arange(a.seq - half) + 2 * a.seq])[None]
            ids = torch.randint(0, CFG["vocab"], (1, a.seq))
            np.save(os.path.join(a.reference_dir, "input_ids.npy"), ids.numpy())
            np.save(os.path.join(a.reference_dir, "position_ids.npy"), gap.numpy())
            np.save(os.path.join(a.reference_dir, "logits.npy"), model(ids, gap).numpy())
    print(f"{a.out}: torch {torch.__version__}, opset {a.opset}, seq {a.seq}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
