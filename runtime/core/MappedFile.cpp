#include "core/MappedFile.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <utility>

namespace webnn::rt {

MappedFile::~MappedFile() { reset(); }

MappedFile::MappedFile(MappedFile &&other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      kind_(std::exchange(other.kind_, Kind::kNone)),
      release_(std::exchange(other.release_, nullptr)) {}

MappedFile &MappedFile::operator=(MappedFile &&other) noexcept {
  if (this != &other) {
    reset();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    kind_ = std::exchange(other.kind_, Kind::kNone);
    release_ = std::exchange(other.release_, nullptr);
  }
  return *this;
}

void MappedFile::reset() {
  if (kind_ == Kind::kMapped && data_ && size_) munmap(const_cast<uint8_t *>(data_), size_);
  if (kind_ == Kind::kCopied) std::free(const_cast<uint8_t *>(data_));
  std::function<void()> release = std::exchange(release_, nullptr);
  data_ = nullptr;
  size_ = 0;
  kind_ = Kind::kNone;
  if (release) release();
}

MappedFile MappedFile::borrow(const void *data, uint64_t size, std::function<void()> release) {
  MappedFile m;
  m.data_ = static_cast<const uint8_t *>(data);
  m.size_ = size;
  m.kind_ = Kind::kBorrowed;
  m.release_ = std::move(release);
  return m;
}

Status MappedFile::copy(const void *data, uint64_t size, MappedFile *out) {
  MappedFile m;
  if (size > 0) {
    // aligned_alloc wants a multiple of the alignment.
    uint64_t rounded = (size + 63) / 64 * 64;
    void *p = rounded >= size ? std::aligned_alloc(64, rounded) : nullptr;
    if (!p)
      return Status(StatusCode::kOutOfMemory, "cannot allocate " + std::to_string(size) + " bytes to copy into");
    std::memcpy(p, data, size);
    m.data_ = static_cast<const uint8_t *>(p);
    m.size_ = size;
    m.kind_ = Kind::kCopied;
  }
  *out = std::move(m);
  return Status::ok();
}

Status MappedFile::open(const std::string &path, MappedFile *out) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status(StatusCode::kIo, "cannot open '" + path + "': " + std::strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int e = errno;
    ::close(fd);
    return Status(StatusCode::kIo, "cannot stat '" + path + "': " + std::strerror(e));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return Status(StatusCode::kIo, "'" + path + "' is not a regular file");
  }
  MappedFile m;
  m.size_ = static_cast<uint64_t>(st.st_size);
  if (m.size_ > 0) {
    void *p = mmap(nullptr, m.size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      int e = errno;
      ::close(fd);
      m.size_ = 0;
      return Status(StatusCode::kIo, "cannot map '" + path + "': " + std::strerror(e));
    }
    m.data_ = static_cast<const uint8_t *>(p);
    m.kind_ = Kind::kMapped;
    // Weights are streamed on every run: ask for 2 MiB page-cache folios,
    // mapped whole, where the file system and kernel allow (advice only).
    // Read from disk, they arrive in 2 MiB pieces; already cached in small
    // pieces, they stay as they are.
#ifdef MADV_HUGEPAGE
    if (m.size_ >= (uint64_t(2) << 20)) madvise(p, m.size_, MADV_HUGEPAGE);
#endif
  }
  ::close(fd);  // the mapping keeps the file alive
  *out = std::move(m);
  return Status::ok();
}

}  // namespace webnn::rt
