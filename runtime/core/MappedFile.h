// The bytes of an artifact or weights file, read-only: a private memory
// mapping of a file, caller memory used in place until released, or a
// 64-byte aligned copy. The loader and executor see only data()/size().
#ifndef WEBNN_RUNTIME_CORE_MAPPEDFILE_H
#define WEBNN_RUNTIME_CORE_MAPPEDFILE_H

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "webnn/status.h"

namespace webnn::rt {

class MappedFile {
 public:
  MappedFile() = default;
  ~MappedFile();
  MappedFile(MappedFile &&other) noexcept;
  MappedFile &operator=(MappedFile &&other) noexcept;
  MappedFile(const MappedFile &) = delete;
  MappedFile &operator=(const MappedFile &) = delete;

  // Maps `path` read-only with MAP_PRIVATE. Pages are only touched when read,
  // so mapping a multi-GB weight file costs a few system calls.
  static Status open(const std::string &path, MappedFile *out);
  // Caller memory used in place; `release` (may be empty) runs exactly once,
  // when this object (or the one it was moved into) is destroyed.
  static MappedFile borrow(const void *data, uint64_t size, std::function<void()> release);
  // A 64-byte aligned copy of `size` bytes at `data`.
  static Status copy(const void *data, uint64_t size, MappedFile *out);

  const uint8_t *data() const { return data_; }
  uint64_t size() const { return size_; }

 private:
  enum class Kind : uint8_t { kNone, kMapped, kBorrowed, kCopied };
  void reset();
  const uint8_t *data_ = nullptr;
  uint64_t size_ = 0;
  Kind kind_ = Kind::kNone;
  std::function<void()> release_;
};

}  // namespace webnn::rt

#endif
