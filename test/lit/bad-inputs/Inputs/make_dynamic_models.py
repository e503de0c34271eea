"""ONNX models for the --dynamic-dim error paths.

  make_dynamic_models.py DIR
writes DIR/shape_to_reshape.onnx: x [n, 4] reshaped to Shape(x)[0] / 2 (a
run-time shape value feeding Reshape's target shape through a quotient that
does not divide exactly: not a size a dynamic dimension can have).
"""
import os
import sys

import onnx
from onnx import TensorProto, helper

d = sys.argv[1]
x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 4])
y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
nodes = [
    helper.make_node("Shape", ["x"], ["s"], name="shape_of_x"),
    helper.make_node("Gather", ["s", "zero"], ["n0"], name="pick_n", axis=0),
    helper.make_node("Div", ["n0", "two"], ["half"], name="halve"),
    helper.make_node("Concat", ["half", "minus_one"], ["flat"], name="target", axis=0),
    helper.make_node("Reshape", ["x", "flat"], ["y"], name="flatten"),
]
inits = [helper.make_tensor("zero", TensorProto.INT64, [1], [0]),
         helper.make_tensor("two", TensorProto.INT64, [1], [2]),
         helper.make_tensor("minus_one", TensorProto.INT64, [1], [-1])]
g = helper.make_graph(nodes, "shape_to_reshape", [x], [y], inits)
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]),
          os.path.join(d, "shape_to_reshape.onnx"))
