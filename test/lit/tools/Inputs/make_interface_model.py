"""Writes interface.onnx, whose inputs and outputs have types WebNN lacks
(float64, int16, uint16, bfloat16), and its .npy inputs, for
interface-types.test."""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

out = sys.argv[1]
T = TensorProto
nodes = [
    helper.make_node("Add", ["x", "w"], ["y"], name="add"),      # float64
    helper.make_node("Add", ["s", "u"], ["t"], name="add16"),    # int16 + uint16 -> int16
    helper.make_node("Cast", ["x"], ["b"], name="tobf16", to=T.BFLOAT16),
    # Elu has no float64 form, so the graph computes float64 in float32
    # (float64.test covers graphs that keep float64).
    helper.make_node("Elu", ["x"], ["unused"], name="elu"),
]
w = helper.make_tensor("w", T.DOUBLE, [3], [0.25, -1.0, 2.0])
graph = helper.make_graph(
    nodes, "interface",
    [helper.make_tensor_value_info("x", T.DOUBLE, [3]),
     helper.make_tensor_value_info("s", T.INT16, [3]),
     helper.make_tensor_value_info("u", T.INT16, [3])],
    [helper.make_tensor_value_info("y", T.DOUBLE, [3]),
     helper.make_tensor_value_info("t", T.INT16, [3]),
     helper.make_tensor_value_info("b", T.BFLOAT16, [3])],
    [w])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
model.ir_version = 7
onnx.save(model, f"{out}/interface.onnx")
np.save(f"{out}/x.npy", np.array([1.5, 0.1, 3.0], np.float64))
np.save(f"{out}/s.npy", np.array([32767, -4, 10], np.int16))
np.save(f"{out}/u.npy", np.array([1, 3, -20], np.int16))
np.save(f"{out}/x32.npy", np.array([1.5, 0.1, 3.0], np.float32))
