// Fixed binary framing around the FlatBuffer of schema/webnn_artifact.fbs.
// Shared verbatim by the compiler's writer and the runtime's loader; plain C++,
// no dependencies.
#ifndef WEBNN_SCHEMA_ARTIFACT_FORMAT_H
#define WEBNN_SCHEMA_ARTIFACT_FORMAT_H

#include <cstdint>

namespace webnn::artifact {

// Bump on any incompatible change of the header or the schema.
constexpr uint32_t kSchemaVersion = 2;  // 2: dynamic dimensions
// Weight segments and every constant in them start on this boundary, so a
// mapped constant is aligned for any vector load.
constexpr uint64_t kWeightAlignment = 64;
constexpr uint64_t kHeaderSize = 64;

// Artifact (.wnn): magic "WNNART\0\1".
constexpr char kArtifactMagic[8] = {'W', 'N', 'N', 'A', 'R', 'T', '\0', '\1'};
// External weights file (--weightless): magic "WNNWTS\0\1".
constexpr char kWeightsMagic[8] = {'W', 'N', 'N', 'W', 'T', 'S', '\0', '\1'};

enum HeaderFlags : uint32_t { kFlagWeightless = 1u << 0 };

// Artifact header, 64 bytes at offset 0.
struct ArtifactHeader {
  char magic[8];
  uint32_t version;        // kSchemaVersion
  uint32_t flags;          // HeaderFlags
  uint64_t graph_offset;   // FlatBuffer start (== kHeaderSize)
  uint64_t graph_size;     // FlatBuffer bytes
  uint64_t weights_offset; // weight segment start, multiple of 64; 0 if weightless
  uint64_t weights_size;   // weight segment bytes; 0 if weightless
  uint8_t reserved[16];    // zero
};
static_assert(sizeof(ArtifactHeader) == kHeaderSize, "header is 64 bytes");

// Weights file header, 64 bytes at offset 0; the segment follows at offset 64
// with the same layout the artifact's Constant.offset values describe.
struct WeightsHeader {
  char magic[8];
  uint32_t version;        // kSchemaVersion
  uint32_t reserved0;
  uint64_t weights_offset; // == kHeaderSize
  uint64_t weights_size;
  uint8_t digest[32];      // equals Model.weights_digest of the graph it belongs to
};
static_assert(sizeof(WeightsHeader) == kHeaderSize, "header is 64 bytes");

inline constexpr uint64_t alignUp(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

}  // namespace webnn::artifact

#endif
