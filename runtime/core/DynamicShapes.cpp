#include "core/DynamicShapes.h"

namespace webnn::rt {

std::string dynamicSizesText(const std::vector<DynamicDimension> &dims, const std::vector<int64_t> &sizes) {
  std::string s;
  for (size_t i = 0; i < dims.size() && i < sizes.size(); ++i)
    s += (i ? ", " : "") + dims[i].name + "=" + std::to_string(sizes[i]);
  return s;
}

Status bindDynamicDimensions(const std::vector<DynamicDimension> &dims,
                             const std::vector<std::string> &inputNames,
                             const std::vector<const TensorDims *> &inputDims,
                             const std::vector<Shape> &shapes, std::vector<int64_t> *sizes) {
  sizes->assign(dims.size(), -1);
  std::vector<size_t> boundBy(dims.size());
  for (size_t k = 0; k < inputDims.size(); ++k) {
    if (!inputDims[k]) continue;
    for (size_t d = 0; d < inputDims[k]->size(); ++d) {
      int64_t sym = (*inputDims[k])[d].soleSymbol();
      if (sym < 0) continue;
      int64_t v = shapes[k][d];
      const DynamicDimension &dd = dims[size_t(sym)];
      if (v < 0 || v > dd.maxSize)
        return invalidArgument("input '" + inputNames[k] + "' dimension " + std::to_string(d) + " ('" + dd.name +
                               "') is " + std::to_string(v) + ", outside 0.." + std::to_string(dd.maxSize));
      int64_t &bound = (*sizes)[size_t(sym)];
      if (bound >= 0 && bound != v)
        return invalidArgument("dynamic dimension '" + dd.name + "' is " + std::to_string(bound) + " in input '" +
                               inputNames[boundBy[size_t(sym)]] + "' but " + std::to_string(v) + " in input '" +
                               inputNames[k] + "'");
      bound = v;
      boundBy[size_t(sym)] = k;
    }
  }
  for (size_t s = 0; s < dims.size(); ++s)
    if ((*sizes)[s] < 0) return invalidArgument("no input gives dynamic dimension '" + dims[s].name + "'");
  for (size_t k = 0; k < inputDims.size(); ++k) {
    if (!inputDims[k]) continue;
    for (size_t d = 0; d < inputDims[k]->size(); ++d) {
      const DimExpr &e = (*inputDims[k])[d];
      int64_t want = e.evaluate(*sizes);
      if (shapes[k][d] != want)
        return invalidArgument("input '" + inputNames[k] + "' dimension " + std::to_string(d) + " is " +
                               std::to_string(shapes[k][d]) + ", but " +
                               (e.isStatic() ? std::string("the graph fixes it") : "'" + e.spelling + "' is") +
                               " " + std::to_string(want) + " (" + dynamicSizesText(dims, *sizes) + ")");
    }
  }
  return Status::ok();
}

}  // namespace webnn::rt
