// libFuzzer target: a .npy image through webnn::npy::parse (the reader of
// webnn-run's inputs), and a round trip of what it accepts through header().
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "webnn/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  webnn::npy::Array array;
  if (!webnn::npy::parse(data, size, "fuzz.npy", &array).isOk()) return 0;
  // An accepted array's header, written back and parsed again, must describe
  // the same array.
  std::string image = webnn::npy::header(array.dtype, array.shape);
  image.append(reinterpret_cast<const char *>(array.data.data()), array.data.size());
  webnn::npy::Array again;
  if (!webnn::npy::parse(reinterpret_cast<const uint8_t *>(image.data()), image.size(), "round trip", &again)
           .isOk() ||
      again.dtype != array.dtype || again.shape != array.shape || again.data != array.data)
    std::abort();
  return 0;
}
