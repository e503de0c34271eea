// Training-time ops whose results are deterministic, as element-wise WebNN
// math: the optimizers of ai.onnx.preview.training (Adagrad, Momentum,
// Adam: one update step of their formulas), BatchNormalization with
// training_mode=1 (batch statistics + running averages) and Dropout in
// training mode with ratio 0 (the identity).
#include "compiler/frontends/onnx/OnnxConverter.h"

namespace mlir::webnn::onnx_import {
namespace {

// Optimizer inputs: R (scalar rate), T (scalar step count), then `groups`
// runs of n tensors each (X..., G..., [V/H...]).
struct OptimizerInputs {
  Value r, t;
  int64_t n = 0;
  SmallVector<SmallVector<Value>> groups;  // groups[k][i]
};

FailureOr<OptimizerInputs> optimizerInputs(NodeConverter &c, int64_t groups) {
  OptimizerInputs in;
  FailureOr<Value> r = c.requiredInput(0), t = c.requiredInput(1);
  if (failed(r) || failed(t)) return failure();
  int64_t rest = static_cast<int64_t>(c.numInputs()) - 2;
  if (rest <= 0 || rest % groups) return c.fail("expected 2 + " + Twine(groups) + "*n inputs"), failure();
  if (static_cast<int64_t>(c.numOutputs()) * groups != rest * (groups - 1))
    return c.fail("expected " + Twine(groups - 1) + "*n outputs"), failure();
  in.n = rest / groups;
  Type elem = NodeConverter::typeOf(*r).getElementType();
  in.r = c.emitReshape(*r, {});
  in.t = c.emitCast(c.emitReshape(*t, {}), elem);
  for (int64_t k = 0; k < groups; ++k) {
    in.groups.emplace_back();
    for (int64_t i = 0; i < in.n; ++i) {
      FailureOr<Value> v = c.requiredInput(2 + k * in.n + i);
      if (failed(v)) return failure();
      in.groups.back().push_back(*v);
    }
  }
  return in;
}

// Adagrad: r = R / (1 + T * decay_factor); G' = norm_coefficient * X + G;
// H' = H + G'^2; X' = X - r * G' / (sqrt(H') + epsilon).
LogicalResult convertAdagrad(NodeConverter &c) {
  FailureOr<OptimizerInputs> in = optimizerInputs(c, 3);
  if (failed(in)) return failure();
  Type elem = NodeConverter::typeOf(in->r).getElementType();
  auto k = [&](double v) { return c.scalar(elem, v); };
  Value rate = c.emit("div", {in->r, c.emit("add", {k(1), c.emit("mul", {in->t, k(c.floatAttr("decay_factor", 0))})})});
  for (int64_t i = 0; i < in->n; ++i) {
    Value x = in->groups[0][i], g = in->groups[1][i], h = in->groups[2][i];
    Value gr = c.emit("add", {c.emit("mul", {x, k(c.floatAttr("norm_coefficient", 0))}), g});
    Value hNew = c.emit("add", {h, c.emit("mul", {gr, gr})});
    Value denom = c.emit("add", {c.emit("sqrt", {hNew}), k(c.floatAttr("epsilon", 1e-6f))});
    Value xNew = c.emit("sub", {x, c.emit("div", {c.emit("mul", {rate, gr}), denom})});
    if (c.emitFailed()) return failure();
    c.setOutput(i, xNew);
    c.setOutput(in->n + i, hNew);
  }
  return success();
}

// Momentum: G' = norm_coefficient * X + G; V' = alpha * V + beta' * G' with
// beta' = beta if T > 0 else 1; X' = X - R * V' (standard) or
// X - R * (G' + alpha * V') (nesterov).
LogicalResult convertMomentum(NodeConverter &c) {
  FailureOr<OptimizerInputs> in = optimizerInputs(c, 3);
  if (failed(in)) return failure();
  std::string mode = c.stringAttr("mode", "standard");
  if (mode != "standard" && mode != "nesterov") return c.fail("unknown mode '" + mode + "'");
  Type elem = NodeConverter::typeOf(in->r).getElementType();
  auto k = [&](double v) { return c.scalar(elem, v); };
  double alpha = c.floatAttr("alpha", 0), norm = c.floatAttr("norm_coefficient", 0);
  Value beta = c.emit("where", {c.emit("greater", {in->t, k(0)}), k(c.floatAttr("beta", 0)), k(1)});
  for (int64_t i = 0; i < in->n; ++i) {
    Value x = in->groups[0][i], g = in->groups[1][i], v = in->groups[2][i];
    Value gr = c.emit("add", {c.emit("mul", {x, k(norm)}), g});
    Value vNew = c.emit("add", {c.emit("mul", {v, k(alpha)}), c.emit("mul", {gr, beta})});
    Value step = mode == "standard" ? vNew : c.emit("add", {gr, c.emit("mul", {vNew, k(alpha)})});
    Value xNew = c.emit("sub", {x, c.emit("mul", {in->r, step})});
    if (c.emitFailed()) return failure();
    c.setOutput(i, xNew);
    c.setOutput(in->n + i, vNew);
  }
  return success();
}

// Adam: G' = norm_coefficient * X + G; V' = alpha V + (1 - alpha) G';
// H' = beta H + (1 - beta) G'^2; R' = R sqrt(1 - beta^T) / (1 - alpha^T) if
// T > 0 else R; X' = (1 - norm_coefficient_post)(X - R' V' / (sqrt(H') + epsilon)).
LogicalResult convertAdam(NodeConverter &c) {
  FailureOr<OptimizerInputs> in = optimizerInputs(c, 4);
  if (failed(in)) return failure();
  Type elem = NodeConverter::typeOf(in->r).getElementType();
  auto k = [&](double v) { return c.scalar(elem, v); };
  double alpha = c.floatAttr("alpha", 0.9f), beta = c.floatAttr("beta", 0.999f);
  double eps = c.floatAttr("epsilon", 1e-6f), norm = c.floatAttr("norm_coefficient", 0);
  double post = c.floatAttr("norm_coefficient_post", 0);
  Value biasFix = c.emit("div", {c.emit("sqrt", {c.emit("sub", {k(1), c.emit("pow", {k(beta), in->t})})}),
                                 c.emit("sub", {k(1), c.emit("pow", {k(alpha), in->t})})});
  Value rate = c.emit("where", {c.emit("greater", {in->t, k(0)}), c.emit("mul", {in->r, biasFix}), in->r});
  for (int64_t i = 0; i < in->n; ++i) {
    Value x = in->groups[0][i], g = in->groups[1][i], v = in->groups[2][i], h = in->groups[3][i];
    Value gr = c.emit("add", {c.emit("mul", {x, k(norm)}), g});
    Value vNew = c.emit("add", {c.emit("mul", {v, k(alpha)}), c.emit("mul", {gr, k(1 - alpha)})});
    Value hNew = c.emit("add", {c.emit("mul", {h, k(beta)}), c.emit("mul", {c.emit("mul", {gr, gr}), k(1 - beta)})});
    Value denom = c.emit("add", {c.emit("sqrt", {hNew}), k(eps)});
    Value xNew = c.emit("sub", {x, c.emit("mul", {rate, c.emit("div", {vNew, denom})})});
    if (post != 0) xNew = c.emit("mul", {xNew, k(1 - post)});
    if (c.emitFailed()) return failure();
    c.setOutput(i, xNew);
    c.setOutput(in->n + i, vNew);
    c.setOutput(2 * in->n + i, hNew);
  }
  return success();
}

}  // namespace

// BatchNormalization, training_mode=1: normalize with the batch's mean and
// (population) variance over every axis but 1; the running statistics are
// input * momentum + batch * (1 - momentum).
LogicalResult emitBatchNormTraining(NodeConverter &c, ArrayRef<Value> in) {
  Value x = in[0];
  int64_t rank = NodeConverter::rankOf(x);
  SmallVector<int64_t> axes;
  for (int64_t i = 0; i < rank; ++i)
    if (i != 1) axes.push_back(i);
  Type elem = NodeConverter::typeOf(x).getElementType();
  auto reduce = [&](Value v, bool keep) {
    return c.emit("reduceMean", {v}, {c.i64ArrayAttr("axes", axes), c.boolAttr("keepDimensions", keep)});
  };
  Value mean = reduce(x, false);
  Value centred = c.emit("sub", {x, reduce(x, true)});
  Value var = reduce(c.emit("mul", {centred, centred}), false);
  Value y = c.emit("batchNormalization", {x, mean, var, in[1], in[2]},
                   {c.i64Attr("axis", 1), c.f64Attr("epsilon", c.floatAttr("epsilon", 1e-5f))});
  double momentum = c.floatAttr("momentum", 0.9f);
  auto running = [&](Value stored, Value batch) {
    return c.emit("add", {c.emit("mul", {stored, c.scalar(elem, momentum)}),
                          c.emit("mul", {batch, c.scalar(elem, 1 - momentum)})});
  };
  Value runMean = running(in[3], mean), runVar = running(in[4], var);
  if (c.emitFailed() || !y) return failure();
  c.setOutput(0, y);
  if (c.outputUsed(1)) c.setOutput(1, runMean);
  if (c.outputUsed(2)) c.setOutput(2, runVar);
  return success();
}

void populateDefaultDomainTraining(OpConverterTable &t) {
  t.add("ai.onnx.preview.training", "Adagrad", 1, convertAdagrad);
  t.add("ai.onnx.preview.training", "Adam", 1, convertAdam);
  t.add("ai.onnx.preview.training", "Momentum", 1, convertMomentum);
}

}  // namespace mlir::webnn::onnx_import
