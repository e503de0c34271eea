#!/usr/bin/python3
"""Regenerates mlp.weights, mlp.manifest.json, input.npy and expected.npy (seeded)."""
import json
from pathlib import Path

import numpy as np

here = Path(__file__).resolve().parent
rng = np.random.default_rng(7)
tensors = {
    "W1": rng.standard_normal((64, 32)).astype(np.float32) * 0.2,
    "b1": rng.standard_normal((32,)).astype(np.float32) * 0.1,
    "W2": rng.standard_normal((32, 10)).astype(np.float32) * 0.2,
    "b2": rng.standard_normal((10,)).astype(np.float32) * 0.1,
}
blob = bytearray(b"WGWT" + (1).to_bytes(4, "little"))
manifest = {"format": "wg-weights-manifest", "version": 1, "endianness": "little", "tensors": {}}
for name, arr in tensors.items():
    raw = arr.tobytes()
    manifest["tensors"][name] = {"dataType": "float32", "shape": list(arr.shape),
                                 "byteOffset": len(blob), "byteLength": len(raw)}
    blob += raw
(here / "mlp.weights").write_bytes(bytes(blob))
(here / "mlp.manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")

x = rng.standard_normal((1, 64)).astype(np.float32)
np.save(here / "input.npy", x)
h = np.maximum(x @ tensors["W1"] + tensors["b1"], 0)
logits = h @ tensors["W2"] + tensors["b2"]
e = np.exp(logits - logits.max(axis=1, keepdims=True))
np.save(here / "expected.npy", (e / e.sum(axis=1, keepdims=True)).astype(np.float32))
