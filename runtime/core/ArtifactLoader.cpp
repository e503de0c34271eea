#include "core/ArtifactLoader.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <unordered_set>

#include "core/ControlFlow.h"
#include "core/Sha256.h"
#include "webnn/runtime.h"
#include "webnn_artifact_format.h"
#include "webnn_artifact_generated.h"

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "the artifact is little-endian and mapped in place");

namespace webnn::rt {
namespace {

namespace fb = ::webnn::artifact;

std::string str(const flatbuffers::String *s) { return s ? s->str() : std::string(); }

// flatbuffers::Verifier (2.0) checks a vector's length field but not that its
// 8-byte elements (long, double, DimensionTerm) are 8-byte aligned; reading a
// misaligned one is undefined behaviour, so such a vector is refused. The
// mapping is page-aligned, so the address tells the offset's alignment.
template <typename V>
bool elementsAligned(const V *v) {
  // An empty vector has no element to read: FlatBuffers aligns only its length.
  return !v || v->size() == 0 || reinterpret_cast<uintptr_t>(v->Data()) % 8 == 0;
}

// "tensor 3 'x'" / "node 7 'conv1' (conv2d)": every message names what the
// user can find in `webnnc inspect` output.
std::string tensorLabel(const std::vector<LoadedTensor> &tensors, int64_t i) {
  std::string s = "tensor " + std::to_string(i);
  if (i >= 0 && i < static_cast<int64_t>(tensors.size()) && !tensors[i].name.empty())
    s += " '" + tensors[i].name + "'";
  return s;
}

std::string nodeLabel(size_t index, const LoadedNode &n) {
  std::string s = "node " + std::to_string(index);
  if (!n.name.empty()) s += " '" + n.name + "'";
  return s + " (" + n.op + ")";
}

std::string truncatedMessage(const char *what, uint64_t size, uint64_t offset, uint64_t fileSize) {
  return "truncated: header says " + std::to_string(size) + " bytes of " + what + " at offset " +
         std::to_string(offset) + " but file has " + std::to_string(fileSize) + " bytes";
}

// [offset, offset + size) inside [0, limit), without overflow.
bool rangeInside(uint64_t offset, uint64_t size, uint64_t limit) {
  return offset <= limit && size <= limit - offset;
}

class Loader {
 public:
  Loader(const std::string &path, const LoaderOptions &options, LoadedGraph *g)
      : path_(path), options_(options), g_(*g), weightsLabel_(options.weightsPath) {}

  // The bytes are in g_.artifact (and g_.weights when `weightsLabel` is not
  // empty) already; the labels stand for the paths in messages.
  void usePreloaded(const std::string &weightsLabel) {
    preloaded_ = true;
    weightsLabel_ = weightsLabel;
  }

  Status run() {
    if (!preloaded_) WEBNN_RETURN_IF_ERROR(MappedFile::open(path_, &g_.artifact));
    WEBNN_RETURN_IF_ERROR(checkHeader());
    WEBNN_RETURN_IF_ERROR(verifyFlatBuffer());
    WEBNN_RETURN_IF_ERROR(readDynamicDimensions());
    WEBNN_RETURN_IF_ERROR(readTensors());
    WEBNN_RETURN_IF_ERROR(readInputs());
    WEBNN_RETURN_IF_ERROR(checkDynamicInputs());
    WEBNN_RETURN_IF_ERROR(bindWeights());
    WEBNN_RETURN_IF_ERROR(readNodes());
    WEBNN_RETURN_IF_ERROR(readPackedConstants());
    WEBNN_RETURN_IF_ERROR(readOutputs());
    WEBNN_RETURN_IF_ERROR(checkKernels());
    return Status::ok();
  }

 private:
  Status fail(const std::string &m) const { return invalidArtifact(path_ + ": " + m); }

  Status checkHeader() {
    const uint64_t fileSize = g_.artifact.size();
    if (fileSize < fb::kHeaderSize)
      return fail("truncated: file has " + std::to_string(fileSize) + " bytes, less than the " +
                  std::to_string(fb::kHeaderSize) + "-byte header");
    std::memcpy(&header_, g_.artifact.data(), sizeof(header_));
    if (std::memcmp(header_.magic, fb::kArtifactMagic, sizeof(header_.magic)) != 0) {
      if (std::memcmp(header_.magic, fb::kWeightsMagic, sizeof(header_.magic)) == 0)
        return fail("this is a weights file, not an artifact (pass it with --weights)");
      return fail("not a webnn artifact (bad magic)");
    }
    if (header_.version != fb::kSchemaVersion)
      return fail("artifact format version " + std::to_string(header_.version) +
                  ", this runtime reads version " + std::to_string(fb::kSchemaVersion));
    if (header_.flags & ~uint32_t(fb::kFlagWeightless))
      return fail("unknown header flags " + std::to_string(header_.flags));
    for (uint8_t b : header_.reserved)
      if (b != 0) return fail("reserved header bytes are not zero");
    g_.weightless = (header_.flags & fb::kFlagWeightless) != 0;

    if (header_.graph_offset != fb::kHeaderSize)
      return fail("graph offset " + std::to_string(header_.graph_offset) + ", expected " +
                  std::to_string(fb::kHeaderSize));
    if (!rangeInside(header_.graph_offset, header_.graph_size, fileSize))
      return fail(truncatedMessage("graph", header_.graph_size, header_.graph_offset, fileSize));
    if (header_.graph_size < 8 || header_.graph_size >= FLATBUFFERS_MAX_BUFFER_SIZE)
      return fail("graph size " + std::to_string(header_.graph_size) + " is out of range");
    uint64_t graphEnd = header_.graph_offset + header_.graph_size;

    uint64_t end = graphEnd;
    if (g_.weightless) {
      if (header_.weights_offset != 0 || header_.weights_size != 0)
        return fail("weightless artifact has a weight segment in its header");
    } else {
      if (header_.weights_offset % fb::kWeightAlignment != 0 || header_.weights_offset < graphEnd)
        return fail("weight segment offset " + std::to_string(header_.weights_offset) +
                    " is not 64-byte aligned after the graph");
      if (!rangeInside(header_.weights_offset, header_.weights_size, fileSize))
        return fail(truncatedMessage("weights", header_.weights_size, header_.weights_offset, fileSize));
      end = header_.weights_offset + header_.weights_size;
    }
    if (end != fileSize)
      return fail("file has " + std::to_string(fileSize - end) + " unexpected bytes after byte " +
                  std::to_string(end));
    return Status::ok();
  }

  Status verifyFlatBuffer() {
    const uint8_t *buf = g_.artifact.data() + header_.graph_offset;
    flatbuffers::Verifier verifier(buf, header_.graph_size);
    if (!fb::ModelBufferHasIdentifier(buf))
      return fail("graph is not a webnn graph FlatBuffer (identifier is not \"WNNG\")");
    if (!fb::VerifyModelBuffer(verifier))
      return fail("graph FlatBuffer is corrupt (flatbuffers::Verifier rejected it)");
    model_ = fb::GetModel(buf);
    if (model_->schema_version() != fb::kSchemaVersion)
      return fail("graph schema version " + std::to_string(model_->schema_version()) +
                  ", this runtime reads version " + std::to_string(fb::kSchemaVersion));
    graph_ = model_->graph();
    if (!graph_) return fail("artifact has no graph");
    if (model_->weightless() != g_.weightless)
      return fail("header and graph disagree on whether the weights are embedded");
    if (!g_.weightless && model_->weights_size() != header_.weights_size)
      return fail("graph expects " + std::to_string(model_->weights_size()) +
                  " bytes of weights, header says " + std::to_string(header_.weights_size));
    g_.weightsSize = model_->weights_size();
    g_.name = str(graph_->name());
    g_.producer = str(model_->producer());
    if (graph_->precision() != fb::Precision::exact && graph_->precision() != fb::Precision::relaxed)
      return fail("unknown precision " + std::to_string(int(graph_->precision())) +
                  " (this runtime knows exact and relaxed)");
    g_.relaxedPrecision = graph_->precision() == fb::Precision::relaxed;
    return Status::ok();
  }

  Status readTensors() {
    const auto *tensors = graph_->tensors();
    size_t n = tensors ? tensors->size() : 0;
    if (n > size_t(INT32_MAX)) return fail("too many tensors");
    g_.tensors.resize(n);
    for (size_t i = 0; i < n; ++i) {
      const fb::Tensor *t = tensors->Get(i);
      LoadedTensor &lt = g_.tensors[i];
      lt.name = str(t->name());
      auto dt = static_cast<unsigned>(t->data_type());
      if (dt >= unsigned(kNumDataTypes))
        return fail(tensorLabel(g_.tensors, i) + " has unknown data type " + std::to_string(dt));
      lt.dtype = static_cast<DataType>(dt);
      if (const auto *dims = t->shape()) {
        lt.shape.reserve(dims->size());
        bool dynamic = false;
        for (const fb::Dimension *d : *dims) dynamic |= d->terms() && d->terms()->size() > 0;
        for (const fb::Dimension *d : *dims) {
          if (d->size() < 0)
            return fail(tensorLabel(g_.tensors, i) + " has negative dimension " + std::to_string(d->size()));
          lt.shape.push_back(d->size());
          if (!dynamic) continue;
          DimExpr e;
          WEBNN_RETURN_IF_ERROR(readDimension(*d, tensorLabel(g_.tensors, i), &e));
          lt.dims.push_back(std::move(e));
        }
      }
      if (!tensorByteSize(lt.dtype, lt.shape, &lt.byteSize))
        return fail(tensorLabel(g_.tensors, i) + " of shape " + shapeToString(lt.shape) +
                    " has too many elements (more than 2^56)");
      lt.interfaceType = lt.dtype;
      if (auto it = t->interface_type()) {
        auto v = static_cast<unsigned>(*it);
        if (v >= unsigned(kNumInterfaceDataTypes) || !isInterfaceTypeOf(static_cast<DataType>(v), lt.dtype))
          return fail(tensorLabel(g_.tensors, i) + " of type " + std::string(dataTypeName(lt.dtype)) +
                      " cannot be exchanged as interface type " +
                      (v < unsigned(kNumInterfaceDataTypes) ? std::string(dataTypeName(static_cast<DataType>(v)))
                                                            : std::to_string(v)));
        lt.interfaceType = static_cast<DataType>(v);
      }
      // Same element count, so this cannot overflow where byteSize did not.
      tensorByteSize(lt.interfaceType, lt.shape, &lt.interfaceByteSize);
    }
    return Status::ok();
  }

  Status readDynamicDimensions() {
    const auto *dims = graph_->dynamic_dimensions();
    if (!dims) return Status::ok();
    std::unordered_set<std::string> names;
    for (const fb::DynamicDimension *d : *dims) {
      std::string name = str(d->name());
      if (name.empty() || !names.insert(name).second)
        return fail("dynamic dimension names must be unique and non-empty ('" + name + "')");
      // Bounded so that sums of coefficient * size cannot overflow.
      if (d->max_size() < 0 || d->max_size() > (int64_t(1) << 40))
        return fail("dynamic dimension '" + name + "' has maximum " + std::to_string(d->max_size()));
      g_.dynamicDims.push_back({name, d->max_size()});
    }
    return Status::ok();
  }

  // A dynamic dimension's expression; `size` must be its value with every
  // name at its maximum (what the arena is planned for).
  Status readDimension(const fb::Dimension &d, const std::string &where, DimExpr *e) const {
    e->offset = d.offset();
    if (e->offset < -(int64_t(1) << 40) || e->offset > (int64_t(1) << 40))
      return fail(where + " has a dimension offset out of range");
    if (!elementsAligned(d.terms())) return fail(where + " has a misaligned dimension term vector");
    if (d.terms()) {
      for (const fb::DimensionTerm *t : *d.terms()) {
        if (t->symbol() >= g_.dynamicDims.size())
          return fail(where + " refers to dynamic dimension " + std::to_string(t->symbol()) + " of " +
                      std::to_string(g_.dynamicDims.size()));
        if (t->coefficient() < 1 || t->coefficient() > (int64_t(1) << 20))
          return fail(where + " has dimension coefficient " + std::to_string(t->coefficient()));
        e->terms.push_back({t->symbol(), t->coefficient()});
        e->spelling += (e->spelling.empty() ? "" : " + ") +
                       (t->coefficient() == 1 ? "" : std::to_string(t->coefficient()) + "*") +
                       g_.dynamicDims[t->symbol()].name;
      }
    }
    if (e->terms.size() > g_.dynamicDims.size()) return fail(where + " repeats a dynamic dimension");
    if (e->isStatic()) {  // a static dimension is its size; `offset` is unused
      e->offset = d.size();
      return Status::ok();
    }
    if (e->offset > 0) e->spelling += " + " + std::to_string(e->offset);
    if (e->offset < 0) e->spelling += " - " + std::to_string(-e->offset);
    std::vector<int64_t> maxima;
    for (const DynamicDimension &dd : g_.dynamicDims) maxima.push_back(dd.maxSize);
    if (e->evaluate(maxima) != d.size())
      return fail(where + " has dimension '" + e->spelling + "' whose maximum is " +
                  std::to_string(e->evaluate(maxima)) + ", not the recorded " + std::to_string(d.size()));
    return Status::ok();
  }

  // Every name must be some input dimension exactly, so a run can bind it.
  Status checkDynamicInputs() const {
    std::vector<bool> bound(g_.dynamicDims.size(), false);
    for (uint32_t idx : g_.inputs)
      for (const DimExpr &e : g_.tensors[idx].dims)
        if (e.soleSymbol() >= 0) bound[size_t(e.soleSymbol())] = true;
    for (size_t s = 0; s < bound.size(); ++s)
      if (!bound[s]) return fail("dynamic dimension '" + g_.dynamicDims[s].name + "' is not the size of any input dimension");
    return Status::ok();
  }

  Status checkIndex(int64_t i, const std::string &what) const {
    if (i < 0 || i >= static_cast<int64_t>(g_.tensors.size()))
      return fail(what + " refers to tensor " + std::to_string(i) + ", but the graph has " +
                  std::to_string(g_.tensors.size()) + " tensors");
    return Status::ok();
  }

  Status readInputs() {
    std::unordered_set<std::string> names;
    if (const auto *inputs = graph_->inputs()) {
      for (uint32_t idx : *inputs) {
        WEBNN_RETURN_IF_ERROR(checkIndex(idx, "graph input"));
        LoadedTensor &t = g_.tensors[idx];
        if (t.role == TensorRole::kInput) return fail(tensorLabel(g_.tensors, idx) + " is listed twice as a graph input");
        if (t.name.empty()) return fail("graph input " + tensorLabel(g_.tensors, idx) + " has no name");
        if (!names.insert(t.name).second) return fail("two graph inputs are named '" + t.name + "'");
        t.role = TensorRole::kInput;
        g_.inputs.push_back(idx);
      }
    }
    return Status::ok();
  }

  // Weight bytes [offset, offset + length): aligned and inside the segment.
  Status checkSegmentRange(const std::string &label, uint64_t offset, uint64_t length) const {
    if (offset % fb::kWeightAlignment != 0)
      return fail(label + ": offset " + std::to_string(offset) + " is not a multiple of 64");
    if (!rangeInside(offset, length, g_.weightsSize))
      return fail(label + ": bytes [" + std::to_string(offset) + ", " + std::to_string(offset) + "+" +
                  std::to_string(length) + ") lie outside the " + std::to_string(g_.weightsSize) +
                  "-byte weight segment");
    return Status::ok();
  }

  static bool hashMatches(const uint8_t *data, uint64_t length, const uint8_t *sha256) {
    return std::memcmp(webnn::rt::sha256(data, length).data(), sha256, kSha256Bytes) == 0;
  }

  Status bindWeights() {
    const uint8_t *segment = nullptr;
    std::string source = path_;
    const bool unbound = g_.weightless && weightsLabel_.empty() && options_.allowUnboundWeights;
    if (g_.weightless && !unbound) {
      if (weightsLabel_.empty())
        return fail(preloaded_ ? "weights are in a separate file; pass its bytes too"
                               : "weights are in a separate file; pass it with --weights FILE");
      WEBNN_RETURN_IF_ERROR(openWeightsFile());
      segment = g_.weights.data() + fb::kHeaderSize;
      source = weightsLabel_;
    } else if (!g_.weightless) {
      if (!weightsLabel_.empty())
        return fail(preloaded_ ? "weights are embedded; separate weights bytes are only for weightless artifacts"
                               : "weights are embedded; --weights is only for weightless artifacts");
      segment = g_.artifact.data() + header_.weights_offset;
    }
    const bool hash = !unbound && (g_.weightless || options_.verifyEmbeddedHashes);
    segment_ = segment;

    const auto *constants = graph_->constants();
    size_t n = constants ? constants->size() : 0;
    for (size_t i = 0; i < n; ++i) {
      const fb::Constant *c = constants->Get(i);
      std::string label = "constant " + std::to_string(i);
      WEBNN_RETURN_IF_ERROR(checkIndex(c->tensor(), label));
      LoadedTensor &t = g_.tensors[c->tensor()];
      std::string key = c->key() && c->key()->size() ? c->key()->str() : t.name;
      if (!key.empty()) label += " '" + key + "'";
      if (t.role != TensorRole::kIntermediate)
        return fail(label + ": " + tensorLabel(g_.tensors, c->tensor()) + " is already " +
                    (t.role == TensorRole::kInput ? "a graph input" : "a constant"));
      WEBNN_RETURN_IF_ERROR(checkSegmentRange(label, c->offset(), c->length()));
      if (c->length() != t.byteSize)
        return fail(label + ": " + std::to_string(c->length()) + " bytes, but " +
                    std::string(dataTypeName(t.dtype)) + " " + shapeToString(t.shape) + " needs " +
                    std::to_string(t.byteSize));
      const auto *sha = c->sha256();
      if (sha && sha->size() != kSha256Bytes)
        return fail(label + ": sha256 has " + std::to_string(sha->size()) + " bytes, expected 32");
      t.role = TensorRole::kConstant;
      t.constantData = unbound ? nullptr : segment + c->offset();
      if (hash) {
        if (!sha) return fail(label + " has no sha256 to check its bytes against");
        if (!hashMatches(t.constantData, c->length(), sha->data())) {
          if (g_.weightless)
            return invalidArtifact("weights file " + source + " does not match graph: constant '" + key +
                                   "' hash differs");
          return fail(label + ": embedded bytes do not match their sha256");
        }
      }
    }
    return Status::ok();
  }

  Status openWeightsFile() {
    const std::string &wpath = weightsLabel_;
    if (!preloaded_) WEBNN_RETURN_IF_ERROR(MappedFile::open(wpath, &g_.weights));
    auto wfail = [&](const std::string &m) { return invalidArtifact(wpath + ": " + m); };
    const uint64_t fileSize = g_.weights.size();
    if (fileSize < fb::kHeaderSize)
      return wfail("truncated: file has " + std::to_string(fileSize) + " bytes, less than the " +
                   std::to_string(fb::kHeaderSize) + "-byte header");
    fb::WeightsHeader wh;
    std::memcpy(&wh, g_.weights.data(), sizeof(wh));
    if (std::memcmp(wh.magic, fb::kWeightsMagic, sizeof(wh.magic)) != 0) {
      if (std::memcmp(wh.magic, fb::kArtifactMagic, sizeof(wh.magic)) == 0)
        return wfail("this is an artifact, not a weights file");
      return wfail("not a webnn weights file (bad magic)");
    }
    if (wh.version != fb::kSchemaVersion)
      return wfail("weights format version " + std::to_string(wh.version) + ", this runtime reads version " +
                   std::to_string(fb::kSchemaVersion));
    if (wh.weights_offset != fb::kHeaderSize)
      return wfail("weight segment offset " + std::to_string(wh.weights_offset) + ", expected 64");
    if (!rangeInside(wh.weights_offset, wh.weights_size, fileSize))
      return wfail(truncatedMessage("weights", wh.weights_size, wh.weights_offset, fileSize));
    if (wh.weights_offset + wh.weights_size != fileSize)
      return wfail("file has " + std::to_string(fileSize - wh.weights_offset - wh.weights_size) +
                   " unexpected bytes after the weight segment");
    // The digest is a fast reject of a file built for another graph, before
    // hashing every constant.
    const auto *digest = model_->weights_digest();
    if (!digest || digest->size() != sizeof(wh.digest) ||
        std::memcmp(digest->data(), wh.digest, sizeof(wh.digest)) != 0)
      return invalidArtifact("weights file " + wpath + " does not match graph " + path_ +
                             ": weights digest differs");
    if (wh.weights_size != g_.weightsSize)
      return invalidArtifact("weights file " + wpath + " does not match graph: it has " +
                             std::to_string(wh.weights_size) + " bytes of weights, the graph expects " +
                             std::to_string(g_.weightsSize));
    return Status::ok();
  }

  Status readAttribute(const fb::Attribute *a, NodeAttributes *attrs, const std::string &where) {
    if (!a->name()) return fail(where + " has an option without a name");
    AttributeValue v;
    switch (a->kind()) {
      case fb::AttributeKind::Int: v.kind = AttributeValue::Kind::kInt; v.i = a->i(); break;
      case fb::AttributeKind::Float: v.kind = AttributeValue::Kind::kFloat; v.f = a->f(); break;
      case fb::AttributeKind::Bool: v.kind = AttributeValue::Kind::kBool; v.i = a->i() != 0; break;
      case fb::AttributeKind::String: v.kind = AttributeValue::Kind::kString; v.s = str(a->s()); break;
      case fb::AttributeKind::Ints:
        v.kind = AttributeValue::Kind::kInts;
        if (!elementsAligned(a->ints())) return fail(where + ": option '" + a->name()->str() + "' is misaligned");
        if (a->ints()) v.ints.assign(a->ints()->begin(), a->ints()->end());
        break;
      case fb::AttributeKind::Floats:
        v.kind = AttributeValue::Kind::kFloats;
        if (!elementsAligned(a->floats())) return fail(where + ": option '" + a->name()->str() + "' is misaligned");
        if (a->floats()) v.floats.assign(a->floats()->begin(), a->floats()->end());
        break;
      default:
        return fail(where + ": option '" + a->name()->str() + "' has unknown kind " +
                    std::to_string(static_cast<int>(a->kind())));
    }
    if (attrs->has(a->name()->string_view())) return fail(where + ": option '" + a->name()->str() + "' appears twice");
    attrs->set(a->name()->str(), std::move(v));
    return Status::ok();
  }

  // Whether `t` may be read at this point: inputs and constants always; a
  // tensor a node or subgraph defines only within its scope, after its
  // definition (a subgraph sees its enclosing graphs' earlier values).
  bool visible(int32_t t) const {
    const LoadedTensor &lt = g_.tensors[size_t(t)];
    return lt.role == TensorRole::kInput || lt.role == TensorRole::kConstant || visible_[size_t(t)];
  }

  Status readNodes() {
    visible_.assign(g_.tensors.size(), 0);
    const auto *subgraphs = graph_->subgraphs();
    if (subgraphs && subgraphs->size() > 0) {
      if (!g_.dynamicDims.empty())
        return unsupported(path_ + ": control flow (subgraphs) in a graph with dynamic dimensions is not supported");
      g_.subgraphs.resize(subgraphs->size());
      subgraphState_.assign(subgraphs->size(), 0);
    }
    WEBNN_RETURN_IF_ERROR(readNodeList(graph_->nodes(), -1, 0, &g_.nodes));
    for (size_t s = 0; s < subgraphState_.size(); ++s)
      if (subgraphState_[s] == 0) return fail("subgraph " + std::to_string(s) + " is not used by any node");
    return Status::ok();
  }

  // The nodes of the main graph (scope -1) or of subgraph `scope`.
  Status readNodeList(const flatbuffers::Vector<flatbuffers::Offset<fb::Node>> *nodes, int32_t scope, int depth,
                      std::vector<LoadedNode> *out) {
    size_t n = nodes ? nodes->size() : 0;
    out->resize(n);
    const std::string in = scope < 0 ? "" : " of subgraph " + std::to_string(scope);
    for (size_t i = 0; i < n; ++i) {
      const fb::Node *fn = nodes->Get(i);
      LoadedNode &node = (*out)[i];
      node.op = str(fn->op());
      node.name = str(fn->name());
      node.backend = str(fn->backend());
      const std::string where = nodeLabel(i, node) + in;
      if (node.op.empty()) return fail(where + " has no op name");
      if (const auto *attrs = fn->attributes())
        for (const fb::Attribute *a : *attrs) WEBNN_RETURN_IF_ERROR(readAttribute(a, &node.attributes, where));
      // Inputs are checked before this node's outputs are marked produced, so a
      // node reading its own output is caught as a use before definition.
      if (const auto *ins = fn->inputs()) {
        for (int32_t in : *ins) {
          node.inputs.push_back(in);
          if (in == -1) continue;
          WEBNN_RETURN_IF_ERROR(checkIndex(in, where + " input"));
          if (!visible(in))
            return fail(where + " reads " + tensorLabel(g_.tensors, in) +
                        ", which no earlier node produces (nodes must be topologically ordered)");
          if (g_.tensors[size_t(in)].runLength)
            return fail(where + " reads " + tensorLabel(g_.tensors, in) +
                        ", a loop's scan output, whose length is known only after the run");
        }
      }
      // Subgraphs before outputs: a body may not read its own node's results.
      if (const auto *subs = fn->subgraphs()) {
        if (!isControlFlowOp(node.op)) return fail(where + " is not a control-flow op but has subgraphs");
        for (uint32_t s : *subs) {
          node.subgraphs.push_back(s);
          WEBNN_RETURN_IF_ERROR(readSubgraph(s, depth + 1, where));
        }
      } else if (isControlFlowOp(node.op)) {
        return fail(where + " has no subgraphs");
      }
      const auto *outs = fn->outputs();
      if (!outs || outs->size() == 0) return fail(where + " has no outputs");
      for (int32_t o : *outs) {
        WEBNN_RETURN_IF_ERROR(checkIndex(o, where + " output"));
        LoadedTensor &t = g_.tensors[o];
        if (t.role != TensorRole::kIntermediate)
          return fail(where + " writes " + tensorLabel(g_.tensors, o) + ", which is a " +
                      (t.role == TensorRole::kInput ? "graph input"
                       : t.role == TensorRole::kConstant ? "constant" : "subgraph input"));
        if (t.producer >= 0)
          return fail(tensorLabel(g_.tensors, o) + " is produced twice (the second time by " + where + ")");
        t.producer = static_cast<int32_t>(i);
        t.scope = scope;
        visible_[size_t(o)] = 1;
        node.outputs.push_back(o);
      }
      if (isControlFlowOp(node.op)) {
        WEBNN_RETURN_IF_ERROR(checkControlFlowNode(g_, node, path_ + ": " + where));
        if (node.op == "loop" && node.outputs.size() + 2 > node.inputs.size()) {
          if (scope >= 0) return fail(where + ": scan outputs are only allowed on a loop of the main graph");
          for (size_t k = node.inputs.size() - 2; k < node.outputs.size(); ++k)
            g_.tensors[size_t(node.outputs[k])].runLength = true;
        }
      }
    }
    return Status::ok();
  }

  Status readSubgraph(uint32_t s, int depth, const std::string &owner) {
    if (s >= subgraphState_.size())
      return fail(owner + " refers to subgraph " + std::to_string(s) + " of " + std::to_string(subgraphState_.size()));
    if (subgraphState_[s] != 0) return fail("subgraph " + std::to_string(s) + " is used by two nodes");
    // Nesting is bounded so a hostile file cannot exhaust the stack.
    // Sessions apply their own, lower Limits::maxNestingDepth (core/Limits.h).
    if (depth > int(kMaxNestingDepthCap))
      return fail(owner + ": subgraphs nested more than " + std::to_string(kMaxNestingDepthCap) + " deep");
    subgraphState_[s] = 1;
    const fb::Subgraph *fs = graph_->subgraphs()->Get(s);
    LoadedSubgraph &sub = g_.subgraphs[s];
    const std::string where = "subgraph " + std::to_string(s);
    if (const auto *ins = fs->inputs()) {
      for (uint32_t t : *ins) {
        WEBNN_RETURN_IF_ERROR(checkIndex(t, where + " input"));
        LoadedTensor &lt = g_.tensors[t];
        if (lt.role != TensorRole::kIntermediate || lt.producer >= 0)
          return fail(where + " input " + tensorLabel(g_.tensors, t) + " is already defined elsewhere");
        lt.role = TensorRole::kSubgraphInput;
        lt.scope = static_cast<int32_t>(s);
        visible_[t] = 1;
        sub.inputs.push_back(t);
      }
    }
    std::vector<LoadedNode> nodes;
    WEBNN_RETURN_IF_ERROR(readNodeList(fs->nodes(), static_cast<int32_t>(s), depth, &nodes));
    sub.nodes = std::move(nodes);
    if (const auto *outs = fs->outputs()) {
      for (uint32_t t : *outs) {
        WEBNN_RETURN_IF_ERROR(checkIndex(t, where + " output"));
        if (!visible(int32_t(t)))
          return fail(where + " yields " + tensorLabel(g_.tensors, t) + ", which it cannot see");
        sub.outputs.push_back(t);
      }
    }
    // What the subgraph defined is out of scope for the rest of its owner's graph.
    for (uint32_t t : sub.inputs) visible_[t] = 0;
    for (const LoadedNode &node : sub.nodes)
      for (int32_t o : node.outputs) visible_[size_t(o)] = 0;
    return Status::ok();
  }

  // Checked like constants; a packed constant whose bytes fail their hash
  // under --verify-weights is an error, not silently skipped.
  Status readPackedConstants() {
    const auto *packed = graph_->packed_constants();
    if (!packed) return Status::ok();
    if (packed->size() > 0 && g_.weightless)
      return fail("packed constants are only valid with embedded weights");
    for (size_t i = 0; i < packed->size(); ++i) {
      const fb::PackedConstant *p = packed->Get(i);
      std::string label = "packed constant " + std::to_string(i);
      if (p->node() >= g_.nodes.size())
        return fail(label + ": node " + std::to_string(p->node()) + " out of range (graph has " +
                    std::to_string(g_.nodes.size()) + " nodes)");
      LoadedNode &node = g_.nodes[p->node()];
      label += " of " + nodeLabel(p->node(), node);
      if (p->input() >= node.inputs.size() || node.inputs[p->input()] < 0 ||
          g_.tensors[node.inputs[p->input()]].role != TensorRole::kConstant)
        return fail(label + ": operand " + std::to_string(p->input()) + " is not a constant");
      if (!p->layout() || p->layout()->size() == 0) return fail(label + " has no layout");
      WEBNN_RETURN_IF_ERROR(checkSegmentRange(label, p->offset(), p->length()));
      const auto *sha = p->sha256();
      if (!sha || sha->size() != kSha256Bytes) return fail(label + ": sha256 must have 32 bytes");
      const uint8_t *data = segment_ + p->offset();
      if (options_.verifyEmbeddedHashes && !hashMatches(data, p->length(), sha->data()))
        return fail(label + ": embedded bytes do not match their sha256");
      node.packed.push_back({int(p->input()), p->layout()->str(), data, p->length()});
    }
    return Status::ok();
  }

  Status readOutputs() {
    std::unordered_set<std::string> names;
    if (const auto *outputs = graph_->outputs()) {
      for (uint32_t idx : *outputs) {
        WEBNN_RETURN_IF_ERROR(checkIndex(idx, "graph output"));
        const LoadedTensor &t = g_.tensors[idx];
        if (!visible(int32_t(idx)))
          return fail("graph output " + tensorLabel(g_.tensors, idx) +
                      (t.role == TensorRole::kSubgraphInput || t.scope >= 0 ? " is defined inside a subgraph"
                                                                            : " is never produced"));
        if (t.name.empty()) return fail("graph output " + tensorLabel(g_.tensors, idx) + " has no name");
        if (!names.insert(t.name).second) return fail("two graph outputs are named '" + t.name + "'");
        g_.outputs.push_back(idx);
      }
    }
    if (g_.outputs.empty()) return fail("graph has no outputs");
    // Only the graph's boundary is converted.
    for (size_t i = 0; i < g_.tensors.size(); ++i) {
      const LoadedTensor &t = g_.tensors[i];
      if (t.interfaceType != t.dtype && t.role != TensorRole::kInput &&
          std::find(g_.outputs.begin(), g_.outputs.end(), uint32_t(i)) == g_.outputs.end())
        return fail(tensorLabel(g_.tensors, i) + " has an interface type but is neither a graph input nor output");
    }
    return Status::ok();
  }

  Status checkKernels() {
    if (!options_.hasKernel) return Status::ok();
    // One line per unknown op, with its first node and how many use it.
    std::map<std::string, std::pair<size_t, size_t>> unknown;  // op -> (first node, count)
    std::map<std::string, const LoadedNode *> firstNode;
    auto visit = [&](const std::vector<LoadedNode> &nodes) {
      for (size_t i = 0; i < nodes.size(); ++i) {
        const std::string &op = nodes[i].op;
        if (isControlFlowOp(op) || options_.hasKernel(op)) continue;  // the executor runs control flow
        auto [it, inserted] = unknown.try_emplace(op, i, 0);
        ++it->second.second;
        if (inserted) firstNode[op] = &nodes[i];
      }
    };
    visit(g_.nodes);
    for (const LoadedSubgraph &sub : g_.subgraphs) visit(sub.nodes);
    if (unknown.empty()) return Status::ok();
    std::string m = "no kernel in " + options_.backends + " for ";
    bool first = true;
    for (const auto &[op, where] : unknown) {
      if (!first) m += "; ";
      first = false;
      m += "op '" + op + "' (" + nodeLabel(where.first, *firstNode[op]);
      if (where.second > 1) m += " and " + std::to_string(where.second - 1) + " more";
      m += ")";
    }
    return Status(StatusCode::kUnsupported, path_ + ": " + m);
  }

  const std::string &path_;
  const LoaderOptions &options_;
  LoadedGraph &g_;
  std::string weightsLabel_;  // the weights file's path or label; empty: none given
  bool preloaded_ = false;
  fb::ArtifactHeader header_{};
  const fb::Model *model_ = nullptr;
  const fb::Graph *graph_ = nullptr;
  const uint8_t *segment_ = nullptr;  // the weight segment (embedded or external)
  std::vector<char> visible_;         // per tensor, while reading nodes
  std::vector<char> subgraphState_;   // per subgraph: 0 unread, 1 read
};

}  // namespace

Status loadArtifact(const std::string &path, const LoaderOptions &options, LoadedGraph *out) {
  LoadedGraph g;
  Loader loader(path, options, &g);
  WEBNN_RETURN_IF_ERROR(loader.run());
  *out = std::move(g);
  return Status::ok();
}

Status loadArtifact(MappedFile artifact, const std::string &label, MappedFile weights,
                    const std::string &weightsLabel, const LoaderOptions &options, LoadedGraph *out) {
  LoadedGraph g;
  g.artifact = std::move(artifact);
  g.weights = std::move(weights);
  Loader loader(label, options, &g);
  loader.usePreloaded(weightsLabel);
  WEBNN_RETURN_IF_ERROR(loader.run());
  *out = std::move(g);
  return Status::ok();
}

}  // namespace webnn::rt
