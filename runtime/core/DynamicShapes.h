// Dynamic dimensions at dispatch (docs/RUNTIME.md, "Dynamic dimensions").
//
// The artifact names the graph's dynamic dimensions ({name, maxSize}) and
// gives each dynamic dimension of each tensor as offset + sum(coefficient *
// size of a name). Memory is planned once with every name at its maximum;
// a run binds the names from its inputs' shapes and evaluates the rest, so
// one artifact serves, e.g., prefill (sequence N) and decode (sequence 1)
// with a KV cache that grows every step.
#ifndef WEBNN_RUNTIME_CORE_DYNAMICSHAPES_H
#define WEBNN_RUNTIME_CORE_DYNAMICSHAPES_H

#include <cstdint>
#include <string>
#include <vector>

#include "webnn/status.h"
#include "webnn/types.h"

namespace webnn::rt {

struct DynamicDimension {
  std::string name;
  int64_t maxSize = 0;
};

struct DimTerm {
  uint32_t symbol;
  int64_t coefficient;
};

// One dimension of a tensor: static (`terms` empty, size = offset) or
// offset + sum(coefficient * size of symbol).
struct DimExpr {
  int64_t offset = 0;
  std::vector<DimTerm> terms;
  std::string spelling;  // "seq", "past + seq"; empty when static
  bool isStatic() const { return terms.empty(); }
  // The size of a dimension that is exactly one name, else -1.
  int64_t soleSymbol() const {
    return offset == 0 && terms.size() == 1 && terms[0].coefficient == 1 ? int64_t(terms[0].symbol) : -1;
  }
  int64_t evaluate(const std::vector<int64_t> &sizes) const {
    int64_t v = offset;
    for (const DimTerm &t : terms) v += t.coefficient * sizes[t.symbol];
    return v;
  }
};

// Per dimension; empty for a tensor whose dimensions are all static.
using TensorDims = std::vector<DimExpr>;

// Binds the dynamic dimensions from the inputs' shapes: each name takes its
// size from the input dimensions that are exactly that name (they must
// agree and stay within the maximum); every other input dimension must then
// equal its expression. `inputs[k]` describes input k, `shapes[k]` its shape
// this run.
Status bindDynamicDimensions(const std::vector<DynamicDimension> &dims,
                             const std::vector<std::string> &inputNames,
                             const std::vector<const TensorDims *> &inputDims,
                             const std::vector<Shape> &shapes, std::vector<int64_t> *sizes);

// "seq=5, past=0"
std::string dynamicSizesText(const std::vector<DynamicDimension> &dims, const std::vector<int64_t> &sizes);

}  // namespace webnn::rt

#endif
