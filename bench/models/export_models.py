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

The broad suite (bench/run.py --suite broad), torchvision 0.14 constructors
with weights=None unless said otherwise, images [1,3,224,224]:
  efficientnet_b0, mobilenetv3_large, shufflenetv2 (x1.0), densenet121,
  convnext_tiny, vit_b16, swin_t, regnety_400mf, resnext50 (32x4d),
  squeezenet (1.1), googlenet (no auxiliary heads), mnasnet (1.0)
  deeplabv3_mbv3  DeepLabV3 with a MobileNetV3-Large backbone, [1,3,256,256],
                  the "out" map only (no auxiliary head)
  transformer     torch.nn.Transformer encoder-decoder: 6+6 layers, d=512,
                  8 heads, ff 2048, source and target 64 tokens each (float
                  embeddings in, causal target mask baked in)
  audio_encoder   wav2vec2-style: 7 conv1d layers over 1 s of 16 kHz audio
                  [1,1,16000] -> 49 frames x 512, then 4 post-norm encoder
                  layers (d=384, 6 heads, ff 1536)
  lstm_tagger     sequence tagger: token ids [1,64] -> embedding 128 -> 2-layer
                  bidirectional LSTM (hidden 256) -> linear, 32 tags per token
  gru_stack       acoustic-model-like stack: features [1,200,80] -> 2-layer
                  GRU (hidden 256) -> linear, 40 classes per frame

The held-out suite (bench/run.py --suite heldout): models and shapes that no
suite holds and nobody profiles or tunes on, so that a speed-up measured on the
suites can be checked on models it was not fitted to. torchvision 0.14
constructors with weights=None, images [1,3,224,224] unless said otherwise:
  resnet18, mobilenetv3_small, shufflenetv2_x05 (x0.5; profiled since issue
  19's x0.5 study, so shufflenetv2_x15 (x1.5) holds its place), regnetx_400mf
  (RegNetX: grouped convolutions, no squeeze-excitation), mnasnet05 (0.5),
  squeezenet10 (1.0: 7x7 stem, ceil-mode pooling)
  efficientnet_b1  EfficientNet-B1 at its own resolution, [1,3,240,240]
  mobilenetv2_160  MobileNetV2 at [1,3,160,160] (the tuned model, another shape)
  lraspp_mbv3      LRASPP with a MobileNetV3-Large backbone, [1,3,320,320],
                   the "out" map
  minilm_s64       the MiniLM-sized encoder above at sequence length 64
  lstm_frames      keyword-spotter-like: features [1,100,40] -> 1-layer
                   unidirectional LSTM (hidden 128) -> linear, 12 classes per frame

The encoders take int64 token ids [1,128] ([1,64]: minilm_s64; word + position
embeddings through Gather, as a real BERT export does) and are written out op
by op (Linear, MatMul attention, Softmax, LayerNorm, erf GELU) so the ONNX
graph holds only plain ops: no fused attention, no dynamic-shape subgraphs. A model file that
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


class LstmTagger(nn.Module):
    def __init__(self, vocab=5000, embed=128, hidden=256, tags=32):
        super().__init__()
        self.embed = nn.Embedding(vocab, embed)
        self.lstm = nn.LSTM(embed, hidden, num_layers=2, bidirectional=True, batch_first=True)
        self.tagger = nn.Linear(2 * hidden, tags)

    def forward(self, ids):
        y, _ = self.lstm(self.embed(ids))
        return self.tagger(y)


class GruStack(nn.Module):
    def __init__(self, features=80, hidden=256, classes=40):
        super().__init__()
        self.gru = nn.GRU(features, hidden, num_layers=2, batch_first=True)
        self.out = nn.Linear(hidden, classes)

    def forward(self, x):
        y, _ = self.gru(x)
        return self.out(y)


class LstmFrames(nn.Module):
    """Keyword-spotter-like: features [1,100,40] -> 1-layer unidirectional
    LSTM (hidden 128) -> linear, 12 classes per frame."""

    def __init__(self, features=40, hidden=128, classes=12):
        super().__init__()
        self.lstm = nn.LSTM(features, hidden, num_layers=1, batch_first=True)
        self.out = nn.Linear(hidden, classes)

    def forward(self, x):
        y, _ = self.lstm(x)
        return self.out(y)


def make_recurrent(name):
    if name == "lstm_tagger":
        return LstmTagger(), (torch.randint(0, 5000, (1, 64), dtype=torch.int64),), ["input_ids"], ["tags"]
    if name == "lstm_frames":
        return LstmFrames(), (torch.randn(1, 100, 40),), ["features"], ["logits"]
    return GruStack(), (torch.randn(1, 200, 80),), ["features"], ["logits"]


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


class SegmentationOut(nn.Module):
    """torchvision's segmentation models return a dict; the export wants the
    map tensor."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model(x)["out"]


class Seq2Seq(nn.Module):
    """torch.nn.Transformer over already-embedded source and target sequences,
    with the causal target mask as a constant."""

    def __init__(self, d=512, heads=8, layers=6, ff=2048, tgt_len=64):
        super().__init__()
        self.net = nn.Transformer(d, heads, layers, layers, ff, dropout=0.0, batch_first=True)
        self.register_buffer("tgt_mask", nn.Transformer.generate_square_subsequent_mask(tgt_len), persistent=False)

    def forward(self, src, tgt):
        with torch.enable_grad():  # see GradOn
            return self.net(src, tgt, tgt_mask=self.tgt_mask)


class GradOn(nn.Module):
    """Runs the model with grad enabled, which keeps torch 1.13 off its fused
    inference kernels (_transformer_encoder_layer_fwd,
    _native_multi_head_attention): they have no ONNX export."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        with torch.enable_grad():
            return self.model(x)


class AudioEncoder(nn.Module):
    """wav2vec2-shaped: a strided conv1d feature extractor (GroupNorm after the
    first layer, GELU), a linear projection, post-norm self-attention layers."""

    def __init__(self, channels=512, d=384, heads=6, ff=1536, layers=4, samples=16000):
        super().__init__()
        convs, c_in, n = [], 1, samples
        for i, (k, s) in enumerate([(10, 5), (3, 2), (3, 2), (3, 2), (3, 2), (2, 2), (2, 2)]):
            convs.append(nn.Conv1d(c_in, channels, k, stride=s, bias=False))
            if i == 0:
                convs.append(nn.GroupNorm(channels, channels))
            convs.append(nn.GELU())
            c_in, n = channels, (n - k) // s + 1
        self.features = nn.Sequential(*convs)
        self.frames = n
        self.norm = nn.LayerNorm(channels)
        self.proj = nn.Linear(channels, d)
        self.layers = nn.ModuleList(EncoderLayer(d, heads, ff, n) for _ in range(layers))

    def forward(self, audio):
        x = self.features(audio).transpose(1, 2)  # [1, frames, channels]
        x = self.proj(self.norm(x))
        for layer in self.layers:
            x = layer(x)
        return x


def make_image_model(name):
    import torchvision
    ctor = {"resnet50": torchvision.models.resnet50, "mobilenetv2": torchvision.models.mobilenet_v2,
            "tiny_cnn": TinyCnn}[name]
    model = ctor() if name == "tiny_cnn" else ctor(weights=None)
    randomize_batchnorm(model, torch.Generator().manual_seed(1))
    size = 32 if name == "tiny_cnn" else 224
    return model, (torch.randn(1, 3, size, size),), ["input"], ["logits"]


SUITE_IMAGE_MODELS = {
    "efficientnet_b0": ("efficientnet_b0", {}),
    "mobilenetv3_large": ("mobilenet_v3_large", {}),
    "shufflenetv2": ("shufflenet_v2_x1_0", {}),
    "densenet121": ("densenet121", {}),
    "convnext_tiny": ("convnext_tiny", {}),
    "vit_b16": ("vit_b_16", {}),
    "swin_t": ("swin_t", {}),
    "regnety_400mf": ("regnet_y_400mf", {}),
    "resnext50": ("resnext50_32x4d", {}),
    "squeezenet": ("squeezenet1_1", {}),
    "googlenet": ("googlenet", {"aux_logits": False, "init_weights": True}),
    "mnasnet": ("mnasnet1_0", {}),
}


# The held-out suite (bench/run.py --suite heldout): models and shapes nobody
# profiles or tunes on, measured beside the broad suite. name: (torchvision
# constructor, its arguments, image side).
HELDOUT_IMAGE_MODELS = {
    "resnet18": ("resnet18", {}, 224),
    "mobilenetv3_small": ("mobilenet_v3_small", {}, 224),
    "shufflenetv2_x05": ("shufflenet_v2_x0_5", {}, 224),
    "shufflenetv2_x15": ("shufflenet_v2_x1_5", {}, 224),
    "regnetx_400mf": ("regnet_x_400mf", {}, 224),
    "efficientnet_b1": ("efficientnet_b1", {}, 240),
    "mnasnet05": ("mnasnet0_5", {}, 224),
    "squeezenet10": ("squeezenet1_0", {}, 224),
    "mobilenetv2_160": ("mobilenet_v2", {}, 160),
}


def randomize_zero_linears(model, gen):
    # torchvision zero-initializes some classifier heads (ViT's): the logits
    # would be the constant 0 whatever the encoder computed, and comparing
    # them with ONNX Runtime's would check nothing.
    for m in model.modules():
        if isinstance(m, nn.Linear) and not torch.any(m.weight):
            with torch.no_grad():
                m.weight.copy_(torch.randn(m.weight.shape, generator=gen) * m.in_features ** -0.5)
                if m.bias is not None:
                    m.bias.copy_(torch.randn(m.bias.shape, generator=gen) * 0.1)


def make_suite_image_model(name):
    import torchvision
    if name in HELDOUT_IMAGE_MODELS:
        ctor, kwargs, size = HELDOUT_IMAGE_MODELS[name]
    else:
        (ctor, kwargs), size = SUITE_IMAGE_MODELS[name], 224
    model = getattr(torchvision.models, ctor)(weights=None, **kwargs)
    randomize_batchnorm(model, torch.Generator().manual_seed(1))
    randomize_zero_linears(model, torch.Generator().manual_seed(2))
    return GradOn(model), (torch.randn(1, 3, size, size),), ["input"], ["logits"]


def make_segmentation(name):
    import torchvision
    seg = torchvision.models.segmentation
    if name == "lraspp_mbv3":
        model, size = seg.lraspp_mobilenet_v3_large(weights=None, weights_backbone=None), 320
    else:
        model, size = seg.deeplabv3_mobilenet_v3_large(weights=None, weights_backbone=None, aux_loss=False), 256
    randomize_batchnorm(model, torch.Generator().manual_seed(1))
    return SegmentationOut(model), (torch.randn(1, 3, size, size),), ["input"], ["out"]


def make_transformer(name):
    model = Seq2Seq()
    return model, (torch.randn(1, 64, 512), torch.randn(1, 64, 512)), ["src", "tgt"], ["output"]


def make_audio_encoder(name):
    model = AudioEncoder()
    return model, (torch.randn(1, 1, 16000),), ["audio"], ["hidden_states"]


def make_encoder(name):
    layers, d, heads, ff = {"bert_base": (12, 768, 12, 3072), "minilm": (6, 384, 12, 1536),
                            "minilm_s64": (6, 384, 12, 1536)}[name]
    seq = 64 if name == "minilm_s64" else 128
    model = Encoder(layers, d, heads, ff, seq)
    ids = torch.randint(0, 30522, (1, seq), dtype=torch.int64)
    return model, (ids,), ["input_ids"], ["last_hidden_state"]


MODELS = {
    "resnet50": make_image_model,
    "mobilenetv2": make_image_model,
    "tiny_cnn": make_image_model,
    "bert_base": make_encoder,
    "minilm": make_encoder,
    "lstm_tagger": make_recurrent,
    "gru_stack": make_recurrent,
}


MODELS.update({n: make_suite_image_model for n in SUITE_IMAGE_MODELS})
MODELS.update({"deeplabv3_mbv3": make_segmentation, "transformer": make_transformer,
               "audio_encoder": make_audio_encoder})
MODELS.update({n: make_suite_image_model for n in HELDOUT_IMAGE_MODELS})
MODELS.update({"lraspp_mbv3": make_segmentation, "minilm_s64": make_encoder, "lstm_frames": make_recurrent})


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
