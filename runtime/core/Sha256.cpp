#include "core/Sha256.h"

#include <nettle/sha2.h>

namespace webnn::rt {

Sha256Digest sha256(const void *data, size_t bytes) {
  sha256_ctx ctx;
  sha256_init(&ctx);
  // Nettle takes size_t lengths: one update for any size.
  sha256_update(&ctx, bytes, static_cast<const uint8_t *>(data));
  Sha256Digest digest;
  sha256_digest(&ctx, kSha256Bytes, digest.data());
  return digest;
}

}  // namespace webnn::rt
