#include "webnn/npy.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

namespace webnn::npy {
namespace {

constexpr char kMagic[6] = {'\x93', 'N', 'U', 'M', 'P', 'Y'};
// numpy itself refuses headers beyond this (np.lib.format._MAX_HEADER_SIZE).
constexpr uint64_t kMaxHeaderLen = 10000;

struct Descr {
  const char *text;  // without the byte-order character
  DataType dtype;
};
constexpr Descr kDescrs[] = {{"f4", DataType::kFloat32}, {"f2", DataType::kFloat16}, {"i4", DataType::kInt32},
                             {"u4", DataType::kUint32},  {"i8", DataType::kInt64},   {"u8", DataType::kUint64},
                             {"i1", DataType::kInt8},    {"u1", DataType::kUint8},
                             // Interface-only types (webnn/types.h): models that declare them.
                             {"f8", DataType::kFloat64}, {"i2", DataType::kInt16},   {"u2", DataType::kUint16},
                             {"b1", DataType::kBool}};

// A tiny reader for the header's Python dict literal:
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
class DictParser {
 public:
  explicit DictParser(std::string_view s) : s_(s) {}

  Status parse(std::string *descr, bool *fortran, Shape *shape, bool *haveShape) {
    skip();
    if (!eat('{')) return err("expected '{'");
    bool haveDescr = false, haveFortran = false;
    for (;;) {
      skip();
      if (eat('}')) break;
      std::string key;
      WEBNN_RETURN_IF_ERROR(quoted(&key));
      skip();
      if (!eat(':')) return err("expected ':' after '" + key + "'");
      skip();
      if (key == "descr") {
        if (peek() != '\'' && peek() != '"') return err("structured dtypes are not supported");
        WEBNN_RETURN_IF_ERROR(quoted(descr));
        haveDescr = true;
      } else if (key == "fortran_order") {
        if (s_.substr(pos_, 4) == "True") *fortran = true, pos_ += 4;
        else if (s_.substr(pos_, 5) == "False") *fortran = false, pos_ += 5;
        else return err("fortran_order is not True or False");
        haveFortran = true;
      } else if (key == "shape") {
        WEBNN_RETURN_IF_ERROR(tuple(shape));
        *haveShape = true;
      } else {
        return err("unexpected key '" + key + "'");
      }
      skip();
      if (eat(',')) continue;
      skip();
      if (eat('}')) break;
      return err("expected ',' or '}'");
    }
    if (!haveDescr || !haveFortran || !*haveShape) return err("missing descr, fortran_order or shape");
    return Status::ok();
  }

 private:
  char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  bool eat(char c) {
    if (peek() != c) return false;
    ++pos_;
    return true;
  }
  void skip() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t')) ++pos_;
  }
  Status err(const std::string &m) const { return invalidArgument("bad header: " + m); }
  Status quoted(std::string *out) {
    char q = peek();
    if (q != '\'' && q != '"') return err("expected a quoted string");
    ++pos_;
    size_t end = s_.find(q, pos_);
    if (end == std::string_view::npos) return err("unterminated string");
    *out = std::string(s_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return Status::ok();
  }
  Status tuple(Shape *shape) {
    if (!eat('(')) return err("shape is not a tuple");
    for (;;) {
      skip();
      if (eat(')')) return Status::ok();
      if (peek() < '0' || peek() > '9') return err("shape holds a non-integer");
      int64_t v = 0;
      while (peek() >= '0' && peek() <= '9') {
        int digit = s_[pos_++] - '0';
        if (v > (INT64_MAX - digit) / 10) return err("shape dimension overflows int64");
        v = v * 10 + digit;
      }
      if (peek() == 'L') ++pos_;  // Python 2 longs
      shape->push_back(v);
      skip();
      if (eat(',')) continue;
      skip();
      if (eat(')')) return Status::ok();
      return err("expected ',' or ')' in shape");
    }
  }

  std::string_view s_;
  size_t pos_ = 0;
};

Status parseDescr(const std::string &descr, DataType *dtype) {
  if (descr.size() == 3) {
    char order = descr[0];
    std::string_view code(descr.data() + 1, 2);
    for (const Descr &d : kDescrs) {
      if (code != d.text) continue;
      bool oneByte = dataTypeBits(d.dtype) == 8;
      if (order == '<' || order == '=' || (oneByte && order == '|') || (oneByte && order == '>')) {
        *dtype = d.dtype;
        return Status::ok();
      }
      if (order == '>') return invalidArgument("big-endian data ('" + descr + "') is not supported; use '<" +
                                               std::string(code) + "'");
    }
  }
  std::string hint;
  if (descr.size() >= 2 && descr[1] == 'O') hint = " (object arrays cannot be read)";
  return invalidArgument("unsupported dtype '" + descr + "'" + hint);
}

}  // namespace

Status parse(const uint8_t *bytes, size_t size, const std::string &label, Array *out) {
  auto fail = [&](const std::string &m) { return invalidArgument(label + ": " + m); };
  if (size < 10 || std::memcmp(bytes, kMagic, sizeof(kMagic)) != 0) return fail("not a .npy file (bad magic)");
  int major = bytes[6];
  uint64_t headerLen = 0, headerStart = 0;
  if (major == 1) {
    headerLen = bytes[8] | (uint64_t(bytes[9]) << 8);
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (size < 12) return fail("truncated header");
    headerLen = bytes[8] | (uint64_t(bytes[9]) << 8) | (uint64_t(bytes[10]) << 16) | (uint64_t(bytes[11]) << 24);
    headerStart = 12;
  } else {
    return fail(".npy format version " + std::to_string(major) + "." + std::to_string(bytes[7]) +
                " is not supported (1.0, 2.0 and 3.0 are)");
  }
  if (headerLen > kMaxHeaderLen) return fail("header of " + std::to_string(headerLen) + " bytes is too long");
  if (headerStart + headerLen > size) return fail("truncated header");
  std::string_view text(reinterpret_cast<const char *>(bytes + headerStart), headerLen);

  std::string descr;
  bool fortran = false, haveShape = false;
  Shape shape;
  DictParser parser(text);
  Status s = parser.parse(&descr, &fortran, &shape, &haveShape);
  if (!s.isOk()) return fail(s.message());
  DataType dtype;
  s = parseDescr(descr, &dtype);
  if (!s.isOk()) return fail(s.message());
  if (fortran) {
    // Fortran and C order coincide when at most one dimension exceeds 1.
    int nonTrivialDims = 0;
    for (int64_t d : shape) nonTrivialDims += d > 1;
    if (nonTrivialDims > 1) return fail("Fortran-order arrays are not supported; save np.ascontiguousarray(a)");
  }
  uint64_t dataBytes = 0;
  if (!tensorByteSize(dtype, shape, &dataBytes)) return fail("shape " + shapeToString(shape) + " is too large");
  uint64_t available = size - headerStart - headerLen;
  if (available != dataBytes)
    return fail((available < dataBytes ? "truncated: header says " : "size mismatch: header says ") +
                std::string(dataTypeName(dtype)) + " " + shapeToString(shape) + " (" + std::to_string(dataBytes) +
                " bytes) but the file has " + std::to_string(available) + " bytes of data");
  out->dtype = dtype;
  out->shape = std::move(shape);
  const uint8_t *data = bytes + headerStart + headerLen;
  out->data.assign(data, data + dataBytes);
  return Status::ok();
}

Status read(const std::string &path, Array *out) {
  std::unique_ptr<FILE, int (*)(FILE *)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) return Status(StatusCode::kIo, "cannot open '" + path + "': " + std::strerror(errno));
  struct stat st;
  if (fstat(fileno(f.get()), &st) != 0 || !S_ISREG(st.st_mode))
    return Status(StatusCode::kIo, "'" + path + "' is not a regular file");
  // The file's real size bounds the allocation; the header's numbers are only
  // trusted after parse() checks them against it.
  std::vector<uint8_t> bytes(static_cast<size_t>(st.st_size));
  if (!bytes.empty() && std::fread(bytes.data(), 1, bytes.size(), f.get()) != bytes.size())
    return Status(StatusCode::kIo, "cannot read '" + path + "'");
  return parse(bytes.data(), bytes.size(), path, out);
}

std::string header(DataType dtype, const Shape &shape) {
  const char *descr = "<f4";
  switch (dtype) {
    case DataType::kFloat32: descr = "<f4"; break;
    case DataType::kFloat16: descr = "<f2"; break;
    case DataType::kInt32: descr = "<i4"; break;
    case DataType::kUint32: descr = "<u4"; break;
    case DataType::kInt64: descr = "<i8"; break;
    case DataType::kUint64: descr = "<u8"; break;
    case DataType::kInt8: case DataType::kInt4: descr = "|i1"; break;
    case DataType::kUint8: case DataType::kUint4: descr = "|u1"; break;
    case DataType::kFloat64: descr = "<f8"; break;
    case DataType::kInt16: descr = "<i2"; break;
    // numpy has no bfloat16: its raw bits (webnn-run widens to float32 instead).
    case DataType::kUint16: case DataType::kBfloat16: descr = "<u2"; break;
    case DataType::kBool: descr = "|b1"; break;
  }
  std::string dict = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < shape.size(); ++i) dict += std::to_string(shape[i]) + (shape.size() == 1 ? "," : i + 1 < shape.size() ? ", " : "");
  dict += "), }";
  // Version 1.0 when the header fits in 64 KiB, as numpy does.
  bool v1 = dict.size() + 1 + 10 <= 65535;
  size_t prefix = v1 ? 10 : 12;
  size_t total = (prefix + dict.size() + 1 + 63) / 64 * 64;
  dict.append(total - prefix - dict.size() - 1, ' ');
  dict += '\n';
  std::string h(kMagic, sizeof(kMagic));
  h += char(v1 ? 1 : 2);
  h += char(0);
  size_t len = dict.size();
  h += char(len & 0xff);
  h += char((len >> 8) & 0xff);
  if (!v1) {
    h += char((len >> 16) & 0xff);
    h += char((len >> 24) & 0xff);
  }
  return h + dict;
}

Status write(const std::string &path, DataType dtype, const Shape &shape, const void *data, size_t bytes) {
  std::string tmp = path + ".tmp-XXXXXX";
  int fd = mkstemp(tmp.data());
  if (fd < 0) return Status(StatusCode::kIo, "cannot create '" + path + "': " + std::strerror(errno));
  std::string h = header(dtype, shape);
  auto writeAll = [&](const void *p, size_t n) {
    const char *c = static_cast<const char *>(p);
    while (n > 0) {
      ssize_t w = ::write(fd, c, n);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) return false;
      c += w;
      n -= static_cast<size_t>(w);
    }
    return true;
  };
  bool ok = writeAll(h.data(), h.size()) && writeAll(data, bytes);
  int e = errno;
  ok = (::close(fd) == 0) && ok;
  // mkstemp creates 0600; give the file the permissions a plain create would.
  mode_t mask = umask(0);
  umask(mask);
  if (ok) chmod(tmp.c_str(), 0666 & ~mask);
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    if (ok) e = errno;
    std::remove(tmp.c_str());
    return Status(StatusCode::kIo, "cannot write '" + path + "': " + std::strerror(e));
  }
  return Status::ok();
}

Status packInt4(DataType dtype, const uint8_t *unpacked, int64_t count, uint8_t *packed) {
  const bool isSigned = dtype == DataType::kInt4;
  for (int64_t i = 0; i < count; ++i) {
    int v = isSigned ? int(int8_t(unpacked[i])) : int(unpacked[i]);
    if (isSigned ? (v < -8 || v > 7) : (v > 15))
      return invalidArgument("element " + std::to_string(i) + " = " + std::to_string(v) + " does not fit in " +
                             std::string(dataTypeName(dtype)));
    uint8_t nib = uint8_t(v) & 0xF;
    if (i % 2 == 0) packed[i / 2] = nib;
    else packed[i / 2] |= uint8_t(nib << 4);
  }
  return Status::ok();
}

void unpackInt4(DataType dtype, const uint8_t *packed, int64_t count, uint8_t *unpacked) {
  const bool isSigned = dtype == DataType::kInt4;
  for (int64_t i = 0; i < count; ++i) {
    uint8_t nib = (packed[i / 2] >> ((i % 2) * 4)) & 0xF;
    unpacked[i] = isSigned && (nib & 0x8) ? uint8_t(nib | 0xF0) : nib;
  }
}

}  // namespace webnn::npy
