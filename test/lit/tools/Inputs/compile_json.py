#!/usr/bin/python3
"""`webnnc compile --json` models and checks (test/lit/tools/compile-json.test).

usage: compile_json.py make DIR
       compile_json.py check KIND JSON ARTIFACT [WEIGHTS]
make writes DIR/fused.onnx (Conv + Add + Relu: webnn-fuse-conv fires),
DIR/unsupported.onnx (two unknown ops, one of them twice, one in an If
branch), DIR/malformed.onnx (not a protobuf) and DIR/syntax.webnn (a DSL
error on line 3). check reads the one JSON object webnnc printed and checks
it against KIND (ok, unsupported, malformed, syntax) and the files on disk.
"""
import hashlib
import json
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def make(d):
    os.makedirs(d, exist_ok=True)
    rng = np.random.default_rng(3)
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 8, 8])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8, 8, 8])
    w = numpy_helper.from_array(rng.standard_normal((8, 4, 3, 3)).astype(np.float32), "w")
    b = numpy_helper.from_array(rng.standard_normal((1, 8, 1, 1)).astype(np.float32), "b")
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], name="conv", pads=[1, 1, 1, 1]),
             helper.make_node("Add", ["c", "b"], ["a"], name="bias"),
             helper.make_node("Relu", ["a"], ["y"], name="relu")]
    g = helper.make_graph(nodes, "fused", [x], [y], [w, b])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), os.path.join(d, "fused.onnx"))

    v = helper.make_tensor_value_info("v", TensorProto.FLOAT, [4])
    cond = helper.make_tensor_value_info("cond", TensorProto.BOOL, [])
    out = helper.make_tensor_value_info("out", TensorProto.FLOAT, [4])
    then_g = helper.make_graph([helper.make_node("Frobnicate", ["v"], ["t"], name="in_then", domain="com.example")],
                               "then", [], [helper.make_tensor_value_info("t", TensorProto.FLOAT, [4])])
    else_g = helper.make_graph([helper.make_node("Identity", ["v"], ["e"], name="in_else")],
                               "else", [], [helper.make_tensor_value_info("e", TensorProto.FLOAT, [4])])
    nodes = [helper.make_node("Frobnicate", ["v"], ["f1"], name="frob_a", domain="com.example"),
             helper.make_node("Frobnicate", ["f1"], ["f2"], name="", domain="com.example"),
             helper.make_node("Twiddle", ["f2"], ["f3"], name="twiddle", domain="com.example"),
             helper.make_node("If", ["cond"], ["i"], name="branch", then_branch=then_g, else_branch=else_g),
             helper.make_node("Add", ["f3", "i"], ["out"], name="sum")]
    g = helper.make_graph(nodes, "unsupported", [v, cond], [out])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.example", 3)])
    with open(os.path.join(d, "unsupported.onnx"), "wb") as f:
        f.write(m.SerializeToString())
    with open(os.path.join(d, "malformed.onnx"), "wb") as f:
        f.write(b"\x08\x07 this is not a protobuf \xff\xff")
    with open(os.path.join(d, "syntax.webnn"), "w") as f:
        f.write('webnn_graph "bad" v1 {\n  inputs { x: f32[4]; }\n  nodes { y = relu(x; }\n  outputs { y; }\n}\n')


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def expect(cond, message):
    if not cond:
        fail(message)


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def check(kind, json_path, artifact, weights):
    text = open(json_path).read()
    lines = [l for l in text.splitlines() if l.strip()]
    expect(len(lines) == 1, f"expected one JSON line on stdout, got {len(lines)}")
    j = json.loads(lines[0])
    for key in ["tool", "version", "artifact_schema_version", "runtime_version", "model", "status", "exit_code",
                "errors", "warnings", "unsupported_ops", "optimized", "rewrites", "ops", "compile_ms"]:
        expect(key in j, f"missing key {key}")
    expect(j["tool"] == "webnnc", "tool")
    expect(j["version"].count(".") == 2 and j["version"] == j["runtime_version"], "versions")
    expect(isinstance(j["artifact_schema_version"], int) and j["artifact_schema_version"] > 0, "schema version")
    expect(j["compile_ms"] >= 0, "compile_ms")
    if kind == "ok":
        expect(j["status"] == "ok" and j["exit_code"] == 0 and j["errors"] == [], "status ok")
        out = j["output"]
        expect(out["path"] == artifact and out["bytes"] == os.path.getsize(artifact), "output size")
        expect(out["sha256"] == sha256(artifact), "output sha256")
        if weights:
            w = j["weights"]
            expect(w["path"] == weights and w["bytes"] == os.path.getsize(weights), "weights size")
            expect(w["sha256"] == sha256(weights), "weights sha256")
        else:
            expect("weights" not in j, "weights without --weightless")
        expect(j["optimized"] is True, "optimized")
        fired = {(r["pass"], r["rewrite"]): r["count"] for r in j["rewrites"]}
        expect(any(p == "webnn-fuse-conv" for p, _ in fired) and all(c > 0 for c in fired.values()),
               f"webnn-fuse-conv rewrites: {fired}")
        expect(j["ops"]["relu"]["before"] == 1 and j["ops"]["relu"]["after"] == 0, f"ops {j['ops']}")
        expect(j["unsupported_ops"] == [], "no unsupported ops")
        print("ok", len(fired), "rewrite kinds")
        return
    expect(j["status"] == "error" and j["exit_code"] == 1, "status error")
    expect("output" not in j and not os.path.exists(artifact), "no artifact after an error")
    expect(len(j["errors"]) >= 1 and all(e["severity"] in ("error", "note") for e in j["errors"]), "errors")
    e = j["errors"][0]
    if kind == "unsupported":
        ops = {(u["domain"], u["op_type"], u["opset"]): u["nodes"] for u in j["unsupported_ops"]}
        expect(ops == {("com.example", "Frobnicate", 3): ["frob_a", "Frobnicate_1", "in_then"],
                       ("com.example", "Twiddle", 3): ["twiddle"]}, f"unsupported_ops {ops}")
        expect(e["file"].endswith("unsupported.onnx") and "Frobnicate" in e["message"], f"error {e}")
        print("unsupported", sorted(ops))
    elif kind == "malformed":
        expect(j["unsupported_ops"] == [], "malformed: no op list")
        expect(e["file"].endswith("malformed.onnx") and "not a valid ONNX model" in e["message"], f"error {e}")
        print("malformed:", e["message"])
    elif kind == "syntax":
        expect(e["file"].endswith("syntax.webnn") and e["line"] == 3 and e["column"] > 0, f"error {e}")
        print("syntax: line", e["line"], "column", e["column"])
    else:
        fail("unknown kind " + kind)


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2])
    else:
        check(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5] if len(sys.argv) > 5 else None)
