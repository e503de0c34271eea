#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>

#include "TestArtifact.h"
#include "webnn/npy.h"

namespace webnn::test {
namespace {

std::vector<uint8_t> image(const std::string &dict, int major = 1, const std::vector<uint8_t> &data = {}) {
  std::string h = dict;
  size_t prefix = major == 1 ? 10 : 12;
  while ((prefix + h.size() + 1) % 64) h += ' ';
  h += '\n';
  std::vector<uint8_t> b = {0x93, 'N', 'U', 'M', 'P', 'Y', uint8_t(major), 0};
  b.push_back(h.size() & 0xff);
  b.push_back((h.size() >> 8) & 0xff);
  if (major != 1) {
    b.push_back(0);
    b.push_back(0);
  }
  b.insert(b.end(), h.begin(), h.end());
  b.insert(b.end(), data.begin(), data.end());
  return b;
}

Status parseImage(const std::vector<uint8_t> &b, npy::Array *a) { return npy::parse(b.data(), b.size(), "t.npy", a); }

TEST(Npy, ParsesVersions1And2) {
  for (int major : {1, 2, 3}) {
    npy::Array a;
    auto b = image("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 1), }", major, floatBytes({1.5f, -2}));
    ASSERT_TRUE(parseImage(b, &a).isOk()) << major;
    EXPECT_EQ(a.dtype, DataType::kFloat32);
    EXPECT_EQ(a.shape, (Shape{2, 1}));
    float v[2];
    std::memcpy(v, a.data.data(), 8);
    EXPECT_EQ(v[1], -2.0f);
  }
}

TEST(Npy, ScalarAndOneDim) {
  npy::Array a;
  ASSERT_TRUE(parseImage(image("{'descr': '|u1', 'fortran_order': False, 'shape': (), }", 1, {7}), &a).isOk());
  EXPECT_TRUE(a.shape.empty());
  ASSERT_TRUE(parseImage(image("{'descr': '|i1', 'fortran_order': False, 'shape': (3,), }", 1, {1, 2, 3}), &a).isOk());
  EXPECT_EQ(a.shape, (Shape{3}));
  EXPECT_EQ(a.dtype, DataType::kInt8);
}

TEST(Npy, Rejections) {
  npy::Array a;
  auto msg = [&](const std::vector<uint8_t> &b) {
    Status s = parseImage(b, &a);
    EXPECT_FALSE(s.isOk());
    return s.message();
  };
  EXPECT_NE(msg(image("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", 1, std::vector<uint8_t>(24)))
                .find("Fortran-order"),
            std::string::npos);
  EXPECT_NE(msg(image("{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }", 1, {0, 0, 0, 0})).find("big-endian"),
            std::string::npos);
  EXPECT_NE(msg(image("{'descr': '|O', 'fortran_order': False, 'shape': (1,), }", 1, std::vector<uint8_t>(8)))
                .find("object"),
            std::string::npos);
  EXPECT_NE(msg(image("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", 1, std::vector<uint8_t>(8)))
                .find("unsupported dtype '<c8'"),
            std::string::npos);
  EXPECT_NE(msg(image("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 1, std::vector<uint8_t>(20)))
                .find("t.npy: truncated: header says float32 [2,3] (24 bytes) but the file has 20 bytes"),
            std::string::npos);
  EXPECT_NE(msg(image("{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776, 1099511627776), }"))
                .find("too large"),
            std::string::npos);
  EXPECT_NE(msg(image("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }"))
                .find("overflows"),
            std::string::npos);
  EXPECT_NE(msg({1, 2, 3}).find("bad magic"), std::string::npos);
  EXPECT_NE(msg(image("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }")).find("structured"),
            std::string::npos);
  // Every truncation of a valid file fails cleanly.
  auto good = image("{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }", 1, std::vector<uint8_t>(8));
  for (size_t len = 0; len < good.size(); ++len) {
    std::vector<uint8_t> cut(good.begin(), good.begin() + len);
    EXPECT_FALSE(parseImage(cut, &a).isOk()) << len;
  }
}

TEST(Npy, WriteReadRoundTripAllTypes) {
  std::string dir = tempDir("npy");
  // WebNN's types and the interface-only float64/int16/uint16/bool (bfloat16
  // has no .npy type).
  for (int t = 0; t < kNumInterfaceDataTypes; ++t) {
    DataType dt = static_cast<DataType>(t);
    if (dt == DataType::kInt4 || dt == DataType::kUint4 || dt == DataType::kBfloat16) continue;
    Shape shape = {2, 3};
    std::vector<uint8_t> data(6 * dataTypeBits(dt) / 8);
    for (size_t i = 0; i < data.size(); ++i) data[i] = uint8_t(i * 7 + 1);
    std::string path = dir + "/" + std::string(dataTypeName(dt)) + ".npy";
    ASSERT_TRUE(npy::write(path, dt, shape, data.data(), data.size()).isOk());
    npy::Array a;
    ASSERT_TRUE(npy::read(path, &a).isOk()) << dataTypeName(dt);
    EXPECT_EQ(a.dtype, dt);
    EXPECT_EQ(a.shape, shape);
    EXPECT_EQ(a.data, data);
  }
  // No temporary files left behind.
  int files = 0;
  for (auto &e : std::filesystem::directory_iterator(dir)) files += e.path().extension() == ".npy";
  EXPECT_EQ(files, 12);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()), 12);
}

TEST(Npy, Bool) {
  // numpy writes bool as '|b1', one byte per element.
  npy::Array a;
  ASSERT_TRUE(parseImage(image("{'descr': '|b1', 'fortran_order': False, 'shape': (2, 2), }", 1, {0, 1, 1, 0}), &a)
                  .isOk());
  EXPECT_EQ(a.dtype, DataType::kBool);
  EXPECT_EQ(a.shape, (Shape{2, 2}));
  EXPECT_EQ(a.data, (std::vector<uint8_t>{0, 1, 1, 0}));
  // '<b1' and '=b1' are the same one-byte type.
  ASSERT_TRUE(parseImage(image("{'descr': '<b1', 'fortran_order': False, 'shape': (1,), }", 1, {1}), &a).isOk());
  EXPECT_EQ(a.dtype, DataType::kBool);
  EXPECT_NE(npy::header(DataType::kBool, {3}).find("'descr': '|b1'"), std::string::npos);
  Status s = parseImage(image("{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }", 1, {1, 0}), &a);
  EXPECT_NE(s.message().find("truncated: header says bool [3] (3 bytes) but the file has 2 bytes"), std::string::npos)
      << s.message();
}

TEST(Npy, HeaderIsAligned) {
  for (const Shape &s : {Shape{}, Shape{5}, Shape{1, 2, 3, 4, 5, 6, 7}}) {
    std::string h = npy::header(DataType::kFloat16, s);
    EXPECT_EQ(h.size() % 64, 0u);
    EXPECT_EQ(h.back(), '\n');
    std::vector<uint8_t> b(h.begin(), h.end());
    int64_t n = 1;
    for (auto d : s) n *= d;
    b.resize(b.size() + 2 * n);
    npy::Array a;
    ASSERT_TRUE(parseImage(b, &a).isOk()) << h;
    EXPECT_EQ(a.shape, s);
  }
}

TEST(Npy, MissingFile) {
  npy::Array a;
  Status s = npy::read("/nonexistent/x.npy", &a);
  EXPECT_EQ(s.code(), StatusCode::kIo);
  EXPECT_NE(s.message().find("/nonexistent/x.npy"), std::string::npos);
}

TEST(Npy, Int4PackUnpack) {
  std::vector<uint8_t> vals = {uint8_t(-8), uint8_t(-1), 0, 7, 3};
  std::vector<uint8_t> packed(3);
  ASSERT_TRUE(npy::packInt4(DataType::kInt4, vals.data(), 5, packed.data()).isOk());
  EXPECT_EQ(packed[0], 0xF8);  // low nibble first
  EXPECT_EQ(packed[1], 0x70);
  EXPECT_EQ(packed[2], 0x03);
  std::vector<uint8_t> back(5);
  npy::unpackInt4(DataType::kInt4, packed.data(), 5, back.data());
  EXPECT_EQ(back, vals);
  uint8_t bad = 8;
  EXPECT_FALSE(npy::packInt4(DataType::kInt4, &bad, 1, packed.data()).isOk());
  uint8_t u = 15;
  EXPECT_TRUE(npy::packInt4(DataType::kUint4, &u, 1, packed.data()).isOk());
  u = 16;
  EXPECT_FALSE(npy::packInt4(DataType::kUint4, &u, 1, packed.data()).isOk());
}

}  // namespace
}  // namespace webnn::test
