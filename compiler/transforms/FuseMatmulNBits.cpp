// --webnn-fuse-matmul-nbits: a matmul whose weight is a block-wise
// dequantizeLinear of a constant int4/uint4 tensor (ONNX DequantizeLinear
// with block_size feeding MatMul, as QDQ int4 exports write it) into
// webnn.matmulNBits (docs/LLM.md):
//
//   y = matmul(x, dequantizeLinear(q [K, N], scale [K/bs, N], zp [K/bs, N]))
//   y = matmul(x, transpose(dequantizeLinear(q [N, K], scale [N, K/bs], zp), [1, 0]))
//
// The weight is repacked at compile time into matmulNBits' layout (uint8
// [N, K/bs, bs/2], low nibble first; int4 values and zero points shifted by 8
// so q - zp is unchanged) and the kernel dequantizes in registers instead of
// writing a float [K, N] weight (8x the bytes) before every matmul.
#include "compiler/transforms/MatchUtils.h"
#include "compiler/transforms/Passes.h"
#include "compiler/transforms/RewriteReport.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::webnn {
#define GEN_PASS_DEF_WEBNNFUSEMATMULNBITS
#include "compiler/transforms/Passes.h.inc"

namespace {

struct NBitsCounters {
  int64_t matmuls = 0, opsReplaced = 0;
};

bool isInt4(Type t) { return t.isInteger(4); }

struct FuseMatmulNBits : OpRewritePattern<MatmulOp> {
  FuseMatmulNBits(MLIRContext *ctx, NBitsCounters &counters) : OpRewritePattern(ctx), counters(counters) {}

  LogicalResult matchAndRewrite(MatmulOp mm, PatternRewriter &rewriter) const override {
    SmallVector<Operation *> ops;
    Value b = mm.getB();
    bool transposed = false;
    if (auto t = b.getDefiningOp<TransposeOp>(); t && hasPermutation(t, {1, 0})) {
      ops.push_back(t);
      b = t.getInput();
      transposed = true;
    }
    auto dq = b.getDefiningOp<DequantizeLinearOp>();
    if (!dq) return rewriter.notifyMatchFailure(mm, "the weight is not dequantizeLinear");
    ops.push_back(dq);
    auto qType = cast<RankedTensorType>(dq.getInput().getType());
    auto scaleType = cast<RankedTensorType>(dq.getScale().getType());
    auto zpType = cast<RankedTensorType>(dq.getZeroPoint().getType());
    auto xType = cast<RankedTensorType>(mm.getA().getType());
    if (!isInt4(qType.getElementType()) || qType.getRank() != 2 || !qType.hasStaticShape() ||
        scaleType.getRank() != 2 || zpType.getShape() != scaleType.getShape())
      return rewriter.notifyMatchFailure(mm, "not a rank-2 int4/uint4 dequantization");
    if (scaleType.getElementType() != xType.getElementType() || xType.getRank() < 1)
      return rewriter.notifyMatchFailure(mm, "the scale's type is not the input's");
    // Rows of q are N (transposed) or K.
    int64_t K = transposed ? qType.getDimSize(1) : qType.getDimSize(0);
    int64_t N = transposed ? qType.getDimSize(0) : qType.getDimSize(1);
    int64_t kBlocks = transposed ? scaleType.getDimSize(1) : scaleType.getDimSize(0);
    int64_t nScale = transposed ? scaleType.getDimSize(0) : scaleType.getDimSize(1);
    if (nScale != N || kBlocks < 1 || K % kBlocks != 0)
      return rewriter.notifyMatchFailure(mm, "the scales are not blocks along K, one per column");
    int64_t blockSize = K / kBlocks;
    if (blockSize < 16 || (blockSize & (blockSize - 1)) != 0)
      return rewriter.notifyMatchFailure(mm, "the block size is not a power of 2 >= 16");
    if (xType.getShape().back() != K) return rewriter.notifyMatchFailure(mm, "the input's last dimension is not K");
    SmallVector<int64_t> outShape(xType.getShape());
    outShape.back() = N;
    if (RankedTensorType::get(outShape, xType.getElementType()) != mm.getType())
      return rewriter.notifyMatchFailure(mm, "the matmul broadcasts the weight");
    std::optional<SmallVector<int64_t>> q = intConstantValues(dq.getInput());
    std::optional<SmallVector<int64_t>> zp = intConstantValues(dq.getZeroPoint());
    if (!q || !zp) return rewriter.notifyMatchFailure(mm, "the weight or zero point is not a constant");
    int64_t shift = qType.getElementType().isUnsignedInteger() ? 0 : 8;

    // q(n, k), zp(n, block) as uint4 values.
    auto qAt = [&](int64_t n, int64_t k) { return (*q)[transposed ? n * K + k : k * N + n] + shift; };
    auto zpAt = [&](int64_t n, int64_t blk) { return (*zp)[transposed ? n * kBlocks + blk : blk * N + n] + shift; };
    SmallVector<uint8_t> packed(N * K / 2);
    for (int64_t n = 0; n < N; ++n)
      for (int64_t k = 0; k < K; k += 2)
        packed[(n * K + k) / 2] = uint8_t(qAt(n, k) | (qAt(n, k + 1) << 4));
    bool defaultZp = true;  // 8 for every block: matmulNBits' default
    int64_t zpRow = (kBlocks + 1) / 2;
    SmallVector<uint8_t> zpPacked(N * zpRow, 0);
    for (int64_t n = 0; n < N; ++n)
      for (int64_t blk = 0; blk < kBlocks; ++blk) {
        int64_t z = zpAt(n, blk);
        defaultZp &= z == 8;
        zpPacked[n * zpRow + blk / 2] |= uint8_t(z << (4 * (blk % 2)));
      }

    Location loc = mm.getLoc();
    rewriter.setInsertionPoint(mm);
    Type u8 = IntegerType::get(getContext(), 8, IntegerType::Unsigned);
    auto weightType = RankedTensorType::get({N, kBlocks, blockSize / 2}, u8);
    Value weight = ConstantOp::create(rewriter, loc, weightType,
                                      DenseElementsAttr::get(weightType, ArrayRef<uint8_t>(packed)), StringAttr())
                       .getResult();
    Value zeroPoints;
    if (!defaultZp) {
      auto zpPackedType = RankedTensorType::get({N, zpRow}, u8);
      zeroPoints = ConstantOp::create(rewriter, loc, zpPackedType,
                                      DenseElementsAttr::get(zpPackedType, ArrayRef<uint8_t>(zpPacked)), StringAttr())
                       .getResult();
    }
    // matmulNBits reads the scales [N, kBlocks]. Constant ones are permuted
    // here, so --webnn-merge-matmul-nbits (before the last folding) sees a
    // constant and can merge q/k/v or gate/up.
    Value scales = dq.getScale();
    if (!transposed) {
      if (std::optional<SmallVector<double>> values = floatConstantValues(scales)) {
        SmallVector<double> permuted(N * kBlocks);
        for (int64_t blk = 0; blk < kBlocks; ++blk)
          for (int64_t n = 0; n < N; ++n) permuted[n * kBlocks + blk] = (*values)[blk * N + n];
        scales = floatConstant(rewriter, loc, {N, kBlocks}, scaleType.getElementType(), permuted);
      } else {
        scales = TransposeOp::create(rewriter, loc, scales, rewriter.getDenseI64ArrayAttr({1, 0})).getResult();
      }
    }
    auto fused = MatMulNBitsOp::create(rewriter, loc, mm.getA(), weight, scales, zeroPoints, Value(),
                                       rewriter.getI64IntegerAttr(K), rewriter.getI64IntegerAttr(N),
                                       rewriter.getI64IntegerAttr(blockSize), rewriter.getI64IntegerAttr(4),
                                       IntegerAttr());
    rewriter.replaceOp(mm, fused.getResult());
    ++counters.matmuls;
    counters.opsReplaced += 1 + eraseDeadOps(rewriter, ops);
    return success();
  }
  NBitsCounters &counters;
};

struct FuseMatmulNBitsPass : impl::WebNNFuseMatmulNBitsBase<FuseMatmulNBitsPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    NBitsCounters counters;
    RewritePatternSet patterns(ctx);
    patterns.add<FuseMatmulNBits>(ctx, counters);
    GreedyRewriteConfig config;
    config.enableFolding(false);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns), config))) return signalPassFailure();
    numMatmulsFused += counters.matmuls;
    numOpsReplaced += counters.opsReplaced;
    recordRewrites(ctx, getArgument(), "matmuls-fused", counters.matmuls);
    recordRewrites(ctx, getArgument(), "ops-replaced", counters.opsReplaced);
  }
};

}  // namespace
}  // namespace mlir::webnn
