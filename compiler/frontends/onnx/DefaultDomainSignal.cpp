// Signal-processing ops (ai.onnx 17+): window functions and MelWeightMatrix
// are constants (their inputs are sizes and frequencies WebNN needs at
// compile time anyway); DFT and STFT are a matmul with a constant DFT
// matrix, which is exact up to float32 rounding for the static lengths WebNN
// graphs have.
#include <cmath>

#include "compiler/frontends/onnx/OnnxConverter.h"

namespace mlir::webnn::onnx_import {
namespace {

// A float32 constant with `shape` and `values` (computed in double).
Value f32Constant(NodeConverter &c, ArrayRef<int64_t> shape, ArrayRef<double> values) {
  SmallVector<float> f(values.begin(), values.end());
  auto type = RankedTensorType::get(shape, Float32Type::get(c.context()));
  return c.constant(DenseElementsAttr::get(type, ArrayRef<float>(f)));
}

// The element type named by `output_datatype` (default float).
FailureOr<Type> outputDatatype(NodeConverter &c) {
  int64_t dt = c.intAttr("output_datatype", 1);
  Type t = c.graphImporter().elementType(static_cast<int32_t>(dt));
  if (!t) return c.fail("output_datatype " + onnxTypeName(dt) + " is not a WebNN type"), failure();
  return t;
}

// Hann / Hamming / Blackman: a generalized cosine window
// w[n] = sum_k (-1)^k a_k cos(2 pi k n / N), N = size (periodic) or size - 1.
LogicalResult convertCosineWindow(NodeConverter &c, ArrayRef<double> a) {
  FailureOr<SmallVector<int64_t>> size = c.constantIntsInput(0, "size");
  FailureOr<Type> elem = outputDatatype(c);
  if (failed(size) || failed(elem)) return failure();
  if (size->size() != 1 || (*size)[0] < 1) return c.fail("'size' must be a positive scalar");
  int64_t n = (*size)[0];
  double denom = static_cast<double>(c.intAttr("periodic", 1) ? n : n - 1);
  SmallVector<double> w(n);
  for (int64_t i = 0; i < n; ++i) {
    double v = 0, sign = 1;
    for (size_t k = 0; k < a.size(); ++k, sign = -sign)
      v += sign * a[k] * (denom == 0 ? 1.0 : std::cos(2 * M_PI * k * i / denom));
    w[i] = v;
  }
  return c.done(c.emitCast(f32Constant(c, {n}, w), *elem));
}
LogicalResult convertHannWindow(NodeConverter &c) { return convertCosineWindow(c, {0.5, 0.5}); }
LogicalResult convertHammingWindow(NodeConverter &c) {
  return convertCosineWindow(c, {25.0 / 46.0, 21.0 / 46.0});
}
LogicalResult convertBlackmanWindow(NodeConverter &c) {
  return convertCosineWindow(c, {0.42, 0.5, 0.08});
}

// The DFT of x [..., L, ..., C] (C = 1 real, 2 complex) along `axis`, of
// length n (x zero-padded or truncated), keeping n/2+1 bins when onesided.
// One matmul: x's signal and complex dims flattened to C*L, times a constant
// [C*L, 2*K] matrix holding cos/sin for the real and imaginary outputs.
Value emitDft(NodeConverter &c, Value x, int64_t axis, int64_t n, bool onesided, bool inverse) {
  if (c.emitFailed() || !x) return Value();
  SmallVector<int64_t> shape(NodeConverter::shapeOf(x));
  int64_t rank = shape.size(), len = shape[axis], comps = shape[rank - 1];
  if (comps != 1 && comps != 2)
    return c.fail("the last dimension must be 1 (real) or 2 (complex), got " + Twine(comps)), Value();
  int64_t bins = onesided ? n / 2 + 1 : n;
  // Move the signal axis last and the complex dim just before it.
  SmallVector<int64_t> perm, rest;
  for (int64_t i = 0; i < rank - 1; ++i)
    if (i != axis) perm.push_back(i), rest.push_back(shape[i]);
  perm.append({rank - 1, axis});
  Value t = c.emit("transpose", {x}, {c.i64ArrayAttr("permutation", perm)});
  SmallVector<int64_t> flat(rest);
  flat.append({1, comps * len});
  t = c.emitReshape(t, flat);

  // (xr + i xi)(cos + i s sin), s = -1 forward, +1 inverse (then / n).
  double s = inverse ? 1.0 : -1.0, scale = inverse ? 1.0 / n : 1.0;
  SmallVector<double> m(comps * len * 2 * bins, 0.0);
  for (int64_t j = 0; j < std::min(len, n); ++j) {
    for (int64_t k = 0; k < bins; ++k) {
      double theta = 2 * M_PI * static_cast<double>((j * k) % n) / n;
      double cs = std::cos(theta) * scale, sn = std::sin(theta) * scale;
      m[j * 2 * bins + k] = cs;              // xr -> real
      m[j * 2 * bins + bins + k] = s * sn;   // xr -> imag
      if (comps == 2) {
        int64_t row = (len + j) * 2 * bins;
        m[row + k] = -s * sn;                // xi -> real
        m[row + bins + k] = cs;              // xi -> imag
      }
    }
  }
  Type elem = NodeConverter::typeOf(x).getElementType();
  Value mat = c.emitCast(f32Constant(c, {comps * len, 2 * bins}, m), elem);
  Value y = c.emit("matmul", {t, mat});
  SmallVector<int64_t> split(rest);
  split.append({2, bins});
  y = c.emitReshape(y, split);
  // Back to x's order: the bins at `axis`, real/imag last.
  SmallVector<int64_t> back(rank);
  int64_t r = 0;
  for (int64_t i = 0; i < rank - 1; ++i) back[i] = i == axis ? rank - 1 : r++;
  back[rank - 1] = rank - 2;
  return c.emit("transpose", {y}, {c.i64ArrayAttr("permutation", back)});
}

// DFT-17: axis / inverse / onesided attributes, dft_length an optional
// constant input; DFT-20: axis an optional constant input.
LogicalResult convertDFT(NodeConverter &c) {
  FailureOr<Value> x = c.requiredInput(0);
  if (failed(x)) return failure();
  int64_t rank = NodeConverter::rankOf(*x);
  if (rank < 2) return c.fail("input must have rank >= 2");
  // DFT-20 moved axis (default -2) to input 2.
  int64_t axis = c.intAttr("axis", 1);
  if (c.opset() >= 20) {
    axis = -2;
    if (c.hasInput(2)) {
      FailureOr<SmallVector<int64_t>> a = c.constantIntsInput(2, "axis");
      if (failed(a)) return failure();
      if (a->size() != 1) return c.fail("'axis' must be a scalar");
      axis = (*a)[0];
    }
  }
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank - 1)
    return c.fail("'axis' must name a signal dimension (not the last, complex one)");
  int64_t n = NodeConverter::shapeOf(*x)[axis];
  if (c.hasInput(1)) {
    FailureOr<SmallVector<int64_t>> len = c.constantIntsInput(1, "dft_length");
    if (failed(len)) return failure();
    if (len->size() != 1 || (*len)[0] < 1) return c.fail("'dft_length' must be a positive scalar");
    n = (*len)[0];
  }
  bool inverse = c.intAttr("inverse", 0) != 0, onesided = c.intAttr("onesided", 0) != 0;
  if (inverse && onesided) return c.fail("onesided inverse DFT is not supported");
  return c.done(emitDft(c, *x, axis, n, onesided, inverse));
}

// STFT-17: frames [batch, frames, frame_length, C] gathered with constant
// indices, times the window, then a DFT along the frame.
LogicalResult convertSTFT(NodeConverter &c) {
  FailureOr<Value> signal = c.requiredInput(0);
  FailureOr<SmallVector<int64_t>> step = c.constantIntsInput(1, "frame_step");
  if (failed(signal) || failed(step)) return failure();
  ArrayRef<int64_t> shape = NodeConverter::shapeOf(*signal);
  if (shape.size() != 3) return c.fail("signal must be [batch, signal_length, 1 or 2]");
  if (step->size() != 1 || (*step)[0] < 1) return c.fail("'frame_step' must be a positive scalar");
  Value window = c.input(2);
  int64_t frameLen = -1;
  if (c.hasInput(3)) {
    FailureOr<SmallVector<int64_t>> fl = c.constantIntsInput(3, "frame_length");
    if (failed(fl)) return failure();
    if (fl->size() != 1 || (*fl)[0] < 1) return c.fail("'frame_length' must be a positive scalar");
    frameLen = (*fl)[0];
  }
  if (window) {
    ArrayRef<int64_t> ws = NodeConverter::shapeOf(window);
    if (ws.size() != 1) return c.fail("window must be 1-D");
    if (frameLen >= 0 && ws[0] != frameLen) return c.fail("window length differs from frame_length");
    frameLen = ws[0];
  }
  if (frameLen < 0) return c.fail("needs a window or a frame_length");
  int64_t len = shape[1];
  if (frameLen > len) return c.fail("frame_length is longer than the signal");
  int64_t frames = (len - frameLen) / (*step)[0] + 1;
  SmallVector<int64_t> idx;
  for (int64_t f = 0; f < frames; ++f)
    for (int64_t j = 0; j < frameLen; ++j) idx.push_back(f * (*step)[0] + j);
  Value x = c.emit("gather", {*signal, c.constantI64(idx, {frames, frameLen})},
                   {c.i64Attr("axis", 1)});
  if (window) x = c.emit("mul", {x, c.emitReshape(window, {1, 1, frameLen, 1})});
  return c.done(emitDft(c, x, 2, frameLen, c.intAttr("onesided", 1) != 0, false));
}

// MelWeightMatrix-17 as ONNX's reference computes it: num_mel_bins + 2 points
// evenly spaced in mel between the edges, mapped to DFT bins by
// floor((dft_length + 1) * hz / sample_rate); triangles between neighbours.
LogicalResult convertMelWeightMatrix(NodeConverter &c) {
  FailureOr<SmallVector<int64_t>> mels = c.constantIntsInput(0, "num_mel_bins");
  FailureOr<SmallVector<int64_t>> dftLen = c.constantIntsInput(1, "dft_length");
  FailureOr<SmallVector<int64_t>> rate = c.constantIntsInput(2, "sample_rate");
  FailureOr<ConstantData> lo = c.requireConstantInput(3, "lower_edge_hertz");
  FailureOr<ConstantData> hi = c.requireConstantInput(4, "upper_edge_hertz");
  FailureOr<Type> elem = outputDatatype(c);
  if (failed(mels) || failed(dftLen) || failed(rate) || failed(lo) || failed(hi) || failed(elem))
    return failure();
  if (mels->size() != 1 || dftLen->size() != 1 || rate->size() != 1 || lo->numElements() != 1 ||
      hi->numElements() != 1)
    return c.fail("inputs must be scalars");
  int64_t numMel = (*mels)[0], n = (*dftLen)[0], sr = (*rate)[0];
  if (numMel < 1 || n < 1 || sr < 1)
    return c.fail("num_mel_bins, dft_length and sample_rate must be positive");
  int64_t specBins = n / 2 + 1;
  // The reference computes the mel edges in the inputs' float32.
  auto toMel = [](float hz) { return 2595.0f * std::log10(1.0f + hz / 700.0f); };
  float loMel = toMel(static_cast<float>(lo->floatAt(0)));
  float hiMel = toMel(static_cast<float>(hi->floatAt(0)));
  double melStep = static_cast<double>((hiMel - loMel) / static_cast<float>(numMel + 2));
  SmallVector<int64_t> point(numMel + 2);
  for (int64_t i = 0; i < numMel + 2; ++i) {
    double mel = i * melStep + static_cast<double>(loMel);
    double hz = 700.0 * (std::pow(10.0, mel / 2595.0) - 1.0);
    point[i] = static_cast<int64_t>(std::floor((n + 1) * hz / sr));
  }
  SmallVector<double> w(specBins * numMel, 0.0);
  auto set = [&](int64_t bin, int64_t mel, double v) -> bool {
    if (bin < 0 || bin >= specBins) return false;
    w[bin * numMel + mel] = v;
    return true;
  };
  for (int64_t i = 0; i < numMel; ++i) {
    int64_t left = point[i], centre = point[i + 1], right = point[i + 2];
    bool ok = true;
    if (centre == left) {
      ok &= set(centre, i, 1.0);
    } else {
      for (int64_t j = left; j <= centre; ++j)
        ok &= set(j, i, static_cast<double>(j - left) / (centre - left));
    }
    for (int64_t j = centre; j < right; ++j)
      ok &= set(j, i, static_cast<double>(right - j) / (right - centre));
    if (!ok) return c.fail("upper_edge_hertz maps beyond the DFT's bins");
  }
  return c.done(c.emitCast(f32Constant(c, {specBins, numMel}, w), *elem));
}

}  // namespace

void populateDefaultDomainSignal(OpConverterTable &t) {
  t.add("", "BlackmanWindow", 17, convertBlackmanWindow);
  t.add("", "DFT", 17, convertDFT);
  t.add("", "DFT", 20, convertDFT);
  t.add("", "HammingWindow", 17, convertHammingWindow);
  t.add("", "HannWindow", 17, convertHannWindow);
  t.add("", "MelWeightMatrix", 17, convertMelWeightMatrix);
  t.add("", "STFT", 17, convertSTFT);
}

}  // namespace mlir::webnn::onnx_import
