#!/usr/bin/env python3
"""Synthetic models for fitting the estimator's CPU cost model
(bench/estimate_accuracy.py's fit set, never held out): blocks built from
first principles to exercise one kernel family each, so that what the cost
model prices wrong is found on them and not on the held-out models.

  inception_block  GoogLeNet-style inception modules (parallel 1x1, 1x1->3x3,
                   1x1->5x5 and 3x3 max pool->1x1 branches, concatenated on
                   channels) at 28x28, 14x14 and 7x7, input [1,192,28,28]
  dilated_convs    3x3 convolutions with dilations 2..36 (dense and
                   depthwise, 'same' padding) on 16x16..64x64 maps, input
                   [1,64,64,64]: most taps of the large dilations fall in the
                   padding
  resample_head    bilinear and nearest upsampling (x2, x4, x8 and to a
                   fixed size) of 8..64-channel maps, input [1,64,32,32]
  strided_block    a stem, 3x3 stride-2 max pools and stride-2 depthwise
                   3x3 layers between 1x1 convolutions (40..320 channels,
                   160x160 down to 10x10), input [1,3,320,320]: strided
                   layers whose input reads per output differ from the
                   stride-1 ones of the same size
  tiny_audio       a model of a few dozen nodes of microseconds each (a
                   framed 1-D convolution as an STFT over 800 samples,
                   magnitude, a 40-band filter bank, log, a GRU of 48 over
                   the frames, a sigmoid head), input [1,1,800]: what a
                   graph of tiny nodes costs beyond its kernels
  upsample_head    transposed convolutions as a detection or segmentation
                   head upsamples (2x2 stride 2, 4x4 stride 2 padding 1, down
                   to one output channel) from 20x20 to 160x160, input
                   [1,96,20,20]: our SGEMM + col2im kernel
  se_grouped_block residual blocks of a 1x1, a grouped 3x3 (16 channels per
                   group, stride 2 at each stage's start) and a 1x1, each
                   with a squeeze-and-excitation gate (sigmoid in two stages,
                   hardsigmoid in the other two) and hardswish activations,
                   64..512 channels from 56x56 to 7x7, input [1,32,112,112]:
                   grouped convolutions, gates on 1x1 maps and their
                   per-channel scaling

Weights are random with fixed seeds; exported as bench/models/export_models.py
exports (opset 17, static shapes).
"""
import os

import torch
from torch import nn
import torch.nn.functional as F

OPSET = 17


def conv_relu(cin, cout, k, **kw):
    return nn.Sequential(nn.Conv2d(cin, cout, k, padding=kw.pop("padding", k // 2), **kw), nn.ReLU())


class Inception(nn.Module):
    def __init__(self, cin, c1, c3r, c3, c5r, c5, pool):
        super().__init__()
        self.b1 = conv_relu(cin, c1, 1)
        self.b2 = nn.Sequential(conv_relu(cin, c3r, 1), conv_relu(c3r, c3, 3))
        self.b3 = nn.Sequential(conv_relu(cin, c5r, 1), conv_relu(c5r, c5, 5))
        self.b4 = nn.Sequential(nn.MaxPool2d(3, 1, 1, ceil_mode=True), conv_relu(cin, pool, 1))

    def forward(self, x):
        return torch.cat([self.b1(x), self.b2(x), self.b3(x), self.b4(x)], 1)


class InceptionBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = Inception(192, 64, 96, 128, 16, 32, 32)       # 28x28 -> 256
        self.b = Inception(256, 128, 128, 192, 32, 96, 64)     # -> 480
        self.pool1 = nn.MaxPool2d(3, 2, ceil_mode=True)        # 14x14
        self.c = Inception(480, 192, 96, 208, 16, 48, 64)      # -> 512
        self.d = Inception(512, 112, 144, 288, 32, 64, 64)     # -> 528
        self.pool2 = nn.MaxPool2d(2, 2, ceil_mode=True)        # 7x7
        self.e = Inception(528, 256, 160, 320, 32, 128, 128)   # -> 832

    def forward(self, x):
        x = self.b(self.a(x))
        x = self.d(self.c(self.pool1(x)))
        return self.e(self.pool2(x))


class DilatedConvs(nn.Module):
    def __init__(self):
        super().__init__()
        layers = []
        # (channels in, out, dilation, depthwise, stride before)
        for cin, cout, d, dw in [(64, 64, 2, False), (64, 64, 2, True), (64, 128, 4, False), (128, 128, 4, True)]:
            layers.append(nn.Conv2d(cin, cout, 3, padding=d, dilation=d, groups=cin if dw else 1))
            layers.append(nn.ReLU())
        self.stage1 = nn.Sequential(*layers)             # 64x64
        self.down = nn.Conv2d(128, 256, 1, stride=2)     # 32x32
        self.stage2 = nn.Sequential(
            nn.Conv2d(256, 256, 5, padding=4, dilation=2, groups=256), nn.ReLU(),
            nn.Conv2d(256, 256, 3, padding=8, dilation=8), nn.ReLU())
        self.down2 = nn.Conv2d(256, 320, 1, stride=2)    # 16x16
        self.aspp = nn.ModuleList(
            [nn.Conv2d(320, 128, 3, padding=d, dilation=d) for d in (6, 12, 24, 36)])
        self.proj = nn.Conv2d(4 * 128, 128, 1)

    def forward(self, x):
        x = self.down2(self.stage2(self.down(self.stage1(x))))
        return self.proj(torch.cat([F.relu(a(x)) for a in self.aspp], 1))


class ResampleHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.reduce = nn.Conv2d(64, 16, 1)
        self.reduce8 = nn.Conv2d(64, 8, 1)

    def forward(self, x):
        y = F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False)      # 64 ch, 64x64
        z = F.interpolate(self.reduce(x), scale_factor=4, mode="bilinear", align_corners=False)  # 16 ch, 128x128
        w = F.interpolate(self.reduce8(x), size=(256, 256), mode="bilinear", align_corners=False)  # 8 ch
        n = F.interpolate(x, scale_factor=2, mode="nearest")                            # 64 ch, 64x64
        m = F.interpolate(self.reduce(x), scale_factor=8, mode="nearest")              # 16 ch, 256x256
        return y + n, z, w, m


class StridedBlock(nn.Module):
    def __init__(self):
        super().__init__()
        def dw(c, stride):
            return nn.Sequential(nn.Conv2d(c, c, 3, stride, 1, groups=c), nn.ReLU())
        self.stem = conv_relu(3, 40, 3, stride=2)                          # 160x160
        self.pool1 = nn.MaxPool2d(3, 2, 1)                                 # 80x80
        self.a = nn.Sequential(conv_relu(40, 80, 1), dw(80, 2), conv_relu(80, 80, 1))      # 40x40
        self.pool2 = nn.MaxPool2d(3, 2, ceil_mode=True)                    # 20x20
        self.b = nn.Sequential(conv_relu(80, 160, 1), dw(160, 1), dw(160, 2), conv_relu(160, 320, 1))  # 10x10
        self.c = nn.Sequential(dw(320, 1), conv_relu(320, 320, 1))

    def forward(self, x):
        x = self.a(self.pool1(self.stem(x)))
        return self.c(self.b(self.pool2(x)))


class TinyAudio(nn.Module):
    def __init__(self):
        super().__init__()
        self.stft = nn.Conv1d(1, 2 * 65, 128, stride=64, bias=False)      # 12 frames, 65 bins x (re, im)
        self.mel = nn.Linear(65, 40, bias=False)
        self.gru = nn.GRU(40, 48, batch_first=True)
        self.head = nn.Linear(48, 1)

    def forward(self, x):
        s = self.stft(x)                                                   # [1, 130, 12]
        re, im = s[:, :65], s[:, 65:]
        mag = torch.sqrt(re * re + im * im + 1e-6).transpose(1, 2)        # [1, 12, 65]
        feats = torch.log(self.mel(mag) + 1e-3)                           # [1, 12, 40]
        h, _ = self.gru(feats)
        return torch.sigmoid(self.head(h[:, -1]))


class UpsampleHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.reduce = conv_relu(96, 48, 1)
        self.up1 = nn.ConvTranspose2d(48, 32, 2, stride=2)                 # 40x40
        self.up2 = nn.ConvTranspose2d(32, 16, 4, stride=2, padding=1)      # 80x80
        self.up3 = nn.ConvTranspose2d(16, 1, 2, stride=2)                  # 160x160

    def forward(self, x):
        x = F.relu(self.up1(self.reduce(x)))
        return torch.sigmoid(self.up3(F.relu(self.up2(x))))


class SqueezeExcite(nn.Module):
    def __init__(self, c, squeeze, hard):
        super().__init__()
        self.down = nn.Conv2d(c, squeeze, 1)
        self.up = nn.Conv2d(squeeze, c, 1)
        self.gate = nn.Hardsigmoid() if hard else nn.Sigmoid()

    def forward(self, x):
        s = F.adaptive_avg_pool2d(x, 1)
        return x * self.gate(self.up(F.relu(self.down(s))))


class GroupedSEBlock(nn.Module):
    def __init__(self, cin, cout, stride, hard):
        super().__init__()
        act = nn.Hardswish if hard else nn.ReLU
        self.a = nn.Sequential(nn.Conv2d(cin, cout, 1), act())
        self.b = nn.Sequential(nn.Conv2d(cout, cout, 3, stride, 1, groups=cout // 16), act())
        self.se = SqueezeExcite(cout, max(8, cin // 4), hard)
        self.c = nn.Conv2d(cout, cout, 1)
        self.skip = None if stride == 1 and cin == cout else nn.Conv2d(cin, cout, 1, stride)

    def forward(self, x):
        y = self.c(self.se(self.b(self.a(x))))
        return F.relu(y + (x if self.skip is None else self.skip(x)))


class SEGroupedBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = conv_relu(32, 32, 3, stride=2)                         # 56x56
        blocks = []
        # (in, out, blocks, hard-swish/-sigmoid), each stage's first block at stride 2 after the first stage
        cin = 32
        for i, (cout, n, hard) in enumerate([(64, 1, False), (128, 2, True), (256, 2, False), (512, 1, True)]):
            for j in range(n):
                blocks.append(GroupedSEBlock(cin, cout, 2 if (j == 0 and i > 0) else 1, hard))
                cin = cout
        self.blocks = nn.Sequential(*blocks)                                # 56x56 -> 7x7

    def forward(self, x):
        return self.blocks(self.stem(x))


MODELS = {
    "inception_block": (InceptionBlock, [1, 192, 28, 28], ["y"]),
    "dilated_convs": (DilatedConvs, [1, 64, 64, 64], ["y"]),
    "resample_head": (ResampleHead, [1, 64, 32, 32], ["a", "b", "c", "d"]),
    "strided_block": (StridedBlock, [1, 3, 320, 320], ["y"]),
    "tiny_audio": (TinyAudio, [1, 1, 800], ["y"]),
    "upsample_head": (UpsampleHead, [1, 96, 20, 20], ["y"]),
    "se_grouped_block": (SEGroupedBlock, [1, 32, 112, 112], ["y"]),
}


def export(name, out_dir, force=False):
    """Writes out_dir/NAME.onnx unless it exists; returns its path."""
    path = os.path.join(out_dir, name + ".onnx")
    if os.path.exists(path) and not force:
        return path
    torch.manual_seed(0)
    ctor, shape, outputs = MODELS[name]
    model = ctor().eval()
    os.makedirs(out_dir, exist_ok=True)
    tmp = path + ".tmp"
    with torch.no_grad():
        torch.onnx.export(model, (torch.randn(*shape),), tmp, opset_version=OPSET, input_names=["x"],
                          output_names=outputs, do_constant_folding=True)
    os.replace(tmp, path)
    return path


if __name__ == "__main__":
    import sys
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))), ".models")
    for n in MODELS:
        print(export(n, out, force=True))
