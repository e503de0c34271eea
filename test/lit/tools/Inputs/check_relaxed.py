#!/usr/bin/python3
"""Compares a relaxed-precision output with the exact one.

usage: check_relaxed.py EXACT.npy RELAXED.npy RUN.json
RUN.json is `webnn-run --json` of the relaxed artifact: when its dot products
ran in bf16 the outputs must differ (bf16 really used) but stay within bf16's
error (max |diff| <= 2e-2 * max |exact|); when they ran in float32 (no
AVX512-BF16 here) they must be bit-identical.
"""
import json
import sys

import numpy as np

exact, relaxed = np.load(sys.argv[1]), np.load(sys.argv[2])
mode = json.load(open(sys.argv[3]))["dot_products"]
rel = float(np.abs(exact - relaxed).max() / np.abs(exact).max())
if mode == "bf16":
    assert not np.array_equal(exact, relaxed), "relaxed output is bit-identical: bf16 was not used"
    assert rel <= 2e-2, "relaxed output off by %.3g of the largest value" % rel
    assert rel >= 1e-5, "relaxed output too close (%.3g) for bf16 operands" % rel
else:
    assert mode == "float32", mode
    assert np.array_equal(exact, relaxed), "float32 fallback differs from the exact artifact"
print("ok", mode)
