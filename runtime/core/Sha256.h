// SHA-256 of a byte range: the content hash of constants and weights files
// (docs/ARTIFACT.md). Nettle's, which picks the CPU's SHA extensions at run
// time like OpenSSL does, in a 0.3 MB library instead of libcrypto's 4.7 MB.
#ifndef WEBNN_CORE_SHA256_H
#define WEBNN_CORE_SHA256_H

#include <array>
#include <cstddef>
#include <cstdint>

namespace webnn::rt {

constexpr size_t kSha256Bytes = 32;
using Sha256Digest = std::array<uint8_t, kSha256Bytes>;

Sha256Digest sha256(const void *data, size_t bytes);

}  // namespace webnn::rt

#endif
