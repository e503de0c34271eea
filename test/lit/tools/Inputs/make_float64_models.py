"""Writes the models and inputs of float64.test: float64.onnx, whose every op
has a float64 form (the graph computes in float64), and fallback.onnx, the
same graph plus a Softmax, which has none (the graph computes in float32)."""
import sys

import numpy as np
import onnx
from onnx import TensorProto as T, helper

out = sys.argv[1]


def model(name, extra_nodes, extra_outputs):
    # y = (x + x) - x; z = x + c with c a float64 constant beyond float32's
    # range and precision; m = ReduceSum(x).
    nodes = [
        helper.make_node("Add", ["x", "x"], ["twice"], name="twice"),
        helper.make_node("Sub", ["twice", "x"], ["y"], name="y"),
        helper.make_node("Add", ["x", "c"], ["z"], name="z"),
        helper.make_node("ReduceSum", ["x"], ["m"], name="m", keepdims=0),
    ] + extra_nodes
    c = helper.make_tensor("c", T.DOUBLE, [3], [1e200, 1e-320, 0.2])
    graph = helper.make_graph(
        nodes, name,
        [helper.make_tensor_value_info("x", T.DOUBLE, [3])],
        [helper.make_tensor_value_info("y", T.DOUBLE, [3]),
         helper.make_tensor_value_info("z", T.DOUBLE, [3]),
         helper.make_tensor_value_info("m", T.DOUBLE, [])] + extra_outputs,
        [c])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)])
    m.ir_version = 7
    onnx.save(m, f"{out}/{name}.onnx")


model("float64", [], [])
model("fallback", [helper.make_node("Softmax", ["x"], ["s"], name="soft", axis=0)],
      [helper.make_tensor_value_info("s", T.DOUBLE, [3])])
np.save(f"{out}/x.npy", np.array([1e200, 1e-320, 0.1], np.float64))
