// Typed access to a node's options (docs/OPS.md "Attribute kinds").
#include "core/Kernel.h"

namespace webnn::rt {
namespace {

const char *kindName(AttributeValue::Kind k) {
  switch (k) {
    case AttributeValue::Kind::kInt: return "int";
    case AttributeValue::Kind::kFloat: return "float";
    case AttributeValue::Kind::kBool: return "bool";
    case AttributeValue::Kind::kString: return "string";
    case AttributeValue::Kind::kInts: return "int list";
    case AttributeValue::Kind::kFloats: return "float list";
  }
  return "?";
}

}  // namespace

void NodeAttributes::set(std::string name, AttributeValue v) {
  for (auto &[n, value] : attrs_) {
    if (n == name) {
      value = std::move(v);
      return;
    }
  }
  attrs_.emplace_back(std::move(name), std::move(v));
}

const AttributeValue *NodeAttributes::find(std::string_view name) const {
  for (const auto &[n, value] : attrs_)
    if (n == name) return &value;
  return nullptr;
}

bool NodeAttributes::has(std::string_view name) const { return find(name) != nullptr; }

// Records the first mismatch only: that is the one a user fixes first, and a
// later getter must not overwrite it with a consequence.
#define WEBNN_ATTR_MISMATCH(name, want, v)                                                   \
  do {                                                                                       \
    if (status_.isOk())                                                                      \
      status_ = invalidArtifact("option '" + std::string(name) + "': expected " + (want) +   \
                                ", found " + kindName((v)->kind));                           \
  } while (0)

int64_t NodeAttributes::getInt(std::string_view name, int64_t def) const {
  const AttributeValue *v = find(name);
  if (!v) return def;
  if (v->kind != AttributeValue::Kind::kInt) {
    WEBNN_ATTR_MISMATCH(name, "int", v);
    return def;
  }
  return v->i;
}

double NodeAttributes::getFloat(std::string_view name, double def) const {
  const AttributeValue *v = find(name);
  if (!v) return def;
  if (v->kind == AttributeValue::Kind::kFloat) return v->f;
  if (v->kind == AttributeValue::Kind::kInt) return static_cast<double>(v->i);
  WEBNN_ATTR_MISMATCH(name, "float", v);
  return def;
}

bool NodeAttributes::getBool(std::string_view name, bool def) const {
  const AttributeValue *v = find(name);
  if (!v) return def;
  if (v->kind != AttributeValue::Kind::kBool) {
    WEBNN_ATTR_MISMATCH(name, "bool", v);
    return def;
  }
  return v->i != 0;
}

std::string NodeAttributes::getString(std::string_view name, std::string_view def) const {
  const AttributeValue *v = find(name);
  if (!v) return std::string(def);
  if (v->kind != AttributeValue::Kind::kString) {
    WEBNN_ATTR_MISMATCH(name, "string", v);
    return std::string(def);
  }
  return v->s;
}

std::vector<int64_t> NodeAttributes::getInts(std::string_view name, std::vector<int64_t> def) const {
  const AttributeValue *v = find(name);
  if (!v) return def;
  if (v->kind != AttributeValue::Kind::kInts) {
    WEBNN_ATTR_MISMATCH(name, "int list", v);
    return def;
  }
  return v->ints;
}

#undef WEBNN_ATTR_MISMATCH

}  // namespace webnn::rt
