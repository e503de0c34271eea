#!/usr/bin/python3
"""com.microsoft GatherBlockQuantized (genai's quantized embeddings), one node
per case, through webnnc + webnn-run against ONNX Runtime.

Static cases: uint8 data with bits 4 and 8 (MatMulNBits packing, gather_axis
0, quantize_axis last), with and without zero points (an odd block count
pads the packed zero points), int4/uint4 data with quantize_axis last or 0
and gather_axis on another axis or the same one, a partial last block, 1-D
and 2-D, int32 and int64 indices, float32 and float16 scales.

Dynamic cases: indices [1, seq] with `--dynamic-dim seq=16`; one artifact per
case, run at several sequence lengths, each compared with ONNX Runtime.

Decoder: the tiny genai-layout Llama (make_llama.py) with its embedding an
int4 GatherBlockQuantized (uint8 packing, block 32, zero points), compiled
once with dynamic sequence dimensions as check_generate.py does, then
`webnn-run generate` (an 8-token prefill, then 1-token steps) against ONNX
Runtime's greedy loop (bench/ort_generate.js): the tokens must be identical.

rtol 1e-5 (float16: 1e-3).

  check_gather_block_quantized.py --bin BUILD/bin [--work DIR]
"""
import argparse
import os
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import ort_compare  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import make_llama  # noqa: E402

ORT_GENERATE = os.path.join(os.path.dirname(os.path.dirname(HERE)), "bench", "ort_generate.js")

ONNX_UINT4, ONNX_INT4 = 21, 22  # newer than this python3-onnx's enum

# dtype: "u8" (uint8 data, `bits`), "u4"/"i4" (4-bit tensors). shape: data's
# logical shape (values, before packing). ga/qa: gather and quantize axes.
CASES = [
    dict(name="u8_bits4_no_zp", dtype="u8", bits=4, block=16, shape=(10, 64), zp=False, idx=(5,)),
    dict(name="u8_bits4_zp_odd_blocks", dtype="u8", bits=4, block=16, shape=(10, 48), zp=True, idx=(2, 3)),
    dict(name="u8_bits8_zp", dtype="u8", bits=8, block=32, shape=(10, 64), zp=True, idx=(4,)),
    dict(name="u8_bits8_no_zp_int32_idx", dtype="u8", bits=8, block=16, shape=(10, 32), zp=False, idx=(3,),
         idx32=True),
    dict(name="u8_bits4_float16_scales", dtype="u8", bits=4, block=32, shape=(10, 64), zp=True, idx=(1, 2),
         f16=True),
    dict(name="i4_qa_last_zp", dtype="i4", block=16, shape=(10, 48), zp=True, idx=(2, 2)),
    dict(name="u4_qa_last_partial_block", dtype="u4", block=16, shape=(10, 40), zp=True, idx=(3,)),
    dict(name="i4_qa0_ga1", dtype="i4", block=16, shape=(32, 6), qa=0, ga=1, zp=True, idx=(2, 2)),
    dict(name="u4_qa0_ga0_same_axis", dtype="u4", block=16, shape=(48, 4), qa=0, ga=0, zp=True, idx=(5,)),
    dict(name="i4_rank3_qa2_ga1_no_zp", dtype="i4", block=16, shape=(2, 5, 32), qa=2, ga=1, zp=False, idx=(3,)),
]

SEQ_MAX = 16
SEQ_LENGTHS = (1, 7, 16)
DYNAMIC_CASES = [
    dict(name="dyn_u8_bits4_zp_odd_blocks", dtype="u8", bits=4, block=16, shape=(50, 48), zp=True),
    dict(name="dyn_u8_bits4_float16_no_zp", dtype="u8", bits=4, block=32, shape=(50, 64), zp=False, f16=True),
    dict(name="dyn_u8_bits8_zp", dtype="u8", bits=8, block=16, shape=(50, 32), zp=True),
    dict(name="dyn_i4_qa_last_zp", dtype="i4", block=16, shape=(50, 32), zp=True),
    dict(name="dyn_u4_qa0_ga1", dtype="u4", block=16, shape=(32, 50), qa=0, ga=1, zp=True),
]


def pack4(v):  # last axis pairs, low nibble first (MatMulNBits layout)
    if v.shape[-1] % 2:
        v = np.concatenate([v, np.zeros(v.shape[:-1] + (1,), v.dtype)], axis=-1)
    return (v[..., 0::2] | (v[..., 1::2] << 4)).astype(np.uint8)


def int4_tensor(name, values, signed):
    """A 4-bit TensorProto: flat packing, two per byte, low nibble first."""
    flat = (values.astype(np.int64).ravel() & 0xF).astype(np.uint8)
    t = TensorProto()
    t.name = name
    t.data_type = ONNX_INT4 if signed else ONNX_UINT4
    t.dims.extend(values.shape)
    t.raw_data = pack4(flat[None, :])[0].tobytes()
    return t


def make(case, path, rng, idx_dims):
    """Writes the one-node model; returns the quantized tables' generator
    state-independent feeds maker (indices are drawn per run)."""
    shape, block = case["shape"], case["block"]
    ga, qa = case.get("ga", 0), case.get("qa", len(shape) - 1)
    dtype, bits = case["dtype"], case.get("bits", 4)
    nb = -(-shape[qa] // block)
    sshape = list(shape)
    sshape[qa] = nb
    sdt = np.float16 if case.get("f16") else np.float32
    scales = (rng.random(sshape) * 0.1 + 0.01).astype(sdt)
    inits = [numpy_helper.from_array(scales, "scales")]
    if dtype == "u8":
        q = rng.integers(0, 1 << bits, shape).astype(np.uint8)
        inits.append(numpy_helper.from_array(pack4(q) if bits == 4 else q, "data"))
    else:
        lo, hi = (-8, 8) if dtype == "i4" else (0, 16)
        inits.append(int4_tensor("data", rng.integers(lo, hi, shape), dtype == "i4"))
    inputs = ["data", "idx", "scales"]
    if case["zp"]:
        if dtype == "u8":
            z = rng.integers(0, 1 << bits, sshape).astype(np.uint8)
            inits.append(numpy_helper.from_array(pack4(z) if bits == 4 else z, "zp"))
        else:
            lo, hi = (-8, 8) if dtype == "i4" else (0, 16)
            inits.append(int4_tensor("zp", rng.integers(lo, hi, sshape), dtype == "i4"))
        inputs.append("zp")
    attrs = dict(block_size=block, gather_axis=ga, quantize_axis=qa)
    if dtype == "u8":
        attrs["bits"] = bits
    node = helper.make_node("GatherBlockQuantized", inputs, ["y"], domain="com.microsoft", **attrs)
    out_type = TensorProto.FLOAT16 if case.get("f16") else TensorProto.FLOAT
    idx_type = TensorProto.INT32 if case.get("idx32") else TensorProto.INT64
    graph = helper.make_graph([node], "gbq", [helper.make_tensor_value_info("idx", idx_type, idx_dims)],
                              [helper.make_tensor_value_info("y", out_type, None)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)])
    model.ir_version = 8
    onnx.save(model, path)
    rows = shape[ga]
    idx_dtype = np.int32 if case.get("idx32") else np.int64
    return lambda dims: {"idx": rng.integers(0, rows, dims).astype(idx_dtype)}


def tolerance(case):
    return (1e-3, 1e-6) if case.get("f16") else (1e-5, 1e-6)


def run_dynamic(bin_dir, work, rng):
    """One artifact per case compiled with --dynamic-dim seq, run at each of
    SEQ_LENGTHS against ONNX Runtime. Returns the number of failures."""
    failures = 0
    for i, case in enumerate(DYNAMIC_CASES):
        d = os.path.join(work, f"dyn{i}")
        os.makedirs(d, exist_ok=True)
        model, wnn = os.path.join(d, "model.onnx"), os.path.join(d, "model.wnn")
        feeds_for = make(case, model, rng, [1, "seq"])
        try:
            ort_compare.compile_model(bin_dir, model, wnn, ["--dynamic-dim", f"seq={SEQ_MAX}"])
        except RuntimeError as e:
            print(f"[FAIL] {case['name']}: {e}")
            failures += 1
            continue
        for seq in SEQ_LENGTHS:
            r = os.path.join(d, f"seq{seq}")
            os.makedirs(r, exist_ok=True)
            label = f"{case['name']} seq={seq}"
            try:
                ort_compare.run_both(bin_dir, wnn, model, feeds_for((1, seq)), r)
            except RuntimeError as e:
                print(f"[FAIL] {label}: {e}")
                failures += 1
                continue
            ok, worst, messages = ort_compare.compare(["y"], r, *tolerance(case), same_dtype=True)
            for m in messages:
                print("    " + m)
            print(f"[{'PASS' if ok else 'FAIL'}] {label}: y max |diff| {worst:.2e}")
            failures += not ok
    return failures


def gbq_embedding_llama(block=32):
    """make_llama's tiny model with its float embedding Gather replaced by an
    int4 GatherBlockQuantized of the same table (MatMulNBits packing)."""
    model = make_llama.build(make_llama.SIZES["tiny"], 0, 32, 0)
    g = model.graph
    init = next(i for i in g.initializer if i.name == "model.embed_tokens.weight")
    table = numpy_helper.to_array(init)
    vocab, hidden = table.shape
    packed, scales, zp = make_llama.quantize_int4(table.T, block)  # rows = vocab
    g.initializer.remove(init)
    g.initializer.extend([numpy_helper.from_array(packed.reshape(vocab, -1), "embed.q"),
                          numpy_helper.from_array(scales, "embed.scales"),
                          numpy_helper.from_array(zp, "embed.zp")])
    node = next(n for n in g.node if n.name == "/model/embed_tokens/Gather")
    gbq = helper.make_node("GatherBlockQuantized", ["embed.q", "input_ids", "embed.scales", "embed.zp"],
                           list(node.output), name=node.name, domain="com.microsoft",
                           bits=4, block_size=block, gather_axis=0, quantize_axis=1)
    index = list(g.node).index(node)
    g.node.remove(node)
    g.node.insert(index, gbq)
    return model


def run_decoder(bin_dir, work, new_tokens=16, prompt="3,14,15,92,65,35,89,79"):
    """Returns 0 when webnn-run generate and ONNX Runtime agree on every token."""
    import json
    import subprocess
    d = os.path.join(work, "decoder")
    os.makedirs(d, exist_ok=True)
    model, wnn = os.path.join(d, "llama_gbq.onnx"), os.path.join(d, "llama_gbq.wnn")
    onnx.save(gbq_embedding_llama(), model)
    try:
        ort_compare.compile_model(bin_dir, model, wnn, [
            "--shape", "batch_size:1", "--dynamic-dim", "sequence_length=128",
            "--dynamic-dim", "past_sequence_length=255", "--dynamic-dim", "total_sequence_length=256"])
    except RuntimeError as e:
        print(f"[FAIL] decoder with a GatherBlockQuantized embedding: {e}")
        return 1
    outs = []
    for cmd in ([os.path.join(bin_dir, "webnn-run"), "generate", wnn, "--json"],
                ["node", ORT_GENERATE, model]):
        r = subprocess.run(cmd + ["--prompt-ids", prompt, "--max-new-tokens", str(new_tokens)],
                           capture_output=True, text=True)
        if r.returncode != 0:
            print(f"[FAIL] decoder: {' '.join(cmd[:2])}: {r.stderr.strip()[-300:]}")
            return 1
        outs.append(json.loads(r.stdout)["generated_ids"])
    ok = outs[0] == outs[1] and len(outs[0]) == new_tokens
    print(f"[{'PASS' if ok else 'FAIL'}] decoder (int4 GatherBlockQuantized embedding, dynamic sequence): "
          f"{len(prompt.split(','))}-token prefill + {new_tokens - 1} decode steps, tokens "
          f"{'identical' if ok else 'differ'} ({outs[0]} vs ONNX Runtime {outs[1]})")
    return 0 if ok else 1


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--work", default=None)
    a = ap.parse_args(argv)
    rng = np.random.default_rng(7)
    work = a.work or tempfile.mkdtemp(prefix="webnn-gbq-")

    def make_static(case, path):
        feeds_for = make(case, path, rng, list(case["idx"]))
        return feeds_for(case["idx"]), ["y"]

    failures = ort_compare.run_cases(a.bin, os.path.join(work, "static"), CASES, make_static,
                                     label=lambda case: case["name"], tolerance=tolerance, prefix="webnn-gbq-")
    dyn = run_dynamic(a.bin, work, rng)
    runs = len(DYNAMIC_CASES) * len(SEQ_LENGTHS)
    print(f"dynamic: {runs - dyn} of {runs} runs pass ({len(DYNAMIC_CASES)} artifacts, seq in {SEQ_LENGTHS})")
    decoder = run_decoder(a.bin, work)
    return 1 if failures or dyn or decoder else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
