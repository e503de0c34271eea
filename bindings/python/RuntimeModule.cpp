// webnn._runtime: the runtime's C++ API (webnn/runtime.h) for Python, over
// libwebnn.so. Arrays are exchanged as numpy arrays in the types webnn-run's
// .npy files use: int4/uint4 unpacked to int8/uint8, bfloat16 widened to
// float32, bool as numpy bool (or uint8 0/1 on input). A failed call raises
// webnn.Error carrying the runtime's message unchanged; the checks the
// runtime leaves to its callers (an input's dtype and shape, unknown or
// missing names) raise webnn-run's messages for the same faults.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "webnn/npy.h"
#include "webnn/runtime.h"

namespace py = pybind11;

namespace {

// The runtime's memory rule for using an input in place (docs/EMBEDDING.md).
constexpr uintptr_t kInPlaceAlignment = 64;

// webnn.Error, set by PYBIND11_MODULE; its `code` attribute is the StatusCode.
PyObject *gErrorType = nullptr;

const char *codeName(webnn::StatusCode code) {
  switch (code) {
    case webnn::StatusCode::kOk: return "ok";
    case webnn::StatusCode::kInvalidArgument: return "invalid_argument";
    case webnn::StatusCode::kInvalidArtifact: return "invalid_artifact";
    case webnn::StatusCode::kUnsupported: return "unsupported";
    case webnn::StatusCode::kIo: return "io";
    case webnn::StatusCode::kOutOfMemory: return "out_of_memory";
    case webnn::StatusCode::kInternal: return "internal";
    case webnn::StatusCode::kBusy: return "busy";
    case webnn::StatusCode::kCancelled: return "cancelled";
    case webnn::StatusCode::kLimitExceeded: return "limit_exceeded";
  }
  return "internal";
}

[[noreturn]] void raise(webnn::StatusCode code, const std::string &message) {
  py::object error = py::reinterpret_borrow<py::object>(gErrorType)(message);
  error.attr("code") = codeName(code);
  PyErr_SetObject(gErrorType, error.ptr());
  throw py::error_already_set();
}

void check(const webnn::Status &s) {
  if (!s) raise(s.code(), s.message());
}

// The type a tensor of type `t` has as a numpy array (webnn-run's npyType).
webnn::DataType numpyType(webnn::DataType t) {
  if (t == webnn::DataType::kInt4) return webnn::DataType::kInt8;
  if (t == webnn::DataType::kUint4) return webnn::DataType::kUint8;
  if (t == webnn::DataType::kBfloat16) return webnn::DataType::kFloat32;
  return t;
}

py::dtype numpyDtype(webnn::DataType t) { return py::dtype(std::string(webnn::dataTypeName(numpyType(t)))); }

bool sameDtype(const py::dtype &a, const py::dtype &b) { return a.attr("__eq__")(b).cast<bool>(); }

std::string describe(const std::string &dtype, const webnn::Shape &shape) {
  return dtype + " " + webnn::shapeToString(shape);
}

py::dict tensorInfo(const webnn::TensorInfo &t) {
  py::dict d;
  d["name"] = t.name;
  d["dtype"] = std::string(webnn::dataTypeName(t.dtype));
  d["numpy_dtype"] = numpyDtype(t.dtype);
  d["shape"] = py::tuple(py::cast(t.shape));
  d["byte_size"] = t.byteSize;
  if (t.isDynamic()) {
    py::list dims;
    for (const std::string &e : t.dynamicDims) dims.append(e.empty() ? py::object(py::none()) : py::str(e));
    d["dynamic_dims"] = dims;  // None for a static dimension; shape holds maxima
  } else {
    d["dynamic_dims"] = py::none();
  }
  return d;
}

class PySession;

class PyModel {
 public:
  explicit PyModel(std::unique_ptr<webnn::Model> model) : model_(std::move(model)) {}
  const webnn::Model &model() const { return *model_; }

 private:
  std::unique_ptr<webnn::Model> model_;
};

class PySession {
 public:
  PySession(const PyModel &model, int threads, bool profiling, const std::string &wait, const py::object &limits) {
    webnn::SessionOptions options;
    options.threads = threads;
    options.profiling = profiling;
    if (!limits.is_none()) setLimits(py::cast<py::dict>(limits), &options.limits);
    if (wait == "spin") options.threadWait = webnn::ThreadWait::kSpin;
    else if (wait == "block") options.threadWait = webnn::ThreadWait::kBlock;
    else if (wait != "default")
      raise(webnn::StatusCode::kInvalidArgument, "wait must be \"default\", \"spin\" or \"block\", got \"" + wait + "\"");
    webnn::Status s;
    {
      py::gil_scoped_release release;
      s = webnn::Session::create(model.model(), options, &session_);
    }
    check(s);
    bound_.resize(session_->inputs().size());
  }

  // Binds `value` to input `name`; true when the session reads the array's
  // memory in place (then it keeps the array alive, and changes to it are seen
  // by later runs), false when it took a copy.
  bool setInput(const std::string &name, const py::handle &value) {
    const auto &inputs = session_->inputs();
    size_t index = inputs.size();
    for (size_t i = 0; i < inputs.size(); ++i)
      if (inputs[i].name == name) index = i;
    if (index == inputs.size())
      raise(webnn::StatusCode::kInvalidArgument, "model has no input '" + name + "' (inputs: " + webnn::tensorNameList(inputs) + ")");
    const webnn::TensorInfo &info = inputs[index];
    py::dtype want = numpyDtype(info.dtype);
    // A list or scalar becomes an array of the input's type; an array is
    // taken as it is, and its dtype must match.
    py::array array = py::isinstance<py::array>(value)
                          ? py::reinterpret_borrow<py::array>(value)
                          : py::array(py::module_::import("numpy").attr("asarray")(value, want));
    webnn::Shape shape(array.shape(), array.shape() + array.ndim());
    // A bool input also takes uint8 0/1, as webnn-run does; the session
    // maps nonzero bytes to 1.
    const bool uint8ForBool = info.dtype == webnn::DataType::kBool && sameDtype(array.dtype(), py::dtype("uint8"));
    if ((!sameDtype(array.dtype(), want) && !uint8ForBool) || !info.fits(shape)) {
      std::string expected = info.describe();
      if (numpyType(info.dtype) != info.dtype)
        expected += " (as " + std::string(webnn::dataTypeName(numpyType(info.dtype))) + ")";
      if (info.dtype == webnn::DataType::kBool) expected += " (bool or uint8)";
      raise(webnn::StatusCode::kInvalidArgument,
            "input '" + name + "': expected " + expected + ", got " +
                describe(py::str(array.dtype()).cast<std::string>(), shape));
    }
    const bool contiguous = (array.flags() & py::array::c_style) != 0;
    const bool aligned = reinterpret_cast<uintptr_t>(array.data()) % kInPlaceAlignment == 0;
    const bool asIs = numpyType(info.dtype) == info.dtype && info.dtype == info.graphType;
    if (contiguous && aligned && asIs && array.nbytes() > 0) {
      check(session_->setInput(index, array.data(), size_t(array.nbytes()), shape));
      bound_[index] = array;
      return true;
    }
    py::array dense = py::array::ensure(array, py::array::c_style);  // a copy only when strided
    std::vector<uint8_t> packed;
    const void *data = dense.data();
    size_t bytes = size_t(dense.nbytes());
    if (numpyType(info.dtype) != info.dtype) {
      int64_t count = int64_t(dense.size());
      uint64_t wireBytes = 0;
      webnn::tensorByteSize(info.dtype, shape, &wireBytes);
      packed.resize(wireBytes);
      if (info.dtype == webnn::DataType::kBfloat16) {
        webnn::convertElements(webnn::DataType::kFloat32, dense.data(), info.dtype, packed.data(), count);
      } else {
        webnn::Status s = webnn::npy::packInt4(info.dtype, static_cast<const uint8_t *>(dense.data()), count,
                                               packed.data());
        if (!s) raise(s.code(), "input '" + name + "': " + s.message());
      }
      data = packed.data();
      bytes = packed.size();
    }
    check(session_->copyInput(name, data, bytes, shape));
    bound_[index] = py::object();
    return false;
  }

  py::dict run(const py::object &feeds) {
    if (!feeds.is_none())
      for (auto item : py::cast<py::dict>(feeds)) setInput(py::cast<std::string>(item.first), item.second);
    webnn::Status s;
    {
      py::gil_scoped_release release;
      s = session_->run();
    }
    check(s);
    py::dict out;
    const auto &outputs = session_->outputs();
    for (size_t i = 0; i < outputs.size(); ++i) out[py::str(outputs[i].name)] = outputArray(i);
    return out;
  }

  py::list inputs() const {
    py::list l;
    for (const auto &t : session_->inputs()) l.append(tensorInfo(t));
    return l;
  }
  py::list outputs() const {
    py::list l;
    for (const auto &t : session_->outputs()) l.append(tensorInfo(t));
    return l;
  }
  int threads() const { return session_->threads(); }
  std::string wait() const {
    switch (session_->threadWait()) {
      case webnn::ThreadWait::kSpin: return "spin";
      case webnn::ThreadWait::kBlock: return "block";
      case webnn::ThreadWait::kDefault: break;
    }
    return "default";
  }
  uint64_t arenaBytes() const { return session_->arenaBytes(); }
  void setProfiling(bool on) { session_->enableProfiling(on); }
  // Any thread may call it while another is inside run() (which releases
  // the GIL): that run raises an Error with code "cancelled".
  void cancel() { session_->cancel(); }

  // (runs, [{op, name, total_ms, run_by}]) since profiling was turned on.
  py::tuple profile() const {
    uint64_t runs = 0;
    py::list nodes;
    for (const auto &n : session_->profile(&runs)) {
      py::dict d;
      d["op"] = n.op;
      d["name"] = n.name;
      d["total_ms"] = n.totalMs;
      d["run_by"] = n.runBy < 0 ? py::object(py::none()) : py::int_(n.runBy);
      nodes.append(d);
    }
    return py::make_tuple(runs, nodes);
  }

 private:
  // {"max_loop_iterations": n, ...}: the C option names of webnn::Limits.
  static void setLimits(const py::dict &limits, webnn::Limits *out) {
    const std::pair<const char *, uint64_t *> fields[] = {
        {"max_loop_iterations", &out->maxLoopIterations}, {"max_tensor_elements", &out->maxTensorElements},
        {"max_arena_bytes", &out->maxArenaBytes},         {"max_constant_bytes", &out->maxConstantBytes},
        {"max_nodes", &out->maxNodes},                    {"max_nesting_depth", &out->maxNestingDepth}};
    for (auto item : limits) {
      std::string key = py::cast<std::string>(py::str(item.first));
      uint64_t *field = nullptr;
      for (const auto &f : fields)
        if (key == f.first) field = f.second;
      if (!field)
        raise(webnn::StatusCode::kInvalidArgument,
              "limits: unknown limit '" + key +
                  "' (max_loop_iterations, max_tensor_elements, max_arena_bytes, max_constant_bytes, max_nodes, "
                  "max_nesting_depth)");
      if (!py::isinstance<py::int_>(item.second) || py::cast<py::int_>(item.second) < py::int_(0))
        raise(webnn::StatusCode::kInvalidArgument, "limits: '" + key + "' must be a non-negative integer");
      *field = py::cast<uint64_t>(item.second);
    }
  }

  // Output `i` of the last run as a new array (the session's memory is
  // reused by the next run, so the caller gets its own copy).
  py::array outputArray(size_t i) const {
    const webnn::TensorInfo &info = session_->outputs()[i];
    const webnn::Shape &shape = session_->outputShape(i);
    py::array result(numpyDtype(info.dtype), std::vector<py::ssize_t>(shape.begin(), shape.end()));
    const auto *data = static_cast<const uint8_t *>(session_->outputData(i));
    int64_t count = int64_t(result.size());
    if (count == 0) return result;
    if (info.dtype == webnn::DataType::kInt4 || info.dtype == webnn::DataType::kUint4)
      webnn::npy::unpackInt4(info.dtype, data, count, static_cast<uint8_t *>(result.mutable_data()));
    else if (info.dtype == webnn::DataType::kBfloat16)
      webnn::convertElements(info.dtype, data, webnn::DataType::kFloat32, result.mutable_data(), count);
    else
      std::memcpy(result.mutable_data(), data, session_->outputBytes(i));
    return result;
  }

  std::unique_ptr<webnn::Session> session_;
  std::vector<py::object> bound_;  // arrays read in place, kept alive while bound
};

// Bytes handed to Model::loadFromMemory: used in place (the buffer object
// kept alive until the runtime releases it) when 64-byte aligned, else
// copied by the runtime.
webnn::MemoryBuffer memoryBuffer(const py::object &object) {
  if (py::isinstance<py::memoryview>(object) && !object.attr("c_contiguous").cast<bool>())
    raise(webnn::StatusCode::kInvalidArgument, "expected contiguous bytes, got a strided memoryview");
  py::buffer_info info = py::reinterpret_borrow<py::buffer>(object).request();
  webnn::MemoryBuffer m;
  m.data = info.ptr;
  m.bytes = size_t(info.size * info.itemsize);
  auto *keep = new py::object(object);
  m.release = [keep] {
    py::gil_scoped_acquire acquire;
    delete keep;
  };
  return m;
}

bool isBytesLike(const py::object &o) {
  return py::isinstance<py::bytes>(o) || py::isinstance<py::bytearray>(o) || py::isinstance<py::memoryview>(o);
}

std::unique_ptr<PyModel> load(const py::object &artifact, const py::object &weights, bool verifyWeights) {
  webnn::LoadOptions options;
  options.verifyEmbeddedWeights = verifyWeights;
  std::unique_ptr<webnn::Model> model;
  webnn::Status s;
  if (isBytesLike(artifact)) {
    webnn::MemoryBuffer graph = memoryBuffer(artifact);
    webnn::MemoryBuffer w;
    if (!weights.is_none()) {
      if (isBytesLike(weights))
        w = memoryBuffer(weights);
      else
        options.weightsPath = py::str(py::module_::import("os").attr("fspath")(weights));
    }
    py::gil_scoped_release release;
    s = webnn::Model::loadFromMemory(std::move(graph), std::move(w), options, &model);
  } else {
    std::string path = py::str(py::module_::import("os").attr("fspath")(artifact));
    if (isBytesLike(weights))
      raise(webnn::StatusCode::kInvalidArgument,
            path + ": weights given as bytes need the artifact as bytes too (read the file first)");
    if (!weights.is_none()) options.weightsPath = py::str(py::module_::import("os").attr("fspath")(weights));
    py::gil_scoped_release release;
    s = webnn::Model::load(path, options, &model);
  }
  check(s);
  return std::make_unique<PyModel>(std::move(model));
}

}  // namespace

PYBIND11_MODULE(_runtime, m) {
  m.doc() = "The webnn runtime (libwebnn): load a compiled .wnn artifact and run it on numpy arrays.";
  static py::exception<std::runtime_error> error(m, "Error", PyExc_RuntimeError);
  gErrorType = error.ptr();

  m.def("version", [] { return std::string(webnn::version()); }, "The loaded libwebnn's version.");
  m.def("artifact_schema_version", &webnn::artifactSchemaVersion, "The .wnn schema version this runtime reads.");
  m.def("cpu_info", [] {
    webnn::CpuInfo c = webnn::cpuInfo();
    py::dict d;
    d["isa"] = c.isa;
    d["features"] = c.features;
    d["bf16_dot_products"] = c.bf16DotProducts;
    return d;
  });
  m.def("load", &load, py::arg("artifact"), py::arg("weights") = py::none(), py::arg("verify_weights") = false);

  py::class_<PyModel>(m, "Model")
      .def_property_readonly("name", [](const PyModel &p) { return p.model().name(); })
      .def_property_readonly("inputs", [](const PyModel &p) {
        py::list l;
        for (const auto &t : p.model().inputs()) l.append(tensorInfo(t));
        return l;
      })
      .def_property_readonly("outputs", [](const PyModel &p) {
        py::list l;
        for (const auto &t : p.model().outputs()) l.append(tensorInfo(t));
        return l;
      })
      .def_property_readonly("num_nodes", [](const PyModel &p) { return p.model().numNodes(); })
      .def_property_readonly("arena_bytes", [](const PyModel &p) { return p.model().arenaBytes(); })
      .def_property_readonly("relaxed_precision", [](const PyModel &p) { return p.model().relaxedPrecision(); })
      .def_property_readonly("dynamic_dimensions", [](const PyModel &p) {
        py::dict d;
        for (const auto &dim : p.model().dynamicDimensions()) d[py::str(dim.name)] = dim.maxSize;
        return d;
      })
      .def_property_readonly("plan", [](const PyModel &p) { return p.model().planText(); })
      // The session keeps what it needs of the model alive on its own.
      .def("session", [](const PyModel &p, int threads, bool profiling, const std::string &wait,
                         const py::object &limits) {
             return std::make_unique<PySession>(p, threads, profiling, wait, limits);
           },
           py::arg("threads") = 1, py::arg("profiling") = false, py::arg("wait") = "default",
           py::arg("limits") = py::none());

  py::class_<PySession>(m, "Session")
      .def("set_input", &PySession::setInput, py::arg("name"), py::arg("array"))
      .def("run", &PySession::run, py::arg("feeds") = py::none())
      .def_property_readonly("inputs", &PySession::inputs)
      .def_property_readonly("outputs", &PySession::outputs)
      .def_property_readonly("threads", &PySession::threads)
      .def_property_readonly("wait", &PySession::wait)
      .def_property_readonly("arena_bytes", &PySession::arenaBytes)
      .def("set_profiling", &PySession::setProfiling, py::arg("on"))
      .def("cancel", &PySession::cancel)
      .def("profile", &PySession::profile);
}
