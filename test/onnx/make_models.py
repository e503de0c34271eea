#!/usr/bin/python3
"""Writes the small ONNX models the ONNX front-end tests import.

    /usr/bin/python3 test/onnx/make_models.py [OUT_DIR]   (default: test/onnx/models)

Deterministic (fixed seed), so re-running reproduces the checked-in files.
Needs only numpy and onnx (Debian python3-onnx).
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from onnx import external_data_helper

def weight(rng, name, *shape):
    return numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32) * 0.1, name)


def small_cnn():
    """Conv+BN+Relu+MaxPool+Conv+Relu+GlobalAveragePool+Flatten+Gemm+Softmax, opset 13."""
    rng = np.random.default_rng(1234)
    inits = [
        weight(rng, "conv1.w", 8, 3, 3, 3), weight(rng, "conv1.b", 8),
        numpy_helper.from_array(np.abs(rng.standard_normal(8)).astype(np.float32) + 0.5, "bn.scale"),
        weight(rng, "bn.bias", 8), weight(rng, "bn.mean", 8),
        numpy_helper.from_array(np.abs(rng.standard_normal(8)).astype(np.float32) + 0.5, "bn.var"),
        weight(rng, "conv2.w", 16, 8, 3, 3),
        weight(rng, "fc.w", 10, 16), weight(rng, "fc.b", 10),
    ]
    nodes = [
        helper.make_node("Conv", ["input", "conv1.w", "conv1.b"], ["c1"], name="conv1",
                         kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("BatchNormalization", ["c1", "bn.scale", "bn.bias", "bn.mean", "bn.var"],
                         ["b1"], name="bn1", epsilon=1e-3),
        helper.make_node("Relu", ["b1"], ["r1"], name="relu1"),
        helper.make_node("MaxPool", ["r1"], ["p1"], name="pool1", kernel_shape=[2, 2],
                         strides=[2, 2]),
        # Asymmetric SAME padding with stride 2 on an even size: checks the
        # ONNX -> WebNN pads reordering.
        helper.make_node("Conv", ["p1", "conv2.w"], ["c2"], name="conv2", strides=[2, 2],
                         auto_pad="SAME_UPPER"),
        helper.make_node("Relu", ["c2"], ["r2"], name="relu2"),
        helper.make_node("GlobalAveragePool", ["r2"], ["g"], name="gap"),
        helper.make_node("Flatten", ["g"], ["f"], name="flatten"),
        helper.make_node("Gemm", ["f", "fc.w", "fc.b"], ["logits"], name="fc", transB=1),
        helper.make_node("Softmax", ["logits"], ["probs"], name="softmax", axis=1),
    ]
    graph = helper.make_graph(
        nodes, "small_cnn",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 16, 16])],
        [helper.make_tensor_value_info("probs", TensorProto.FLOAT, [1, 10])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def mlp():
    """MatMul+Add+Relu+MatMul+Add+Softmax with a symbolic batch 'N', opset 11."""
    rng = np.random.default_rng(5678)
    inits = [weight(rng, "w1", 16, 32), weight(rng, "b1", 32), weight(rng, "w2", 32, 10),
             weight(rng, "b2", 10)]
    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["h"], name="fc1"),
        helper.make_node("Add", ["h", "b1"], ["hb"], name="fc1_bias"),
        helper.make_node("Relu", ["hb"], ["a"], name="act"),
        helper.make_node("MatMul", ["a", "w2"], ["o"], name="fc2"),
        helper.make_node("Add", ["o", "b2"], ["ob"], name="fc2_bias"),
        helper.make_node("Softmax", ["ob"], ["y"], name="softmax"),  # opset 11: axis 1
    ]
    graph = helper.make_graph(
        nodes, "mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 10])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)])


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "models")
    os.makedirs(out, exist_ok=True)
    cnn = small_cnn()
    onnx.checker.check_model(cnn)
    onnx.save(cnn, os.path.join(out, "small_cnn.onnx"))

    m = mlp()
    onnx.checker.check_model(m)
    onnx.save(m, os.path.join(out, "mlp.onnx"))

    # The same MLP with every weight in a side file (external_data).
    ext = mlp()
    weights = os.path.join(out, "mlp_external.weights")
    if os.path.exists(weights):
        os.remove(weights)  # onnx appends to an existing side file
    external_data_helper.convert_model_to_external_data(
        ext, all_tensors_to_one_file=True, location="mlp_external.weights", size_threshold=0)
    onnx.save(ext, os.path.join(out, "mlp_external.onnx"))


if __name__ == "__main__":
    main()
