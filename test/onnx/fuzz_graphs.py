#!/usr/bin/python3
"""Random webnn-dialect graphs around the fusion patterns, for the
pass-robustness test (check_pass_robustness.py).

Each graph mixes random element-wise, shape and reduction ops with the chains
the fusions look for (rotate-half rotary, RMSNorm, attention, matmul + bias +
GELU, conv + bias + relu), built with random perturbations: a factor that is
a rank-0 or broadcasting constant, a graph input instead of a constant, a
value read by several ops, operands swapped, ranks and sizes that do not
fit the pattern, pieces inside a webnn.if branch reading outer values. Every
graph is valid IR; the passes must rewrite it or leave it alone, never crash
or break it.

`python3 fuzz_graphs.py --out DIR --count N --seed S` writes DIR/gNNN.mlir.
"""
import argparse
import random
from pathlib import Path

# Constants the fusions test for (GELU's 0.5, 1 and sqrt 2, an RMSNorm eps,
# a mask's fill, pow's 2) and some they must not take for them.
SPECIAL = [0.5, 1.0, 2.0, 0.70710678, 1.41421356, 1e-5, -1e4, 0.125, 3.0, -1.0]


def ttype(shape, elem="f32"):
    return f"tensor<{'x'.join(str(d) for d in shape)}{'x' if shape else ''}{elem}>"


def broadcast(a, b):
    out = []
    for i in range(max(len(a), len(b))):
        x = a[len(a) - 1 - i] if i < len(a) else 1
        y = b[len(b) - 1 - i] if i < len(b) else 1
        if x != y and x != 1 and y != 1:
            return None
        out.append(max(x, y))
    return out[::-1]


class Graph:
    """One function body being generated: its lines, the values so far with
    their shapes, and how often each is read (unread ones become outputs)."""

    def __init__(self, rng):
        self.rng = rng
        self.lines = []
        self.values = []  # (name, shape)
        self.uses = {}
        self.n = 0
        self.inputs = 0
        self.in_region = False
        self.hoisted = []  # inputs asked for inside the region: graph inputs live at the top level

    def fresh(self):
        self.n += 1
        return f"%v{self.n}"

    def emit(self, text, shape, record=True):
        name = self.fresh()
        hoist = self.in_region and text.startswith("webnn.input")
        (self.hoisted if hoist else self.lines).append(f"  {name} = {text}")
        if record:
            self.values.append((name, shape))
        self.uses.setdefault(name, 0)
        return name

    def use(self, *names):
        for n in names:
            self.uses[n] = self.uses.get(n, 0) + 1

    # ---- leaves
    def input(self, shape):
        self.inputs += 1
        return self.emit(f'webnn.input "in{self.inputs}" : {ttype(shape)}', shape)

    def constant(self, shape, value=None):
        if value is None:
            value = self.rng.choice(SPECIAL) if self.rng.random() < 0.6 else round(self.rng.uniform(-2, 2), 3)
        return self.emit(f"webnn.constant dense<{value:.8e}> : {ttype(shape)}", shape)

    def leaf(self, shape):
        return self.input(shape) if self.rng.random() < 0.5 else self.constant(shape)

    def pick(self, pred=lambda s: True):
        cands = [v for v in self.values if pred(v[1])]
        return self.rng.choice(cands) if cands else None

    # ---- ops
    def unary(self, op, x, shape):
        self.use(x)
        return self.emit(f"webnn.{op} {x} : {ttype(shape)}", shape)

    def binary(self, op, a, sa, b, sb):
        out = broadcast(sa, sb)
        assert out is not None
        self.use(a, b)
        return self.emit(f"webnn.{op} {a}, {b} : ({ttype(sa)}, {ttype(sb)}) -> {ttype(out)}", out), out

    def matmul(self, a, sa, b, sb):
        batch = broadcast(sa[:-2], sb[:-2])
        out = batch + [sa[-2], sb[-1]]
        self.use(a, b)
        return self.emit(f"webnn.matmul {a}, {b} : ({ttype(sa)}, {ttype(sb)}) -> {ttype(out)}", out), out

    def reshape(self, x, sx, shape):
        self.use(x)
        return self.emit(f"webnn.reshape {x} {{newShape = array<i64: {', '.join(map(str, shape))}>}} : "
                         f"({ttype(sx)}) -> {ttype(shape)}", shape)

    def transpose(self, x, sx, perm):
        out = [sx[p] for p in perm]
        self.use(x)
        return self.emit(f"webnn.transpose {x} {{permutation = array<i64: {', '.join(map(str, perm))}>}} : "
                         f"({ttype(sx)}) -> {ttype(out)}", out), out

    def slice(self, x, sx, start, size, stride=1):
        starts = [0] * (len(sx) - 1) + [start]
        sizes = list(sx[:-1]) + [size]
        out = list(sx[:-1]) + [(size + stride - 1) // stride]
        strides = "" if stride == 1 else f", strides = array<i64: {', '.join(['1'] * (len(sx) - 1) + [str(stride)])}>"
        self.use(x)
        return self.emit(f"webnn.slice {x} {{starts = array<i64: {', '.join(map(str, starts))}>, "
                         f"sizes = array<i64: {', '.join(map(str, sizes))}>{strides}}} : ({ttype(sx)}) -> {ttype(out)}",
                         out), out

    def concat(self, xs, shapes, axis):
        out = list(shapes[0])
        out[axis] = sum(s[axis] for s in shapes)
        self.use(*xs)
        return self.emit(f"webnn.concat {', '.join(xs)} {{axis = {axis} : i64}} : "
                         f"({', '.join(ttype(s) for s in shapes)}) -> {ttype(out)}", out), out

    def reduce_mean_last(self, x, sx):
        out = list(sx[:-1]) + [1]
        self.use(x)
        return self.emit(f"webnn.reduceMean {x} {{axes = array<i64: {len(sx) - 1}>, keepDimensions = true}} : "
                         f"({ttype(sx)}) -> {ttype(out)}", out), out

    def softmax_last(self, x, sx):
        self.use(x)
        return self.emit(f"webnn.softmax {x} {{axis = {len(sx) - 1} : i64}} : ({ttype(sx)}) -> {ttype(sx)}", sx)

    def conv(self, x, sx, out_ch, k):
        pad = k // 2
        w = self.constant([out_ch, sx[1], k, k])
        out = [sx[0], out_ch, sx[2], sx[3]]
        self.use(x, w)
        return self.emit(f"webnn.conv2d {x}, {w} {{padding = array<i64: {pad}, {pad}, {pad}, {pad}>}} : "
                         f"({ttype(sx)}, {ttype([out_ch, sx[1], k, k])}) -> {ttype(out)}", out), out

    # ---- the fusions' chains, perturbed
    def factor(self, shape):
        """A value to combine with one of `shape`: a constant or input of the
        same shape, a broadcasting one, or a scalar."""
        r = self.rng.random()
        if r < 0.25:
            return self.leaf([]), []
        if r < 0.45:
            s = [1] * (len(shape) - 1) + [shape[-1]] if shape else []
            return self.leaf(s), s
        if r < 0.55 and len(shape) >= 2:
            s = [1] * (len(shape) - 2) + shape[-2:]
            return self.leaf(s), s
        v = self.pick(lambda s: s == shape)
        if v and self.rng.random() < 0.5:
            return v
        return self.leaf(shape), shape

    def rotary(self):
        B, N, S = self.rng.choice([1, 2]), self.rng.choice([1, 2]), self.rng.choice([1, 3])
        D = self.rng.choice([2, 4, 8])
        shape = [B, N, S, D] if self.rng.random() < 0.7 else [B, S, D]
        x = self.pick(lambda s: s == shape) or (self.input(shape), shape)
        x, sx = x
        h = D // 2
        a, _ = self.slice(x, sx, 0, h)
        b, _ = self.slice(x, sx, h, h)
        if self.rng.random() < 0.8:
            b = self.unary("neg", b, sx[:-1] + [h])
        parts = [b, a] if self.rng.random() < 0.8 else [a, b]
        rot, _ = self.concat(parts, [sx[:-1] + [h]] * 2, len(sx) - 1)
        cos, scos = self.factor(sx)
        sin, ssin = self.factor(sx)
        ops = ("mul", "mul") if self.rng.random() < 0.8 else ("mul", "add")
        m1, s1 = self.binary(ops[0], x, sx, cos, scos) if self.rng.random() < 0.5 else self.binary(ops[0], cos, scos, x, sx)
        m2, s2 = self.binary(ops[1], rot, sx, sin, ssin)
        return self.binary("add", m1, s1, m2, s2)

    def rms(self):
        shape = self.rng.choice([[1, 3, 8], [2, 4], [8], [1, 2, 3, 4]])
        x, sx = self.pick(lambda s: s == shape) or (self.input(shape), shape)
        if self.rng.random() < 0.5:
            sq, _ = self.binary("mul", x, sx, x, sx)
        else:
            two = self.constant([], 2.0 if self.rng.random() < 0.8 else 3.0)
            sq, _ = self.binary("pow", x, sx, two, [])
        mean, sm = self.reduce_mean_last(sq, sx)
        eps, se = self.factor(sm)
        e, se2 = self.binary("add", mean, sm, eps, se)
        r = self.unary("sqrt", e, se2)
        if self.rng.random() < 0.5:
            n, sn = self.binary("div", x, sx, r, se2)
        else:
            inv = self.unary("reciprocal", r, se2)
            n, sn = self.binary("mul", x, sx, inv, se2)
        w, sw = self.factor(sn)
        return self.binary("mul", w, sw, n, sn) if self.rng.random() < 0.5 else self.binary("mul", n, sn, w, sw)

    def attention(self):
        B, S, H, Dh = 1, self.rng.choice([2, 3]), self.rng.choice([1, 2]), self.rng.choice([2, 4])
        heads = []
        for _ in range(3):
            p = self.input([B, S, H * Dh])
            r = self.reshape(p, [B, S, H * Dh], [B, S, H, Dh])
            heads.append(self.transpose(r, [B, S, H, Dh], [0, 2, 1, 3]))
        (q, sq), (k, sk), (v, sv) = heads
        kt, skt = self.transpose(k, sk, [0, 1, 3, 2])
        s, ss = self.matmul(q, sq, kt, skt)
        r = self.rng.random()
        if r < 0.3:
            c = self.constant([], 0.5)
            s, ss = self.binary("mul", s, ss, c, [])
        elif r < 0.5:
            m, sm = self.factor(ss)
            s, ss = self.binary("add", s, ss, m, sm)
        elif r < 0.8:  # a causal mask, as decoder exports add it (or one of another shape)
            mshape = self.rng.choice([[1, 1, S, S], [S, S], [S, 1, S]])
            if broadcast(ss, mshape) != ss:
                mshape = [1, 1, S, S]
            rows = [[0.0 if j <= i else -1e4 for j in range(S)] for i in range(S)]
            flat = [x for row in rows for x in row]
            if mshape == [S, 1, S]:
                text = "[" + ", ".join("[[" + ", ".join(f"{x:.8e}" for x in row) + "]]" for row in rows) + "]"
            else:
                text = "[" + ", ".join("[" + ", ".join(f"{x:.8e}" for x in row) + "]" for row in rows) + "]"
                if len(mshape) == 4:
                    text = f"[[{text}]]"
            assert len(flat) == S * S
            m = self.emit(f"webnn.constant dense<{text}> : {ttype(mshape)}", mshape)
            s, ss = self.binary("add", s, ss, m, mshape) if self.rng.random() < 0.5 else self.binary("add", m, mshape, s, ss)
        p = self.softmax_last(s, ss)
        o, so = self.matmul(p, ss, v, sv)
        ot, sot = self.transpose(o, so, [0, 2, 1, 3])
        return self.reshape(ot, sot, [B, S, H * Dh]), [B, S, H * Dh]

    def linear(self):
        shape = self.rng.choice([[1, 3, 4], [2, 4], [4, 8]])
        x, sx = self.pick(lambda s: len(s) >= 2) or (self.input(shape), shape)
        n = self.rng.choice([1, 4, 8])
        w = self.leaf([sx[-1], n])
        y, sy = self.matmul(x, sx, w, [sx[-1], n])
        if self.rng.random() < 0.7:
            b, sb = self.factor(sy)
            y, sy = self.binary("add", y, sy, b, sb) if self.rng.random() < 0.5 else self.binary("add", b, sb, y, sy)
        r = self.rng.random()
        if r < 0.3:
            y = self.unary("gelu", y, sy)
        elif r < 0.6:  # the erf form of GELU
            c = self.constant([], 0.70710678)
            t, _ = self.binary("mul", y, sy, c, [])
            e = self.unary("erf", t, sy)
            one = self.constant([], 1.0)
            a, _ = self.binary("add", e, sy, one, [])
            h = self.constant([], 0.5)
            yh, _ = self.binary("mul", y, sy, h, [])
            y, sy = self.binary("mul", yh, sy, a, sy)
        return y, sy

    def quantized_linear(self):
        """matmul(x, dequantizeLinear(int4 [K, N], block scales)): the QDQ
        form --webnn-fuse-matmul-nbits packs; often two on one input, which
        --webnn-merge-matmul-nbits merges."""
        K, N, bs = 32, self.rng.choice([2, 4]), self.rng.choice([16, 32])
        x, sx = self.pick(lambda s: len(s) >= 2 and s[-1] == K) or (self.input([3, K]), [3, K])
        elem = self.rng.choice(["i4", "ui4"])
        transposed = self.rng.random() < 0.5  # q [N, K] read through transpose(.., [1, 0])
        for _ in range(self.rng.choice([1, 2, 2])):
            qs, ss = ([N, K], [N, K // bs]) if transposed else ([K, N], [K // bs, N])
            q = self.emit(f"webnn.constant dense<{self.rng.randint(0, 7)}> : {ttype(qs, elem)}", qs, record=False)
            sc = self.constant(ss, 0.125)
            z = self.emit(f"webnn.constant dense<{self.rng.randint(0, 3)}> : {ttype(ss, elem)}", ss, record=False)
            self.use(q, sc, z)
            w = self.emit(f"webnn.dequantizeLinear {q}, {sc}, {z} : ({ttype(qs, elem)}, {ttype(ss)}, "
                          f"{ttype(ss, elem)}) -> {ttype(qs)}", qs, record=False)
            if transposed:
                self.use(w)
                w = self.emit(f"webnn.transpose {w} {{permutation = array<i64: 1, 0>}} : ({ttype(qs)}) -> "
                              f"{ttype([K, N])}", [K, N], record=False)
            self.matmul(x, sx, w, [K, N])
        return None

    def convchain(self):
        shape = [1, self.rng.choice([1, 2, 3]), 4, 4]
        x, sx = self.pick(lambda s: len(s) == 4 and s[2] == 4 and s[3] == 4 and s[0] == 1) or (self.input(shape), shape)
        y, sy = self.conv(x, sx, self.rng.choice([1, 2, 4]), self.rng.choice([1, 3]))
        if self.rng.random() < 0.7:
            b, sb = self.factor(sy) if self.rng.random() < 0.5 else (self.constant([1, sy[1], 1, 1]), [1, sy[1], 1, 1])
            y, sy = self.binary("add", y, sy, b, sb)
        if self.rng.random() < 0.6:
            y = self.unary(self.rng.choice(["relu", "sigmoid"]), y, sy)
        return y, sy

    def reduce(self, x, sx):
        op = self.rng.choice(["reduceSum", "reduceMax", "reduceMean", "reduceL2"])
        axes = sorted(self.rng.sample(range(len(sx)), self.rng.randint(1, len(sx))))
        keep = self.rng.random() < 0.5
        out = [1 if i in axes else d for i, d in enumerate(sx)] if keep else [d for i, d in enumerate(sx) if i not in axes]
        self.use(x)
        return self.emit(f"webnn.{op} {x} {{axes = array<i64: {', '.join(map(str, axes))}>, "
                         f"keepDimensions = {'true' if keep else 'false'}}} : ({ttype(sx)}) -> {ttype(out)}", out)

    def pool(self, x, sx):
        """A 2-D pool over [N, C, H, W] (convert-layout moves it to nhwc)."""
        k = self.rng.choice([1, 2]) if min(sx[2], sx[3]) >= 2 else 1
        op = self.rng.choice(["averagePool2d", "maxPool2d"])
        out = [sx[0], sx[1], sx[2] - k + 1, sx[3] - k + 1]
        self.use(x)
        return self.emit(f"webnn.{op} {x} {{windowDimensions = array<i64: {k}, {k}>}} : ({ttype(sx)}) -> {ttype(out)}",
                         out)

    def random_op(self):
        x = self.pick()
        if not x:
            return self.input([2, 3])
        name, s = x
        if len(s) == 4 and self.rng.random() < 0.2:
            return self.pool(name, s)
        if s and self.rng.random() < 0.15:
            return self.reduce(name, s)
        if s and self.rng.random() < 0.1:
            axis = self.rng.randrange(len(s))
            other = self.pick(lambda t: t == s)[0]
            return self.concat([name, other], [s, s], axis)[0]
        r = self.rng.random()
        if r < 0.3:
            return self.unary(self.rng.choice(["neg", "relu", "sqrt", "exp", "erf", "gelu", "sigmoid", "reciprocal"]), name, s)
        if r < 0.6:
            b, sb = self.factor(s)
            out = broadcast(s, sb)
            if out is None:
                return None
            return self.binary(self.rng.choice(["add", "mul", "sub", "div", "max"]), name, s, b, sb)[0]
        if r < 0.75 and len(s) >= 2:
            perm = list(range(len(s)))
            self.rng.shuffle(perm)
            return self.transpose(name, s, perm)[0]
        if r < 0.9 and s:
            total = 1
            for d in s:
                total *= d
            return self.reshape(name, s, [1, total] if self.rng.random() < 0.5 else [total])
        return self.softmax_last(name, s) if s else None


def make_graph(rng):
    g = Graph(rng)
    makers = [g.rotary, g.rms, g.attention, g.linear, g.quantized_linear, g.convchain, g.random_op, g.random_op]
    for _ in range(rng.randint(3, 7)):
        rng.choice(makers)()
    outer_lines, outer_values = g.lines, list(g.values)
    region = []
    # Half the graphs end in a webnn.if whose then-branch holds more chains
    # reading the values before it.
    if rng.random() < 0.5:
        g.lines = []
        g.in_region = True
        for _ in range(rng.randint(1, 3)):
            rng.choice([g.rms, g.linear, g.rotary, g.quantized_linear, g.attention, g.random_op])()
        inner = [(n, sh) for n, sh in g.values[len(outer_values):] if g.uses.get(n, 0) == 0]
        if inner:
            y, sy = inner[-1]
            other = g.emit(f"webnn.constant dense<0.5> : {ttype(sy)}", sy, record=False)
            outer_lines = outer_lines + g.hoisted + [g.lines.pop()]  # the else-branch's constant, outside
            g.in_region = False
            cond = g.emit('webnn.input "cond" : tensor<ui8>', [], record=False)
            outer_lines.append(g.lines.pop())
            region = [f"  %ifr = webnn.if {cond} : tensor<ui8> -> ({ttype(sy)}) then {{"]
            region += ["  " + line for line in g.lines]
            region += [f"    webnn.yield {y} : {ttype(sy)}", "  } else {",
                       f"    webnn.yield {other} : {ttype(sy)}", "  }"]
            outputs = [(n, sh) for n, sh in outer_values if g.uses.get(n, 0) == 0] + [("%ifr", sy)]
        else:
            outer_lines = outer_lines + g.hoisted + g.lines
            outputs = [(n, sh) for n, sh in g.values if g.uses.get(n, 0) == 0]
    else:
        outputs = [(n, sh) for n, sh in g.values if g.uses.get(n, 0) == 0]
    if not outputs:
        return None
    names = ", ".join(f'"o{i}"' for i in range(len(outputs)))
    lines = [f"func.func @main() -> ({', '.join(ttype(sh) for _, sh in outputs)}) "
             f"attributes {{webnn.output_names = [{names}]}} {{"]
    lines += outer_lines + region
    lines.append(f"  return {', '.join(n for n, _ in outputs)} : {', '.join(ttype(sh) for _, sh in outputs)}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def write_graphs(out, count, seed):
    """Writes `count` graphs to out/gNNN.mlir; returns their paths."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    paths = []
    while len(paths) < count:
        text = make_graph(rng)
        if text is None:
            continue
        p = out / f"g{len(paths):03d}.mlir"
        p.write_text(text)
        paths.append(p)
    return paths


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--out", required=True)
    p.add_argument("--count", type=int, default=200)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    for path in write_graphs(args.out, args.count, args.seed):
        print(path)


if __name__ == "__main__":
    main()
