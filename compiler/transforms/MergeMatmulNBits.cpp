// --webnn-merge-matmul-nbits: matmulNBits ops that read the same input with
// the same K, block size, bits and accuracy level (a decoder layer's q/k/v
// projections, or its gate/up pair) become one matmulNBits over the weights
// concatenated along N, followed by a split. A decode step is a chain of
// GEMVs over one token, so each op pays a pass over the activations and a
// parallel region (thread wake-up) for a few hundred microseconds of weight
// streaming; merged, a layer has 4 such ops instead of 7, and each streams a
// longer run of weights.
#include "compiler/transforms/MatchUtils.h"
#include "compiler/transforms/Passes.h"
#include "compiler/transforms/RewriteReport.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::webnn {
#define GEN_PASS_DEF_WEBNNMERGEMATMULNBITS
#include "compiler/transforms/Passes.h.inc"

namespace {

// The row-major bytes of a constant operand (dense or resource-backed).
std::optional<std::vector<char>> constantBytes(Value v) {
  ConstantOp constant = constantThroughReshapes(v);
  if (!constant) return std::nullopt;
  auto type = cast<RankedTensorType>(constant.getType());
  if (!type.hasStaticShape() || type.getElementType().getIntOrFloatBitWidth() % 8) return std::nullopt;
  size_t bytes = size_t(type.getNumElements()) * type.getElementType().getIntOrFloatBitWidth() / 8;
  if (std::optional<ArrayRef<char>> raw = resourceBytes(constant.getValue()))
    return raw->size() == bytes ? std::optional(std::vector<char>(raw->begin(), raw->end())) : std::nullopt;
  auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
  if (!dense) return std::nullopt;
  ArrayRef<char> raw = dense.getRawData();
  if (dense.isSplat()) {
    std::vector<char> out;
    out.reserve(bytes);
    while (out.size() < bytes) out.insert(out.end(), raw.begin(), raw.end());
    return out;
  }
  return raw.size() == bytes ? std::optional(std::vector<char>(raw.begin(), raw.end())) : std::nullopt;
}

// Everything but N must agree for two matmulNBits to share one kernel.
bool compatible(MatMulNBitsOp a, MatMulNBitsOp b) {
  auto elem = [](Value v) { return v ? cast<RankedTensorType>(v.getType()).getElementType() : Type(); };
  return a.getK() == b.getK() && a.getBlockSize() == b.getBlockSize() && a.getBits() == b.getBits() &&
         a.getAccuracyLevel() == b.getAccuracyLevel() && elem(a.getScales()) == elem(b.getScales()) &&
         bool(a.getZeroPoints()) == bool(b.getZeroPoints()) && elem(a.getZeroPoints()) == elem(b.getZeroPoints()) &&
         !a.getBias() && !b.getBias();
}

struct MergeMatmulNBitsPass : impl::WebNNMergeMatmulNBitsBase<MergeMatmulNBitsPass> {
  int64_t packedAttentions_ = 0;

  void runOnOperation() override {
    packedAttentions_ = 0;
    // Groups of candidates per input and block, in program order: the
    // merged op replaces every member where the first one is, which only
    // dominates the others' uses within one block (an input read in a
    // webnn.if branch and after it gives two groups).
    llvm::MapVector<std::pair<Value, Block *>, SmallVector<MatMulNBitsOp>> byInput;
    getOperation().walk([&](MatMulNBitsOp op) {
      if (constantThroughReshapes(op.getWeight()) && constantThroughReshapes(op.getScales()) &&
          (!op.getZeroPoints() || constantThroughReshapes(op.getZeroPoints())))
        byInput[{op.getInput(), op->getBlock()}].push_back(op);
    });
    int64_t merged = 0, replaced = 0;
    for (auto &[key, ops] : byInput) {
      SmallVector<MatMulNBitsOp> group;
      for (MatMulNBitsOp op : ops)
        if (group.empty() || compatible(group.front(), op)) group.push_back(op);
      if (group.size() < 2) continue;
      if (succeeded(merge(group))) {
        ++merged;
        replaced += int64_t(group.size());
      }
    }
    numGroupsMerged += merged;
    numOpsReplaced += replaced;
    recordRewrites(&getContext(), getArgument(), "groups-merged", merged);
    recordRewrites(&getContext(), getArgument(), "ops-replaced", replaced);
    numAttentionsPacked += packedAttentions_;
    recordRewrites(&getContext(), getArgument(), "qkv-packed", packedAttentions_);
  }

  // q, k, v split from one merged projection and read only by one
  // groupQueryAttention: give it the packed QKV instead (it reads the heads
  // in place), so the split disappears.
  void packIntoAttention(SplitOp split) {
    if (split.getNumResults() != 3) return;
    auto gqa = dyn_cast_or_null<GroupQueryAttentionOp>(
        split.getResult(0).hasOneUse() ? *split.getResult(0).user_begin() : nullptr);
    if (!gqa || gqa.getQuery() != split.getResult(0) || gqa.getKey() != split.getResult(1) ||
        gqa.getValue() != split.getResult(2) || !split.getResult(1).hasOneUse() || !split.getResult(2).hasOneUse())
      return;
    OpBuilder b(gqa);
    auto packed = GroupQueryAttentionOp::create(
        b, gqa.getLoc(), split.getInput(), Value(), Value(), gqa.getPastKey(), gqa.getPastValue(), gqa.getSeqlensK(),
        gqa.getTotalSequenceLength(), gqa.getCosCache(), gqa.getSinCache(), gqa.getNumHeadsAttr(),
        gqa.getKvNumHeadsAttr(), gqa.getScaleAttr(), gqa.getSoftcapAttr(), gqa.getLocalWindowSizeAttr(),
        gqa.getDoRotaryAttr(), gqa.getRotaryInterleavedAttr());
    // The packed form must infer the same results (head sizes agree).
    if (packed->getResultTypes() != gqa->getResultTypes()) {
      packed->erase();
      return;
    }
    gqa->replaceAllUsesWith(packed->getResults());
    gqa->erase();
    split->erase();
    ++packedAttentions_;
  }

  LogicalResult merge(ArrayRef<MatMulNBitsOp> group) {
    MatMulNBitsOp first = group.front();
    const int64_t K = first.getK(), blockSize = first.getBlockSize(), bits = first.getBits().value_or(4);
    const int64_t kBlocks = (K + blockSize - 1) / blockSize, blob = blockSize * bits / 8;
    auto elemBytes = [](Value v) {
      return int64_t(cast<RankedTensorType>(v.getType()).getElementType().getIntOrFloatBitWidth() / 8);
    };
    std::vector<char> weight, scales, zeroPoints;
    SmallVector<int64_t> splits;
    int64_t zpRow = -1;
    for (MatMulNBitsOp op : group) {
      const int64_t N = op.getN();
      std::optional<std::vector<char>> w = constantBytes(op.getWeight()), s = constantBytes(op.getScales());
      if (!w || !s || int64_t(w->size()) != N * kBlocks * blob ||
          int64_t(s->size()) != N * kBlocks * elemBytes(op.getScales()))
        return failure();
      weight.insert(weight.end(), w->begin(), w->end());
      scales.insert(scales.end(), s->begin(), s->end());
      if (Value zp = op.getZeroPoints()) {
        std::optional<std::vector<char>> z = constantBytes(zp);
        // Packed uint8 rows or one value per (n, block): either way N-major;
        // a row counted in elements (float zero points are 2 or 4 bytes).
        int64_t zpBytes = elemBytes(zp);
        if (!z || zpBytes == 0 || z->size() % size_t(N * zpBytes)) return failure();
        int64_t row = int64_t(z->size()) / (N * zpBytes);
        if (zpRow >= 0 && row != zpRow) return failure();
        zpRow = row;
        zeroPoints.insert(zeroPoints.end(), z->begin(), z->end());
      }
      splits.push_back(N);
    }
    int64_t totalN = 0;
    for (int64_t n : splits) totalN += n;

    // The merged op must come before every user of the ops it replaces.
    OpBuilder b(first);
    Operation *earliest = first;
    for (MatMulNBitsOp op : group)
      if (op->isBeforeInBlock(earliest)) earliest = op;
    b.setInsertionPoint(earliest);
    Location loc = b.getFusedLoc(llvm::map_to_vector(group, [](MatMulNBitsOp op) { return op.getLoc(); }));
    auto constant = [&](ArrayRef<int64_t> shape, Type elem, const std::vector<char> &bytes) {
      auto type = RankedTensorType::get(shape, elem);
      return ConstantOp::create(b, loc, type, DenseElementsAttr::getFromRawBuffer(type, bytes), StringAttr())
          .getResult();
    };
    Type u8 = IntegerType::get(&getContext(), 8, IntegerType::Unsigned);
    Value w = constant({totalN, kBlocks, blob}, u8, weight);
    Type scaleElem = cast<RankedTensorType>(first.getScales().getType()).getElementType();
    Value s = constant({totalN, kBlocks}, scaleElem, scales);
    Value zp;
    if (first.getZeroPoints()) {
      Type zpElem = cast<RankedTensorType>(first.getZeroPoints().getType()).getElementType();
      zp = constant({totalN, zpRow}, zpElem, zeroPoints);
    }
    auto mm = MatMulNBitsOp::create(b, loc, first.getInput(), w, s, zp, Value(), b.getI64IntegerAttr(K),
                                    b.getI64IntegerAttr(totalN), b.getI64IntegerAttr(blockSize),
                                    first.getBitsAttr(), first.getAccuracyLevelAttr());
    auto inputType = cast<RankedTensorType>(first.getInput().getType());
    SmallVector<Type> pieces;
    for (MatMulNBitsOp op : group) pieces.push_back(op.getType());
    auto split = SplitOp::create(b, loc, pieces, mm.getResult(), b.getDenseI64ArrayAttr(splits),
                                 b.getI64IntegerAttr(inputType.getRank() - 1));
    // The separate weights are dead now; drop them (and reshapes of them) so
    // the artifact does not carry the weights twice. A set: members may
    // share a constant (one scale or zero-point tensor for all).
    llvm::SetVector<Operation *> feeders;
    for (auto [constOp, piece] : llvm::zip(group, split.getResults())) {
      MatMulNBitsOp op = constOp;
      for (Value v : {op.getWeight(), op.getScales(), op.getZeroPoints()})
        if (v && v.getDefiningOp()) feeders.insert(v.getDefiningOp());
      op.getResult().replaceAllUsesWith(piece);
      op.erase();
    }
    packIntoAttention(split);
    while (!feeders.empty()) {
      Operation *op = feeders.pop_back_val();
      if (!op->use_empty() || !isa<ConstantOp, ReshapeOp>(op)) continue;
      for (Value operand : op->getOperands())
        if (operand.getDefiningOp()) feeders.insert(operand.getDefiningOp());
      op->erase();
    }
    return success();
  }
};

}  // namespace
}  // namespace mlir::webnn
