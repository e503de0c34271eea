#!/usr/bin/python3
"""Writes the weights sidecars of the example graphs in this folder.

Deterministic (fixed seed), so the committed outputs can be regenerated and
diffed: python3 gen_weights.py
"""
import json
import os
import struct

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
WEBNN_NAMES = {np.float32: "float32", np.float16: "float16", np.int32: "int32",
               np.int64: "int64", np.int8: "int8", np.uint8: "uint8"}
SAFETENSORS_NAMES = {np.float32: "F32", np.float16: "F16", np.int32: "I32",
                     np.int64: "I64", np.int8: "I8", np.uint8: "U8"}


def write_manifest_pair(stem, tensors, header=True, pad_to=1):
    """<stem>.weights (optionally with the WGWT header) + <stem>.manifest.json.

    byteOffset is absolute in the file. `pad_to` aligns each tensor's offset.
    """
    blob = bytearray(b"WGWT" + struct.pack("<I", 1) if header else b"")
    entries = {}
    for name, arr in tensors.items():
        while len(blob) % pad_to:
            blob.append(0)
        data = arr.astype(arr.dtype.newbyteorder("<")).tobytes()
        entries[name] = {"dataType": WEBNN_NAMES[arr.dtype.type], "shape": list(arr.shape),
                         "byteOffset": len(blob), "byteLength": len(data)}
        blob += data
    with open(os.path.join(HERE, stem + ".weights"), "wb") as f:
        f.write(blob)
    manifest = {"format": "wg-weights-manifest", "version": 1, "endianness": "little",
                "tensors": entries}
    with open(os.path.join(HERE, stem + ".manifest.json"), "w") as f:
        json.dump(manifest, f, indent=2)
        f.write("\n")


def write_safetensors(stem, tensors):
    header, data = {}, bytearray()
    for name, arr in tensors.items():
        raw = arr.astype(arr.dtype.newbyteorder("<")).tobytes()
        header[name] = {"dtype": SAFETENSORS_NAMES[arr.dtype.type], "shape": list(arr.shape),
                        "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    header["__metadata__"] = {"format": "pt"}
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)  # keep the data section 8-byte aligned
    with open(os.path.join(HERE, stem + ".safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + data)


def main():
    rng = np.random.default_rng(1234)
    # resnet_head: x[1,16] @ W[16,10] + b[10], softmax.
    head = {"W": rng.standard_normal((16, 10)).astype(np.float32),
            "b": rng.standard_normal(10).astype(np.float32)}
    write_manifest_pair("resnet_head", head)
    # The JSON spelling of the same graph shares the weights.
    write_manifest_pair("resnet_head_json", head)
    # add_relu: y = relu(x + bias); bias from a safetensors sidecar.
    write_safetensors("add_relu", {"bias": rng.standard_normal((2, 3)).astype(np.float32)})
    # unaligned: no header, a 1-byte tensor first so the f32 tensor sits at
    # offset 1 (legal in the manifest format; the importer must copy it).
    write_manifest_pair("unaligned", {"tag": np.array([7], dtype=np.uint8),
                                      "w": np.arange(6, dtype=np.float32).reshape(2, 3)},
                        header=False)


if __name__ == "__main__":
    main()
