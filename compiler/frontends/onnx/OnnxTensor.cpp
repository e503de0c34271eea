// ONNX tensors (initializers, Constant nodes) -> ElementsAttr, and reading
// constant operands back. Every size read from the file is checked before
// anything is allocated or copied from it.
#include <cstring>
#include <limits>

#include "compiler/frontends/onnx/OnnxConverter.h"
#include "dialects/webnn/WebNNOps.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SwapByteOrder.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"

namespace mlir::webnn::onnx_import {

using onnx::TensorProto;

// TensorProto data types newer than this libonnx's enum.
constexpr int32_t kOnnxUint4 = 21;
constexpr int32_t kOnnxInt4 = 22;

Type convertElementType(MLIRContext *ctx, int32_t onnxType, bool keepFloat64) {
  auto sInt = [&](unsigned w) { return IntegerType::get(ctx, w); };
  auto uInt = [&](unsigned w) { return IntegerType::get(ctx, w, IntegerType::Unsigned); };
  switch (onnxType) {
    case TensorProto::FLOAT: return Float32Type::get(ctx);
    case TensorProto::FLOAT16: return Float16Type::get(ctx);
    case TensorProto::INT32: return sInt(32);
    case TensorProto::INT64: return sInt(64);
    case TensorProto::INT8: return sInt(8);
    case TensorProto::UINT8: return uInt(8);
    case TensorProto::UINT32: return uInt(32);
    case TensorProto::UINT64: return uInt(64);
    // WebNN has no boolean type: its logical ops use uint8 holding 0 or 1,
    // which is also how ONNX stores bool bytes.
    case TensorProto::BOOL: return uInt(8);
    // Not WebNN types: computed in a wider one (docs/ONNX.md, "Types WebNN
    // lacks"), or float64 in the dialect's float64 extension when the import
    // keeps it ("float64"). float64 loses precision in float32; the others
    // are exact.
    case TensorProto::DOUBLE: return keepFloat64 ? Type(Float64Type::get(ctx)) : Float32Type::get(ctx);
    case TensorProto::BFLOAT16: return Float32Type::get(ctx);
    case TensorProto::INT16:
    case TensorProto::UINT16: return sInt(32);
    // INT4 / UINT4 (ONNX 1.16; this libonnx's enum predates them): packed two
    // per byte, low nibble first, as WebNN's int4/uint4.
    case kOnnxUint4: return uInt(4);
    case kOnnxInt4: return sInt(4);
    default: return Type();
  }
}

Type interfaceElementType(MLIRContext *ctx, int32_t onnxType) {
  switch (onnxType) {
    case TensorProto::DOUBLE: return Float64Type::get(ctx);
    case TensorProto::BFLOAT16: return BFloat16Type::get(ctx);
    case TensorProto::INT16: return IntegerType::get(ctx, 16);
    case TensorProto::UINT16: return IntegerType::get(ctx, 16, IntegerType::Unsigned);
    case TensorProto::BOOL: return IntegerType::get(ctx, 1);  // exchanged as bool, computed as ui8
    default: return convertElementType(ctx, onnxType, /*keepFloat64=*/false);
  }
}

std::string onnxTypeName(int32_t onnxType) {
  if (TensorProto::DataType_IsValid(onnxType))
    return TensorProto::DataType_Name(static_cast<TensorProto::DataType>(onnxType));
  return "data type " + std::to_string(onnxType);
}

static unsigned byteWidth(Type t) { return (t.getIntOrFloatBitWidth() + 7) / 8; }

namespace {
// Builds the little-endian bytes of a tensor held in a typed repeated field.
class TypedFieldReader {
 public:
  // `w`: bytes per element of the tensor's ONNX type.
  TypedFieldReader(const TensorProto &t, unsigned w, int64_t n) : t_(t), w_(w), n_(n) {}

  // Returns the field's element count for the tensor's type (to check against n).
  int64_t fieldSize() const {
    switch (t_.data_type()) {
      case TensorProto::FLOAT: return t_.float_data_size();
      case TensorProto::DOUBLE: return t_.double_data_size();
      case TensorProto::INT64: return t_.int64_data_size();
      case TensorProto::UINT32:
      case TensorProto::UINT64: return t_.uint64_data_size();
      default: return t_.int32_data_size();  // (u)int8/16, int32, bool, (b)float16 bits
    }
  }

  void write(char *out) const {
    unsigned w = w_;
    for (int64_t i = 0; i < n_; ++i) {
      uint64_t bits = 0;
      switch (t_.data_type()) {
        case TensorProto::FLOAT: {
          float f = t_.float_data(i);
          uint32_t u;
          std::memcpy(&u, &f, 4);
          bits = u;
          break;
        }
        case TensorProto::DOUBLE: {
          double f = t_.double_data(i);
          std::memcpy(&bits, &f, 8);
          break;
        }
        case TensorProto::INT64: bits = static_cast<uint64_t>(t_.int64_data(i)); break;
        case TensorProto::UINT32:
        case TensorProto::UINT64: bits = t_.uint64_data(i); break;
        default: bits = static_cast<uint64_t>(static_cast<int64_t>(t_.int32_data(i))); break;
      }
      // Little-endian host (checked in the importer): low bytes first.
      std::memcpy(out + i * w, &bits, w);
    }
  }

 private:
  const TensorProto &t_;
  unsigned w_;
  int64_t n_;
};

// `n` elements of ONNX type `onnxType` (DOUBLE, BFLOAT16, INT16, UINT16,
// BOOL) -> the f32 / i32 / ui8 convertElementType gives. float64 rounds to nearest; the
// others are exact.
void widenElements(int32_t onnxType, ArrayRef<char> in, int64_t n, char *out) {
  for (int64_t i = 0; i < n; ++i) {
    switch (onnxType) {
      case TensorProto::DOUBLE: {
        double d;
        std::memcpy(&d, in.data() + 8 * i, 8);
        float f = static_cast<float>(d);
        std::memcpy(out + 4 * i, &f, 4);
        break;
      }
      case TensorProto::BFLOAT16: {
        uint16_t b;
        std::memcpy(&b, in.data() + 2 * i, 2);
        uint32_t bits = uint32_t(b) << 16;  // bfloat16 is float32's high half
        std::memcpy(out + 4 * i, &bits, 4);
        break;
      }
      case TensorProto::INT16: {
        int16_t v;
        std::memcpy(&v, in.data() + 2 * i, 2);
        int32_t wide = v;
        std::memcpy(out + 4 * i, &wide, 4);
        break;
      }
      case TensorProto::UINT16: {
        uint16_t v;
        std::memcpy(&v, in.data() + 2 * i, 2);
        int32_t wide = v;
        std::memcpy(out + 4 * i, &wide, 4);
        break;
      }
      // bool -> uint8: any nonzero byte is true, stored as WebNN's 1.
      case TensorProto::BOOL: out[i] = in[size_t(i)] != 0; break;
      default: llvm_unreachable("not a widened ONNX type");
    }
  }
}

bool isSafeRelativePath(StringRef p) {
  if (p.empty() || llvm::sys::path::is_absolute(p)) return false;
  for (auto it = llvm::sys::path::begin(p), e = llvm::sys::path::end(p); it != e; ++it)
    if (*it == "..") return false;
  return true;
}

// True when `path` exists and its real path (symlinks resolved) lies inside
// the real path of `dir`.
bool resolvesInside(StringRef path, StringRef dir) {
  SmallString<256> realFile, realDir;
  if (llvm::sys::fs::real_path(path, realFile) ||
      llvm::sys::fs::real_path(dir.empty() ? "." : dir, realDir))
    return true;  // a missing file is reported by the size check that follows
  StringRef f = realFile, d = realDir;
  if (!f.starts_with(d)) return false;
  StringRef rest = f.drop_front(d.size());
  return d.ends_with("/") || rest.empty() || llvm::sys::path::is_separator(rest.front());
}

std::string sanitizeBlobName(StringRef name) {
  std::string out;
  for (char ch : name) out += (llvm::isAlnum(ch) || ch == '_' || ch == '.') ? ch : '_';
  if (out.empty() || llvm::isDigit(out[0])) out = "w_" + out;
  return out;
}
}  // namespace

FailureOr<ElementsAttr> convertTensor(const TensorProto &t, const TensorSource &src,
                                      MLIRContext *ctx, Location loc) {
  std::string what = t.name().empty() ? std::string("constant tensor")
                                       : "tensor '" + t.name() + "'";
  Type elem = convertElementType(ctx, t.data_type(), src.keepFloat64);
  if (!elem)
    return emitError(loc) << what << " has element type " << onnxTypeName(t.data_type())
                          << ", which WebNN does not support",
           failure();
  if (t.has_segment()) return emitError(loc) << what << " is segmented (unsupported)", failure();

  SmallVector<int64_t> dims;
  int64_t n = 1;
  constexpr int64_t kMaxElements = std::numeric_limits<int64_t>::max() / 8;
  for (int64_t d : t.dims()) {
    if (d < 0) return emitError(loc) << what << " has negative dimension " << d, failure();
    if (d != 0 && n > kMaxElements / d)
      return emitError(loc) << what << " has too many elements", failure();
    n *= d;
    dims.push_back(d);
  }
  auto type = RankedTensorType::get(dims, elem);
  // Sizes read from the file are in the declared type (tensor<...xf64> for a
  // DOUBLE tensor that becomes f32 below).
  auto declared = RankedTensorType::get(dims, interfaceElementType(ctx, t.data_type()));
  unsigned w = byteWidth(declared.getElementType());
  const bool nibbles = declared.getElementType().getIntOrFloatBitWidth() == 4;
  uint64_t expectedBytes = nibbles ? (static_cast<uint64_t>(n) + 1) / 2 : static_cast<uint64_t>(n) * w;

  // The bytes, borrowed from the proto or a side file when possible.
  std::unique_ptr<llvm::MemoryBuffer> external;
  std::vector<char> owned;
  ArrayRef<char> bytes;
  if (t.data_location() == TensorProto::EXTERNAL) {
    std::string location;
    uint64_t offset = 0, length = 0;
    bool hasLength = false;
    for (const auto &kv : t.external_data()) {
      auto parseU64 = [&](uint64_t &out) {
        return !StringRef(kv.value()).getAsInteger(10, out);
      };
      if (kv.key() == "location") {
        location = kv.value();
      } else if (kv.key() == "offset") {
        if (!parseU64(offset))
          return emitError(loc) << what << ": bad external_data offset '" << kv.value() << "'",
                 failure();
      } else if (kv.key() == "length") {
        if (!parseU64(length))
          return emitError(loc) << what << ": bad external_data length '" << kv.value() << "'",
                 failure();
        hasLength = true;
      }
    }
    if (!isSafeRelativePath(location))
      return emitError(loc) << what << ": external_data location '" << location
                            << "' must be a relative path inside the model's directory",
             failure();
    SmallString<256> full(src.modelDir);
    llvm::sys::path::append(full, location);
    // The text check above cannot see symlinks: a link inside the folder may
    // point anywhere, so compare the resolved paths as well.
    bool inside = resolvesInside(full, src.modelDir);
    for (const std::string &dir : src.extraDataDirs) inside = inside || resolvesInside(full, dir);
    if (!inside)
      return emitError(loc) << what << ": external_data location '" << location
                            << "' resolves outside the model's directory (through a symlink; "
                            << "webnnc compile --external-data-dir DIR allows a folder it may lead to)",
             failure();
    uint64_t fileSize = 0;
    if (std::error_code ec = llvm::sys::fs::file_size(full, fileSize))
      return emitError(loc) << what << ": cannot read external data file '" << full
                            << "': " << ec.message(),
             failure();
    if (!hasLength) length = offset <= fileSize ? fileSize - offset : 0;
    if (offset > fileSize || length > fileSize - offset)
      return emitError(loc) << what << ": external data at offset " << offset << " with length "
                            << length << " is outside '" << full << "' (" << fileSize
                            << " bytes)",
             failure();
    if (length != expectedBytes)
      return emitError(loc) << what << ": external data holds " << length << " bytes, "
                            << declared << " needs " << expectedBytes,
             failure();
    if (length > 0) {
      auto buf = llvm::MemoryBuffer::getFileSlice(full, length, offset, /*IsVolatile=*/false);
      if (!buf)
        return emitError(loc) << what << ": cannot read '" << full
                              << "': " << buf.getError().message(),
               failure();
      external = std::move(*buf);
      bytes = ArrayRef<char>(external->getBufferStart(), external->getBufferSize());
    }
  } else if (t.has_raw_data()) {
    if (t.raw_data().size() != expectedBytes)
      return emitError(loc) << what << " has " << t.raw_data().size() << " bytes of raw_data, "
                            << declared << " needs " << expectedBytes,
             failure();
    bytes = ArrayRef<char>(t.raw_data().data(), t.raw_data().size());
  } else if (nibbles) {
    return emitError(loc) << what << ": 4-bit tensors must use raw_data or external data", failure();
  } else {
    TypedFieldReader reader(t, w, n);
    if (reader.fieldSize() != n)
      return emitError(loc) << what << " holds " << reader.fieldSize() << " values, " << declared
                            << " needs " << n,
             failure();
    owned.resize(expectedBytes);
    reader.write(owned.data());
    bytes = owned;
  }

  // A type WebNN lacks: widen to the type the graph computes in.
  std::vector<char> widened;
  if (declared.getElementType() != elem && n > 0) {
    widened.resize(static_cast<size_t>(n) * byteWidth(elem));
    widenElements(t.data_type(), bytes, n, widened.data());
    bytes = widened;
    expectedBytes = widened.size();
  }

  // 4-bit values: resources keep ONNX's packing (two per byte, low nibble
  // first, as the artifact does); a DenseElementsAttr holds one per byte.
  if (nibbles && n > 0 && expectedBytes < src.resourceThresholdBytes) {
    std::vector<char> unpacked(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) unpacked[size_t(i)] = char((uint8_t(bytes[size_t(i / 2)]) >> (4 * (i % 2))) & 0xF);
    return ElementsAttr(DenseElementsAttr::getFromRawBuffer(type, unpacked));
  }
  if (expectedBytes >= src.resourceThresholdBytes && expectedBytes > 0) {
    auto blob = HeapAsmResourceBlob::allocateAndCopyWithAlign(bytes, alignof(uint64_t));
    return ElementsAttr(DenseResourceElementsAttr::get(
        type, sanitizeBlobName(t.name().empty() ? "onnx_constant" : t.name()), std::move(blob)));
  }
  if (n == 0) return ElementsAttr(DenseElementsAttr::get(type, ArrayRef<Attribute>{}));
  return ElementsAttr(DenseElementsAttr::getFromRawBuffer(type, bytes));
}

// ------------------------------------------------------------ ConstantData
int64_t ConstantData::intAt(int64_t i) const {
  Type e = type.getElementType();
  if (mlir::isa<FloatType>(e)) return static_cast<int64_t>(floatAt(i));
  unsigned w = byteWidth(e);
  const char *p = raw.data() + (splat ? 0 : i * w);
  uint64_t bits = 0;
  std::memcpy(&bits, p, w);
  if (e.isUnsignedInteger() || w == 8) return static_cast<int64_t>(bits);
  unsigned shift = 64 - 8 * w;  // sign-extend
  return static_cast<int64_t>(bits << shift) >> shift;
}

double ConstantData::floatAt(int64_t i) const {
  Type e = type.getElementType();
  unsigned w = byteWidth(e);
  const char *p = raw.data() + (splat ? 0 : i * w);
  if (e.isF32()) {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  if (e.isF16()) {
    uint16_t h;
    std::memcpy(&h, p, 2);
    llvm::APFloat f(llvm::APFloat::IEEEhalf(), llvm::APInt(16, h));
    return f.convertToFloat();
  }
  if (e.isF64()) {  // an import that keeps float64
    double d;
    std::memcpy(&d, p, 8);
    return d;
  }
  if (e.isUnsignedInteger()) return static_cast<double>(static_cast<uint64_t>(intAt(i)));
  return static_cast<double>(intAt(i));
}

SmallVector<int64_t> ConstantData::ints() const {
  SmallVector<int64_t> out;
  for (int64_t i = 0, n = numElements(); i < n; ++i) out.push_back(intAt(i));
  return out;
}

std::vector<char> ConstantData::expandedBytes() const {
  if (!splat) return std::vector<char>(raw.begin(), raw.end());
  std::vector<char> out;
  int64_t n = numElements();
  out.reserve(n * raw.size());
  for (int64_t i = 0; i < n; ++i) out.insert(out.end(), raw.begin(), raw.end());
  return out;
}

std::optional<ConstantData> getConstantData(Value v) {
  if (!v) return std::nullopt;
  auto cst = v.getDefiningOp<ConstantOp>();
  if (!cst) return std::nullopt;
  ElementsAttr value = cst.getValue();
  ConstantData d;
  d.type = mlir::cast<RankedTensorType>(value.getType());
  if (auto dense = mlir::dyn_cast<DenseElementsAttr>(value)) {
    // Only int/float element types reach here, whose raw data is packed.
    d.raw = dense.getRawData();
    d.splat = dense.isSplat();
    return d;
  }
  if (auto res = mlir::dyn_cast<DenseResourceElementsAttr>(value)) {
    AsmResourceBlob *blob = res.getRawHandle().getBlob();
    if (!blob) return std::nullopt;
    d.raw = blob->getData();
    d.splat = false;
    return d;
  }
  return std::nullopt;
}

}  // namespace mlir::webnn::onnx_import
