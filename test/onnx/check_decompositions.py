#!/usr/bin/env python3
"""Checks ONNX ops that webnnc decomposes (WebNN has no single op for them)
against NumPy references, in configurations the ONNX backend node tests do
not cover: 3-D pooling with padding / ceil_mode / count_include_pad, 3-D
ConvTranspose with strides, dilations, groups and output_padding, integer
matmul/conv reductions longer than one exact float32 chunk, unrolled LSTM
(peepholes, clip, short sequence_lens) and GRU (clip, linear_before_reset,
short sequence_lens), inverse trigonometric accuracy, TopK ties and -inf.
Compiled and run in this process through the Python package webnn when the
build has it (BUILD/python beside webnnc's folder), else with the two tools.

Usage: check_decompositions.py --webnnc build/bin/webnnc --webnn-run build/bin/webnn-run
"""
import argparse
import itertools
import math
import os
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx
from onnx import helper, numpy_helper

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import ort_compare  # noqa: E402

TYPES = {np.dtype(np.float32): 1, np.dtype(np.uint8): 2, np.dtype(np.int32): 6,
         np.dtype(np.int64): 7}


class Runner:
    def __init__(self, webnnc, webnn_run, work):
        # ort_compare finds the tools (and the package) in webnnc's folder.
        if os.path.dirname(os.path.abspath(webnnc)) != os.path.dirname(os.path.abspath(webnn_run)):
            sys.exit("check_decompositions.py: --webnnc and --webnn-run must be in one folder")
        self.bin, self.work = os.path.dirname(os.path.abspath(webnnc)), Path(work)
        self.count = 0

    def run(self, nodes, inputs, outputs, inits=(), opset=18):
        """Compiles and runs a one-graph model; returns the outputs by name."""
        self.count += 1
        d = self.work / f"m{self.count}"
        d.mkdir()
        graph = helper.make_graph(
            nodes, "g",
            [helper.make_tensor_value_info(n, TYPES[a.dtype], a.shape) for n, a in inputs],
            [helper.make_tensor_value_info(n, t, None) for n, t in outputs],
            [numpy_helper.from_array(a, n) for n, a in inits])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
        onnx.save(model, str(d / "m.onnx"))
        ort_compare.compile_model(self.bin, str(d / "m.onnx"), str(d / "m.wnn"))
        ort_compare.run_ours(self.bin, str(d / "m.wnn"), dict(inputs), str(d / "out"))
        return [np.load(d / "out" / f"{n}.npy") for n, _ in outputs]


FAILURES = []


def expect_close(what, got, want, tol):
    if got.shape != want.shape:
        FAILURES.append(f"{what}: shape {got.shape} != {want.shape}")
        return
    err = float(np.abs(got.astype(np.float64) - want).max()) if got.size else 0.0
    status = "ok" if err <= tol else "FAIL"
    print(f"{status} {what}: max abs error {err:.3g} (tolerance {tol:g})")
    if err > tol:
        FAILURES.append(f"{what}: max abs error {err} > {tol}")


def pool3d_ref(x, op, k, s, d, p, ceil, include_pad):
    sp = x.shape[2:]
    outs = []
    for i in range(3):
        span = sp[i] + p[i] + p[3 + i] - ((k[i] - 1) * d[i] + 1)
        o = (math.ceil(span / s[i]) if ceil else span // s[i]) + 1
        if ceil and (o - 1) * s[i] >= sp[i] + p[i]:
            o -= 1
        outs.append(o)
    y = np.zeros(x.shape[:2] + tuple(outs))
    for o in itertools.product(*[range(v) for v in outs]):
        vals, count = [], 0
        for kk in itertools.product(*[range(v) for v in k]):
            pos = [o[i] * s[i] + kk[i] * d[i] - p[i] for i in range(3)]
            if all(0 <= pos[i] < sp[i] for i in range(3)):
                vals.append(x[:, :, pos[0], pos[1], pos[2]])
                count += 1
            elif include_pad and all(-p[i] <= pos[i] < sp[i] + p[3 + i] for i in range(3)):
                count += 1
        y[(slice(None), slice(None)) + o] = (np.max(vals, axis=0) if op == "MaxPool"
                                             else np.sum(vals, axis=0) / count)
    return y


def conv_transpose3d_ref(x, w, b, s, d, p, op, g):
    n, c = x.shape[:2]
    mg = w.shape[1]
    full = [(x.shape[2 + i] - 1) * s[i] + (w.shape[2 + i] - 1) * d[i] + 1 + op[i] for i in range(3)]
    y = np.zeros((n, mg * g) + tuple(full))
    for ci in range(c):
        gi = ci // (c // g)
        for pos in itertools.product(*[range(v) for v in x.shape[2:]]):
            for kk in itertools.product(*[range(v) for v in w.shape[2:]]):
                o = tuple(pos[i] * s[i] + kk[i] * d[i] for i in range(3))
                y[(slice(None), slice(gi * mg, (gi + 1) * mg)) + o] += (
                    x[:, ci][(slice(None),) + pos][:, None] * w[ci, :][(slice(None),) + kk][None, :])
    y = y[:, :, p[0]:full[0] - p[3], p[1]:full[1] - p[4], p[2]:full[2] - p[5]]
    return y + b.reshape(1, -1, 1, 1, 1)


def sig(v):
    return 1 / (1 + np.exp(-v))


def lstm_ref(x, w, r, b, lens, p, h0, c0, hidden, clip):
    steps, batch, _ = x.shape
    dirs = w.shape[0]
    cl = (lambda v: np.clip(v, -clip, clip)) if clip else (lambda v: v)
    y = np.zeros((steps, dirs, batch, hidden))
    yh = np.zeros((dirs, batch, hidden))
    yc = np.zeros((dirs, batch, hidden))
    for dd in range(dirs):
        for bi in range(batch):
            h, c = h0[dd, bi].copy(), c0[dd, bi].copy()
            order = range(lens[bi]) if dd == 0 else reversed(range(lens[bi]))
            for t in order:
                gates = w[dd] @ x[t, bi] + r[dd] @ h + b[dd, :4 * hidden] + b[dd, 4 * hidden:]
                i, o, f, cc = np.split(gates, 4)
                i = sig(cl(i + p[dd, :hidden] * c))
                f = sig(cl(f + p[dd, 2 * hidden:] * c))
                c = f * c + i * np.tanh(cl(cc))
                o = sig(cl(o + p[dd, hidden:2 * hidden] * c))
                h = o * np.tanh(c)
                y[t, dd, bi] = h
            yh[dd, bi], yc[dd, bi] = h, c
    return y, yh, yc


def gru_ref(x, w, r, b, lens, h0, hidden, lbr, clip):
    steps, batch, _ = x.shape
    dirs = w.shape[0]
    cl = (lambda v: np.clip(v, -clip, clip)) if clip else (lambda v: v)
    y = np.zeros((steps, dirs, batch, hidden))
    yh = np.zeros((dirs, batch, hidden))
    for dd in range(dirs):
        wz, wr, wh = np.split(w[dd], 3)
        rz, rr, rh = np.split(r[dd], 3)
        wbz, wbr, wbh, rbz, rbr, rbh = np.split(b[dd], 6)
        for bi in range(batch):
            h = h0[dd, bi].copy()
            order = range(lens[bi]) if dd == 0 else reversed(range(lens[bi]))
            for t in order:
                xt = x[t, bi]
                z = sig(cl(wz @ xt + rz @ h + wbz + rbz))
                rg = sig(cl(wr @ xt + rr @ h + wbr + rbr))
                if lbr:
                    cand = np.tanh(cl(wh @ xt + rg * (rh @ h + rbh) + wbh))
                else:
                    cand = np.tanh(cl(wh @ xt + rh @ (rg * h) + rbh + wbh))
                h = (1 - z) * cand + z * h
                y[t, dd, bi] = h
            yh[dd, bi] = h
    return y, yh


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("--webnnc", required=True)
    ap.add_argument("--webnn-run", required=True)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory(prefix="webnn-decomp-") as work:
        r = Runner(args.webnnc, args.webnn_run, work)
        f32 = lambda *s: rng.standard_normal(s).astype(np.float32)

        x = f32(1, 2, 5, 6, 7)
        for op, k, s, d, p, ceil, inc in [
                ("AveragePool", (2, 3, 2), (2, 2, 1), (1, 1, 1), (1, 0, 1, 0, 1, 1), 0, 0),
                ("AveragePool", (2, 3, 2), (2, 2, 1), (1, 1, 1), (1, 0, 1, 0, 1, 1), 0, 1),
                ("AveragePool", (3, 2, 2), (2, 2, 3), (1, 1, 1), (0,) * 6, 1, 0),
                ("MaxPool", (2, 2, 3), (2, 1, 2), (2, 1, 2), (1, 1, 0, 0, 1, 1), 0, 0),
                ("MaxPool", (2, 2, 2), (2, 2, 2), (1, 1, 1), (0,) * 6, 1, 0)]:
            attrs = dict(kernel_shape=list(k), strides=list(s), pads=list(p), ceil_mode=ceil)
            if op == "MaxPool":
                attrs["dilations"] = list(d)
            else:
                attrs["count_include_pad"] = inc
            y, = r.run([helper.make_node(op, ["x"], ["y"], **attrs)], [("x", x)], [("y", 1)])
            expect_close(f"{op} 3-D k={k} s={s} pads={p} ceil={ceil} include_pad={inc}", y,
                         pool3d_ref(x.astype(np.float64), op, k, s, d, p, ceil, inc), 1e-5)

        for s, d, p, op, g in [((2, 1, 2), (1, 2, 1), (1, 0, 1, 0, 1, 1), (1, 0, 1), 1),
                               ((1, 2, 2), (2, 1, 1), (0, 1, 0, 1, 0, 0), (0, 1, 0), 2),
                               ((3, 1, 1), (1, 1, 1), (0,) * 6, (2, 0, 0), 1)]:
            x, w, b = f32(2, 4, 3, 4, 3), f32(4, 3, 2, 3, 2), f32(3 * g)
            y, = r.run([helper.make_node("ConvTranspose", ["x", "w", "b"], ["y"], strides=list(s),
                                         dilations=list(d), pads=list(p), output_padding=list(op),
                                         group=g)],
                       [("x", x)], [("y", 1)], [("w", w), ("b", b)])
            expect_close(f"ConvTranspose 3-D s={s} d={d} pads={p} output_padding={op} group={g}",
                         y, conv_transpose3d_ref(x.astype(np.float64), w.astype(np.float64), b,
                                                 s, d, p, op, g), 1e-4)

        a = rng.integers(0, 256, (5, 1000), dtype=np.uint8)
        bm = rng.integers(0, 256, (1000, 7), dtype=np.uint8)
        y, = r.run([helper.make_node("MatMulInteger", ["a", "b", "az", "bz"], ["y"])],
                   [("a", a), ("b", bm)], [("y", 6)],
                   [("az", np.array(3, np.uint8)), ("bz", np.array(250, np.uint8))])
        expect_close("MatMulInteger K=1000 (exact)", y,
                     (a.astype(np.int64) - 3) @ (bm.astype(np.int64) - 250), 0)
        x = rng.integers(0, 256, (2, 64, 9, 9), dtype=np.uint8)
        w = rng.integers(0, 256, (32, 32, 3, 3), dtype=np.uint8)
        y, = r.run([helper.make_node("ConvInteger", ["x", "w", "xz", "wz"], ["y"], group=2,
                                     pads=[1, 1, 1, 1], strides=[2, 1])],
                   [("x", x)], [("y", 6)],
                   [("w", w), ("xz", np.array(7, np.uint8)), ("wz", np.array(200, np.uint8))])
        xc = np.pad(x.astype(np.int64) - 7, ((0, 0), (0, 0), (1, 1), (1, 1)))
        wc = w.astype(np.int64) - 200
        want = np.zeros((2, 32, 5, 9), np.int64)
        for m in range(32):
            gi = m // 16
            for i in range(5):
                for j in range(9):
                    want[:, m, i, j] = (xc[:, gi * 32:(gi + 1) * 32, i * 2:i * 2 + 3, j:j + 3]
                                        * wc[m]).sum(axis=(1, 2, 3))
        expect_close("ConvInteger K=288, groups, pads, strides (exact)", y, want, 0)

        hidden, steps, batch = 3, 4, 3
        for clip in (None, 0.7):
            x, w, rr = f32(steps, batch, 2), f32(2, 4 * hidden, 2), f32(2, 4 * hidden, hidden)
            b, p, h0, c0 = f32(2, 8 * hidden), f32(2, 3 * hidden), f32(2, batch, hidden), f32(2, batch, hidden)
            lens = np.array([4, 2, 3], np.int32)
            attrs = dict(hidden_size=hidden, direction="bidirectional")
            if clip:
                attrs["clip"] = clip
            got = r.run([helper.make_node("LSTM", ["x", "w", "r", "b", "lens", "h0", "c0", "p"],
                                          ["y", "yh", "yc"], **attrs)],
                        [("x", x), ("lens", lens)], [("y", 1), ("yh", 1), ("yc", 1)],
                        [("w", w), ("r", rr), ("b", b), ("p", p), ("h0", h0), ("c0", c0)])
            want = lstm_ref(*[v.astype(np.float64) for v in (x, w, rr, b)], lens,
                            p.astype(np.float64), h0.astype(np.float64), c0.astype(np.float64),
                            hidden, clip)
            for name, gv, wv in zip(("Y", "Y_h", "Y_c"), got, want):
                expect_close(f"LSTM unrolled (peepholes, lens, clip={clip}) {name}", gv, wv, 1e-5)
        for lbr, clip, lens in [(0, None, [4, 2, 3]), (1, 0.5, [4, 4, 4]), (1, None, [1, 4, 2])]:
            x, w, rr = f32(steps, batch, 2), f32(2, 3 * hidden, 2), f32(2, 3 * hidden, hidden)
            b, h0 = f32(2, 6 * hidden), f32(2, batch, hidden)
            lens = np.array(lens, np.int32)
            attrs = dict(hidden_size=hidden, direction="bidirectional", linear_before_reset=lbr)
            if clip:
                attrs["clip"] = clip
            got = r.run([helper.make_node("GRU", ["x", "w", "r", "b", "lens", "h0"], ["y", "yh"],
                                          **attrs)],
                        [("x", x), ("lens", lens)], [("y", 1), ("yh", 1)],
                        [("w", w), ("r", rr), ("b", b), ("h0", h0)])
            want = gru_ref(*[v.astype(np.float64) for v in (x, w, rr, b)], lens,
                           h0.astype(np.float64), hidden, lbr, clip)
            for name, gv, wv in zip(("Y", "Y_h"), got, want):
                expect_close(f"GRU unrolled (linear_before_reset={lbr}, clip={clip}) {name}",
                             gv, wv, 1e-5)

        unit = np.concatenate([np.linspace(-1, 1, 20001), [0.9999999, -0.9999999]]).astype(np.float32)
        wide = np.concatenate([unit, np.linspace(-1000, 1000, 20001), [1e30, -1e30, np.inf, -np.inf]]).astype(np.float32)
        for op, data, fn in [("Acos", unit, np.arccos), ("Asin", unit, np.arcsin), ("Atan", wide, np.arctan)]:
            y, = r.run([helper.make_node(op, ["x"], ["y"])], [("x", data)], [("y", 1)], opset=13)
            expect_close(f"{op} over [-1, 1]" + (" and +-1000, +-inf" if op == "Atan" else ""),
                         y, fn(data.astype(np.float64)), 5e-7)

        x = np.array([[3, 1, 3, -np.inf, -np.inf, 2, np.inf, 1], [0] * 8, [-np.inf] * 8], np.float32)
        for largest in (1, 0):
            v, i = r.run([helper.make_node("TopK", ["x", "k"], ["v", "i"], axis=1, largest=largest)],
                         [("x", x)], [("v", 1), ("i", 7)], [("k", np.array([8], np.int64))])
            want = np.argsort(-x if largest else x, axis=1, kind="stable")
            expect_close(f"TopK largest={largest} indices (ties, infinities)", i, want, 0)
    if FAILURES:
        print("\n".join(["FAILED:"] + FAILURES))
        return 1
    print(f"all {r.count} decomposition checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
