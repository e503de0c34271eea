// webnn._compiler: the compiler library (webnn/compiler.h) for Python, behind
// webnn.compile() (webnn/__init__.py turns its keywords into these options).
// A module of its own, imported on the first compile, so `import webnn`
// loads no MLIR/LLVM.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <string_view>
#include <vector>

#include "webnn/compiler.h"

namespace py = pybind11;

namespace {

// (exit_code, json, diagnostics, artifact bytes or None, weights bytes or None).
// `source` is a path (str) or the model's bytes (any contiguous buffer, read
// in place and not to be changed during the call), `name` then standing for
// its path.
py::tuple compile(const py::object &source, const std::string &name, const std::string &output,
                  const std::string &weightsOut, bool weightless, const std::string &target,
                  const std::string &precision,
                  const std::vector<std::string> &shapes, const std::vector<std::string> &dynamicDims,
                  const std::vector<std::string> &constInputs, const std::vector<std::string> &externalDataDirs,
                  bool prepack, const std::vector<int> &prepackThreads,
                  bool optimize, bool verifyEach, bool report, const std::string &emit) {
  webnn::compiler::CompileOptions options;
  options.output = output;
  options.weightsOut = weightsOut;
  options.weightless = weightless;
  options.target = target;
  options.precision = precision;
  options.shapes = shapes;
  options.dynamicDims = dynamicDims;
  options.constInputs = constInputs;
  options.externalDataDirs = externalDataDirs;
  options.prepack = prepack;
  options.prepackThreads = prepackThreads;
  options.optimize = optimize;
  options.verifyEach = verifyEach;
  options.report = report;
  options.emit = emit;
  webnn::compiler::CompileResult result;
  if (py::isinstance<py::str>(source)) {
    std::string path = source.cast<std::string>();
    py::gil_scoped_release release;
    result = webnn::compiler::compileFile(path, options);
  } else {
    py::buffer_info info = py::reinterpret_borrow<py::buffer>(source).request();
    std::string_view bytes(static_cast<const char *>(info.ptr), size_t(info.size * info.itemsize));
    py::gil_scoped_release release;
    result = webnn::compiler::compileBuffer(bytes, name, options);
  }
  const bool inMemory = result.ok() && output.empty();
  py::object artifact = inMemory ? py::object(py::bytes(result.artifact)) : py::object(py::none());
  py::object weights = inMemory && weightless && weightsOut.empty() ? py::object(py::bytes(result.weightsBytes))
                                                                    : py::object(py::none());
  return py::make_tuple(result.exitCode, result.json(), result.diagnostics, artifact, weights);
}

}  // namespace

PYBIND11_MODULE(_compiler, m) {
  m.doc() = "The webnn compiler (webnn/compiler.h), in process: model in, .wnn artifact out.";
  m.def("compile", &compile, py::arg("source"), py::arg("name"), py::arg("output"), py::arg("weights_out"),
        py::arg("weightless"), py::arg("target"), py::arg("precision"), py::arg("shapes"), py::arg("dynamic_dims"),
        py::arg("const_inputs"), py::arg("external_data_dirs"), py::arg("prepack"), py::arg("prepack_threads"), py::arg("optimize"),
        py::arg("verify_each"), py::arg("report"), py::arg("emit"));
}
