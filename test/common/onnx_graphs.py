"""Small builders for the hand-written ONNX test graphs (python3-onnx)."""
import numpy as np
from onnx import helper as h, numpy_helper


def vi(name, elem_type, shape):
    """A graph input/output description."""
    return h.make_tensor_value_info(name, elem_type, shape)


def const(name, arr):
    """A Constant node holding `arr`."""
    return h.make_node("Constant", [], [name], value=numpy_helper.from_array(np.asarray(arr), name))


def make_model(nodes, inputs, outputs, inits=(), opset=17):
    """A default-domain model over one graph (IR version 8, which ONNX Runtime 1.30 reads)."""
    g = h.make_graph(nodes, "g", inputs, outputs, list(inits))
    m = h.make_model(g, opset_imports=[h.make_opsetid("", opset)])
    m.ir_version = 8
    return m
