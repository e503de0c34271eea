// A read-only, private memory mapping of a whole file.
#ifndef WEBNN_RUNTIME_CORE_MAPPEDFILE_H
#define WEBNN_RUNTIME_CORE_MAPPEDFILE_H

#include <cstddef>
#include <cstdint>
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

  const uint8_t *data() const { return data_; }
  uint64_t size() const { return size_; }

 private:
  void reset();
  const uint8_t *data_ = nullptr;
  uint64_t size_ = 0;
};

}  // namespace webnn::rt

#endif
