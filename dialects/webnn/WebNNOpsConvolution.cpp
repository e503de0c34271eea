// Shape inference and validation for conv2d, convTranspose2d and the 2-D
// pools (WebNN spec "calculate conv output size", "calculate convtranspose
// output size", "create a pooling operation").
#include <cmath>

#include "dialects/webnn/WebNNOps.h"
#include "dialects/webnn/WebNNShapeUtils.h"

using namespace mlir;
using namespace mlir::webnn;

namespace {

// Dimensions of a 4-D activation tensor, named independently of its layout.
struct Activation {
  int64_t batches, channels, height, width;
};

// A 4-D filter's dimensions, named independently of its layout.
struct Filter {
  int64_t outputChannels, inputChannels, height, width;
};

FailureOr<bool> parseChannelsLast(std::optional<Location> loc, StringRef opName,
                                  StringRef attrName, std::optional<StringRef> layout) {
  StringRef value = layout.value_or("nchw");
  if (value == "nchw") return false;
  if (value == "nhwc") return true;
  return opError(loc, opName, "expected ", attrName, " \"nchw\" or \"nhwc\" but got \"", value,
                 "\"");
}

Activation readActivation(ArrayRef<int64_t> shape, bool channelsLast) {
  if (channelsLast) return {shape[0], shape[3], shape[1], shape[2]};
  return {shape[0], shape[1], shape[2], shape[3]};
}

SmallVector<int64_t> writeActivation(const Activation &a, bool channelsLast) {
  if (channelsLast) return {a.batches, a.height, a.width, a.channels};
  return {a.batches, a.channels, a.height, a.width};
}

// Reads a filter given its layout, a permutation of the letters o, i, h, w.
FailureOr<Filter> readFilter(std::optional<Location> loc, StringRef opName,
                             ArrayRef<int64_t> shape, StringRef layout,
                             ArrayRef<StringRef> allowed) {
  if (!llvm::is_contained(allowed, layout)) {
    std::string choices;
    for (StringRef choice : allowed) choices += (choices.empty() ? "\"" : ", \"") + choice.str() + "\"";
    return opError(loc, opName, "expected filterLayout one of ", choices, " but got \"", layout,
                   "\"");
  }
  Filter filter{};
  for (size_t i = 0; i < 4; ++i) {
    switch (layout[i]) {
      case 'o': filter.outputChannels = shape[i]; break;
      case 'i': filter.inputChannels = shape[i]; break;
      case 'h': filter.height = shape[i]; break;
      case 'w': filter.width = shape[i]; break;
    }
  }
  return filter;
}

// An optional integer-list option: its default when absent, else it must have
// `size` items, each >= `minimum`.
FailureOr<SmallVector<int64_t>> listOption(std::optional<Location> loc, StringRef opName,
                                           StringRef attrName,
                                           std::optional<ArrayRef<int64_t>> value,
                                           ArrayRef<int64_t> defaultValue, int64_t minimum) {
  if (!value) return SmallVector<int64_t>(defaultValue);
  if (value->size() != defaultValue.size())
    return opError(loc, opName, "expected ", attrName, " to have ", defaultValue.size(),
                   " values but got ", value->size());
  for (int64_t v : *value)
    if (v < minimum)
      return opError(loc, opName, "expected every ", attrName, " value to be >= ", minimum,
                     " but got ", formatList(*value));
  return SmallVector<int64_t>(*value);
}

struct WindowOptions {
  SmallVector<int64_t> padding, strides, dilations;
};

FailureOr<WindowOptions> readWindowOptions(std::optional<Location> loc, StringRef opName,
                                           std::optional<ArrayRef<int64_t>> padding,
                                           std::optional<ArrayRef<int64_t>> strides,
                                           std::optional<ArrayRef<int64_t>> dilations) {
  WindowOptions options;
  FailureOr<SmallVector<int64_t>> p = listOption(loc, opName, "padding", padding, {0, 0, 0, 0}, 0);
  if (failed(p)) return failure();
  FailureOr<SmallVector<int64_t>> s = listOption(loc, opName, "strides", strides, {1, 1}, 1);
  if (failed(s)) return failure();
  FailureOr<SmallVector<int64_t>> d = listOption(loc, opName, "dilations", dilations, {1, 1}, 1);
  if (failed(d)) return failure();
  options.padding = std::move(*p);
  options.strides = std::move(*s);
  options.dilations = std::move(*d);
  return options;
}

// Spec "calculate conv output size" before rounding, as the numerator
// (input - effectiveFilter + padding) that is divided by the stride; the
// output size is numerator / stride + 1 rounded down or up.
struct ConvExtent {
  int64_t numerator, stride;
  bool dynamic;
  int64_t floorSize() const { return dynamic ? ShapedType::kDynamic : floorDiv(numerator) + 1; }
  int64_t ceilSize() const {
    return dynamic ? ShapedType::kDynamic : -floorDiv(-numerator) + 1;
  }
  int64_t floorDiv(int64_t n) const { return n >= 0 ? n / stride : -((-n + stride - 1) / stride); }
};

ConvExtent convExtent(int64_t input, int64_t filter, int64_t padBegin, int64_t padEnd,
                      int64_t stride, int64_t dilation) {
  if (isDynamic(input) || isDynamic(filter)) return {0, stride, true};
  int64_t effectiveFilter = (filter - 1) * dilation + 1;
  return {input - effectiveFilter + padBegin + padEnd, stride, false};
}

LogicalResult checkOutputSizes(std::optional<Location> loc, StringRef opName, int64_t height,
                               int64_t width) {
  if (isValidDimension(height) && isValidDimension(width)) return success();
  return opError(loc, opName, "expected a positive output size but the options give ",
                 formatList({height, width}),
                 " (the window, padding, strides and dilations do not fit the input)");
}

LogicalResult checkBias(std::optional<Location> loc, StringRef opName, Value biasValue,
                        RankedTensorType input, int64_t outputChannels) {
  if (!biasValue) return success();
  FailureOr<RankedTensorType> bias = tensorOperand(loc, opName, "bias", biasValue);
  if (failed(bias)) return failure();
  if (failed(checkSameElementType(loc, opName, "bias", *bias, "input", input))) return failure();
  if (bias->getRank() != 1 ||
      (!isDynamic(outputChannels) && !isDynamic(bias->getDimSize(0)) &&
       bias->getDimSize(0) != outputChannels))
    return opError(loc, opName, "expected operand 'bias' of shape ",
                   formatList({outputChannels}), " (the output channels) but got ",
                   formatList(bias->getShape()));
  return success();
}

// The input and filter checks conv2d and convTranspose2d share.
LogicalResult checkConvOperands(std::optional<Location> loc, StringRef opName,
                                FailureOr<RankedTensorType> input,
                                FailureOr<RankedTensorType> filter, std::optional<int64_t> groups) {
  if (failed(input) || failed(filter)) return failure();
  if (input->getRank() != 4)
    return opError(loc, opName, "expected operand 'input' of rank 4 but got rank ",
                   input->getRank());
  if (filter->getRank() != 4)
    return opError(loc, opName, "expected operand 'filter' of rank 4 but got rank ",
                   filter->getRank());
  if (failed(checkSameElementType(loc, opName, "filter", *filter, "input", *input)))
    return failure();
  if (groups && *groups < 1)
    return opError(loc, opName, "expected groups >= 1 but got ", *groups);
  return success();
}

// What conv2d and convTranspose2d read first, in this order: the adaptor,
// input and filter (checkConvOperands), the window options and the input
// layout.
struct ConvOperands {
  RankedTensorType input, filter;
  WindowOptions window;
  bool channelsLast;
};

template <typename AdaptorT>
FailureOr<ConvOperands> readConvOperands(std::optional<Location> loc, StringRef name,
                                         AdaptorT &adaptor) {
  if (failed(verifyAdaptor(loc, adaptor))) return failure();
  FailureOr<RankedTensorType> input = tensorOperand(loc, name, "input", adaptor.getInput());
  FailureOr<RankedTensorType> filter = tensorOperand(loc, name, "filter", adaptor.getFilter());
  if (failed(checkConvOperands(loc, name, input, filter, adaptor.getGroups()))) return failure();
  FailureOr<WindowOptions> window = readWindowOptions(
      loc, name, adaptor.getPadding(), adaptor.getStrides(), adaptor.getDilations());
  FailureOr<bool> channelsLast =
      parseChannelsLast(loc, name, "inputLayout", adaptor.getInputLayout());
  if (failed(window) || failed(channelsLast)) return failure();
  return ConvOperands{*input, *filter, *window, *channelsLast};
}

}  // namespace

LogicalResult Conv2dOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                         Adaptor adaptor, SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  FailureOr<ConvOperands> conv = readConvOperands(loc, name, adaptor);
  if (failed(conv)) return failure();
  const auto &[input, filterType, w, channelsLast] = *conv;
  FailureOr<Filter> filter =
      readFilter(loc, name, filterType.getShape(), adaptor.getFilterLayout().value_or("oihw"),
                 {"oihw", "hwio", "ohwi", "ihwo"});
  if (failed(filter)) return failure();
  Activation in = readActivation(input.getShape(), channelsLast);
  int64_t groups = adaptor.getGroups().value_or(1);
  if (!isDynamic(in.channels) && !isDynamic(filter->inputChannels) &&
      (in.channels % groups != 0 || in.channels / groups != filter->inputChannels))
    return opError(loc, name, "expected input channels (", in.channels,
                   ") to be divisible by groups (", groups,
                   ") and input channels / groups to equal the filter's input channels (",
                   filter->inputChannels, ")");
  if (!isDynamic(filter->outputChannels) && filter->outputChannels % groups != 0)
    return opError(loc, name, "expected the filter's output channels (", filter->outputChannels,
                   ") to be divisible by groups (", groups, ")");
  if (failed(checkBias(loc, name, adaptor.getBias(), input, filter->outputChannels)))
    return failure();
  Activation out = in;
  out.channels = filter->outputChannels;
  out.height = convExtent(in.height, filter->height, w.padding[0], w.padding[1], w.strides[0],
                          w.dilations[0]).floorSize();
  out.width = convExtent(in.width, filter->width, w.padding[2], w.padding[3], w.strides[1],
                         w.dilations[1]).floorSize();
  if (failed(checkOutputSizes(loc, name, out.height, out.width))) return failure();
  results.push_back(
      RankedTensorType::get(writeActivation(out, channelsLast), input.getElementType()));
  return success();
}

LogicalResult ConvTranspose2dOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                                  Adaptor adaptor,
                                                  SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  FailureOr<ConvOperands> conv = readConvOperands(loc, name, adaptor);
  if (failed(conv)) return failure();
  const auto &[input, filterType, w, channelsLast] = *conv;
  FailureOr<SmallVector<int64_t>> outputPadding =
      listOption(loc, name, "outputPadding", adaptor.getOutputPadding(), {0, 0}, 0);
  if (failed(outputPadding)) return failure();
  std::optional<ArrayRef<int64_t>> outputSizes = adaptor.getOutputSizes();
  if (outputSizes && outputSizes->size() != 2)
    return opError(loc, name, "expected outputSizes to have 2 values but got ",
                   outputSizes->size());
  if (!outputSizes &&
      ((*outputPadding)[0] >= w.strides[0] || (*outputPadding)[1] >= w.strides[1]))
    return opError(loc, name, "expected every outputPadding value to be smaller than the "
                   "matching stride but got outputPadding ", formatList(*outputPadding),
                   " and strides ", formatList(w.strides));
  FailureOr<Filter> filter =
      readFilter(loc, name, filterType.getShape(), adaptor.getFilterLayout().value_or("iohw"),
                 {"iohw", "hwoi", "ohwi"});
  if (failed(filter)) return failure();
  Activation in = readActivation(input.getShape(), channelsLast);
  int64_t groups = adaptor.getGroups().value_or(1);
  if (!isDynamic(in.channels) && !isDynamic(filter->inputChannels) &&
      in.channels != filter->inputChannels)
    return opError(loc, name, "expected input channels (", in.channels,
                   ") to equal the filter's input channels (", filter->inputChannels, ")");
  Activation out = in;
  out.channels = isDynamic(filter->outputChannels) ? ShapedType::kDynamic
                                                   : filter->outputChannels * groups;
  if (failed(checkBias(loc, name, adaptor.getBias(), input, out.channels))) return failure();

  // Spec "calculate convtranspose output size".
  auto transposedSize = [](int64_t inputSize, int64_t filterSize, int64_t padBegin,
                           int64_t padEnd, int64_t stride, int64_t dilation) -> int64_t {
    if (isDynamic(inputSize) || isDynamic(filterSize)) return ShapedType::kDynamic;
    return (inputSize - 1) * stride + (filterSize - 1) * dilation + 1 - padBegin - padEnd;
  };
  int64_t height = transposedSize(in.height, filter->height, w.padding[0], w.padding[1],
                                  w.strides[0], w.dilations[0]);
  int64_t width = transposedSize(in.width, filter->width, w.padding[2], w.padding[3],
                                 w.strides[1], w.dilations[1]);
  if (outputSizes) {
    // An explicit size picks one of the `stride` sizes that map back to the input.
    for (int i = 0; i < 2; ++i) {
      int64_t calculated = i == 0 ? height : width;
      int64_t requested = (*outputSizes)[i];
      if (!isDynamic(calculated) &&
          (requested < calculated || requested >= calculated + w.strides[i]))
        return opError(loc, name, "expected outputSizes[", i, "] in [", calculated, ", ",
                       calculated + w.strides[i], ") but got ", requested);
    }
    height = (*outputSizes)[0];
    width = (*outputSizes)[1];
  } else {
    if (!isDynamic(height)) height += (*outputPadding)[0];
    if (!isDynamic(width)) width += (*outputPadding)[1];
  }
  if (failed(checkOutputSizes(loc, name, height, width))) return failure();
  out.height = height;
  out.width = width;
  results.push_back(
      RankedTensorType::get(writeActivation(out, channelsLast), input.getElementType()));
  return success();
}

namespace {

template <typename Adaptor>
LogicalResult inferPool2d(std::optional<Location> loc, StringRef name, Adaptor adaptor,
                          SmallVectorImpl<Type> &results) {
  if (failed(verifyAdaptor(loc, adaptor))) return failure();
  FailureOr<RankedTensorType> input = tensorOperand(loc, name, "input", adaptor.getInput());
  if (failed(input)) return failure();
  if (input->getRank() != 4)
    return opError(loc, name, "expected operand 'input' of rank 4 but got rank ",
                   input->getRank());
  FailureOr<bool> channelsLast = parseChannelsLast(loc, name, "layout", adaptor.getLayout());
  if (failed(channelsLast)) return failure();
  Activation in = readActivation(input->getShape(), *channelsLast);
  FailureOr<SmallVector<int64_t>> windowDims = listOption(
      loc, name, "windowDimensions", adaptor.getWindowDimensions(), {in.height, in.width}, 1);
  FailureOr<WindowOptions> window = readWindowOptions(
      loc, name, adaptor.getPadding(), adaptor.getStrides(), adaptor.getDilations());
  if (failed(windowDims) || failed(window)) return failure();
  StringRef rounding = adaptor.getRoundingType().value_or("floor");
  if (rounding != "floor" && rounding != "ceil")
    return opError(loc, name, "expected roundingType \"floor\" or \"ceil\" but got \"",
                   rounding, "\"");
  const WindowOptions &w = *window;
  ConvExtent h = convExtent(in.height, (*windowDims)[0], w.padding[0], w.padding[1],
                            w.strides[0], w.dilations[0]);
  ConvExtent wd = convExtent(in.width, (*windowDims)[1], w.padding[2], w.padding[3],
                             w.strides[1], w.dilations[1]);
  Activation out = in;
  if (std::optional<ArrayRef<int64_t>> sizes = adaptor.getOutputSizes()) {
    // outputSizes must agree with one of the two roundings, in both dimensions.
    if (sizes->size() != 2)
      return opError(loc, name, "expected outputSizes to have 2 values but got ",
                     sizes->size());
    bool isFloor = (*sizes)[0] == h.floorSize() && (*sizes)[1] == wd.floorSize();
    bool isCeil = (*sizes)[0] == h.ceilSize() && (*sizes)[1] == wd.ceilSize();
    if (!h.dynamic && !wd.dynamic && !isFloor && !isCeil)
      return opError(loc, name, "expected outputSizes ",
                     formatList({h.floorSize(), wd.floorSize()}), " (floor) or ",
                     formatList({h.ceilSize(), wd.ceilSize()}), " (ceil) but got ",
                     formatList(*sizes));
    out.height = (*sizes)[0];
    out.width = (*sizes)[1];
  } else if (rounding == "ceil") {
    out.height = h.ceilSize();
    out.width = wd.ceilSize();
  } else {
    out.height = h.floorSize();
    out.width = wd.floorSize();
  }
  if (failed(checkOutputSizes(loc, name, out.height, out.width))) return failure();
  results.push_back(
      RankedTensorType::get(writeActivation(out, *channelsLast), input->getElementType()));
  return success();
}

}  // namespace

#define WEBNN_INFER_POOL(OP)                                                           \
  LogicalResult OP::inferReturnTypes(MLIRContext *, std::optional<Location> loc,       \
                                     Adaptor adaptor, SmallVectorImpl<Type> &results) { \
    return inferPool2d(loc, getOperationName(), adaptor, results);                     \
  }
WEBNN_INFER_POOL(AveragePool2dOp)
WEBNN_INFER_POOL(L2Pool2dOp)
WEBNN_INFER_POOL(MaxPool2dOp)
#undef WEBNN_INFER_POOL

LogicalResult Resample2dOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                             Adaptor adaptor, SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  FailureOr<RankedTensorType> input = verifiedInput(loc, name, adaptor);
  if (failed(input)) return failure();
  if (input->getRank() != 4)
    return opError(loc, name, "expected a 4-D operand 'input' but got rank ", input->getRank());
  StringRef mode = adaptor.getMode().value_or("nearest-neighbor");
  if (mode != "nearest-neighbor" && mode != "linear")
    return opError(loc, name, "expected mode \"nearest-neighbor\" or \"linear\" but got \"", mode,
                   "\"");
  SmallVector<double> scales = {1.0, 1.0};
  if (std::optional<ArrayRef<double>> given = adaptor.getScales()) {
    if (given->size() != 2 || (*given)[0] <= 0 || (*given)[1] <= 0)
      return opError(loc, name, "expected scales to be 2 values > 0 but got ", given->size(),
                     " values");
    scales.assign(given->begin(), given->end());
  }
  std::optional<ArrayRef<int64_t>> sizes = adaptor.getSizes();
  if (sizes && (sizes->size() != 2 || (*sizes)[0] <= 0 || (*sizes)[1] <= 0))
    return opError(loc, name, "expected sizes to be 2 values > 0 but got ", formatList(*sizes));
  SmallVector<int64_t> axes = {2, 3};
  if (std::optional<ArrayRef<int64_t>> given = adaptor.getAxes()) {
    if (given->size() != 2)
      return opError(loc, name, "expected axes to be 2 values but got ", formatList(*given));
    axes.assign(given->begin(), given->end());
  }
  if (failed(checkAxes(loc, name, "axes", axes, 4))) return failure();
  SmallVector<int64_t> shape(input->getShape());
  for (int i = 0; i < 2; ++i) {
    int64_t dim = input->getDimSize(axes[i]);
    int64_t size;
    if (sizes)
      size = (*sizes)[i];
    else if (isDynamic(dim))
      size = ShapedType::kDynamic;
    else
      size = static_cast<int64_t>(std::floor(static_cast<double>(dim) * scales[i]));
    if (!isValidDimension(size))
      return opError(loc, name, "expected a positive output size along axis ", axes[i],
                     " but got ", size, " (input size ", dim, ", scale ", scales[i], ")");
    shape[axes[i]] = size;
  }
  results.push_back(RankedTensorType::get(shape, input->getElementType()));
  return success();
}
