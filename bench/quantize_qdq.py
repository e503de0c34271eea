#!/usr/bin/env python3
"""A small static int8 quantizer: float ONNX model in, QDQ model out.

    python3 bench/quantize_qdq.py FLOAT.onnx OUT.onnx [--samples 8] [--seed 7]

What it writes (the layout ONNX Runtime's own static QDQ quantizer produces,
so that ORT runs its int8 kernels on it):
- every float input and output of Conv, Gemm and MatMul goes through
  QuantizeLinear -> DequantizeLinear, uint8, one scale and zero point per
  tensor, from the min/max (0 included) seen over the calibration inputs;
- constant weights are stored int8, symmetric, one scale per output channel
  (Conv axis 0, MatMul axis 1, Gemm by transB), behind a DequantizeLinear;
- Conv and Gemm biases are stored int32 with scale input_scale x weight_scale;
- a Relu or Clip that is the only consumer of a quantized output is dropped:
  the output is quantized with the activation's calibrated range instead,
  whose lower bound 0 (Relu) or upper bound (Clip) the uint8 clamp applies.
Everything else stays float between a DequantizeLinear and the next
QuantizeLinear.

Calibration: seeded random inputs (N(0,1) floats, integers in [0, 1000)),
`--samples` of them, run through ONNX Runtime for Node (bench/ort_bench.js)
on a copy of the model that lists every tensor to be quantized as an output.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

BENCH = os.path.dirname(os.path.abspath(__file__))
QUANTIZED_OPS = ("Conv", "Gemm", "MatMul")


def npy_name(tensor):
    """The file name ort_bench.js --output-dir gives an output."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", tensor) + ".npy"


def graph_input_specs(model):
    inits = {t.name for t in model.graph.initializer}
    specs = []
    for vi in model.graph.input:
        if vi.name in inits:
            continue
        tt = vi.type.tensor_type
        dims = [d.dim_value for d in tt.shape.dim]
        if any(d <= 0 for d in dims):
            raise ValueError("input '%s' has a dynamic shape" % vi.name)
        specs.append((vi.name, onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[tt.elem_type], dims))
    return specs


def random_inputs(specs, rng):
    out = {}
    for name, dtype, dims in specs:
        if np.issubdtype(dtype, np.floating):
            out[name] = rng.standard_normal(dims).astype(dtype)
        else:
            out[name] = rng.integers(0, 1000, dims).astype(dtype)
    return out


def run_ort(model_path, inputs, work_dir, outputs_dir):
    """One ORT run through ort_bench.js; returns {file name: array}."""
    cmd = ["node", os.path.join(BENCH, "ort_bench.js"), model_path, "--bench", "1", "--warmup", "0",
           "--output-dir", outputs_dir]
    for i, (name, arr) in enumerate(inputs.items()):
        path = os.path.join(work_dir, "calib_input_%d.npy" % i)
        np.save(path, arr)
        cmd += ["--input", "%s=%s" % (name, path)]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        raise RuntimeError("ort_bench.js failed on %s: %s" % (model_path, res.stderr.strip()[-2000:]))


class Graph:
    """Producer/consumer index and constant lookup of an ONNX graph."""

    def __init__(self, model):
        self.model = model
        g = model.graph
        self.inits = {t.name: t for t in g.initializer}
        self.producer, self.consumers = {}, {}
        for n in g.node:
            for o in n.output:
                self.producer[o] = n
            for i in n.input:
                self.consumers.setdefault(i, []).append(n)
        self.outputs = {o.name for o in g.output}

    def constant(self, name):
        """The initializer behind `name`, looking through Identity nodes."""
        while name not in self.inits:
            p = self.producer.get(name)
            if p is None or p.op_type != "Identity":
                return None
            name = p.input[0]
        return self.inits[name]

    def clip_bounds(self, node):
        vals = []
        for i in node.input[1:3]:
            t = self.constant(i) if i else None
            if t is None and i:
                p = self.producer.get(i)
                if p is not None and p.op_type == "Constant":
                    t = p.attribute[0].t
                else:
                    return None
            vals.append(float(numpy_helper.to_array(t)) if t is not None else None)
        return vals


def plan(model):
    """Decides what to quantize. Returns (activations, weights, biases, fused):
    activations: tensor -> calibration tensor (the same one, or the output of
    the Relu/Clip that is dropped); weights: tensor -> axis; biases: tensor ->
    (input tensor, weight tensor); fused: dropped activation nodes' names ->
    (their input, their output)."""
    g = Graph(model)
    acts, weights, biases, fused = {}, {}, {}, {}
    for n in model.graph.node:
        if n.op_type not in QUANTIZED_OPS:
            continue
        if n.op_type == "Conv":
            data, wt, axis = [n.input[0]], n.input[1], 0
        elif n.op_type == "Gemm":
            trans_a = next((a.i for a in n.attribute if a.name == "transA"), 0)
            trans_b = next((a.i for a in n.attribute if a.name == "transB"), 0)
            if trans_a:
                continue
            data, wt, axis = [n.input[0]], n.input[1], 0 if trans_b else 1
        else:
            data, wt, axis = list(n.input), None, 1
            if g.constant(n.input[1]) is not None:
                data, wt = [n.input[0]], n.input[1]
                if len(g.constant(wt).dims) != 2:
                    continue
        if any(g.constant(d) is not None for d in data):
            continue
        if wt is not None:
            if g.constant(wt) is None:
                continue
            weights[wt] = axis
        for d in data:
            acts.setdefault(d, d)
        if n.op_type in ("Conv", "Gemm") and len(n.input) > 2 and n.input[2] and wt is not None:
            if g.constant(n.input[2]) is not None and len(g.constant(n.input[2]).dims) == 1:
                biases[n.input[2]] = (n.input[0], wt)
        y = n.output[0]
        calib = y
        cons = g.consumers.get(y, [])
        if len(cons) == 1 and y not in g.outputs:
            c = cons[0]
            lo = None
            if c.op_type == "Relu":
                lo = 0.0
            elif c.op_type == "Clip":
                b = g.clip_bounds(c)
                lo = b[0] if b else None
            if lo == 0.0:
                fused[c.name or c.output[0]] = (y, c.output[0])
                calib = c.output[0]
        acts[y] = calib
    # A dropped activation's output is quantized where its producer's output
    # is: no second QuantizeLinear for it.
    for y, z in fused.values():
        if acts.get(z) == z:
            del acts[z]
    return g, acts, weights, biases, fused


def calibrate(model_path, model, acts, samples, seed, work_dir):
    """min/max of every calibration tensor over `samples` ORT runs."""
    calib_tensors = sorted(set(acts.values()))
    names = {}
    for t in calib_tensors:
        f = npy_name(t)
        if f in names.values():
            raise ValueError("two tensors map to the output file %s" % f)
        names[t] = f
    aug = onnx.ModelProto()
    aug.CopyFrom(model)
    existing = {o.name for o in aug.graph.output}
    for t in calib_tensors:
        if t not in existing:
            aug.graph.output.append(helper.make_tensor_value_info(t, TensorProto.FLOAT, None))
    aug_path = os.path.join(work_dir, "calibration.onnx")
    onnx.save(aug, aug_path)
    rng = np.random.default_rng(seed)
    specs = graph_input_specs(model)
    lo = {t: 0.0 for t in calib_tensors}
    hi = {t: 0.0 for t in calib_tensors}
    for s in range(samples):
        out_dir = os.path.join(work_dir, "out")
        shutil.rmtree(out_dir, ignore_errors=True)
        run_ort(aug_path, random_inputs(specs, rng), work_dir, out_dir)
        for t in calib_tensors:
            a = np.load(os.path.join(out_dir, names[t]))
            lo[t] = min(lo[t], float(a.min()))
            hi[t] = max(hi[t], float(a.max()))
        print("  calibration sample %d/%d" % (s + 1, samples), file=sys.stderr, flush=True)
    return {t: (lo[t], hi[t]) for t in calib_tensors}


def uint8_params(lo, hi):
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    scale = (hi - lo) / 255.0 if hi > lo else 1.0
    zp = int(np.clip(round(-lo / scale), 0, 255))
    return np.float32(scale), np.uint8(zp)


def quantize_model(model, ranges, g, acts, weights, biases, fused):
    new_inits, head, after = [], [], {}
    act_scale = {}

    def add_init(arr, name):
        new_inits.append(numpy_helper.from_array(arr, name))
        return name

    # Activations: the producer writes NAME_f32 (or a dropped activation's
    # input), QuantizeLinear -> DequantizeLinear gives back NAME, so every
    # consumer and graph output reads the dequantized tensor.
    renamed, input_dq = {}, {}
    for t, calib in acts.items():
        scale, zp = uint8_params(*ranges[calib])
        act_scale[t] = act_scale[calib] = scale
        s = add_init(np.array(scale, np.float32), t + "_scale")
        z = add_init(np.array(zp, np.uint8), t + "_zero_point")
        src, dst = t + "_f32", calib
        q = helper.make_node("QuantizeLinear", [src, s, z], [t + "_q"], name=t + "_QuantizeLinear")
        dq = helper.make_node("DequantizeLinear", [t + "_q", s, z], [dst], name=t + "_DequantizeLinear")
        renamed[t] = src
        if t in g.producer:
            after.setdefault(g.producer[t].name or t, []).extend([q, dq])
        else:  # a graph input keeps its name: its consumers are rewired
            input_dq[t] = t + "_dequantized"
            q.input[0] = t
            dq.output[0] = input_dq[t]
            head.extend([q, dq])

    weight_scale = {}
    for w, axis in weights.items():
        arr = numpy_helper.to_array(g.constant(w)).astype(np.float32)
        red = tuple(i for i in range(arr.ndim) if i != axis)
        amax = np.max(np.abs(arr), axis=red)
        scale = np.where(amax > 0, amax / 127.0, 1.0).astype(np.float32)
        shape = [1] * arr.ndim
        shape[axis] = -1
        q = np.clip(np.round(arr / scale.reshape(shape)), -127, 127).astype(np.int8)
        weight_scale[w] = scale
        add_init(q, w + "_quantized")
        add_init(scale, w + "_scale")
        add_init(np.zeros(scale.shape, np.int8), w + "_zero_point")
        head.append(helper.make_node("DequantizeLinear", [w + "_quantized", w + "_scale", w + "_zero_point"],
                                     [w + "_dequantized"], name=w + "_DequantizeLinear", axis=axis))
    for b, (x, w) in biases.items():
        arr = numpy_helper.to_array(g.constant(b)).astype(np.float64)
        scale = (act_scale[x].astype(np.float64) * weight_scale[w].astype(np.float64))
        q = np.clip(np.round(arr / scale), -2**31, 2**31 - 1).astype(np.int32)
        add_init(q, b + "_quantized")
        add_init(scale.astype(np.float32), b + "_scale")
        add_init(np.zeros(scale.shape, np.int32), b + "_zero_point")
        head.append(helper.make_node("DequantizeLinear", [b + "_quantized", b + "_scale", b + "_zero_point"],
                                     [b + "_dequantized"], name=b + "_DequantizeLinear", axis=0))

    dropped = set(fused)
    nodes = list(head)
    for n in model.graph.node:
        key = n.name or n.output[0]
        if key in dropped:
            continue
        n2 = onnx.NodeProto()
        n2.CopyFrom(n)
        if n.op_type in QUANTIZED_OPS:
            for i, inp in enumerate(n2.input):
                if i >= 1 and inp in weights and (i == 1):
                    n2.input[i] = inp + "_dequantized"
                elif i == 2 and inp in biases:
                    n2.input[i] = inp + "_dequantized"
        for i, inp in enumerate(n2.input):
            if inp in input_dq:
                n2.input[i] = input_dq[inp]
        for i, o in enumerate(n2.output):
            if o in renamed:
                n2.output[i] = renamed[o]
        nodes.append(n2)
        nodes.extend(after.get(key, []))

    # The float weights and the Identity nodes that forwarded them are dead now.
    graph_outputs = {o.name for o in model.graph.output}
    while True:
        used = {i for n in nodes for i in n.input} | graph_outputs
        live = [n for n in nodes if any(o in used for o in n.output)]
        if len(live) == len(nodes):
            break
        nodes = live
    inits = [t for t in list(model.graph.initializer) + new_inits if t.name in used]
    out = onnx.ModelProto()
    out.CopyFrom(model)
    del out.graph.node[:]
    out.graph.node.extend(nodes)
    del out.graph.initializer[:]
    out.graph.initializer.extend(inits)
    kept_inputs = [i for i in out.graph.input if i.name in used or i.name not in g.inits]
    del out.graph.input[:]
    out.graph.input.extend(kept_inputs)
    del out.graph.value_info[:]
    onnx.checker.check_model(out)
    return out


def quantize(float_path, out_path, samples=8, seed=7):
    """Writes the QDQ model to out_path (atomically); returns a summary dict."""
    model = onnx.load(float_path)
    g, acts, weights, biases, fused = plan(model)
    work_dir = tempfile.mkdtemp(prefix="qdq_calib_")
    try:
        ranges = calibrate(float_path, model, acts, samples, seed, work_dir)
    finally:
        shutil.rmtree(work_dir, ignore_errors=True)
    out = quantize_model(model, ranges, g, acts, weights, biases, fused)
    tmp = out_path + ".tmp"
    onnx.save(out, tmp)
    os.replace(tmp, out_path)
    return {"activations": len(acts), "weights": len(weights), "biases": len(biases),
            "activations_dropped": len(fused), "calibration_samples": samples}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("float_model")
    ap.add_argument("out")
    ap.add_argument("--samples", type=int, default=8, help="calibration inputs")
    ap.add_argument("--seed", type=int, default=7, help="seed of the calibration inputs")
    args = ap.parse_args(argv)
    if args.samples < 1:
        ap.error("--samples must be at least 1")
    if not os.path.isfile(args.float_model):
        print("quantize_qdq.py: %s: no such file" % args.float_model, file=sys.stderr)
        return 2
    try:
        summary = quantize(args.float_model, args.out, args.samples, args.seed)
    except (ValueError, RuntimeError, onnx.checker.ValidationError) as e:
        print("quantize_qdq.py: %s: %s" % (args.float_model, e), file=sys.stderr)
        return 1
    print("%s: %s" % (args.out, ", ".join("%s %s" % kv for kv in summary.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
