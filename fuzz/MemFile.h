// Inputs as files without touching the disk, for the libFuzzer targets whose
// code under test takes paths.
#ifndef WEBNN_FUZZ_MEMFILE_H
#define WEBNN_FUZZ_MEMFILE_H

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace webnn::fuzz {

// Loaders take paths and map them: an anonymous in-memory file
// (memfd) named through /proc/self/fd gives it one per execution at no disk
// cost. Closed on destruction; a mapping made from it stays valid.
class MemFile {
 public:
  MemFile(const uint8_t *data, size_t size) {
    fd_ = memfd_create("webnn-fuzz", 0);
    if (fd_ < 0) return;
    size_t done = 0;
    while (done < size) {
      ssize_t n = write(fd_, data + done, size - done);
      if (n <= 0) { close(fd_); fd_ = -1; return; }
      done += size_t(n);
    }
  }
  ~MemFile() { if (fd_ >= 0) close(fd_); }
  MemFile(const MemFile &) = delete;
  MemFile &operator=(const MemFile &) = delete;
  bool ok() const { return fd_ >= 0; }
  std::string path() const { return "/proc/self/fd/" + std::to_string(fd_); }

 private:
  int fd_ = -1;
};

}  // namespace webnn::fuzz

#endif
