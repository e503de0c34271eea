#include "compiler/frontends/dsl/Weights.h"

#include <cstring>

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

namespace mlir::webnn::dsl {

namespace {

// The optional header of a .weights file: "WGWT" then a u32 LE version.
constexpr char kWeightsMagic[4] = {'W', 'G', 'W', 'T'};
constexpr uint64_t kWeightsHeaderSize = 8;

bool fail(SidecarError &error, const std::string &file, SourcePos pos, std::string message) {
  error.file = file;
  error.pos = pos;
  error.message = std::move(message);
  return false;
}

std::shared_ptr<llvm::MemoryBuffer> mapFile(const std::string &path, SidecarError &error) {
  // 16-byte alignment for files small enough to be read rather than mapped;
  // mapped files are page-aligned.
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false,
                                         /*IsVolatile=*/false, llvm::Align(16));
  if (!buf) {
    fail(error, path, {}, "cannot open '" + path + "': " + buf.getError().message());
    return nullptr;
  }
  return std::shared_ptr<llvm::MemoryBuffer>(std::move(*buf));
}

const Value *field(const Value &obj, const char *key) {
  for (const auto &f : obj.fields)
    if (f.first == key) return &f.second;
  return nullptr;
}

bool readShape(const Value &v, std::vector<int64_t> &shape, const std::string &file,
               SidecarError &error) {
  if (v.kind != Value::Kind::Array)
    return fail(error, file, v.pos, "\"shape\" must be an array of integers");
  for (const Value &d : v.items) {
    if (d.kind != Value::Kind::Int || d.intValue < 0)
      return fail(error, file, d.pos, "dimensions must be non-negative integers");
    shape.push_back(d.intValue);
  }
  return true;
}

std::optional<uint64_t> numElements(const std::vector<int64_t> &shape) {
  TensorDecl t;
  for (int64_t d : shape) t.dims.push_back(Dim{d, false, {}});
  return t.staticNumElements();
}

bool parseJsonFile(const llvm::MemoryBuffer &buf, const std::string &file, Value &root,
                   SidecarError &error) {
  SyntaxError syntax;
  std::optional<Value> parsed = parseJsonValue(buf.getBuffer().str(), syntax);
  if (!parsed) return fail(error, file, syntax.pos, syntax.message);
  root = std::move(*parsed);
  if (root.kind != Value::Kind::Object)
    return fail(error, file, root.pos, "expected a JSON object");
  return true;
}

}  // namespace

bool WeightsSidecar::openFor(const std::string &graphPath, std::unique_ptr<WeightsSidecar> &out,
                             SidecarError &error) {
  out.reset();
  llvm::SmallString<256> stem(graphPath);
  llvm::sys::path::replace_extension(stem, "");
  std::string manifest = (stem + ".manifest.json").str();
  std::string weights = (stem + ".weights").str();
  std::string safetensors = (stem + ".safetensors").str();
  if (llvm::sys::fs::exists(manifest)) return openManifest(manifest, weights, out, error);
  if (llvm::sys::fs::exists(safetensors)) return openSafetensors(safetensors, out, error);
  return true;
}

bool WeightsSidecar::openManifest(const std::string &manifestPath, const std::string &weightsPath,
                                  std::unique_ptr<WeightsSidecar> &out, SidecarError &error) {
  std::shared_ptr<llvm::MemoryBuffer> manifestBuf = mapFile(manifestPath, error);
  if (!manifestBuf) return false;
  Value root;
  if (!parseJsonFile(*manifestBuf, manifestPath, root, error)) return false;
  const std::string &mf = manifestPath;

  const Value *format = field(root, "format");
  if (!format || format->kind != Value::Kind::String ||
      (format->text != "wg-weights-manifest" && format->text != "webnn-weights-manifest"))
    return fail(error, mf, format ? format->pos : root.pos,
                "expected \"format\": \"wg-weights-manifest\" or \"webnn-weights-manifest\"");
  const Value *version = field(root, "version");
  if (!version || version->kind != Value::Kind::Int || version->intValue != 1)
    return fail(error, mf, version ? version->pos : root.pos,
                "expected \"version\": 1 in the weights manifest");
  if (const Value *endian = field(root, "endianness")) {
    if (endian->kind != Value::Kind::String || endian->text != "little")
      return fail(error, mf, endian->pos, "only \"endianness\": \"little\" is supported");
  }
  const Value *tensors = field(root, "tensors");
  if (!tensors || tensors->kind != Value::Kind::Object)
    return fail(error, mf, tensors ? tensors->pos : root.pos,
                "the manifest needs a \"tensors\" object");

  if (!llvm::sys::fs::exists(weightsPath))
    return fail(error, mf, root.pos,
                "weights manifest found but its data file '" + weightsPath + "' does not exist");
  std::shared_ptr<llvm::MemoryBuffer> data = mapFile(weightsPath, error);
  if (!data) return false;
  uint64_t fileSize = data->getBufferSize();
  bool hasHeader = fileSize >= 4 && std::memcmp(data->getBufferStart(), kWeightsMagic, 4) == 0;
  if (hasHeader) {
    if (fileSize < kWeightsHeaderSize)
      return fail(error, weightsPath, {}, "truncated weights file header");
    const auto *p = reinterpret_cast<const unsigned char *>(data->getBufferStart()) + 4;
    uint32_t fileVersion = p[0] | (p[1] << 8) | (p[2] << 16) | (uint32_t(p[3]) << 24);
    if (fileVersion != 1)
      return fail(error, weightsPath, {},
                  "unsupported weights file version " + std::to_string(fileVersion));
  }

  auto sidecar = std::make_unique<WeightsSidecar>();
  for (const auto &[key, entry] : tensors->fields) {
    std::string what = "tensor '" + key + "'";
    if (entry.kind != Value::Kind::Object)
      return fail(error, mf, entry.pos, what + " must be an object");
    WeightsTensor t;
    t.file = data;
    const Value *dt = field(entry, "dataType");
    if (!dt || dt->kind != Value::Kind::String)
      return fail(error, mf, entry.pos, what + " needs a \"dataType\" string");
    std::optional<DType> parsed = parseDType(dt->text);
    if (!parsed) return fail(error, mf, dt->pos, "unknown data type '" + dt->text + "'");
    t.dtype = *parsed;
    const Value *shape = field(entry, "shape");
    if (!shape) return fail(error, mf, entry.pos, what + " needs a \"shape\"");
    if (!readShape(*shape, t.shape, mf, error)) return false;
    const Value *offset = field(entry, "byteOffset");
    const Value *length = field(entry, "byteLength");
    if (!offset || offset->kind != Value::Kind::Int || offset->intValue < 0)
      return fail(error, mf, offset ? offset->pos : entry.pos,
                  what + " needs a non-negative integer \"byteOffset\"");
    if (!length || length->kind != Value::Kind::Int || length->intValue < 0)
      return fail(error, mf, length ? length->pos : entry.pos,
                  what + " needs a non-negative integer \"byteLength\"");
    std::optional<uint64_t> n = numElements(t.shape);
    if (!n) return fail(error, mf, shape->pos, what + " is too large");
    uint64_t expected = dtypeByteSize(t.dtype, *n);
    uint64_t off = static_cast<uint64_t>(offset->intValue);
    uint64_t len = static_cast<uint64_t>(length->intValue);
    if (len != expected)
      return fail(error, mf, length->pos,
                  what + " has byteLength " + std::to_string(len) + " but its " + dt->text +
                      " shape needs " + std::to_string(expected) + " bytes");
    if (hasHeader && off < kWeightsHeaderSize && len > 0)
      return fail(error, mf, offset->pos, what + " overlaps the weights file header");
    if (off > fileSize || len > fileSize - off)
      return fail(error, mf, offset->pos,
                  what + " (bytes " + std::to_string(off) + ".." + std::to_string(off + len) +
                      ") lies beyond the end of '" + weightsPath + "' (" +
                      std::to_string(fileSize) + " bytes): truncated weights file?");
    t.data = llvm::ArrayRef<char>(data->getBufferStart() + off, len);
    sidecar->tensors_.emplace(key, std::move(t));
  }
  sidecar->description_ = weightsPath + " (manifest " + manifestPath + ")";
  out = std::move(sidecar);
  return true;
}

// safetensors: u64 LE header length N, N bytes of JSON header, then data;
// `data_offsets` are relative to the end of the header.
bool WeightsSidecar::openSafetensors(const std::string &path, std::unique_ptr<WeightsSidecar> &out,
                                     SidecarError &error) {
  std::shared_ptr<llvm::MemoryBuffer> data = mapFile(path, error);
  if (!data) return false;
  uint64_t fileSize = data->getBufferSize();
  if (fileSize < 8) return fail(error, path, {}, "truncated safetensors file (no header length)");
  const auto *p = reinterpret_cast<const unsigned char *>(data->getBufferStart());
  uint64_t headerLen = 0;
  for (int i = 7; i >= 0; --i) headerLen = (headerLen << 8) | p[i];
  if (headerLen > fileSize - 8)
    return fail(error, path, {},
                "safetensors header length " + std::to_string(headerLen) +
                    " exceeds the file size " + std::to_string(fileSize));
  auto header = llvm::MemoryBuffer::getMemBuffer(
      llvm::StringRef(data->getBufferStart() + 8, headerLen), path, false);
  Value root;
  if (!parseJsonFile(*header, path, root, error)) return false;
  uint64_t dataStart = 8 + headerLen;
  uint64_t dataSize = fileSize - dataStart;

  static const std::map<std::string, DType> kSafetensorsDTypes = {
      {"F32", DType::F32}, {"F16", DType::F16}, {"I32", DType::I32}, {"U32", DType::U32},
      {"I64", DType::I64}, {"U64", DType::U64}, {"I8", DType::I8},   {"U8", DType::U8},
      {"I4", DType::I4},   {"U4", DType::U4},
  };
  auto sidecar = std::make_unique<WeightsSidecar>();
  for (const auto &[key, entry] : root.fields) {
    if (key == "__metadata__") continue;
    std::string what = "tensor '" + key + "'";
    if (entry.kind != Value::Kind::Object)
      return fail(error, path, entry.pos, what + " must be an object");
    const Value *dt = field(entry, "dtype");
    const Value *shape = field(entry, "shape");
    const Value *offsets = field(entry, "data_offsets");
    if (!dt || dt->kind != Value::Kind::String)
      return fail(error, path, entry.pos, what + " needs a \"dtype\" string");
    if (!shape) return fail(error, path, entry.pos, what + " needs a \"shape\"");
    if (!offsets || offsets->kind != Value::Kind::Array || offsets->items.size() != 2 ||
        offsets->items[0].kind != Value::Kind::Int || offsets->items[1].kind != Value::Kind::Int)
      return fail(error, path, offsets ? offsets->pos : entry.pos,
                  what + " needs \"data_offsets\": [begin, end]");
    WeightsTensor t;
    t.file = data;
    if (!readShape(*shape, t.shape, path, error)) return false;
    auto dtIt = kSafetensorsDTypes.find(dt->text);
    if (dtIt == kSafetensorsDTypes.end()) {
      // Unusable, but only an error if the graph refers to it.
      sidecar->unsupported_[key] = "safetensors dtype " + dt->text + " has no WebNN equivalent";
      continue;
    }
    t.dtype = dtIt->second;
    int64_t begin = offsets->items[0].intValue, end = offsets->items[1].intValue;
    if (begin < 0 || end < begin)
      return fail(error, path, offsets->pos, what + " has invalid data_offsets");
    if (static_cast<uint64_t>(end) > dataSize)
      return fail(error, path, offsets->pos,
                  what + " ends at byte " + std::to_string(end) + " of a " +
                      std::to_string(dataSize) + "-byte data section: truncated file?");
    std::optional<uint64_t> n = numElements(t.shape);
    if (!n) return fail(error, path, shape->pos, what + " is too large");
    uint64_t expected = dtypeByteSize(t.dtype, *n);
    if (static_cast<uint64_t>(end - begin) != expected)
      return fail(error, path, offsets->pos,
                  what + " holds " + std::to_string(end - begin) + " bytes but its " +
                      dt->text + " shape needs " + std::to_string(expected));
    t.data = llvm::ArrayRef<char>(data->getBufferStart() + dataStart + begin, end - begin);
    sidecar->tensors_.emplace(key, std::move(t));
  }
  sidecar->description_ = path;
  out = std::move(sidecar);
  return true;
}

const WeightsTensor *WeightsSidecar::find(const std::string &key, std::string &whyMissing) const {
  auto it = tensors_.find(key);
  if (it != tensors_.end()) return &it->second;
  auto un = unsupported_.find(key);
  whyMissing = un != unsupported_.end() ? un->second : "no tensor named '" + key + "' in " + description_;
  return nullptr;
}

}  // namespace mlir::webnn::dsl
