"""webnn: run compiled WebNN graphs (.wnn artifacts) from Python.

    import numpy as np, webnn
    webnn.compile("model.onnx", "model.wnn")               # the compiler, in process
    model = webnn.load("model.wnn")                         # weights=... for a weightless artifact
    session = model.session(threads=4)
    outputs = session.run({"x": np.zeros((1, 3, 224, 224), np.float32)})   # {name: numpy array}

A failed load or run raises webnn.Error with the runtime's message (its
`code` says which kind: "invalid_argument", "invalid_artifact", "io", ...);
a failed compile raises webnn.CompileError with webnnc's messages.
docs/PYTHON.md has the whole API.
"""
import json
import os

import numpy as np

from ._runtime import Error, Model, Session, artifact_schema_version, cpu_info, load, version
from ._config import HAVE_COMPILER, WEBNNC_FROM_PACKAGE

__all__ = ["Error", "CompileError", "Model", "Session", "load", "compile", "empty", "version",
           "artifact_schema_version", "cpu_info", "webnnc_path", "ALIGNMENT"]
__version__ = version()

# Inputs in memory aligned to this many bytes (and C-contiguous, of the
# input's own type) are read in place by a session; others are copied.
ALIGNMENT = 64


class CompileError(Exception):
    """A compile failed. str() is what webnnc prints on stderr for the same
    compile; `result` is its --json object (status, errors with
    file/line/column, unsupported_ops, exit_code; docs/CLI.md), or None when
    no compile ran (no compiler in this build, a bad argument)."""

    def __init__(self, message, result=None):
        super().__init__(message)
        self.result = result

    @property
    def unsupported_ops(self):
        return (self.result or {}).get("unsupported_ops", [])


def empty(shape, dtype=np.float32):
    """An uninitialized C-contiguous array whose data is ALIGNMENT-byte
    aligned, so a session binds it without a copy."""
    dtype = np.dtype(dtype)
    shape = tuple(shape) if np.ndim(shape) else (int(shape),)
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    raw = np.empty(nbytes + ALIGNMENT, np.uint8)
    offset = (-raw.ctypes.data) % ALIGNMENT
    return raw[offset:offset + nbytes].view(dtype).reshape(shape)


def webnnc_path():
    """The webnnc command-line compiler installed (or built) with this package,
    or $WEBNNC when set; None in a runtime-only build. compile() does not run
    it: it calls the same compiler in process."""
    if os.environ.get("WEBNNC"):
        return os.environ["WEBNNC"]
    if not WEBNNC_FROM_PACKAGE:  # a runtime-only build (WEBNN_BUILD_COMPILER=OFF)
        return None
    return os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), WEBNNC_FROM_PACKAGE))


def _flag_values(values, joiner):
    if isinstance(values, dict):
        return [f"{k}{joiner}{v}" for k, v in values.items()]
    if isinstance(values, str):
        return [values]
    return [str(v) for v in values]


def _shape_text(shape):
    if isinstance(shape, str):
        return shape
    return "x".join(str(int(d)) for d in shape)


def _compiler_module():
    """The compiler module (webnn._compiler), imported on first use so that
    `import webnn` loads no MLIR/LLVM."""
    if not HAVE_COMPILER:
        raise CompileError("this webnn package was built without the compiler (WEBNN_BUILD_COMPILER=OFF); "
                           "compile with a compiler build's webnn or webnnc")
    try:
        from . import _compiler as module
    except ImportError as e:
        raise CompileError(f"cannot load the webnn compiler module: {e}") from None
    return module


def compile(model, output=None, *, name=None, weightless=False, weights_out=None, target="cpu", precision="exact",
            shapes=None, dynamic_dims=None, const_inputs=None, external_data_dirs=None, prepack=False,
            prepack_threads=None, optimize=True, verify_each=False, report=False, emit="artifact"):
    """Compiles `model` into a .wnn artifact in this process, as
    `webnnc compile MODEL -o OUTPUT --json` does, and returns the same JSON
    result as a dict (output bytes and SHA-256, rewrite counts, op counts,
    unsupported_ops, compile_ms, ...; docs/CLI.md), plus `diagnostics`: what
    webnnc prints on stderr (warnings, notes, the report=True table).

    model: a path (.onnx, .webnn, .json or .mlir), or the model's bytes with
      `name` standing for its path (its extension picks the front end; a
      .webnn's weights sidecar and ONNX external data are found beside it);
    output: the artifact's path, or None to get its bytes in
      result["artifact"] (and a weightless compile's weights in
      result["weights_bytes"] unless weights_out names a file);
    target: "cpu", "gpu" or "auto", where each node is placed (--target,
      docs/BACKENDS.md; the result's "placement" says what went where);
    shapes: {input: (1, 3, 224, 224), dim_param: value}, or a list of
      --shape strings; dynamic_dims: {dim_param: max};
    const_inputs: {input: "tensor.pb"}; external_data_dirs: folders ONNX
    external data may resolve into through a symlink (--external-data-dir);
    emit: "artifact" or "mlir".
    Raises CompileError with webnnc's messages when it fails."""
    compiler = _compiler_module()
    if isinstance(model, (bytes, bytearray, memoryview)):
        if name is None:
            raise CompileError("a model given as bytes needs name=, the file name it stands for "
                               "(e.g. \"model.onnx\"): its extension picks the front end")
        source, name = model, os.fspath(name)
    else:
        source = os.fspath(model)
        name = source
    if shapes and isinstance(shapes, dict):
        shapes = [f"{k}:{int(v)}" if np.ndim(v) == 0 and not isinstance(v, str) else f"{k}={_shape_text(v)}"
                  for k, v in shapes.items()]
    if const_inputs and isinstance(const_inputs, dict):
        const_inputs = {k: os.fspath(v) for k, v in const_inputs.items()}
    code, text, diagnostics, artifact, weights = compiler.compile(
        source, name, "" if output is None else os.fspath(output),
        "" if weights_out is None else os.fspath(weights_out), bool(weightless), target, precision,
        _flag_values(shapes or [], ""), _flag_values(dynamic_dims or [], "="),
        _flag_values(const_inputs or [], "="), [os.fspath(d) for d in (external_data_dirs or [])], bool(prepack), [int(t) for t in (prepack_threads or [])],
        bool(optimize), bool(verify_each), bool(report), emit)
    result = json.loads(text)
    if code != 0:
        raise CompileError(diagnostics.strip() or f"compile failed (exit status {code})", result)
    result["diagnostics"] = diagnostics
    if artifact is not None:
        result["artifact"] = artifact
    if weights is not None:
        result["weights_bytes"] = weights
    return result
