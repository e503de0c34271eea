// Constant evaluation at import for what the dialect's folders leave (they
// cover add/sub/mul/div, cast, reshape, transpose, expand, slice and concat,
// on dense constants only, so the arithmetic is evaluated here too, for small
// constants held as resources). Shape arithmetic must reach the ops that take
// it as attributes (Reshape's shape, Slice's starts, Pad's pads, ...) as
// constants, in the model's graph and in every If branch and Loop body alike:
// exporters write it with element-wise ops, gathers (Shape -> Gather, and
// Slice with a negative step, which the importer lowers to a gather) and
// reductions. Shape of a tensor with dynamic dimensions is followed entry by
// entry (forwardShapeValueDims): static entries become constants again, and
// a Reshape target with one dynamic entry left lets it be inferred.
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

#include "compiler/frontends/onnx/OnnxConverter.h"
#include "dialects/webnn/WebNNOps.h"

namespace mlir::webnn::onnx_import {
namespace {

// Larger results stay run-time ops: a folded copy adds to the artifact as
// much as it saves (the dialect's folders use the same bound).
constexpr int64_t kMaxElements = 1 << 16;

std::optional<ElementsAttr> fromValues(RankedTensorType outType, ArrayRef<double> fv,
                                       ArrayRef<int64_t> iv) {
  Type elem = outType.getElementType();
  if (auto ft = mlir::dyn_cast<FloatType>(elem)) {
    SmallVector<APFloat> floats;
    for (double v : fv) {
      APFloat a(v);
      bool lost;
      a.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
      floats.push_back(a);
    }
    return ElementsAttr(DenseElementsAttr::get(outType, floats));
  }
  if (!elem.isIntOrIndex()) return std::nullopt;
  SmallVector<APInt> ints;
  for (int64_t v : iv)
    ints.push_back(APInt(elem.getIntOrFloatBitWidth(), static_cast<uint64_t>(v), true));
  return ElementsAttr(DenseElementsAttr::get(outType, ints));
}

// Element-wise ops of one to three broadcast operands (arithmetic, which the
// dialect folds only for dense constants, comparisons, where, unary math,
// pow, clamp). Integer operands compute in int64 (exact for shape
// values), floats in double.
std::optional<ElementsAttr> evaluateElementwise(Operation *op, ArrayRef<ConstantData> in,
                                                RankedTensorType outType) {
  StringRef name = op->getName().stripDialect();
  if (in.empty() || in.size() > 3) return std::nullopt;
  bool intMath = !mlir::isa<FloatType>(in.back().type.getElementType());
  using F = std::function<double(double, double, double)>;
  using I = std::function<int64_t(int64_t, int64_t, int64_t)>;
  F f;
  I i;
  auto both = [&](auto fn) { f = fn; i = fn; };
  auto attrF = [&](StringRef n, double dflt) {
    if (auto a = op->getAttrOfType<FloatAttr>(n)) return a.getValueAsDouble();
    return dflt;
  };
  if (name == "neg") both([](auto a, auto, auto) { return -a; });
  else if (name == "abs") both([](auto a, auto, auto) { return a < 0 ? -a : a; });
  else if (name == "sign") both([](auto a, auto, auto) { return decltype(a)((a > 0) - (a < 0)); });
  else if (name == "relu") both([](auto a, auto, auto) { return a > 0 ? a : decltype(a)(0); });
  else if (name == "logicalNot") both([](auto a, auto, auto) { return decltype(a)(a == 0); });
  else if (name == "identity") both([](auto a, auto, auto) { return a; });
  else if (name == "floor" && !intMath) f = [](double a, double, double) { return std::floor(a); };
  else if (name == "ceil" && !intMath) f = [](double a, double, double) { return std::ceil(a); };
  else if (name == "roundEven" && !intMath) f = [](double a, double, double) { return std::nearbyint(a); };
  else if (name == "sqrt" && !intMath) f = [](double a, double, double) { return std::sqrt(a); };
  else if (name == "exp" && !intMath) f = [](double a, double, double) { return std::exp(a); };
  else if (name == "log" && !intMath) f = [](double a, double, double) { return std::log(a); };
  else if (name == "reciprocal" && !intMath) f = [](double a, double, double) { return 1.0 / a; };
  else if (name == "pow" && !intMath) f = [](double a, double b, double) { return std::pow(a, b); };
  // Integer arithmetic wraps (in uint64, then narrowed to the element type),
  // as the runtime's does.
  else if (name == "add") {
    f = [](double a, double b, double) { return a + b; };
    i = [](int64_t a, int64_t b, int64_t) { return static_cast<int64_t>(uint64_t(a) + uint64_t(b)); };
  } else if (name == "sub") {
    f = [](double a, double b, double) { return a - b; };
    i = [](int64_t a, int64_t b, int64_t) { return static_cast<int64_t>(uint64_t(a) - uint64_t(b)); };
  } else if (name == "mul") {
    f = [](double a, double b, double) { return a * b; };
    i = [](int64_t a, int64_t b, int64_t) { return static_cast<int64_t>(uint64_t(a) * uint64_t(b)); };
  }
  else if (name == "div" && !intMath) f = [](double a, double b, double) { return a / b; };
  else if (name == "max") both([](auto a, auto b, auto) { return a > b ? a : b; });
  else if (name == "min") both([](auto a, auto b, auto) { return a < b ? a : b; });
  else if (name == "equal") both([](auto a, auto b, auto) { return decltype(a)(a == b); });
  else if (name == "notEqual") both([](auto a, auto b, auto) { return decltype(a)(a != b); });
  else if (name == "greater") both([](auto a, auto b, auto) { return decltype(a)(a > b); });
  else if (name == "greaterOrEqual") both([](auto a, auto b, auto) { return decltype(a)(a >= b); });
  else if (name == "lesser") both([](auto a, auto b, auto) { return decltype(a)(a < b); });
  else if (name == "lesserOrEqual") both([](auto a, auto b, auto) { return decltype(a)(a <= b); });
  else if (name == "logicalAnd") both([](auto a, auto b, auto) { return decltype(a)(a && b); });
  else if (name == "logicalOr") both([](auto a, auto b, auto) { return decltype(a)(a || b); });
  else if (name == "logicalXor") both([](auto a, auto b, auto) { return decltype(a)((a != 0) != (b != 0)); });
  else if (name == "where") both([](auto c, auto t, auto e) { return c != 0 ? t : e; });
  else if (name == "clamp") {
    double lo = attrF("minValue", -INFINITY), hi = attrF("maxValue", INFINITY);
    f = [lo, hi](double a, double, double) { return std::min(std::max(a, lo), hi); };
    if (intMath) {
      // Bounds beyond int64 do not bound an int64 value.
      int64_t ilo = lo <= -9.2e18 ? std::numeric_limits<int64_t>::min() : static_cast<int64_t>(std::ceil(lo));
      int64_t ihi = hi >= 9.2e18 ? std::numeric_limits<int64_t>::max() : static_cast<int64_t>(std::floor(hi));
      i = [ilo, ihi](int64_t a, int64_t, int64_t) { return std::min(std::max(a, ilo), ihi); };
    }
  } else {
    return std::nullopt;
  }
  if (intMath && !i) return std::nullopt;
  // Comparisons read their operands' type; where reads the branches'.
  ArrayRef<int64_t> outShape = outType.getShape();
  int64_t n = outType.getNumElements(), rank = outShape.size();
  SmallVector<int64_t> idx(rank, 0);
  SmallVector<double> fvs;
  SmallVector<int64_t> ivs;
  bool outFloat = mlir::isa<FloatType>(outType.getElementType());
  for (int64_t k = 0; k < n; ++k) {
    int64_t rest = k;
    for (int64_t d = rank - 1; d >= 0; --d) idx[d] = rest % outShape[d], rest /= outShape[d];
    SmallVector<int64_t> at;
    for (const ConstantData &d : in) {
      ArrayRef<int64_t> s = d.type.getShape();
      int64_t lin = 0, off = rank - static_cast<int64_t>(s.size());
      for (size_t j = 0; j < s.size(); ++j) lin = lin * s[j] + (s[j] == 1 ? 0 : idx[off + j]);
      at.push_back(d.splat ? 0 : lin);
    }
    auto argI = [&](size_t j) { return j < in.size() ? in[j].intAt(at[j]) : 0; };
    auto argF = [&](size_t j) { return j < in.size() ? in[j].floatAt(at[j]) : 0.0; };
    double fv = 0;
    int64_t iv = 0;
    if (intMath) {
      iv = i(argI(0), argI(1), argI(2)), fv = static_cast<double>(iv);
    } else {
      fv = f(argF(0), argF(1), argF(2));
      if (!outFloat) {
        // An integer result out of int64's range (or NaN) is not folded: the
        // op stays for the runtime, which defines its conversion.
        if (!(fv >= -9.2e18 && fv <= 9.2e18)) return std::nullopt;
        iv = static_cast<int64_t>(fv);
      }
    }
    if (outFloat) fvs.push_back(fv);
    else ivs.push_back(iv);
  }
  return fromValues(outType, fvs, ivs);
}

// tile(input, repetitions): output index i reads input index i mod size.
// cumulativeSum(input, axis, exclusive, reversed).
std::optional<ElementsAttr> evaluateTileOrCumSum(Operation *op, ArrayRef<ConstantData> in,
                                                 RankedTensorType outType) {
  StringRef name = op->getName().stripDialect();
  if (in.size() != 1) return std::nullopt;
  const ConstantData &x = in[0];
  ArrayRef<int64_t> s = x.type.getShape(), o = outType.getShape();
  int64_t rank = s.size(), n = outType.getNumElements();
  if (static_cast<int64_t>(o.size()) != rank) return std::nullopt;
  SmallVector<double> fv(n);
  SmallVector<int64_t> iv(n);
  SmallVector<int64_t> idx(rank, 0);
  auto linear = [&](ArrayRef<int64_t> at) {
    int64_t lin = 0;
    for (int64_t d = 0; d < rank; ++d) lin = lin * s[d] + at[d];
    return lin;
  };
  if (name == "tile") {
    for (int64_t k = 0; k < n; ++k) {
      int64_t rest = k;
      for (int64_t d = rank - 1; d >= 0; --d) idx[d] = (rest % o[d]) % s[d], rest /= o[d];
      int64_t src = linear(idx);
      fv[k] = x.floatAt(src), iv[k] = x.intAt(src);
    }
    return fromValues(outType, fv, iv);
  }
  auto axisAttr = op->getAttrOfType<IntegerAttr>("axis");
  if (!axisAttr || axisAttr.getInt() < 0 || axisAttr.getInt() >= rank) return std::nullopt;
  int64_t axis = axisAttr.getInt();
  bool exclusive = false, reversed = false;
  if (auto a = op->getAttrOfType<BoolAttr>("exclusive")) exclusive = a.getValue();
  if (auto a = op->getAttrOfType<BoolAttr>("reversed")) reversed = a.getValue();
  int64_t len = s[axis], stride = 1;
  for (int64_t d = axis + 1; d < rank; ++d) stride *= s[d];
  for (int64_t k = 0; k < n; ++k) {
    if ((k / stride) % len != 0) continue;  // one pass per line along the axis, from its start
    double facc = 0;
    int64_t iacc = 0;
    for (int64_t step = 0; step < len; ++step) {
      int64_t j = reversed ? len - 1 - step : step;
      int64_t at = k + j * stride;
      if (!exclusive) facc += x.floatAt(at), iacc += x.intAt(at);
      fv[at] = facc, iv[at] = iacc;
      if (exclusive) facc += x.floatAt(at), iacc += x.intAt(at);
    }
  }
  return fromValues(outType, fv, iv);
}

// gather(input, indices, axis): element bytes copied; negative indices count
// from the end (as ONNX's); an index still out of range is left to the
// runtime's rule.
std::optional<ElementsAttr> evaluateGather(Operation *op, ArrayRef<ConstantData> in,
                                           RankedTensorType outType) {
  if (in.size() != 2 || !in[1].type.getElementType().isIntOrIndex()) return std::nullopt;
  int64_t axis = 0;
  if (auto a = op->getAttrOfType<IntegerAttr>("axis")) axis = a.getInt();
  ArrayRef<int64_t> s = in[0].type.getShape();
  if (axis < 0 || axis >= static_cast<int64_t>(s.size())) return std::nullopt;
  int64_t outer = 1, inner = 1, dim = s[axis];
  for (int64_t d = 0; d < axis; ++d) outer *= s[d];
  for (size_t d = axis + 1; d < s.size(); ++d) inner *= s[d];
  int64_t count = in[1].numElements();
  size_t width = in[0].splat ? in[0].raw.size() : (in[0].numElements() ? in[0].raw.size() / in[0].numElements() : 0);
  if (width == 0) return std::nullopt;
  std::vector<char> bytes;
  bytes.reserve(outType.getNumElements() * width);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t k = 0; k < count; ++k) {
      int64_t at = in[1].intAt(k);
      if (at < 0) at += dim;
      if (at < 0 || at >= dim) return std::nullopt;
      for (int64_t e = 0; e < inner; ++e) {
        int64_t src = in[0].splat ? 0 : (o * dim + at) * inner + e;
        bytes.insert(bytes.end(), in[0].raw.begin() + src * width, in[0].raw.begin() + (src + 1) * width);
      }
    }
  if (static_cast<int64_t>(bytes.size()) != outType.getNumElements() * static_cast<int64_t>(width))
    return std::nullopt;
  bool detectedSplat = false;
  if (!DenseElementsAttr::isValidRawBuffer(outType, ArrayRef<char>(bytes), detectedSplat)) return std::nullopt;
  return ElementsAttr(DenseElementsAttr::getFromRawBuffer(outType, bytes));
}

// reduceSum / reduceProduct / reduceMin / reduceMax / reduceMean over
// `axes` (all when absent); keepDimensions only changes the result type.
std::optional<ElementsAttr> evaluateReduce(Operation *op, ArrayRef<ConstantData> in,
                                           RankedTensorType outType) {
  StringRef name = op->getName().stripDialect();
  if (in.size() != 1) return std::nullopt;
  enum Kind { kSum, kProd, kMin, kMax, kMean } kind;
  if (name == "reduceSum") kind = kSum;
  else if (name == "reduceProduct") kind = kProd;
  else if (name == "reduceMin") kind = kMin;
  else if (name == "reduceMax") kind = kMax;
  else if (name == "reduceMean") kind = kMean;
  else return std::nullopt;
  const ConstantData &x = in[0];
  ArrayRef<int64_t> s = x.type.getShape();
  int64_t rank = s.size();
  SmallVector<bool> reduced(rank, true);
  if (auto axes = op->getAttrOfType<DenseI64ArrayAttr>("axes")) {
    reduced.assign(rank, false);
    for (int64_t a : axes.asArrayRef()) {
      if (a < 0 || a >= rank) return std::nullopt;
      reduced[a] = true;
    }
  }
  int64_t outCount = outType.getNumElements(), n = x.numElements();
  if (n == 0) return std::nullopt;  // the empty reduction's identity is the runtime's to define
  bool isFloat = mlir::isa<FloatType>(x.type.getElementType());
  SmallVector<double> acc(outCount, 0);
  SmallVector<int64_t> iacc(outCount, 0);
  SmallVector<bool> seen(outCount, false);
  SmallVector<int64_t> idx(rank, 0);
  for (int64_t k = 0; k < n; ++k) {
    int64_t rest = k;
    for (int64_t d = rank - 1; d >= 0; --d) idx[d] = rest % s[d], rest /= s[d];
    int64_t o = 0;
    for (int64_t d = 0; d < rank; ++d)
      if (!reduced[d]) o = o * s[d] + idx[d];
    double fv = x.floatAt(k);
    int64_t iv = x.intAt(k);
    if (!seen[o]) {
      acc[o] = fv, iacc[o] = iv, seen[o] = true;
      continue;
    }
    switch (kind) {
      case kSum: case kMean: acc[o] += fv, iacc[o] += iv; break;
      case kProd: acc[o] *= fv, iacc[o] *= iv; break;
      case kMin: acc[o] = std::min(acc[o], fv), iacc[o] = std::min(iacc[o], iv); break;
      case kMax: acc[o] = std::max(acc[o], fv), iacc[o] = std::max(iacc[o], iv); break;
    }
  }
  if (kind == kMean) {
    if (!isFloat) return std::nullopt;
    for (double &v : acc) v /= static_cast<double>(n / outCount);
  }
  if (!isFloat)
    for (int64_t o = 0; o < outCount; ++o) acc[o] = static_cast<double>(iacc[o]);
  return fromValues(outType, acc, iacc);
}

// ------------------------------------------------------- shape values
const onnx::AttributeProto *findAttr(const onnx::NodeProto &node, StringRef name) {
  for (const onnx::AttributeProto &a : node.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

// Input i as a small integer constant (not a shape value).
std::optional<ConstantData> constantOperand(GraphImporter &g, const onnx::NodeProto &node, int i) {
  if (i >= node.input_size() || node.input(i).empty() || g.shapeValueOrigin(node.input(i))) return std::nullopt;
  Value v = g.lookup(node.input(i));
  std::optional<ConstantData> d = v ? getConstantData(v) : std::nullopt;
  if (!d || !d->type.getElementType().isIntOrIndex() || d->type.getRank() > 1 || d->numElements() > 64)
    return std::nullopt;
  return d;
}

// An int-list operand given as input `i` (newer opsets) or attribute `name`.
std::optional<SmallVector<int64_t>> listOperand(GraphImporter &g, const onnx::NodeProto &node, int i,
                                                StringRef name) {
  if (i < node.input_size() && !node.input(i).empty()) {
    std::optional<ConstantData> d = constantOperand(g, node, i);
    if (!d) return std::nullopt;
    return d->ints();
  }
  if (const onnx::AttributeProto *a = findAttr(node, name))
    return SmallVector<int64_t>(a->ints().begin(), a->ints().end());
  return SmallVector<int64_t>{};
}

bool isIntegerOnnxType(int64_t t) {
  using TP = onnx::TensorProto;
  return t == TP::INT8 || t == TP::INT16 || t == TP::INT32 || t == TP::INT64 || t == TP::UINT8 ||
         t == TP::UINT16 || t == TP::UINT32 || t == TP::UINT64;
}

// A list of axes that names only axis 0 of a rank-`rank` tensor (or none).
bool onlyAxisZero(ArrayRef<int64_t> axes, int64_t rank) {
  return llvm::all_of(axes, [&](int64_t a) { return a == 0 || a == -rank; });
}

// The entries Slice keeps of `n` values (ONNX clamping; one axis).
std::optional<SmallVector<int64_t>> sliceIndices(int64_t n, int64_t start, int64_t end, int64_t step) {
  if (step == 0) return std::nullopt;
  auto norm = [&](int64_t v, int64_t lo, int64_t hi) {
    if (v < 0) v = v < -n ? -n - 1 : v + n;  // -inf stays below lo
    return std::min(std::max(v, lo), hi);
  };
  SmallVector<int64_t> idx;
  if (step > 0) {
    for (int64_t i = norm(start, 0, n), e = norm(end, 0, n); i < e; i += step) idx.push_back(i);
  } else {
    for (int64_t i = norm(start, -1, n - 1), e = norm(end, -1, n - 1); i > e; i += step) idx.push_back(i);
  }
  return idx;
}

}  // namespace

bool forwardShapeValueDims(GraphImporter &g, const onnx::NodeProto &node, Location loc, StringRef origin) {
  if (node.output_size() != 1 || node.output(0).empty()) return false;
  // The entries of input i: a shape value's, or a small integer constant's.
  auto entriesOf = [&](int i) -> std::optional<ShapeValueDims> {
    if (i >= node.input_size() || node.input(i).empty()) return std::nullopt;
    if (g.shapeValueOrigin(node.input(i))) {
      const ShapeValueDims *d = g.shapeValueDims(node.input(i));
      return d ? std::optional<ShapeValueDims>(*d) : std::nullopt;
    }
    std::optional<ConstantData> d = constantOperand(g, node, i);
    if (!d) return std::nullopt;
    ShapeValueDims r;
    r.scalar = d->type.getRank() == 0;
    for (int64_t k = 0; k < d->numElements(); ++k) r.dims.push_back(d->intAt(k));
    return r;
  };
  StringRef op = node.op_type();
  ShapeValueDims out;
  if (op == "Add" || op == "Mul" || op == "Sub" || op == "Div") {
    // Element-wise, one operand's entries broadcast over the other's. With
    // expressions on both sides the result is the expression's (Sub may
    // leave a static entry, e.g. seq - seq; Div only where it divides every
    // coefficient exactly, as the artifact's dimensions are affine). Without
    // them a dynamic entry stays one (>= 1 at run time) when the known
    // operand keeps it positive: >= 0 added, >= 1 multiplied.
    std::optional<ShapeValueDims> a = entriesOf(0), b = entriesOf(1);
    if (!a || !b || node.input_size() != 2) return false;
    size_t na = a->dims.size(), nb = b->dims.size();
    if (na != nb && na != 1 && nb != 1) return false;
    if ((na == 1 && !a->scalar && b->scalar) || (nb == 1 && !b->scalar && a->scalar)) return false;
    const int64_t floor = op == "Add" ? 0 : 1;
    out.scalar = a->scalar && b->scalar;
    out.onnxType = g.shapeValueOrigin(node.input(0)) ? a->onnxType : b->onnxType;
    for (size_t k = 0; k < std::max(na, nb); ++k) {
      size_t ka = na == 1 ? 0 : k, kb = nb == 1 ? 0 : k;
      std::optional<int64_t> x = a->dims[ka], y = b->dims[kb];
      std::optional<SymExpr> ex = a->exprAt(ka), ey = b->exprAt(kb);
      std::optional<SymExpr> e;
      if (ex && ey) {
        if (op == "Add") e = ex->plus(*ey);
        else if (op == "Sub") e = ex->plus(*ey, -1);
        else if (op == "Mul" && ey->isStatic()) e = ex->times(ey->offset);
        else if (op == "Mul" && ex->isStatic()) e = ey->times(ex->offset);
        else if (op == "Div" && ey->isStatic() && ey->offset > 0) e = ex->dividedBy(ey->offset);
      }
      if (e) out.push(std::nullopt, e);
      else if (op == "Div" && ex && ey && ey->isStatic() && ey->offset > 0)
        out.push(ShapeValueDims::Entry{std::nullopt, ex, ey->offset});
      else if (op == "Sub" || op == "Div") return false;
      else if (x && y) out.push(op == "Add" ? *x + *y : *x * *y, std::nullopt);
      else if ((x || y) && *(x ? x : y) < floor) return false;
      else out.push(std::nullopt, std::nullopt);
    }
  } else if (op == "Concat") {
    bool typed = false;
    for (int i = 0; i < node.input_size(); ++i) {
      std::optional<ShapeValueDims> e = entriesOf(i);
      if (!e || e->scalar) return false;
      if (!typed && g.shapeValueOrigin(node.input(i))) out.onnxType = e->onnxType, typed = true;
      for (size_t k = 0; k < e->dims.size(); ++k) out.push(e->entry(k));
    }
  } else {
    std::optional<ShapeValueDims> in = entriesOf(0);
    if (!in) return false;
    const int64_t n = static_cast<int64_t>(in->dims.size());
    out.onnxType = in->onnxType;
    auto copyAll = [&] {
      for (int64_t k = 0; k < n; ++k) out.push(in->entry(k));
    };
    if (op == "Identity") {
      out = *in;
    } else if (op == "Cast") {
      const onnx::AttributeProto *to = findAttr(node, "to");
      if (!to || !isIntegerOnnxType(to->i())) return false;
      out = *in;
      out.onnxType = static_cast<int32_t>(to->i());
    } else if (op == "Gather") {
      const onnx::AttributeProto *axis = findAttr(node, "axis");
      std::optional<ConstantData> idx = constantOperand(g, node, 1);
      if (in->scalar || (axis && axis->i() != 0 && axis->i() != -1) || !idx) return false;
      for (int64_t k = 0; k < idx->numElements(); ++k) {
        int64_t i = idx->intAt(k);
        if (i < 0) i += n;
        if (i < 0 || i >= n) return false;
        out.push(in->entry(i));
      }
      out.scalar = idx->type.getRank() == 0;
    } else if (op == "Unsqueeze") {
      std::optional<SmallVector<int64_t>> axes = listOperand(g, node, 1, "axes");
      if (!in->scalar || !axes || axes->size() != 1 || !onlyAxisZero(*axes, 1)) return false;
      copyAll();
    } else if (op == "Squeeze") {
      std::optional<SmallVector<int64_t>> axes = listOperand(g, node, 1, "axes");
      if (in->scalar || n != 1 || !axes || !onlyAxisZero(*axes, 1)) return false;
      copyAll();
      out.scalar = true;
    } else if (op == "Reshape") {
      std::optional<ConstantData> target = constantOperand(g, node, 1);
      if (!target || target->type.getRank() != 1 || target->numElements() > 1) return false;
      if (target->numElements() == 1) {
        int64_t t = target->intAt(0);
        if (t != -1 && t != n && !(t == 0 && !in->scalar)) return false;
      } else if (n != 1) {
        return false;
      }
      copyAll();
      out.scalar = target->numElements() == 0;
    } else if (op == "Slice") {
      std::optional<SmallVector<int64_t>> starts = listOperand(g, node, 1, "starts"),
                                          ends = listOperand(g, node, 2, "ends"),
                                          axes = listOperand(g, node, 3, "axes"),
                                          steps = listOperand(g, node, 4, "steps");
      if (in->scalar || !starts || !ends || !axes || !steps || starts->size() != 1 || ends->size() != 1 ||
          axes->size() > 1 || steps->size() > 1 || !onlyAxisZero(*axes, 1))
        return false;
      std::optional<SmallVector<int64_t>> keep =
          sliceIndices(n, (*starts)[0], (*ends)[0], steps->empty() ? 1 : (*steps)[0]);
      if (!keep) return false;
      for (int64_t i : *keep) out.push(in->entry(i));
    } else {
      return false;
    }
  }
  const std::string &name = node.output(0);
  if (llvm::any_of(out.dims, [](const std::optional<int64_t> &d) { return !d.has_value(); })) {
    g.defineShapeValue(name, origin, std::move(out));
    return true;
  }
  // Every entry known (e.g. a static dimension gathered from the shape of a
  // dynamic tensor): an ordinary constant, for the folding after it.
  Type elem = g.elementType(out.onnxType);
  SmallVector<int64_t> shape;
  if (!out.scalar) shape.push_back(static_cast<int64_t>(out.dims.size()));
  SmallVector<APInt> values;
  for (const std::optional<int64_t> &d : out.dims)
    values.push_back(APInt(elem.getIntOrFloatBitWidth(), static_cast<uint64_t>(*d), true));
  g.define(name, g.graph().addConstant(DenseElementsAttr::get(RankedTensorType::get(shape, elem), values), name, loc));
  return true;
}

std::optional<ElementsAttr> evaluateConstantOp(Operation *op) {
  if (op->getNumResults() != 1) return std::nullopt;
  auto outType = mlir::dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!outType || !outType.hasStaticShape() || outType.getNumElements() > kMaxElements ||
      outType.getNumElements() == 0)
    return std::nullopt;
  SmallVector<ConstantData> in;
  for (Value v : op->getOperands()) {
    std::optional<ConstantData> d = getConstantData(v);
    if (!d || d->numElements() > kMaxElements) return std::nullopt;
    in.push_back(*d);
  }
  StringRef name = op->getName().stripDialect();
  if (name == "gather") return evaluateGather(op, in, outType);
  if (name.starts_with("reduce")) return evaluateReduce(op, in, outType);
  if (name == "tile" || name == "cumulativeSum") return evaluateTileOrCumSum(op, in, outType);
  return evaluateElementwise(op, in, outType);
}

}  // namespace mlir::webnn::onnx_import
