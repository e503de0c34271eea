// Dynamic dimensions from the dialect to the artifact.
//
// A graph input may declare named dynamic dimensions (`dyn("seq", 2048)` in
// the DSL, an ONNX dim_param bounded by --dynamic-dim): the dialect types
// them `?` and the input op keeps {index, name, maxSize} in its
// `webnn.dynamic_dims` attribute. The runtime has no shape rules of its own,
// so the artifact gives every dynamic dimension of every tensor as an affine
// function of the named sizes (offset + sum of coefficient * size), e.g.
// present_key's `past + seq`.
//
// Those functions come from the dialect's own type inference, which stays
// the single source of shape rules: the graph is specialized (types re-inferred
// op by op) with every name at its maximum, with each name one below it, and
// at two further points in the upper half of the range that check the fit.
// (A fit that holds at those points but not elsewhere is possible in
// principle; the runtime still checks every kernel's shapes when it builds
// the kernel.) A dimension that is not affine
// in the names (a strided convolution over a dynamic length, a reshape that
// multiplies two names), that shrinks as a name grows, or a graph that is
// invalid at any of those sizes is an error naming the op.
#ifndef WEBNN_COMPILER_ARTIFACT_DYNAMICDIMS_H
#define WEBNN_COMPILER_ARTIFACT_DYNAMICDIMS_H

#include <string>
#include <vector>

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::webnn {

struct NamedDynamicDim {
  std::string name;
  int64_t maxSize;
};

// size = offset + sum(coefficient * size of dimension `symbol`).
struct DimExpr {
  int64_t offset = 0;
  SmallVector<std::pair<unsigned, int64_t>, 2> terms;  // (symbol, coefficient >= 1)
  bool isStatic() const { return terms.empty(); }
};

class DynamicDimsAnalysis {
 public:
  // Empty for a graph without dynamic inputs; fails with diagnostics as
  // described above. `partial`: a graph still being built (no return yet,
  // not verified as a whole), for a front end that needs the sizes of the
  // values built so far (ONNX Shape of a dynamic tensor).
  static FailureOr<DynamicDimsAnalysis> run(func::FuncOp graph, bool partial = false);

  ArrayRef<NamedDynamicDim> dims() const { return dims_; }
  // One expression per dimension of `v`'s type, or null when none is dynamic.
  const SmallVector<DimExpr> *lookup(Value v) const;
  // Size with every named dimension at its maximum.
  int64_t maxValue(const DimExpr &e) const;
  // "seq", "past + seq", "2*seq + 1".
  std::string spell(const DimExpr &e) const;

 private:
  std::vector<NamedDynamicDim> dims_;
  llvm::DenseMap<Value, SmallVector<DimExpr>> exprs_;
};

}  // namespace mlir::webnn

#endif
