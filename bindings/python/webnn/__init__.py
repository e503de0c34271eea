"""webnn: run compiled WebNN graphs (.wnn artifacts) from Python.

    import numpy as np, webnn
    webnn.compile("model.onnx", "model.wnn")               # webnnc compile
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
import subprocess

import numpy as np

from ._runtime import Error, Model, Session, artifact_schema_version, cpu_info, load, version
from ._config import WEBNNC_FROM_PACKAGE

__all__ = ["Error", "CompileError", "Model", "Session", "load", "compile", "empty", "version",
           "artifact_schema_version", "cpu_info", "webnnc_path", "ALIGNMENT"]
__version__ = version()

# Inputs in memory aligned to this many bytes (and C-contiguous, of the
# input's own type) are read in place by a session; others are copied.
ALIGNMENT = 64


class CompileError(Exception):
    """webnnc failed. str() is what webnnc printed on stderr; `result` is its
    --json object (status, errors with file/line/column, unsupported_ops,
    exit_code; docs/CLI.md), or None when webnnc printed none."""

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
    """The webnnc that compile() runs: $WEBNNC, else the one installed (or
    built) with this package; None in a runtime-only build."""
    if os.environ.get("WEBNNC"):
        return os.environ["WEBNNC"]
    if not WEBNNC_FROM_PACKAGE:  # a runtime-only build (WEBNN_BUILD_COMPILER=OFF)
        return None
    return os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), WEBNNC_FROM_PACKAGE))


def _flag_values(flag, values, joiner):
    if isinstance(values, dict):
        values = [f"{k}{joiner}{v}" for k, v in values.items()]
    elif isinstance(values, str):
        values = [values]
    return [a for v in values for a in (flag, str(v))]


def _shape_text(shape):
    if isinstance(shape, str):
        return shape
    return "x".join(str(int(d)) for d in shape)


def compile(model, output, *, weightless=False, weights_out=None, precision="exact", shapes=None,
            dynamic_dims=None, const_inputs=None, prepack=False, prepack_threads=None, optimize=True,
            verify_each=False, flags=()):
    """Compiles `model` (.onnx, .webnn, .json or .mlir) into the artifact
    `output` with webnnc, as `webnnc compile MODEL -o OUTPUT --json` does, and
    returns its JSON result as a dict (output path, bytes and SHA-256,
    rewrite counts, compile_ms, ...; docs/CLI.md).

    shapes: {input: (1, 3, 224, 224), dim_param: value}, or a list of
      --shape strings; dynamic_dims: {dim_param: max};
    const_inputs: {input: "tensor.pb"}; flags: more webnnc arguments.
    Raises CompileError with webnnc's messages when it fails."""
    webnnc = webnnc_path()
    if webnnc is None:
        raise CompileError("this webnn package was built without the compiler (WEBNN_BUILD_COMPILER=OFF); "
                           "set WEBNNC to a webnnc to compile with")
    cmd = [webnnc, "compile", os.fspath(model), "-o", os.fspath(output), "--json",
           "--precision", precision]
    if weightless:
        cmd.append("--weightless")
    if weights_out is not None:
        cmd += ["--weights-out", os.fspath(weights_out)]
    if shapes:
        if isinstance(shapes, dict):
            shapes = [f"{k}:{int(v)}" if np.ndim(v) == 0 and not isinstance(v, str) else f"{k}={_shape_text(v)}"
                      for k, v in shapes.items()]
        cmd += _flag_values("--shape", shapes, "")
    if dynamic_dims:
        cmd += _flag_values("--dynamic-dim", dynamic_dims, "=")
    if const_inputs:
        cmd += _flag_values("--const-input", {k: os.fspath(v) for k, v in const_inputs.items()}
                            if isinstance(const_inputs, dict) else const_inputs, "=")
    if prepack:
        cmd.append("--prepack")
    if prepack_threads:
        cmd += ["--prepack-threads", ",".join(str(int(t)) for t in prepack_threads)]
    if not optimize:
        cmd.append("--no-optimize")
    if verify_each:
        cmd.append("--verify-each")
    cmd += [str(f) for f in flags]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True)
    except OSError as e:
        raise CompileError(f"cannot run webnnc ({cmd[0]}): {e.strerror}") from None
    try:
        result = json.loads(p.stdout)
    except ValueError:
        result = None
    if p.returncode != 0 or result is None or result.get("status") != "ok":
        message = p.stderr.strip() or f"webnnc exited with status {p.returncode}"
        raise CompileError(message, result)
    return result
