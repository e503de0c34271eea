#!/usr/bin/env python3
"""Exports the benchmark models to ONNX (opset 17, static shapes, random weights).

    python3 bench/models/export_models.py [--out-dir bench/.models] [--only NAME,...] [--force]

Models (weights are random with fixed seeds: the benchmark measures speed and
agreement between runtimes, not accuracy):
  resnet50      torchvision ResNet-50, input [1,3,224,224]
  mobilenetv2   torchvision MobileNetV2, input [1,3,224,224]
  bert_base     BERT-base encoder: 12 layers, d=768, 12 heads, ff 3072, seq 128
  minilm        MiniLM-sized encoder: 6 layers, d=384, 12 heads, ff 1536, seq 128
  tiny_cnn      a few-layer CNN for bench/run.py --smoke (input [1,3,32,32])

The encoders take int64 token ids [1,128] (word + position embeddings through
Gather, as a real BERT export does) and are written out op by op (Linear,
MatMul attention, Softmax, LayerNorm, erf GELU) so the ONNX graph holds only
plain ops: no fused attention, no dynamic-shape subgraphs. A model file that
already exists is kept unless --force is given.

Written for Debian 12's torch 1.13: torch.onnx.export with opset 17 exports
LayerNorm as LayerNormalization, GELU as Erf arithmetic; dynamo export does
not exist there.
"""
import argparse
import math
import os
import sys

import torch
from torch import nn

DEFAULT_OUT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), ".models")
OPSET = 17


class SelfAttention(nn.Module):
    """Multi-head self-attention with the shapes fixed at construction, so
    every Reshape in the export gets a constant shape."""

    def __init__(self, d, heads, seq):
        super().__init__()
        self.d, self.heads, self.seq, self.dh = d, heads, seq, d // heads
        self.q = nn.Linear(d, d)
        self.k = nn.Linear(d, d)
        self.v = nn.Linear(d, d)
        self.out = nn.Linear(d, d)

    def split_heads(self, x):  # [1, S, D] -> [1, H, S, Dh]
        return x.reshape(1, self.seq, self.heads, self.dh).permute(0, 2, 1, 3)

    def forward(self, x):
        q = self.split_heads(self.q(x))
        k = self.split_heads(self.k(x))
        v = self.split_heads(self.v(x))
        scores = torch.matmul(q, k.transpose(2, 3)) * (1.0 / math.sqrt(self.dh))
        probs = torch.softmax(scores, dim=-1)
        ctx = torch.matmul(probs, v).permute(0, 2, 1, 3).reshape(1, self.seq, self.d)
        return self.out(ctx)


class EncoderLayer(nn.Module):
    """Post-norm BERT layer: x = LN(x + Attn(x)); x = LN(x + FF(x))."""

    def __init__(self, d, heads, ff, seq):
        super().__init__()
        self.attn = SelfAttention(d, heads, seq)
        self.ln1 = nn.LayerNorm(d, eps=1e-12)
        self.ff1 = nn.Linear(d, ff)
        self.act = nn.GELU()  # exact (erf) GELU, as in BERT
        self.ff2 = nn.Linear(ff, d)
        self.ln2 = nn.LayerNorm(d, eps=1e-12)

    def forward(self, x):
        x = self.ln1(x + self.attn(x))
        return self.ln2(x + self.ff2(self.act(self.ff1(x))))


class Encoder(nn.Module):
    def __init__(self, layers, d, heads, ff, seq, vocab=30522):
        super().__init__()
        self.seq = seq
        self.word = nn.Embedding(vocab, d)
        self.position = nn.Embedding(512, d)
        self.ln = nn.LayerNorm(d, eps=1e-12)
        self.layers = nn.ModuleList(EncoderLayer(d, heads, ff, seq) for _ in range(layers))
        self.register_buffer("positions", torch.arange(seq, dtype=torch.int64).unsqueeze(0), persistent=False)

    def forward(self, input_ids):
        x = self.ln(self.word(input_ids) + self.position(self.positions))
        for layer in self.layers:
            x = layer(x)
        return x


class TinyCnn(nn.Module):
    """Conv/BN/ReLU/pool/Gemm: the ops of a CNN classifier, small enough for a
    smoke test."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.Conv2d(32, 32, 3, padding=1, groups=32), nn.ReLU6(),
            nn.Conv2d(32, 64, 1), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.fc = nn.Linear(64, 10)

    def forward(self, x):
        return self.fc(self.features(x))


def randomize_batchnorm(model, gen):
    # Fresh BatchNorm layers are identity transforms (mean 0, var 1); give them
    # statistics so that folding them into convolutions is actually exercised.
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            with torch.no_grad():
                m.running_mean.copy_(torch.randn(m.num_features, generator=gen) * 0.1)
                m.running_var.copy_(torch.rand(m.num_features, generator=gen) * 0.5 + 0.75)
                m.weight.copy_(torch.rand(m.num_features, generator=gen) * 0.5 + 0.75)
                m.bias.copy_(torch.randn(m.num_features, generator=gen) * 0.1)


def make_image_model(name):
    import torchvision
    ctor = {"resnet50": torchvision.models.resnet50, "mobilenetv2": torchvision.models.mobilenet_v2,
            "tiny_cnn": TinyCnn}[name]
    model = ctor() if name == "tiny_cnn" else ctor(weights=None)
    randomize_batchnorm(model, torch.Generator().manual_seed(1))
    size = 32 if name == "tiny_cnn" else 224
    return model, (torch.randn(1, 3, size, size),), ["input"], ["logits"]


def make_encoder(name):
    layers, d, heads, ff = {"bert_base": (12, 768, 12, 3072), "minilm": (6, 384, 12, 1536)}[name]
    seq = 128
    model = Encoder(layers, d, heads, ff, seq)
    ids = torch.randint(0, 30522, (1, seq), dtype=torch.int64)
    return model, (ids,), ["input_ids"], ["last_hidden_state"]


MODELS = {
    "resnet50": make_image_model,
    "mobilenetv2": make_image_model,
    "tiny_cnn": make_image_model,
    "bert_base": make_encoder,
    "minilm": make_encoder,
}


def export(name, out_dir, force=False):
    """Writes out_dir/NAME.onnx unless it exists; returns its path."""
    path = os.path.join(out_dir, name + ".onnx")
    if os.path.exists(path) and not force:
        return path
    torch.manual_seed(0)
    model, args, input_names, output_names = MODELS[name](name)
    model.eval()
    os.makedirs(out_dir, exist_ok=True)
    tmp = path + ".tmp"
    with torch.no_grad():
        torch.onnx.export(model, args, tmp, opset_version=OPSET, input_names=input_names,
                          output_names=output_names, do_constant_folding=True,
                          training=torch.onnx.TrainingMode.EVAL)
    os.replace(tmp, path)  # never leave a half-written model behind
    return path


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out-dir", default=DEFAULT_OUT)
    parser.add_argument("--only", help="comma-separated subset of: " + ",".join(MODELS))
    parser.add_argument("--force", action="store_true", help="re-export models that exist")
    args = parser.parse_args(argv)
    names = args.only.split(",") if args.only else list(MODELS)
    for n in names:
        if n not in MODELS:
            parser.error("unknown model '%s' (known: %s)" % (n, ", ".join(MODELS)))
    for n in names:
        path = export(n, args.out_dir, args.force)
        print("%s: %s (%.1f MB)" % (n, path, os.path.getsize(path) / 1e6))
    return 0


if __name__ == "__main__":
    sys.exit(main())
