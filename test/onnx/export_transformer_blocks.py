#!/usr/bin/python3
"""Two small transformers written the way Hugging Face's GPT-2 and BERT are,
exported by torch.onnx (TorchScript exporter, opset 14) with dynamic batch
and sequence axes: what check_dynamic_dims.py compiles once with
`--dynamic-dim batch=... --dynamic-dim seq=...` and compares with ONNX
Runtime at several (batch, seq).

The exports hold what such models carry: Shape of intermediate tensors
gathered into [batch, seq, heads, head_dim] view targets and merged back,
`attention_mask.view(batch, -1)[:, None, None, :]`, position ids from
`torch.arange(seq)` (Range) or a sliced buffer (`position_ids[:, :seq]`),
a causal mask sliced out of a registered tril buffer at `[k - q : k, :k]`
(Sub of two sequence lengths), ConstantOfShape for the attention scale, Where
and Split.

  export_transformer_blocks.py OUT_DIR   # writes gpt2_block.onnx, bert_encoder.onnx
"""
import math
import os
import sys

import torch
from torch import nn

D, HEADS, VOCAB, MAX_POSITIONS = 32, 4, 50, 64


class Gpt2Block(nn.Module):
    """Embeddings, one pre-norm decoder block (causal self-attention, GELU
    MLP) and the final LayerNorm."""

    def __init__(self):
        super().__init__()
        self.wte, self.wpe = nn.Embedding(VOCAB, D), nn.Embedding(MAX_POSITIONS, D)
        self.ln_1, self.ln_2, self.ln_f = nn.LayerNorm(D), nn.LayerNorm(D), nn.LayerNorm(D)
        self.c_attn, self.c_proj = nn.Linear(D, 3 * D), nn.Linear(D, D)
        self.c_fc, self.mlp_proj = nn.Linear(D, 4 * D), nn.Linear(4 * D, D)
        causal = torch.tril(torch.ones(MAX_POSITIONS, MAX_POSITIONS, dtype=torch.bool))
        self.register_buffer("bias", causal.view(1, 1, MAX_POSITIONS, MAX_POSITIONS))

    @staticmethod
    def split_heads(x):
        return x.view(x.size()[:-1] + (HEADS, D // HEADS)).permute(0, 2, 1, 3)

    def forward(self, input_ids, attention_mask):
        batch, seq = input_ids.size()
        position_ids = torch.arange(0, seq, dtype=torch.long).unsqueeze(0).view(-1, seq)
        h = self.wte(input_ids) + self.wpe(position_ids)
        mask = attention_mask.view(batch, -1)[:, None, None, :].to(torch.float32)
        mask = (1.0 - mask) * torch.finfo(torch.float32).min
        q, k, v = self.c_attn(self.ln_1(h)).split(D, dim=2)
        q, k, v = self.split_heads(q), self.split_heads(k), self.split_heads(v)
        w = torch.matmul(q, k.transpose(-1, -2)) / torch.full([], v.size(-1) ** 0.5, dtype=torch.float32)
        q_len, k_len = q.size(-2), k.size(-2)
        causal = self.bias[:, :, k_len - q_len:k_len, :k_len]
        w = torch.where(causal, w, torch.full([], torch.finfo(torch.float32).min, dtype=w.dtype))
        w = nn.functional.softmax(w + mask, dim=-1)
        a = torch.matmul(w, v).permute(0, 2, 1, 3).contiguous()
        h = h + self.c_proj(a.view(a.size()[:-2] + (D,)))
        h = h + self.mlp_proj(nn.functional.gelu(self.c_fc(self.ln_2(h)), approximate="tanh"))
        return self.ln_f(h)


class BertEncoder(nn.Module):
    """Word + position + token-type embeddings, one post-norm encoder layer
    with a padding mask, and the pooler."""

    def __init__(self):
        super().__init__()
        self.word, self.position, self.token_type = (nn.Embedding(VOCAB, D), nn.Embedding(MAX_POSITIONS, D),
                                                     nn.Embedding(2, D))
        self.register_buffer("position_ids", torch.arange(MAX_POSITIONS).expand((1, -1)))
        self.ln_embed, self.ln_attn, self.ln_out = nn.LayerNorm(D), nn.LayerNorm(D), nn.LayerNorm(D)
        self.query, self.key, self.value, self.attn_out = (nn.Linear(D, D) for _ in range(4))
        self.intermediate, self.output, self.pooler = nn.Linear(D, 4 * D), nn.Linear(4 * D, D), nn.Linear(D, D)

    @staticmethod
    def heads(x):
        return x.view(x.size()[:-1] + (HEADS, D // HEADS)).permute(0, 2, 1, 3)

    def forward(self, input_ids, attention_mask, token_type_ids):
        seq = input_ids.size(1)
        position_ids = self.position_ids[:, :seq]
        h = self.ln_embed(self.word(input_ids) + self.position(position_ids) + self.token_type(token_type_ids))
        mask = attention_mask[:, None, None, :].to(torch.float32)
        mask = (1.0 - mask) * torch.finfo(torch.float32).min
        q, k, v = self.heads(self.query(h)), self.heads(self.key(h)), self.heads(self.value(h))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(D // HEADS) + mask
        c = torch.matmul(nn.functional.softmax(scores, dim=-1), v).permute(0, 2, 1, 3).contiguous()
        h = self.ln_attn(self.attn_out(c.view(c.size()[:-2] + (D,))) + h)
        h = self.ln_out(self.output(nn.functional.gelu(self.intermediate(h))) + h)
        return h, torch.tanh(self.pooler(h[:, 0]))


def export(out_dir):
    """Writes both models; returns {file name: (input names, output names)}."""
    torch.manual_seed(0)
    ids = torch.randint(0, VOCAB, (2, 5))
    mask = torch.ones(2, 5, dtype=torch.long)
    axes = {0: "batch", 1: "seq"}
    models = {}
    path = os.path.join(out_dir, "gpt2_block.onnx")
    torch.onnx.export(Gpt2Block().eval(), (ids, mask), path, input_names=["input_ids", "attention_mask"],
                      output_names=["hidden"], opset_version=14,
                      dynamic_axes={"input_ids": axes, "attention_mask": axes, "hidden": axes})
    models["gpt2_block.onnx"] = (["input_ids", "attention_mask"], ["hidden"])
    path = os.path.join(out_dir, "bert_encoder.onnx")
    torch.onnx.export(BertEncoder().eval(), (ids, mask, torch.zeros_like(ids)), path,
                      input_names=["input_ids", "attention_mask", "token_type_ids"],
                      output_names=["hidden", "pooled"], opset_version=14,
                      dynamic_axes={"input_ids": axes, "attention_mask": axes, "token_type_ids": axes,
                                    "hidden": axes, "pooled": {0: "batch"}})
    models["bert_encoder.onnx"] = (["input_ids", "attention_mask", "token_type_ids"], ["hidden", "pooled"])
    return models


if __name__ == "__main__":
    print(export(sys.argv[1]))
