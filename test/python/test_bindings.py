#!/usr/bin/python3
"""The Python package webnn (bindings/python, docs/PYTHON.md) on small graphs:
compile, load (path and memory, embedded and weightless), inputs/outputs,
run against numpy, zero-copy binding of aligned arrays and copies of the
rest, bool and int4 at the boundary, dynamic dimensions, profiling, and
errors raised with the messages webnn-run and webnnc print. webnn.compile
runs the compiler in process; its results are checked against webnnc's.

    PYTHONPATH=BUILD/python test_bindings.py --bin BUILD/bin --source-dir SRC
"""
import argparse
import os
import subprocess
import sys
import tempfile
import unittest

import numpy as np
import onnx
from onnx import TensorProto, helper

import webnn

ARGS = None


def run_tool(*cmd):
    return subprocess.run(list(cmd), capture_output=True, text=True)


def tool_error(stderr, tool):
    """The message of the first `TOOL: error: MESSAGE` line."""
    for line in stderr.splitlines():
        if line.startswith(f"{tool}: error: "):
            return line[len(f"{tool}: error: "):]
    raise AssertionError(f"no '{tool}: error:' line in {stderr!r}")


class Bindings(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="webnn-python-")
        cls.dir = cls.tmp.name
        cls.mlp_dir = os.path.join(ARGS.source_dir, "examples", "mlp")
        cls.mlp = os.path.join(cls.dir, "mlp.wnn")
        cls.result = webnn.compile(os.path.join(cls.mlp_dir, "mlp.webnn"), cls.mlp)
        cls.x = np.load(os.path.join(cls.mlp_dir, "input.npy"))
        cls.expected = np.load(os.path.join(cls.mlp_dir, "expected.npy"))

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def path(self, name):
        return os.path.join(self.dir, name)

    def mlp_reference(self, x):
        """examples/mlp in numpy, from its weights sidecar."""
        import json
        with open(os.path.join(self.mlp_dir, "mlp.manifest.json")) as f:
            manifest = json.load(f)
        raw = np.fromfile(os.path.join(self.mlp_dir, "mlp.weights"), np.uint8)
        entries = manifest.get("tensors", manifest)
        w = {}
        for name, e in entries.items():
            off, n = e["byteOffset"], e["byteLength"]
            w[name] = raw[off:off + n].view(np.float32).reshape(e["shape"]).astype(np.float64)
        h = np.maximum(x.astype(np.float64) @ w["W1"] + w["b1"], 0)
        z = h @ w["W2"] + w["b2"]
        e = np.exp(z - z.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    def test_compile_result(self):
        r = self.result
        self.assertEqual(r["status"], "ok")
        self.assertEqual(r["output"]["path"], self.mlp)
        self.assertEqual(r["output"]["bytes"], os.path.getsize(self.mlp))
        self.assertEqual(len(r["output"]["sha256"]), 64)
        self.assertEqual(r["version"], webnn.version())

    def test_compile_in_process_matches_webnnc(self):
        """webnn.compile calls the compiler library in this process: the same
        artifact bytes and the same JSON object as `webnnc compile --json`
        (but for the time), from a path and from bytes."""
        src = os.path.join(self.mlp_dir, "mlp.webnn")
        cli_wnn = self.path("mlp-cli.wnn")
        p = run_tool(webnn.webnnc_path(), "compile", src, "-o", cli_wnn, "--json")
        self.assertEqual(p.returncode, 0, p.stderr)
        import json
        cli = json.loads(p.stdout)
        ours = json.loads(json.dumps({k: v for k, v in self.result.items() if k != "diagnostics"}))
        for r in (cli, ours):
            r.pop("compile_ms")
            r["output"].pop("path")
        self.assertEqual(ours, cli)
        with open(cli_wnn, "rb") as f:
            cli_bytes = f.read()
        with open(self.mlp, "rb") as f:
            self.assertEqual(f.read(), cli_bytes)
        # Bytes in, bytes out: nothing written, the same artifact.
        with open(src, "rb") as f:
            r = webnn.compile(f.read(), name=src)
        self.assertEqual(r["artifact"], cli_bytes)
        self.assertNotIn("path", r["output"])
        self.assertEqual(r["output"]["sha256"], cli["output"]["sha256"])
        np.testing.assert_allclose(webnn.load(r["artifact"]).session().run({"x": self.x})["probs"], self.expected,
                                   rtol=1e-5, atol=1e-7)
        # report=True: webnnc --report's table, in diagnostics.
        r = webnn.compile(src, self.path("mlp-report.wnn"), report=True)
        self.assertIn("webnnc: optimization report", r["diagnostics"])
        self.assertIn("bias-adds-fused", r["diagnostics"])
        # emit="mlir": the optimized module as text.
        r = webnn.compile(src, emit="mlir")
        self.assertIn(b"webnn.fusedMatmul", r["artifact"])
        # target="gpu": the same placement and bytes as `webnnc --target gpu`.
        gpu_wnn = self.path("mlp-gpu.wnn")
        p = run_tool(webnn.webnnc_path(), "compile", src, "-o", gpu_wnn, "--target", "gpu", "--json")
        self.assertEqual(p.returncode, 0, p.stderr)
        r = webnn.compile(src, target="gpu")
        self.assertEqual(r["placement"], json.loads(p.stdout)["placement"])
        self.assertEqual(r["placement"]["nodes"], {"gpu": 3})
        with open(gpu_wnn, "rb") as f:
            self.assertEqual(r["artifact"], f.read())
        self.assertNotEqual(r["artifact"], cli_bytes)
        with self.assertRaises(webnn.CompileError) as e:
            webnn.compile(src, target="tpu")
        self.assertIn('target must be "cpu", "gpu" or "auto", got "tpu"', str(e.exception))

    def test_compile_onnx_bytes_weightless_in_memory(self):
        g = helper.make_graph([helper.make_node("Relu", ["x"], ["r"]), helper.make_node("Add", ["r", "c"], ["y"])],
                              "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 4])],
                              [helper.make_tensor("c", TensorProto.FLOAT, [4], [1.0, 2.0, 3.0, 4.0])])
        model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString()
        r = webnn.compile(model, name="relu_add.onnx", shapes={"n": 2}, weightless=True)
        self.assertEqual(r["model"], "relu_add.onnx")
        self.assertEqual(len(r["weights_bytes"]), r["weights"]["bytes"])
        m = webnn.load(r["artifact"], weights=r["weights_bytes"])
        x = np.array([[-1, 2, -3, 4], [5, -6, 7, -8]], np.float32)
        np.testing.assert_array_equal(m.session().run({"x": x})["y"], np.maximum(x, 0) + [1, 2, 3, 4])
        with self.assertRaises(webnn.CompileError) as e:
            webnn.compile(model)
        self.assertIn("needs name=", str(e.exception))
        self.assertIsNone(e.exception.result)
        # Options webnnc's command line would refuse: exit code 2, its message.
        with self.assertRaises(webnn.CompileError) as e:
            webnn.compile(model, name="relu_add.onnx", precision="fast")
        self.assertEqual(str(e.exception), 'webnnc: error: precision must be "exact" or "relaxed", got "fast"')
        self.assertEqual(e.exception.result["exit_code"], 2)
        with self.assertRaises(webnn.CompileError) as e:
            webnn.compile(model, name="relu_add.onnx", shapes=["n"])
        self.assertEqual(e.exception.result["exit_code"], 1)
        self.assertTrue(str(e.exception).startswith("webnnc: error: --shape n: "), str(e.exception))
        # external_data_dirs is webnnc's --external-data-dir, with its message.
        missing = self.path("no-such-folder")
        onnx_file = self.path("relu_add.onnx")
        with open(onnx_file, "wb") as f:
            f.write(model)
        with self.assertRaises(webnn.CompileError) as e:
            webnn.compile(onnx_file, self.path("x.wnn"), shapes={"n": 2}, external_data_dirs=[missing])
        p = run_tool(webnn.webnnc_path(), "compile", onnx_file, "-o", self.path("x.wnn"), "--shape", "n:2",
                     "--external-data-dir", missing)
        self.assertEqual(str(e.exception), p.stderr.strip())
        self.assertIn("not a folder", str(e.exception))

    def test_import_loads_no_compiler(self):
        """`import webnn` and running a model load no MLIR/LLVM; the first
        compile does."""
        script = ("import sys, webnn\n"
                  "def mlir(): return any('libMLIR' in l for l in open('/proc/self/maps'))\n"
                  "webnn.load(sys.argv[1]).session()\n"
                  "before = mlir()\n"
                  "webnn.compile(sys.argv[2])\n"
                  "print(before, mlir())\n")
        p = subprocess.run([sys.executable, "-c", script, self.mlp, os.path.join(self.mlp_dir, "mlp.webnn")],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.split(), ["False", "True"])

    def test_model_info(self):
        m = webnn.load(self.mlp)
        self.assertEqual(m.name, "mlp")
        self.assertEqual([(t["name"], t["dtype"], t["shape"]) for t in m.inputs], [("x", "float32", (1, 64))])
        self.assertEqual([(t["name"], t["dtype"], t["shape"], t["byte_size"]) for t in m.outputs],
                         [("probs", "float32", (1, 10), 40)])
        self.assertEqual(m.inputs[0]["numpy_dtype"], np.float32)
        self.assertIsNone(m.inputs[0]["dynamic_dims"])
        # Graph inputs and constants are no nodes.
        ops = {k: v["after"] for k, v in self.result["ops"].items() if k not in ("input", "constant")}
        self.assertEqual(m.num_nodes, sum(ops.values()))
        self.assertGreater(m.arena_bytes, 0)
        self.assertEqual(webnn.artifact_schema_version(), self.result["artifact_schema_version"])

    def test_run_matches_numpy(self):
        s = webnn.load(self.mlp).session(threads=2)
        self.assertEqual((s.threads, s.wait), (2, "default"))
        for wait in ("spin", "block"):
            y = webnn.load(self.mlp).session(threads=2, wait=wait).run({"x": self.x})["probs"]
            np.testing.assert_allclose(y, self.expected, rtol=1e-5, atol=1e-7)
        with self.assertRaises(webnn.Error) as e:
            webnn.load(self.mlp).session(wait="nap")
        self.assertEqual(str(e.exception), 'wait must be "default", "spin" or "block", got "nap"')
        with self.assertRaises(webnn.Error) as e:
            webnn.load(self.mlp).session(threads=0)
        self.assertEqual(e.exception.code, "invalid_argument")
        rng = np.random.default_rng(3)
        for x in [self.x, rng.standard_normal((1, 64)).astype(np.float32)]:
            y = s.run({"x": x})
            self.assertEqual(list(y), ["probs"])
            self.assertEqual((y["probs"].dtype, y["probs"].shape), (np.float32, (1, 10)))
            np.testing.assert_allclose(y["probs"], self.mlp_reference(x), rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(s.run({"x": self.x})["probs"], self.expected, rtol=1e-5, atol=1e-7)
        # A list is taken as an array of the input's type.
        np.testing.assert_allclose(s.run({"x": self.x.tolist()})["probs"], self.expected, rtol=1e-5, atol=1e-7)

    def test_outputs_are_copies(self):
        s = webnn.load(self.mlp).session()
        first = s.run({"x": self.x})["probs"]
        kept = first.copy()
        s.run({"x": np.zeros_like(self.x)})
        np.testing.assert_array_equal(first, kept)

    def test_zero_copy_binding(self):
        """An aligned C-contiguous array is read in place: changing it after
        binding changes the next run. Anything else is copied at binding."""
        s = webnn.load(self.mlp).session()
        other = np.random.default_rng(5).standard_normal((1, 64)).astype(np.float32)
        want_x, want_other = self.mlp_reference(self.x), self.mlp_reference(other)

        aligned = webnn.empty((1, 64), np.float32)
        self.assertEqual(aligned.ctypes.data % webnn.ALIGNMENT, 0)
        aligned[...] = self.x
        self.assertTrue(s.set_input("x", aligned))
        aligned[...] = other
        np.testing.assert_allclose(s.run()["probs"], want_other, rtol=1e-5, atol=1e-7)
        # The session keeps the bound array alive.
        del aligned
        np.testing.assert_allclose(s.run()["probs"], want_other, rtol=1e-5, atol=1e-7)

        raw = np.zeros(64 * 4 + 128, np.uint8)
        base = (-raw.ctypes.data) % 64 + 4  # 4 bytes past a 64-byte boundary
        unaligned = raw[base:base + 256].view(np.float32).reshape(1, 64)
        unaligned[...] = self.x
        self.assertFalse(s.set_input("x", unaligned))
        unaligned[...] = other
        np.testing.assert_allclose(s.run()["probs"], want_x, rtol=1e-5, atol=1e-7)

        strided = np.repeat(self.x, 2, axis=1)[:, ::2]
        self.assertFalse(strided.flags.c_contiguous)
        self.assertFalse(s.set_input("x", strided))
        np.testing.assert_allclose(s.run()["probs"], want_x, rtol=1e-5, atol=1e-7)

    def test_load_from_memory_and_weightless(self):
        wnn, weights = self.path("mlp-weightless.wnn"), self.path("mlp-weightless.weights")
        r = webnn.compile(os.path.join(self.mlp_dir, "mlp.webnn"), wnn, weightless=True, weights_out=weights)
        self.assertEqual(r["weights"]["path"], weights)
        with open(wnn, "rb") as f:
            graph = f.read()
        with open(weights, "rb") as f:
            weight_bytes = f.read()
        with open(self.mlp, "rb") as f:
            embedded = f.read()
        for how, model in [("paths", webnn.load(wnn, weights=weights)),
                           ("bytes", webnn.load(graph, weights=weight_bytes)),
                           ("bytearray", webnn.load(bytearray(graph), weights=bytearray(weight_bytes))),
                           ("embedded bytes", webnn.load(memoryview(embedded)))]:
            with self.subTest(how):
                y = model.session().run({"x": self.x})["probs"]
                np.testing.assert_allclose(y, self.expected, rtol=1e-5, atol=1e-7)
        with self.assertRaises(webnn.Error) as e:
            webnn.load(graph)
        self.assertEqual(e.exception.code, "invalid_artifact")
        self.assertEqual(str(e.exception), "<artifact in memory>: weights are in a separate file; pass its bytes too")
        with self.assertRaises(webnn.Error) as e:  # from memory, weights come as bytes too
            webnn.load(graph, weights=weights)
        self.assertIn("weights as bytes", str(e.exception))
        with self.assertRaises(webnn.Error) as e:  # and bytes weights need bytes for the graph
            webnn.load(wnn, weights=weight_bytes)
        self.assertEqual(str(e.exception),
                         f"{wnn}: weights given as bytes need the artifact as bytes too (read the file first)")

    def test_bool_boundary(self):
        g = helper.make_graph(
            [helper.make_node("And", ["a", "b"], ["y"]), helper.make_node("Not", ["a"], ["n"])], "logic",
            [helper.make_tensor_value_info("a", TensorProto.BOOL, [5]),
             helper.make_tensor_value_info("b", TensorProto.BOOL, [5])],
            [helper.make_tensor_value_info("y", TensorProto.BOOL, [5]),
             helper.make_tensor_value_info("n", TensorProto.BOOL, [5])])
        model = self.path("logic.onnx")
        onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), model)
        m = webnn.load(webnn.compile(model, self.path("logic.wnn"))["output"]["path"])
        self.assertEqual([t["dtype"] for t in m.inputs + m.outputs], ["bool"] * 4)
        s = m.session()
        a = np.array([True, False, True, False, True])
        b = np.array([True, True, False, False, True])
        for a_in in [a, np.array([7, 0, 255, 0, 1], np.uint8)]:  # uint8: nonzero is true
            out = s.run({"a": a_in, "b": b})
            self.assertEqual(out["y"].dtype, np.bool_)
            np.testing.assert_array_equal(out["y"], a & b)
            np.testing.assert_array_equal(out["n"], ~a)
        with self.assertRaises(webnn.Error) as e:
            s.run({"a": a.astype(np.int32), "b": b})
        self.assertEqual(str(e.exception), "input 'a': expected bool [5] (bool or uint8), got int32 [5]")

    def test_int4_boundary(self):
        src = self.path("int4.webnn")
        with open(src, "w") as f:
            f.write('webnn_graph "int4" v1 {\n'
                    '  inputs { q: i4[2, 3]; s: f32[2, 3]; zp: i4[2, 3]; }\n'
                    '  nodes { y = dequantizeLinear(q, s, zp); r = reshape(q, newShape=[3, 2]); }\n'
                    '  outputs { y; r; }\n}\n')
        m = webnn.load(webnn.compile(src, self.path("int4.wnn"))["output"]["path"])
        self.assertEqual(m.inputs[0]["dtype"], "int4")
        self.assertEqual(m.inputs[0]["numpy_dtype"], np.int8)
        self.assertEqual(m.inputs[0]["byte_size"], 3)  # packed two per byte
        s = m.session()
        q = np.array([[-8, -1, 0], [1, 5, 7]], np.int8)  # an odd count per row: packing crosses rows
        zp = np.array([[0, 1, -1], [2, 0, -8]], np.int8)
        scale = np.array([[0.5, 0.25, 2], [1, 0.125, 4]], np.float32)
        out = s.run({"q": q, "s": scale, "zp": zp})
        np.testing.assert_array_equal(out["y"], (q.astype(np.float32) - zp) * scale)
        self.assertEqual(out["r"].dtype, np.int8)
        np.testing.assert_array_equal(out["r"], q.reshape(3, 2))
        with self.assertRaises(webnn.Error) as e:
            s.run({"q": np.array([[9, 0, 0], [0, 0, 0]], np.int8)})
        self.assertEqual(str(e.exception), "input 'q': element 0 = 9 does not fit in int4")
        with self.assertRaises(webnn.Error) as e:
            s.run({"q": q.astype(np.int32)})
        self.assertEqual(str(e.exception), "input 'q': expected int4 [2,3] (as int8), got int32 [2,3]")

    def test_dynamic_dimensions(self):
        g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "dyn",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["seq", 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["seq", 4])])
        model = self.path("dyn.onnx")
        onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), model)
        wnn = self.path("dyn.wnn")
        webnn.compile(model, wnn, dynamic_dims={"seq": 8})
        m = webnn.load(wnn)
        self.assertEqual(m.dynamic_dimensions, {"seq": 8})
        self.assertEqual(m.inputs[0]["dynamic_dims"], ["seq", None])
        s = m.session()
        for n in (3, 8, 1):
            x = np.random.default_rng(n).standard_normal((n, 4)).astype(np.float32)
            y = s.run({"x": x})["y"]
            self.assertEqual(y.shape, (n, 4))
            np.testing.assert_array_equal(y, np.maximum(x, 0))
        with self.assertRaises(webnn.Error) as e:
            s.run({"x": np.zeros((9, 4), np.float32)})
        self.assertEqual(str(e.exception), "input 'x': expected float32 [seq<=8,4], got float32 [9,4]")

    def loop_model(self):
        """v = x + M (a run-time ONNX Loop: M is a graph input, so it stays a loop)."""
        path = self.path("loop.wnn")
        if not os.path.exists(path):
            F, I64, B = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL
            vi = helper.make_tensor_value_info
            one = helper.make_node("Constant", [], ["one"],
                                   value=helper.make_tensor("k", F, [2], [1.0, 1.0]))
            body = helper.make_graph(
                [one, helper.make_node("Add", ["v_in", "one"], ["v_out"]),
                 helper.make_node("Identity", ["c_in"], ["c_out"])],
                "body", [vi("i", I64, []), vi("c_in", B, []), vi("v_in", F, [2])],
                [vi("c_out", B, []), vi("v_out", F, [2])])
            g = helper.make_graph([helper.make_node("Loop", ["M", "", "x"], ["v"], body=body)], "loop",
                                  [vi("M", I64, []), vi("x", F, [2])], [vi("v", F, [2])])
            onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 16)]), self.path("loop.onnx"))
            webnn.compile(self.path("loop.onnx"), path)
        return webnn.load(path)

    def test_cancel_from_another_thread(self):
        import threading
        import time
        m = self.loop_model()
        x = np.array([1, 2], np.float32)
        # The limit on loop iterations raised so only cancel() ends the 2^62-iteration loop.
        s = m.session(limits={"max_loop_iterations": 1 << 62})
        s.cancel()  # with no run in progress: forgotten
        np.testing.assert_array_equal(s.run({"M": np.array(3, np.int64), "x": x})["v"], [4, 5])
        result = {}

        def runner():
            try:
                s.run({"M": np.array(1 << 62, np.int64), "x": x})
                result["error"] = None
            except webnn.Error as e:
                result["error"] = e
        t = threading.Thread(target=runner)
        t.start()
        time.sleep(0.2)
        self.assertTrue(t.is_alive(), "the 2^62-iteration loop ended by itself")
        start = time.monotonic()
        while t.is_alive() and time.monotonic() - start < 20:
            s.cancel()
            t.join(0.01)
        self.assertFalse(t.is_alive(), "cancel() did not stop the run within 20 s")
        e = result["error"]
        self.assertIsNotNone(e)
        self.assertEqual(e.code, "cancelled")
        self.assertIn("run cancelled at", str(e))
        # The session stays usable.
        np.testing.assert_array_equal(s.run({"M": np.array(2, np.int64), "x": x})["v"], [3, 4])

    def test_limits(self):
        m = self.loop_model()
        x = np.array([1, 2], np.float32)
        s = m.session(limits={"max_loop_iterations": 4})
        with self.assertRaises(webnn.Error) as e:
            s.run({"M": np.array(5, np.int64), "x": x})
        self.assertEqual(e.exception.code, "limit_exceeded")
        self.assertIn("loop iterations in this run is 5, above the limit of 4", str(e.exception))
        self.assertIn("max_loop_iterations", str(e.exception))
        s = m.session(limits={"max_loop_iterations": 5})
        np.testing.assert_array_equal(s.run({"M": np.array(5, np.int64), "x": x})["v"], [6, 7])
        with self.assertRaises(webnn.Error) as e:
            m.session(limits={"max_nodes": 0})
        self.assertEqual(e.exception.code, "limit_exceeded")
        with self.assertRaises(webnn.Error) as e:
            m.session(limits={"max_loops": 1})
        self.assertIn("unknown limit 'max_loops'", str(e.exception))
        with self.assertRaises(webnn.Error) as e:
            m.session(limits={"max_nodes": -1})
        self.assertIn("non-negative integer", str(e.exception))

    def test_profile(self):
        s = webnn.load(self.mlp).session(profiling=True)
        for _ in range(3):
            s.run({"x": self.x})
        runs, nodes = s.profile()
        self.assertEqual(runs, 3)
        self.assertEqual(len(nodes), webnn.load(self.mlp).num_nodes)
        self.assertEqual([n["op"] for n in nodes], ["fusedMatmul", "fusedMatmul", "softmax"])
        self.assertTrue(all(n["total_ms"] >= 0 for n in nodes))

    def test_errors_match_the_tools(self):
        """Load errors carry the runtime's message, as webnn-run prints it;
        run-time checks the messages webnn-run gives; compile errors are
        webnnc's stderr."""
        webnn_run = os.path.join(ARGS.bin, "webnn-run")
        missing = self.path("missing.wnn")
        truncated = self.path("truncated.wnn")
        with open(self.mlp, "rb") as f, open(truncated, "wb") as g:
            g.write(f.read()[:100])
        for path, code in [(missing, "io"), (truncated, "invalid_artifact")]:
            with self.subTest(path):
                with self.assertRaises(webnn.Error) as e:
                    webnn.load(path)
                self.assertEqual(e.exception.code, code)
                self.assertIsInstance(e.exception, RuntimeError)
                self.assertEqual(str(e.exception), tool_error(run_tool(webnn_run, path).stderr, "webnn-run"))

        s = webnn.load(self.mlp).session()
        cases = [({"x": self.x.reshape(2, 32)}, "x.npy"), ({"x": self.x.astype(np.float64)}, "x64.npy"),
                 ({"nope": self.x}, None)]
        for feeds, npy in cases:
            with self.subTest(feeds=list(feeds)):
                with self.assertRaises(webnn.Error) as e:
                    s.run(feeds)
                self.assertEqual(e.exception.code, "invalid_argument")
                name, value = next(iter(feeds.items()))
                file = self.path(npy or "x-any.npy")
                np.save(file, value)
                want = tool_error(run_tool(webnn_run, self.mlp, "--input", f"{name}={file}").stderr, "webnn-run")
                self.assertEqual(str(e.exception), want.replace(" from " + file, ""))

        bad = self.path("bad.webnn")
        with open(bad, "w") as f:
            f.write('webnn_graph "bad" v1 {\n  inputs { x: f32[2]; }\n  nodes { y = frobnicate(x); }\n'
                    '  outputs { y; }\n}\n')
        with self.assertRaises(webnn.CompileError) as e:
            webnn.compile(bad, self.path("bad.wnn"))
        p = run_tool(webnn.webnnc_path(), "compile", bad, "-o", self.path("bad.wnn"))
        self.assertNotEqual(p.returncode, 0)
        self.assertEqual(str(e.exception), p.stderr.strip())
        self.assertEqual(e.exception.result["status"], "error")
        self.assertIn("frobnicate", str(e.exception))

        g = helper.make_graph([helper.make_node("Frobnicate", ["x"], ["y"])], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
        model = self.path("unsupported.onnx")
        onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), model)
        with self.assertRaises(webnn.CompileError) as e:
            webnn.compile(model, self.path("unsupported.wnn"))
        self.assertEqual(e.exception.unsupported_ops,
                         [{"domain": "ai.onnx", "op_type": "Frobnicate", "opset": 13, "nodes": ["Frobnicate_0"]}])

    def test_runtime_only_build_has_no_compile(self):
        saved, env = (webnn.WEBNNC_FROM_PACKAGE, webnn.HAVE_COMPILER), os.environ.pop("WEBNNC", None)
        try:
            # What a WEBNN_BUILD_COMPILER=OFF build writes in _config.py.
            webnn.WEBNNC_FROM_PACKAGE, webnn.HAVE_COMPILER = "", False
            self.assertIsNone(webnn.webnnc_path())
            with self.assertRaises(webnn.CompileError) as e:
                webnn.compile(os.path.join(self.mlp_dir, "mlp.webnn"), self.path("none.wnn"))
            self.assertIn("built without the compiler", str(e.exception))
            self.assertFalse(os.path.exists(self.path("none.wnn")))
        finally:
            webnn.WEBNNC_FROM_PACKAGE, webnn.HAVE_COMPILER = saved
            if env is not None:
                os.environ["WEBNNC"] = env


def main():
    global ARGS
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True, help="the build's bin folder (webnn-run)")
    ap.add_argument("--source-dir", required=True)
    ARGS, rest = ap.parse_known_args()
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)


if __name__ == "__main__":
    main()
