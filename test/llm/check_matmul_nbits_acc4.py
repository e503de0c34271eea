#!/usr/bin/python3
"""com.microsoft MatMulNBits at accuracy_level 4, one node per case, through
webnnc + webnn-run against ONNX Runtime. At level 4 both runtimes quantize
each block of an activation row to int8 (scale max|a|/127, round half to
even) and take integer dot products with the 4-bit weights minus their zero
points, so on the same input they must agree to float rounding of the
per-block scaling (measured <= 1.2e-6 on outputs up to ~4), not merely to
the ~1.7e-2 by which int8 activations move the result away from float:
rtol 1e-5, atol 1e-5. Cases cover the decode GEMV (M = 1, 5; K a multiple
of 128, which that path needs) and the prefill GEMM (M >= 16: odd N, K
padded to the block, blocks 32-128, zero points present or absent).

  check_matmul_nbits_acc4.py --bin BUILD/bin [--work DIR]
"""
import argparse
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_llama  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import ort_compare  # noqa: E402

CASES = [
    dict(M=1, K=768, N=64, block=32, zp=True),
    dict(M=5, K=2048, N=48, block=32, zp=True),
    dict(M=16, K=768, N=96, block=32, zp=True),
    dict(M=40, K=768, N=37, block=32, zp=False),
    dict(M=128, K=2048, N=70, block=32, zp=True),
    dict(M=23, K=200, N=33, block=32, zp=True),
    dict(M=33, K=512, N=64, block=64, zp=False),
    dict(M=20, K=384, N=40, block=128, zp=True),
]


def make(case, path, rng):
    M, K, N, block = case["M"], case["K"], case["N"], case["block"]
    w = (rng.standard_normal((K, N)) / np.sqrt(K)).astype(np.float32)
    b, s, z = make_llama.quantize_int4(w, block)
    inits = [numpy_helper.from_array(b, "B"), numpy_helper.from_array(s, "S")]
    inputs = ["A", "B", "S"]
    if case["zp"]:
        inits.append(numpy_helper.from_array(z, "Z"))
        inputs.append("Z")
    node = helper.make_node("MatMulNBits", inputs, ["Y"], domain="com.microsoft", K=K, N=N, bits=4,
                            block_size=block, accuracy_level=4)
    graph = helper.make_graph([node], "mmnb", [helper.make_tensor_value_info("A", TensorProto.FLOAT, [M, K])],
                              [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [M, N])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)])
    model.ir_version = 8
    onnx.save(model, path)
    return {"A": rng.standard_normal((M, K)).astype(np.float32)}


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--work", default=None)
    a = ap.parse_args(argv)
    with open("/proc/cpuinfo") as f:
        if " avx512_vnni" not in f.read():
            # webnnc then keeps float activations (accuracy_level 4 allows,
            # does not require, int8): nothing of this check applies.
            print("SKIP: no AVX512-VNNI on this CPU, webnnc computes level 4 in float")
            return 0
    rng = np.random.default_rng(11)
    failures = ort_compare.run_cases(
        a.bin, a.work, CASES, lambda case, path: (make(case, path, rng), ["Y"]),
        label=lambda c: f"M={c['M']} K={c['K']} N={c['N']} block={c['block']} zp={c['zp']}",
        tolerance=lambda case: (1e-5, 1e-5), prefix="webnn-mmnb4-")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
