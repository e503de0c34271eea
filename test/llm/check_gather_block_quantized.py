#!/usr/bin/python3
"""com.microsoft GatherBlockQuantized (genai's quantized embeddings), one node
per case, through webnnc + webnn-run against ONNX Runtime: 4- and 8-bit uint8
data, with and without zero points (an odd block count pads the packed zero
points), 1-D and 2-D indices, float32 and float16 scales; rtol 1e-5
(float16: 1e-3).

  check_gather_block_quantized.py --bin BUILD/bin [--work DIR]
"""
import argparse
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import ort_compare  # noqa: E402

CASES = [
    dict(name="int4_no_zp", bits=4, block=16, C=64, zp=False, idx=(5,), f16=False),
    dict(name="int4_zp_odd_blocks", bits=4, block=16, C=48, zp=True, idx=(2, 3), f16=False),
    dict(name="int8_zp", bits=8, block=32, C=64, zp=True, idx=(4,), f16=False),
    dict(name="int4_float16_scales", bits=4, block=32, C=64, zp=True, idx=(1, 2), f16=True),
]


def pack4(v):  # last axis pairs, low nibble first
    if v.shape[-1] % 2:
        v = np.concatenate([v, np.zeros(v.shape[:-1] + (1,), v.dtype)], axis=-1)
    return (v[..., 0::2] | (v[..., 1::2] << 4)).astype(np.uint8)


def make(case, path, rng):
    R, C, block, bits = 10, case["C"], case["block"], case["bits"]
    nb = C // block
    q = rng.integers(0, 1 << bits, (R, C)).astype(np.uint8)
    data = pack4(q) if bits == 4 else q
    sdt = np.float16 if case["f16"] else np.float32
    scales = (rng.random((R, nb)) * 0.1 + 0.01).astype(sdt)
    inits = [numpy_helper.from_array(data, "data"), numpy_helper.from_array(scales, "scales")]
    inputs = ["data", "idx", "scales"]
    if case["zp"]:
        z = rng.integers(0, 1 << bits, (R, nb)).astype(np.uint8)
        inits.append(numpy_helper.from_array(pack4(z) if bits == 4 else z, "zp"))
        inputs.append("zp")
    idx = rng.integers(0, R, case["idx"]).astype(np.int64)
    node = helper.make_node("GatherBlockQuantized", inputs, ["y"], domain="com.microsoft",
                            bits=bits, block_size=block, gather_axis=0, quantize_axis=1)
    out_type = TensorProto.FLOAT16 if case["f16"] else TensorProto.FLOAT
    graph = helper.make_graph([node], "gbq", [helper.make_tensor_value_info("idx", TensorProto.INT64, idx.shape)],
                              [helper.make_tensor_value_info("y", out_type, list(case["idx"]) + [C])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)])
    model.ir_version = 8
    onnx.save(model, path)
    return {"idx": idx}


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--work", default=None)
    a = ap.parse_args(argv)
    rng = np.random.default_rng(7)
    failures = ort_compare.run_cases(
        a.bin, a.work, CASES, lambda case, path: (make(case, path, rng), ["y"]), label=lambda case: case["name"],
        tolerance=lambda case: (1e-3, 1e-6) if case["f16"] else (1e-5, 1e-6), prefix="webnn-gbq-")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
