// gatherElements, gatherND, scatterElements, scatterND, reverse and
// cumulativeSum against plain reference loops: spec examples, every index
// type, negative and out-of-range indices (clamped), several element types.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "KernelTestUtil.h"
#include "runtime/backends/cpu/kernels/QuantizedMatMul.h"
#include "runtime/backends/cpu/kernels/Transpose32.h"

namespace webnn::cpu::test {
namespace {

std::vector<double> iota(int64_t n, double start = 0) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[size_t(i)] = start + double(i);
  return v;
}

int64_t clampIndex(int64_t i, int64_t dim) {
  if (i < 0) i += dim;
  return std::min(std::max<int64_t>(i, 0), dim - 1);
}

TEST(IndexingKernels, GatherElementsSpecExamples) {
  // input [4,3], indices [2,3], axis 0 -> [[30,11,12],[20,1,32]]
  OpCase c;
  c.op = "gatherElements";
  c.inputs = {f32({4, 3}, {0, 1, 2, 10, 11, 12, 20, 21, 22, 30, 31, 32}),
              fromDoubles(DataType::kUint32, {2, 3}, {3, 1, 1, 2, 0, 3})};
  c.outputs = {outSpec(DataType::kFloat32, {2, 3})};
  ASSERT_TRUE(runOp(c).isOk());
  EXPECT_EQ(c.outputs[0].values(), (std::vector<double>{30, 11, 12, 20, 1, 32}));
  // axis 1, indices [4,1] -> [2, 11, 20, 32]; a negative index counts from the end.
  OpCase d;
  d.op = "gatherElements";
  d.inputs = {f32({4, 3}, {0, 1, 2, 10, 11, 12, 20, 21, 22, 30, 31, 32}),
              fromDoubles(DataType::kInt64, {4, 1}, {2, 1, -3, -1})};
  d.outputs = {outSpec(DataType::kFloat32, {4, 1})};
  d.attrInt("axis", 1);
  ASSERT_TRUE(runOp(d).isOk());
  EXPECT_EQ(d.outputs[0].values(), (std::vector<double>{2, 11, 20, 32}));
}

TEST(IndexingKernels, GatherElementsMatchesReferenceForTypesAndAxes) {
  std::mt19937 rng(7);
  const Shape inShape = {3, 5, 4};
  for (DataType dt : {DataType::kFloat32, DataType::kFloat16, DataType::kInt8, DataType::kInt64}) {
    for (DataType it : {DataType::kInt32, DataType::kUint32, DataType::kInt64}) {
      for (int64_t axis = 0; axis < 3; ++axis) {
        Shape idxShape = inShape;
        idxShape[size_t(axis)] = 7;
        int64_t n = 1;
        for (int64_t d : idxShape) n *= d;
        int64_t dim = inShape[size_t(axis)];
        std::uniform_int_distribution<int64_t> pick(it == DataType::kUint32 ? 0 : -dim, dim + 2);  // incl. out of range
        std::vector<double> idx(static_cast<size_t>(n));
        for (double &v : idx) v = double(pick(rng));
        OpCase c;
        c.op = "gatherElements";
        c.inputs = {fromDoubles(dt, inShape, iota(60, -30)), fromDoubles(it, idxShape, idx)};
        c.outputs = {outSpec(dt, idxShape)};
        c.attrInt("axis", axis);
        ASSERT_TRUE(runOp(c, 2).isOk());
        std::vector<double> got = c.outputs[0].values(), x = c.inputs[0]->values();
        for (int64_t f = 0; f < n; ++f) {
          int64_t k = f % idxShape[2], j = (f / idxShape[2]) % idxShape[1], i = f / (idxShape[2] * idxShape[1]);
          int64_t coord[3] = {i, j, k};
          coord[axis] = clampIndex(int64_t(idx[size_t(f)]), dim);
          EXPECT_EQ(got[size_t(f)], x[size_t((coord[0] * 5 + coord[1]) * 4 + coord[2])]) << f;
        }
      }
    }
  }
}

TEST(IndexingKernels, GatherElementsRejectsBadShapesAndTypes) {
  OpCase c;
  c.op = "gatherElements";
  c.inputs = {fromDoubles(DataType::kFloat32, {4, 3}, iota(12)), fromDoubles(DataType::kInt32, {2, 2}, {0, 0, 0, 0})};
  c.outputs = {outSpec(DataType::kFloat32, {2, 2})};
  EXPECT_FALSE(runOp(c).isOk());  // indices must be [x, 3] for axis 0
  OpCase d;
  d.op = "gatherElements";
  d.inputs = {fromDoubles(DataType::kFloat32, {4}, iota(4)), f32({2}, {0, 1})};
  d.outputs = {outSpec(DataType::kFloat32, {2})};
  EXPECT_FALSE(runOp(d).isOk());  // float indices
}

TEST(IndexingKernels, GatherNDSpecExamples) {
  TestTensor in2 = f32({2, 2}, {0, 1, 2, 3});
  TestTensor in3 = fromDoubles(DataType::kFloat32, {2, 2, 2}, iota(8));
  struct Case {
    TestTensor input;
    Shape idxShape;
    std::vector<double> idx;
    Shape outShape;
    std::vector<double> want;
  };
  std::vector<Case> cases = {
      {in2, {3, 2}, {0, 0, 1, 1, 1, 0}, {3}, {0, 3, 2}},
      {in2, {2, 1}, {1, 0}, {2, 2}, {2, 3, 0, 1}},
      {in3, {2, 2}, {0, 1, 1, 0}, {2, 2}, {2, 3, 4, 5}},
      {in3, {3, 1}, {1, 0, 1}, {3, 2, 2}, {4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7}},
      {in3, {5, 3}, {0, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1, 0, 1, 1, 1}, {5}, {1, 2, 4, 6, 7}},
      // Negative coordinates count from the end; out of range ones clamp.
      {in3, {2, 3}, {-1, -1, -2, 5, -9, 0}, {2}, {6, 4}},
  };
  for (DataType it : {DataType::kInt32, DataType::kInt64}) {
    for (Case &k : cases) {
      OpCase c;
      c.op = "gatherND";
      c.inputs = {k.input, fromDoubles(it, k.idxShape, k.idx)};
      c.outputs = {outSpec(DataType::kFloat32, k.outShape)};
      ASSERT_TRUE(runOp(c).isOk());
      EXPECT_EQ(c.outputs[0].values(), k.want);
    }
  }
  OpCase bad;
  bad.op = "gatherND";
  bad.inputs = {in2, fromDoubles(DataType::kInt32, {1, 3}, {0, 0, 0})};
  bad.outputs = {outSpec(DataType::kFloat32, {1})};
  EXPECT_FALSE(runOp(bad).isOk());  // coordinate longer than the input rank
}

TEST(IndexingKernels, ScatterElementsMatchesReference) {
  // input [3,3] zeros, indices [2,3] axis 0, updates [2,3]; last write wins.
  for (DataType dt : {DataType::kFloat32, DataType::kFloat16, DataType::kInt32, DataType::kUint8}) {
    OpCase c;
    c.op = "scatterElements";
    c.inputs = {fromDoubles(dt, {3, 3}, std::vector<double>(9, 0)),
                fromDoubles(DataType::kInt64, {2, 3}, {1, 0, 2, 0, 2, -2}),
                fromDoubles(dt, {2, 3}, {10, 11, 12, 20, 21, 22})};
    c.outputs = {outSpec(dt, {3, 3})};
    ASSERT_TRUE(runOp(c).isOk());
    EXPECT_EQ(c.outputs[0].values(), (std::vector<double>{20, 11, 0, 10, 0, 22, 0, 21, 12}));
  }
  // axis 1 on [1,5], repeated index: the later update wins.
  OpCase d;
  d.op = "scatterElements";
  d.inputs = {f32({1, 5}, {1, 2, 3, 4, 5}), fromDoubles(DataType::kUint32, {1, 3}, {1, 3, 1}), f32({1, 3}, {-1, -2, -3})};
  d.outputs = {outSpec(DataType::kFloat32, {1, 5})};
  d.attrInt("axis", 1);
  ASSERT_TRUE(runOp(d, 2).isOk());
  EXPECT_EQ(d.outputs[0].values(), (std::vector<double>{1, -3, 3, -2, 5}));
  OpCase bad = d;
  bad.inputs[2] = f32({1, 2}, {0, 0});
  EXPECT_FALSE(runOp(bad).isOk());  // updates shape != indices shape
}

TEST(IndexingKernels, ScatterNDMatchesReference) {
  // input [4,4,4] of ones... scatter two [4,4] slices along the first dim.
  std::vector<double> input = iota(64);
  std::vector<double> updates(32);
  for (int i = 0; i < 32; ++i) updates[size_t(i)] = 100 + i;
  for (DataType dt : {DataType::kFloat32, DataType::kInt64, DataType::kFloat16}) {
    OpCase c;
    c.op = "scatterND";
    c.inputs = {fromDoubles(dt, {4, 4, 4}, input), fromDoubles(DataType::kInt32, {2, 1}, {0, -2}),
                fromDoubles(dt, {2, 4, 4}, updates)};
    c.outputs = {outSpec(dt, {4, 4, 4})};
    ASSERT_TRUE(runOp(c).isOk());
    std::vector<double> want = input;
    for (int i = 0; i < 16; ++i) want[size_t(i)] = 100 + i;
    for (int i = 0; i < 16; ++i) want[size_t(32 + i)] = 116 + i;
    EXPECT_EQ(c.outputs[0].values(), want);
  }
  // Full coordinates: element updates; the repeated coordinate keeps the last.
  OpCase e;
  e.op = "scatterND";
  e.inputs = {fromDoubles(DataType::kFloat32, {2, 3}, iota(6)), fromDoubles(DataType::kUint32, {3, 2}, {0, 1, 1, 2, 0, 1}), f32({3}, {-1, -2, -3})};
  e.outputs = {outSpec(DataType::kFloat32, {2, 3})};
  ASSERT_TRUE(runOp(e).isOk());
  EXPECT_EQ(e.outputs[0].values(), (std::vector<double>{0, -3, 2, 3, 4, -2}));
  OpCase bad = e;
  bad.inputs[2] = f32({3, 1}, {0, 0, 0});
  EXPECT_FALSE(runOp(bad).isOk());
}

TEST(IndexingKernels, ReverseAxes) {
  struct Case {
    bool hasAxes;
    std::vector<int64_t> axes;
    std::vector<double> want;
  };
  // [2,3] = [[0,1,2],[3,4,5]]
  std::vector<Case> cases = {{false, {}, {5, 4, 3, 2, 1, 0}},
                             {true, {}, {0, 1, 2, 3, 4, 5}},
                             {true, {0}, {3, 4, 5, 0, 1, 2}},
                             {true, {1}, {2, 1, 0, 5, 4, 3}},
                             {true, {1, 0}, {5, 4, 3, 2, 1, 0}}};
  for (DataType dt : {DataType::kFloat32, DataType::kFloat16, DataType::kUint64, DataType::kInt8}) {
    for (Case &k : cases) {
      OpCase c;
      c.op = "reverse";
      c.inputs = {fromDoubles(dt, {2, 3}, iota(6))};
      c.outputs = {outSpec(dt, {2, 3})};
      if (k.hasAxes) c.attrInts("axes", k.axes);
      ASSERT_TRUE(runOp(c).isOk());
      EXPECT_EQ(c.outputs[0].values(), k.want);
    }
  }
  OpCase s;
  s.op = "reverse";
  s.inputs = {f32({}, {7})};
  s.outputs = {outSpec(DataType::kFloat32, {})};
  ASSERT_TRUE(runOp(s).isOk());
  EXPECT_EQ(s.outputs[0].values(), (std::vector<double>{7}));
  OpCase bad;
  bad.op = "reverse";
  bad.inputs = {f32({2}, {1, 2})};
  bad.outputs = {outSpec(DataType::kFloat32, {2})};
  bad.attrInts("axes", {0, 0});
  EXPECT_FALSE(runOp(bad).isOk());
}

TEST(IndexingKernels, CumulativeSumModes) {
  struct Case {
    bool exclusive, reversed;
    std::vector<double> want;
  };
  std::vector<Case> cases = {{false, false, {1, 3, 6, 10}},
                             {true, false, {0, 1, 3, 6}},
                             {false, true, {10, 9, 7, 4}},
                             {true, true, {9, 7, 4, 0}}};
  for (DataType dt : {DataType::kFloat32, DataType::kFloat16, DataType::kInt32, DataType::kUint32, DataType::kInt64,
                      DataType::kUint64}) {
    for (Case &k : cases) {
      OpCase c;
      c.op = "cumulativeSum";
      c.inputs = {fromDoubles(dt, {4}, {1, 2, 3, 4})};
      c.outputs = {outSpec(dt, {4})};
      c.attrInt("axis", 0).attrBool("exclusive", k.exclusive).attrBool("reversed", k.reversed);
      Status st = runOp(c);
      ASSERT_TRUE(st.isOk()) << dataTypeName(dt) << ": " << st.message();
      EXPECT_EQ(c.outputs[0].values(), k.want);
    }
  }
  // Middle axis of [2,3,2] against a reference loop.
  std::vector<double> x = iota(12, -5);
  OpCase c;
  c.op = "cumulativeSum";
  c.inputs = {f32({2, 3, 2}, std::vector<float>(x.begin(), x.end()))};
  c.outputs = {outSpec(DataType::kFloat32, {2, 3, 2})};
  c.attrInt("axis", 1);
  ASSERT_TRUE(runOp(c, 2).isOk());
  std::vector<double> got = c.outputs[0].values();
  for (int o = 0; o < 2; ++o)
    for (int k = 0; k < 2; ++k) {
      double acc = 0;
      for (int j = 0; j < 3; ++j) {
        acc += x[size_t(o * 6 + j * 2 + k)];
        EXPECT_EQ(got[size_t(o * 6 + j * 2 + k)], acc);
      }
    }
  OpCase bad;
  bad.op = "cumulativeSum";
  bad.inputs = {fromDoubles(DataType::kInt8, {3}, {1, 2, 3})};
  bad.outputs = {outSpec(DataType::kInt8, {3})};
  bad.attrInt("axis", 0);
  EXPECT_FALSE(runOp(bad).isOk());  // int8 is not an allowed type
}

// The definition of transpose: output element e (row-major over the permuted
// shape) is input element sources[e].
std::vector<int64_t> transposeSources(const Shape &shape, const std::vector<int64_t> &perm) {
  std::vector<int64_t> inStrides(shape.size(), 1);
  for (size_t d = shape.size() - 1; d-- > 0;) inStrides[d] = inStrides[d + 1] * shape[d + 1];
  Shape os;
  int64_t n = 1;
  for (int64_t p : perm) {
    os.push_back(shape[size_t(p)]);
    n *= shape[size_t(p)];
  }
  std::vector<int64_t> sources, idx(os.size(), 0);
  for (int64_t e = 0; e < n; ++e) {
    int64_t off = 0;
    for (size_t d = 0; d < os.size(); ++d) off += idx[d] * inStrides[size_t(perm[d])];
    sources.push_back(off);
    for (size_t d = os.size(); d-- > 0;) {
      if (++idx[d] < os[d]) break;
      idx[d] = 0;
    }
  }
  return sources;
}

// Transposes that reduce to a batched 2-D swap (NCHW <-> NHWC, a plain matrix
// transpose, size-1 dims anywhere) take the tiled path; every result must
// equal the element-by-element definition, tiles' edges included.
TEST(ShapeKernels, TransposeAsBatchedSwapMatchesDefinition) {
  struct Case {
    Shape shape;
    std::vector<int64_t> perm;
  };
  for (const Case &t : {Case{{2, 3, 33, 35}, {0, 2, 3, 1}}, Case{{2, 33, 35, 3}, {0, 3, 1, 2}},
                        Case{{37, 65}, {1, 0}}, Case{{1, 3, 1, 40, 2}, {0, 2, 3, 4, 1}},
                        Case{{4, 5, 6}, {0, 2, 1}}, Case{{4, 5, 6}, {2, 0, 1}}, Case{{4, 5, 6}, {1, 0, 2}}}) {
    int64_t n = 1;
    for (int64_t d : t.shape) n *= d;
    Shape os;
    for (int64_t p : t.perm) os.push_back(t.shape[size_t(p)]);
    OpCase c;
    c.op = "transpose";
    c.attrInts("permutation", t.perm);
    std::vector<float> values(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) values[size_t(i)] = float(i);  // distinct: any misplacement shows
    c.inputs = {f32(t.shape, values)};
    c.outputs = {outSpec(DataType::kFloat32, os)};
    ASSERT_TRUE(runOp(c, 2).isOk());
    const float *x = c.inputs[0]->as<float>();
    std::vector<double> want;
    for (int64_t off : transposeSources(t.shape, t.perm)) want.push_back(x[off]);
    EXPECT_EQ(c.outputs[0].values(), want) << "transpose " << shapeToString(t.shape);
  }
}

// The AVX-512 block transpose of 4-byte elements alone: every block height
// and width up to 16 and past it (the masked edges), inside larger strided
// matrices; elements outside the block must stay untouched.
TEST(ShapeKernels, Transpose32Avx512MatchesDefinitionAtEveryEdge) {
  if (!kernels::avx512Available()) GTEST_SKIP() << "the block transpose needs AVX-512";
  for (int64_t rows = 1; rows <= 35; ++rows)
    for (int64_t cols = 1; cols <= 35; ++cols) {
      const int64_t ldx = cols + 3, ldy = rows + 5;
      std::vector<uint32_t> x(size_t(rows * ldx)), y(size_t(cols * ldy), 0xdeadbeefu);
      for (size_t i = 0; i < x.size(); ++i) x[i] = uint32_t(i) * 2654435761u;  // distinct bit patterns
      kernels::transpose32Avx512(x.data(), ldx, y.data(), ldy, rows, cols);
      for (int64_t c = 0; c < cols; ++c)
        for (int64_t r = 0; r < ldy; ++r) {
          const uint32_t want = r < rows ? x[size_t(r * ldx + c)] : 0xdeadbeefu;
          ASSERT_EQ(y[size_t(c * ldy + r)], want) << rows << " x " << cols << " at column " << c << ", row " << r;
        }
    }
}

// ViT-B/16's attention transposes (K^T as [197, 12, 64] -> [12, 64, 197],
// the patch embedding's [1, 768, 196] -> [1, 196, 768]) and int32 elements:
// the tiled path with 16 x 16 blocks, 197 rows leaving 5-row edges.
TEST(ShapeKernels, TransposeVitShapesMatchDefinition) {
  struct Case {
    Shape shape;
    std::vector<int64_t> perm;
    DataType dt;
  };
  for (const Case &t : {Case{{197, 12, 64}, {1, 2, 0}, DataType::kFloat32}, Case{{1, 768, 196}, {0, 2, 1}, DataType::kFloat32},
                        Case{{3, 50, 17}, {0, 2, 1}, DataType::kInt32}})
    for (int threads : {1, 2}) {
      int64_t n = 1;
      for (int64_t d : t.shape) n *= d;
      Shape os;
      for (int64_t p : t.perm) os.push_back(t.shape[size_t(p)]);
      std::vector<double> values(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) values[size_t(i)] = double(i);
      std::vector<double> want;
      for (int64_t off : transposeSources(t.shape, t.perm)) want.push_back(values[size_t(off)]);
      OpCase c;
      c.op = "transpose";
      c.attrInts("permutation", t.perm);
      c.inputs = {fromDoubles(t.dt, t.shape, values)};
      c.outputs = {outSpec(t.dt, os)};
      ASSERT_TRUE(runOp(c, threads).isOk());
      EXPECT_EQ(c.outputs[0].values(), want) << "transpose " << shapeToString(t.shape) << " threads " << threads;
    }
}

// One side of the swap at most 4 elements (RGB channels in and out of NHWC)
// takes the narrow loops instead of tiles: both directions, every short size,
// long sides across the 1024-element chunks the pool splits, batches, and
// 1-, 2-, 4- and 8-byte elements, at 1 and 2 threads.
TEST(ShapeKernels, TransposeNarrowSideMatchesDefinition) {
  struct Case {
    Shape shape;
    std::vector<int64_t> perm;
  };
  const Case cases[] = {{{1, 3, 224, 224}, {0, 2, 3, 1}}, {{1, 224, 224, 3}, {0, 3, 1, 2}},
                        {{2, 2, 37, 41}, {0, 2, 3, 1}},   {{3, 1500, 4}, {0, 2, 1}},
                        {{4, 2051}, {1, 0}},              {{2051, 2}, {1, 0}},
                        {{2, 3, 5}, {0, 2, 1}}};
  for (DataType dt : {DataType::kFloat32, DataType::kFloat16, DataType::kInt8, DataType::kInt64})
    for (const Case &t : cases) {
      int64_t n = 1;
      for (int64_t d : t.shape) n *= d;
      Shape os;
      for (int64_t p : t.perm) os.push_back(t.shape[size_t(p)]);
      std::vector<double> values(static_cast<size_t>(n));
      // Distinct where the type allows (float16 is exact to 2048, int8 wraps
      // every 256, so also vary with the position's low bits).
      for (int64_t i = 0; i < n; ++i)
        values[size_t(i)] = dt == DataType::kInt8 ? double(i % 251 - 125) : dt == DataType::kFloat16 ? double(i % 2039) : double(i);
      std::vector<double> want;
      for (int64_t off : transposeSources(t.shape, t.perm)) want.push_back(values[size_t(off)]);
      for (int threads : {1, 2}) {
        OpCase c;
        c.op = "transpose";
        c.attrInts("permutation", t.perm);
        c.inputs = {fromDoubles(dt, t.shape, values)};
        c.outputs = {outSpec(dt, os)};
        ASSERT_TRUE(runOp(c, threads).isOk());
        EXPECT_EQ(c.outputs[0].values(), want)
            << "transpose " << shapeToString(t.shape) << " type " << int(dt) << " threads " << threads;
      }
    }
}

}  // namespace
}  // namespace webnn::cpu::test
