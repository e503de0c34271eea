"""Turns one WebNN WPT conformance case into a webnn-graph DSL model.

A case (see shared/conformance/wpt/README.md) becomes, in `outdir`:
  graph.webnn            the graph: non-constant inputs, constants, operators, outputs
  graph.manifest.json    + graph.weights: the constants (weights sidecar)
  input_<name>.npy       one per non-constant input
It returns (inputs, expected) with the names the DSL uses, so the caller can
run the artifact and compare.
"""
import json
import math
import re

import numpy as np

DTYPES = {
    # WebNN name: (DSL short name, numpy dtype)
    "float32": ("f32", np.float32),
    "float16": ("f16", np.float16),
    "int32": ("i32", np.int32),
    "uint32": ("u32", np.uint32),
    "int64": ("i64", np.int64),
    "uint64": ("u64", np.uint64),
    "int8": ("i8", np.int8),
    "uint8": ("u8", np.uint8),
    # 4-bit values travel unpacked (one per byte) in .npy, as webnn-run
    # exchanges them; constants are packed for the weights file.
    "int4": ("i4", np.int8),
    "uint4": ("u4", np.uint8),
}


def pack_int4(arr):
    """Two 4-bit values per byte, low nibble first (docs/DSL.md)."""
    nibbles = (arr.astype(np.int64).ravel() & 0xF).astype(np.uint8)
    if nibbles.size % 2:
        nibbles = np.append(nibbles, np.uint8(0))
    return (nibbles[0::2] | (nibbles[1::2] << 4)).astype(np.uint8).tobytes()

_BIGINT = re.compile(r"^-?\d+n$")
_IDENT = re.compile(r"^[A-Za-z_$/][A-Za-z0-9_./]*$")


def ident(name):
    """A DSL identifier for a WPT operand name."""
    if _IDENT.match(name):
        return name
    out = re.sub(r"[^A-Za-z0-9_./]", "_", name)
    return out if _IDENT.match(out) else "_" + out


def scalar_value(v):
    """A WPT JSON scalar as a Python number (BigInt strings, non-finite names)."""
    if isinstance(v, str):
        if _BIGINT.match(v):
            return int(v[:-1])
        if v in ("Infinity", "+Infinity"):
            return math.inf
        if v == "-Infinity":
            return -math.inf
        if v == "NaN":
            return math.nan
    return v


def to_array(data, descriptor):
    dtype = DTYPES[descriptor["dataType"]][1]
    shape = descriptor["shape"]
    values = data if isinstance(data, list) else [data]
    values = [scalar_value(v) for v in values]
    count = int(np.prod(shape)) if shape else 1
    if np.issubdtype(dtype, np.integer):
        arr = np.array([int(v) for v in values], dtype=dtype)
    else:
        # float16 data is written as decimals: round from float64 once. Values past
        # the type's range become infinities, as a JavaScript typed array stores them.
        with np.errstate(over="ignore"):
            arr = np.array(values, dtype=np.float64).astype(dtype)
    # A single value stands for a filled tensor (some of tens of millions of
    # elements): converted once, then filled.
    if len(values) == 1 and count != 1:
        return np.full(shape, arr[0], dtype=dtype)
    return arr.reshape(shape)


def literal(v, operands):
    """A DSL option value."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return "null"
    if isinstance(v, str):
        if v in operands:
            return ident(v)
        s = scalar_value(v)
        if not isinstance(s, str):
            return literal(s, operands)
        return json.dumps(v)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return '"NaN"'
        if math.isinf(v):
            return '"Infinity"' if v > 0 else '"-Infinity"'
        return repr(v)
    if isinstance(v, list):
        return "[" + ", ".join(literal(x, operands) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {literal(x, operands)}" for k, x in v.items()) + "}"
    raise ValueError(f"unsupported option value {v!r}")


def dims(shape):
    return "[" + ", ".join(str(d) for d in shape) + "]"


def convert(case, outdir):
    graph = case["graph"]
    inputs, consts = {}, {}
    for name, spec in graph["inputs"].items():
        arr = to_array(spec["data"], spec["descriptor"])
        (consts if spec.get("constant") else inputs)[name] = (spec["descriptor"], arr)

    operands = set(graph["inputs"])
    lines = []
    for op in graph["operators"]:
        args = []
        for arg in op["arguments"]:
            for key, value in arg.items():
                if key == "options":
                    args += [f"{k}={literal(v, operands)}" for k, v in value.items()]
                elif isinstance(value, str) and value in operands:
                    args.append(ident(value))
                elif isinstance(value, list) and value and all(
                        isinstance(x, str) and x in operands for x in value):
                    args += [ident(x) for x in value]  # variadic operand list (concat)
                else:
                    args.append(f"{key}={literal(value, operands)}")
        outs = op["outputs"]
        if isinstance(outs, list):
            lhs = "[" + ", ".join(ident(o) for o in outs) + "]"
            operands.update(outs)
        else:
            lhs = ident(outs)
            operands.add(outs)
        lines.append(f"    {lhs} = {op['name']}({', '.join(args)});")

    expected = {}
    for name, spec in graph["expectedOutputs"].items():
        expected[ident(name)] = (spec["descriptor"], to_array(spec["data"], spec["descriptor"]))

    text = ['webnn_graph "wpt" v1 {', "  inputs {"]
    for name, (desc, _) in inputs.items():
        text.append(f"    {ident(name)}: {DTYPES[desc['dataType']][0]}{dims(desc['shape'])};")
    text += ["  }", "  consts {"]
    manifest = {"format": "wg-weights-manifest", "version": 1, "endianness": "little",
                "tensors": {}}
    blob = bytearray()
    for name, (desc, arr) in consts.items():
        text.append(f"    {ident(name)}: {DTYPES[desc['dataType']][0]}{dims(desc['shape'])}"
                    f' @weights("{ident(name)}");')
        if desc["dataType"] in ("int4", "uint4"):
            raw = pack_int4(arr)
        else:
            raw = arr.astype(arr.dtype.newbyteorder("<")).tobytes()
        manifest["tensors"][ident(name)] = {
            "dataType": desc["dataType"], "shape": desc["shape"],
            "byteOffset": len(blob), "byteLength": len(raw)}
        blob += raw
    text += ["  }", "  nodes {"] + lines + ["  }", "  outputs { " +
                                           " ".join(f"{n};" for n in expected) + " }", "}"]

    (outdir / "graph.webnn").write_text("\n".join(text) + "\n")
    (outdir / "graph.manifest.json").write_text(json.dumps(manifest, indent=1))
    (outdir / "graph.weights").write_bytes(bytes(blob))
    feeds = {}
    for name, (_, arr) in inputs.items():
        path = outdir / f"input_{ident(name)}.npy"
        np.save(path, arr)
        feeds[ident(name)] = path
    return feeds, expected
