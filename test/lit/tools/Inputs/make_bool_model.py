"""Writes bool.onnx, whose bool inputs and outputs are exchanged as bool .npy
while the graph computes them as uint8, and its .npy inputs, for
bool-interface.test."""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

out = sys.argv[1]
T = TensorProto
nodes = [
    helper.make_node("And", ["a", "b"], ["y"], name="and"),
    helper.make_node("Greater", ["x", "zero"], ["g"], name="greater"),
    helper.make_node("Neg", ["x"], ["minus"], name="neg"),
    helper.make_node("Where", ["a", "x", "minus"], ["w"], name="where"),
]
zero = helper.make_tensor("zero", T.FLOAT, [], [0.0])
graph = helper.make_graph(
    nodes, "bools",
    [helper.make_tensor_value_info("a", T.BOOL, [4]),
     helper.make_tensor_value_info("b", T.BOOL, [4]),
     helper.make_tensor_value_info("x", T.FLOAT, [4])],
    [helper.make_tensor_value_info("y", T.BOOL, [4]),
     helper.make_tensor_value_info("g", T.BOOL, [4]),
     helper.make_tensor_value_info("w", T.FLOAT, [4])],
    [zero])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
model.ir_version = 8
onnx.checker.check_model(model)
onnx.save(model, out + "/bool.onnx")
np.save(out + "/a.npy", np.array([True, True, False, False]))
np.save(out + "/b.npy", np.array([True, False, True, False]))
np.save(out + "/x.npy", np.array([1.5, -2.0, 3.0, 0.0], np.float32))
# The same a as uint8, with a nonzero value other than 1: still true.
np.save(out + "/a_u8.npy", np.array([2, 1, 0, 0], np.uint8))
np.save(out + "/a_i32.npy", np.array([1, 1, 0, 0], np.int32))
np.save(out + "/y_expected.npy", np.array([True, False, False, False]))
