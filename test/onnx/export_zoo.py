#!/usr/bin/python3
"""Exports the project's own zoo of ONNX models from torchvision and torch.nn
(Debian's torch 1.13 / torchvision 0.14, opset 17, random weights, seed 0).

One model of every torchvision classification family (efficientnet in both
versions; swin_v2 has no export in torch 1.13: aten::zero_), two
segmentation models (LR-ASPP, DeepLabV3),
nn.Transformer encoder and encoder-decoder (norm_first, causal tgt_mask),
bidirectional LSTM/GRU stacks and a conv1d audio encoder. Inputs are the
smallest sizes each architecture accepts, and families whose full-size
members carry hundreds of MB of weights are built through their torchvision
classes at reduced width or depth (same op structure, a few MB), so that the
pass-robustness test (check_pass_robustness.py) stays fast.

The exports are cached in --out-dir: a model is exported again only when this
script changes (its hash is kept in ZOO_STAMP). Prints one line per model.
"""
import argparse
import hashlib
import os
import sys
import warnings
from pathlib import Path

STAMP = "ZOO_STAMP"


def _classifiers(tv, nn):
    m = tv.models
    from torchvision.models.resnet import Bottleneck, ResNet
    from torchvision.models.convnext import CNBlockConfig, ConvNeXt
    from torchvision.models.vision_transformer import VisionTransformer
    from torchvision.models.swin_transformer import SwinTransformer
    from torchvision.models.efficientnet import EfficientNet, FusedMBConvConfig, MBConvConfig
    from torchvision.models.maxvit import MaxVit

    def alexnet():
        # AlexNet's features at 63x63 end at 1x1; its 57M-weight classifier
        # is cut to the same layers at width 256.
        net = m.alexnet(num_classes=10)
        net.avgpool = nn.AdaptiveAvgPool2d(1)
        net.classifier = nn.Sequential(nn.Dropout(), nn.Linear(256, 256), nn.ReLU(inplace=True), nn.Dropout(),
                                       nn.Linear(256, 256), nn.ReLU(inplace=True), nn.Linear(256, 10))
        return net

    def vgg11_bn():
        net = m.vgg11_bn(num_classes=10)
        net.avgpool = nn.AdaptiveAvgPool2d(1)
        net.classifier = nn.Sequential(nn.Linear(512, 256), nn.ReLU(True), nn.Dropout(), nn.Linear(256, 256),
                                       nn.ReLU(True), nn.Dropout(), nn.Linear(256, 10))
        return net

    img = lambda s: {"input": [1, 3, s, s]}  # noqa: E731
    return [
        ("alexnet", alexnet, img(63)),
        ("vgg11_bn", vgg11_bn, img(32)),
        ("resnet18", lambda: m.resnet18(num_classes=10), img(64)),
        ("resnext", lambda: ResNet(Bottleneck, [1, 1, 1, 1], groups=32, width_per_group=4, num_classes=10), img(64)),
        ("wide_resnet", lambda: ResNet(Bottleneck, [1, 1, 1, 1], width_per_group=128, num_classes=10), img(64)),
        ("squeezenet1_1", lambda: m.squeezenet1_1(num_classes=10), img(64)),
        ("densenet121", lambda: m.densenet121(num_classes=10), img(64)),
        ("googlenet", lambda: m.googlenet(num_classes=10, aux_logits=False, init_weights=True), img(64)),
        ("inception_v3", lambda: m.inception_v3(num_classes=10, aux_logits=False, init_weights=True), img(75)),
        ("mobilenet_v2", lambda: m.mobilenet_v2(num_classes=10), img(64)),
        ("mobilenet_v3_small", lambda: m.mobilenet_v3_small(num_classes=10), img(64)),
        ("mnasnet0_5", lambda: m.mnasnet0_5(num_classes=10), img(64)),
        ("shufflenet_v2_x0_5", lambda: m.shufflenet_v2_x0_5(num_classes=10), img(64)),
        ("efficientnet_b0", lambda: m.efficientnet_b0(num_classes=10), img(64)),
        ("regnet_y_400mf", lambda: m.regnet_y_400mf(num_classes=10), img(64)),
        ("convnext", lambda: ConvNeXt([CNBlockConfig(32, 64, 1), CNBlockConfig(64, 128, 1), CNBlockConfig(128, None, 1)],
                                      num_classes=10), img(64)),
        ("vit", lambda: VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=4, hidden_dim=64,
                                          mlp_dim=128, num_classes=10), img(32)),
        # window 7 on a 32x32 input: the 8x8 and 4x4 maps are padded to the window (run-time Pad).
        ("swin_t", lambda: SwinTransformer(patch_size=[4, 4], embed_dim=32, depths=[2, 2], num_heads=[2, 4],
                                           window_size=[7, 7], num_classes=10), img(32)),
        # efficientnet_v2's stages: fused MBConv (no depthwise) before MBConv with SE.
        ("efficientnet_v2", lambda: EfficientNet([FusedMBConvConfig(1, 3, 1, 16, 16, 1), FusedMBConvConfig(4, 3, 2, 16, 32, 1),
                                                  MBConvConfig(4, 3, 2, 32, 48, 1)], dropout=0.2, num_classes=10,
                                                 last_channel=128), img(64)),
        ("maxvit", lambda: MaxVit(input_size=(64, 64), stem_channels=16, partition_size=2, block_channels=[16, 32],
                                  block_layers=[1, 1], head_dim=8, stochastic_depth_prob=0.0, num_classes=10),
         img(64)),
        ("lraspp_mobilenet_v3", lambda: tv.models.segmentation.lraspp_mobilenet_v3_large(
            num_classes=3, weights=None, weights_backbone=None), img(64)),
        # ASPP: dilated 3x3 convolutions and an image-pooling branch resized back.
        ("deeplabv3_mobilenet_v3", lambda: tv.models.segmentation.deeplabv3_mobilenet_v3_large(
            num_classes=3, weights=None, weights_backbone=None, aux_loss=False), img(64)),
    ]


def _sequence_models(torch, nn):
    class EncoderDecoder(nn.Module):
        """nn.Transformer fed a causal tgt_mask, as a translation model's
        decoding loop calls it (the mask is a graph input)."""

        def __init__(self):
            super().__init__()
            self.t = nn.Transformer(d_model=32, nhead=4, num_encoder_layers=2, num_decoder_layers=2,
                                    dim_feedforward=64, dropout=0.0, batch_first=True, norm_first=True)

        def forward(self, src, tgt, tgt_mask):
            return self.t(src, tgt, tgt_mask=tgt_mask)

    def encoder(norm_first, activation):
        layer = nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0, activation=activation, batch_first=True,
                                           norm_first=norm_first)
        return nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)

    class Recurrent(nn.Module):
        def __init__(self, cell):
            super().__init__()
            self.rnn = cell(16, 32, num_layers=2, bidirectional=True, batch_first=True)
            self.head = nn.Linear(64, 8)

        def forward(self, x):
            y, _ = self.rnn(x)
            return self.head(y)

    class AudioEncoder(nn.Module):
        """A wav2vec2-style feature encoder: strided conv1d stack over raw
        samples, GroupNorm, GELU, then frames through LayerNorm and Linear."""

        def __init__(self):
            super().__init__()
            self.convs = nn.Sequential(
                nn.Conv1d(1, 32, 10, stride=5, bias=False), nn.GroupNorm(32, 32), nn.GELU(),
                nn.Conv1d(32, 32, 3, stride=2, bias=False), nn.GELU(),
                nn.Conv1d(32, 32, 2, stride=2, bias=False), nn.GELU())
            self.norm = nn.LayerNorm(32)
            self.proj = nn.Linear(32, 16)

        def forward(self, x):
            return self.proj(self.norm(self.convs(x).transpose(1, 2)))

    return [
        ("transformer_encdec", EncoderDecoder, {"src": [1, 9, 32], "tgt": [1, 7, 32], "tgt_mask": ("causal", 7)}),
        ("transformer_encoder", lambda: encoder(True, "relu"), {"src": [1, 9, 32]}),
        ("transformer_encoder_postnorm_gelu", lambda: encoder(False, "gelu"), {"src": [1, 9, 32]}),
        ("lstm_bidirectional", lambda: Recurrent(nn.LSTM), {"x": [1, 10, 16]}),
        ("gru_bidirectional", lambda: Recurrent(nn.GRU), {"x": [1, 10, 16]}),
        ("audio_conv1d_encoder", AudioEncoder, {"x": [1, 1, 1600]}),
    ]


# CNNs also exported with a symbolic batch, compiled with --dynamic-dim
# batch=4 (so every pass sees dynamic dimensions) and run at batch 2. The
# transformers, RNNs and the rest compute reshapes from the batch size,
# which WebNN cannot take at run time.
DYNAMIC_BATCH = ("resnet18", "mobilenet_v3_small", "efficientnet_b0", "convnext", "densenet121")


def zoo():
    """[(name, builder, {input: shape}, dynamic)] for every model of the
    zoo; `dynamic` names the batch-dynamic variants."""
    import torch
    import torchvision
    nn = torch.nn
    models = [m + (False,) for m in _classifiers(torchvision, nn) + _sequence_models(torch, nn)]
    for name, build, inputs, _ in list(models):
        if name in DYNAMIC_BATCH:
            models.append((f"{name}_dynamic_batch", build, {k: [2] + v[1:] for k, v in inputs.items()}, True))
    return models


def sample_inputs(inputs):
    """{name: float32 array}: standard normal for a shape, nn.Transformer's
    additive causal mask (0 on and below the diagonal, -inf above) for
    ("causal", L)."""
    import numpy as np
    rng = np.random.default_rng(0)
    out = {}
    for name, spec in inputs.items():
        if isinstance(spec, tuple) and spec[0] == "causal":
            out[name] = np.triu(np.full((spec[1], spec[1]), -np.inf, np.float32), 1)
        else:
            out[name] = rng.standard_normal(spec).astype(np.float32)
    return out


def randomize(model):
    """Weights drawn so that activations keep their scale through the depth:
    torchvision's own initializations zero some heads (ViT) or shrink the
    logits to 1e-10 (MobileNet, EfficientNet), which would make the numerics
    check vacuous. Matrices and filters N(0, 2 / fan_in); 1-D weights (norm
    scales) U(0.5, 1.5); biases N(0, 0.1); batch-norm statistics
    non-trivial, so that folding them is tested too."""
    import torch
    with torch.no_grad():
        for pname, p in model.named_parameters():
            if p.dim() >= 2:
                p.normal_(0.0, (2.0 / max(p[0].numel(), 1)) ** 0.5)
            elif pname.endswith("weight"):
                p.uniform_(0.5, 1.5)
            else:
                p.normal_(0.0, 0.1)
        for bname, b in model.named_buffers():
            if bname.endswith("running_mean"):
                b.normal_(0.0, 0.1)
            elif bname.endswith("running_var"):
                b.uniform_(0.5, 1.5)


def export(name, build, inputs, path, dynamic=False):
    """Exports the model to `path`, its sample inputs to NAME.inputs.npz
    beside it (the numerics check feeds them to webnn-run and ONNX Runtime)
    and the flags webnnc needs to NAME.flags, one per line."""
    import numpy as np
    import torch
    torch.manual_seed(0)
    model = build().eval()
    randomize(model)
    feeds = sample_inputs(inputs)
    np.savez(path.with_suffix(".inputs.npz"), **feeds)
    args = tuple(torch.from_numpy(v) for v in feeds.values())
    tmp = path.with_suffix(".tmp")
    # Not under no_grad: with gradients off, torch 1.13's MultiheadAttention
    # and TransformerEncoderLayer take their fused fast path, which has no
    # ONNX export.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, args, str(tmp), opset_version=17, input_names=list(inputs),
                          do_constant_folding=True,
                          dynamic_axes={k: {0: "batch"} for k in inputs} if dynamic else None)
    path.with_suffix(".flags").write_text("--dynamic-dim\nbatch=4\n" if dynamic else "")
    os.replace(tmp, path)


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--out-dir", required=True)
    p.add_argument("--filter", default="")
    args = p.parse_args()
    out = Path(args.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()
    stamp = out / STAMP
    if not stamp.exists() or stamp.read_text() != digest:
        for f in [f for pattern in ("*.onnx", "*.inputs.npz", "*.flags") for f in out.glob(pattern)]:
            f.unlink()
        stamp.write_text(digest)
    failed = 0
    for name, build, inputs, dynamic in zoo():
        if args.filter and args.filter not in name:
            continue
        path = out / f"{name}.onnx"
        if all(path.with_suffix(x).exists() for x in (".onnx", ".inputs.npz", ".flags")):
            print(f"cached   {name}")
            continue
        try:
            export(name, build, inputs, path, dynamic)
            print(f"exported {name} ({path.stat().st_size / 1e6:.1f} MB)")
        except Exception as e:  # an export failure is the exporter's, reported and counted
            failed += 1
            print(f"EXPORT FAILED {name}: {str(e).splitlines()[0] if str(e) else type(e).__name__}")
        sys.stdout.flush()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
