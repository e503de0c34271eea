"""Small builders for the hand-written ONNX test graphs (python3-onnx)."""
import os
import subprocess

import numpy as np
import onnx
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


def matmul_chain(count, size, opset=13):
    """x (size x size float32) multiplied by itself `count` times in a chain:
    a graph slow enough to outlast a short timeout."""
    nodes, prev = [], "x"
    for i in range(count):
        nodes.append(h.make_node("MatMul", [prev, "x"], [f"y{i}"]))
        prev = f"y{i}"
    return make_model(nodes, [vi("x", onnx.TensorProto.FLOAT, [size, size])],
                      [vi(prev, onnx.TensorProto.FLOAT, [size, size])], opset=opset)


def save_and_compile(webnnc, directory, model):
    """Checks `model`, saves it as DIRECTORY/model.onnx and compiles it to
    model.wnn beside it: in this process through the Python package built
    beside `webnnc` (ort_compare), else with `webnnc`. Returns (onnx path, wnn
    path, the graph's output names, webnnc's error text or None)."""
    import ort_compare
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, "model.onnx")
    onnx.checker.check_model(model)
    onnx.save(model, path)
    wnn = os.path.join(directory, "model.wnn")
    outputs = [o.name for o in model.graph.output]
    webnn = ort_compare.bindings(os.path.dirname(os.path.abspath(webnnc)))
    if webnn is not None:
        try:
            webnn.compile(path, wnn)
        except webnn.CompileError as e:
            return path, wnn, outputs, str(e).strip()
        return path, wnn, outputs, None
    r = subprocess.run([webnnc, "compile", path, "-o", wnn], capture_output=True, text=True)
    return path, wnn, outputs, (r.stderr.strip() if r.returncode else None)
