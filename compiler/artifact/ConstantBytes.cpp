#include "compiler/artifact/ConstantBytes.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

namespace mlir::webnn {

static int64_t packedByteSize(ShapedType type) {
  int64_t n = type.getNumElements();
  unsigned bits = type.getElementTypeBitWidth();
  return bits == 4 ? (n + 1) / 2 : n * static_cast<int64_t>(bits / 8);
}

FailureOr<ArrayRef<char>> getConstantBytes(ElementsAttr value, std::vector<char> &storage) {
  auto type = cast<ShapedType>(value.getType());
  const int64_t expected = packedByteSize(type);
  const unsigned bits = type.getElementTypeBitWidth();

  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob) return failure();
    ArrayRef<char> data = blob->getData();
    if (static_cast<int64_t>(data.size()) != expected) return failure();
    return data;
  }

  auto dense = dyn_cast<DenseElementsAttr>(value);
  if (!dense) return failure();
  if (bits == 4) {
    // Dense storage keeps one sub-byte element per byte; WebNN packs them.
    storage.assign(expected, 0);
    int64_t i = 0;
    for (APInt v : dense.getValues<APInt>()) {
      uint8_t nibble = static_cast<uint8_t>(v.getZExtValue() & 0xF);
      storage[i / 2] = static_cast<char>(static_cast<uint8_t>(storage[i / 2]) |
                                         (i % 2 ? nibble << 4 : nibble));
      ++i;
    }
    return ArrayRef<char>(storage);
  }
  if (bits % 8 != 0) return failure();
  ArrayRef<char> raw = dense.getRawData();
  if (!dense.isSplat()) {
    if (static_cast<int64_t>(raw.size()) != expected) return failure();
    return raw;
  }
  const size_t elemBytes = bits / 8;
  storage.resize(expected);
  for (int64_t off = 0; off < expected; off += elemBytes)
    std::memcpy(storage.data() + off, raw.data(), elemBytes);
  return ArrayRef<char>(storage);
}

}  // namespace mlir::webnn
