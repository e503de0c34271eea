#!/usr/bin/env python3
"""webnnc vs ONNX Runtime, side by side, on the same machine in the same minutes.

    python3 bench/run.py [--models resnet50,mobilenetv2,bert_base,minilm]
                         [--threads 1,2] [--warmup 3] [--startup-runs 6]
                         [--paced [--pairs 20] [--burst-ms 50] [--gap-ms 300]]      (the default)
                         [--per-process [--rounds 5] [--iters 20] [--seconds-per-run 10]]
                         [--build-dir DIR] [--cache-dir bench/.models]
                         [--json] [--markdown FILE] [--no-peak] [--precision exact|relaxed]
                         [--no-prepack]
    python3 bench/run.py --smoke      # tiny CNN, 2 pairs (1 round): fails on crash or mismatch
    python3 bench/run.py --suite broad|int8|heldout [options as above]

--suite broad: one model of each family (SUITES, bench/models/export_models.py)
and a line per thread count with the geometric mean of ORT/webnnc. --suite
int8: ResNet-50, MobileNetV2 and BERT-base quantized to int8 QDQ by
bench/quantize_qdq.py (cached as NAME_int8.onnx), ORT running its int8
kernels; agreement with ORT's int8 output within INT8_ATOL of its largest
magnitude, and a second table against the float model over
INT8_EVAL_INPUTS inputs: top-1 agreement (classifier outputs) and max error.
--suite heldout: twelve models and shapes that no other suite holds (ResNet-18,
MobileNetV3-Small, ShuffleNetV2 x0.5 (profiled since) and x1.5, RegNetX-400MF,
EfficientNet-B1 at 240, MnasNet 0.5, SqueezeNet 1.0, LRASPP-MobileNetV3 at 320, MobileNetV2 at 160,
MiniLM at sequence 64, a 1-layer LSTM over 100 frames; export_models.py says
what each is), kept out of profiling and tuning: it is reported beside
"broad" to show whether that suite's figures generalize.

For each model (exported by bench/models/export_models.py) and each thread count:
compile once with webnnc (timed; with --prepack for the benchmarked thread
counts unless --no-prepack, so start-up maps packed weights instead of packing
them), write seeded random inputs, then time the cell.

--paced (the default): one `webnn-run --paced` and one `ort_bench.js --paced`
process for the whole cell, both on the same CPUs (with fewer threads than
CPUs: the first T of them; --no-pin: anywhere), started one after the other,
each doing its first run and --warmup runs before it says it is ready. Then
--pairs pairs of bursts, A B, B A, A B, ...: each burst asks its process over
the pipe for N+1 runs and drops the first (the caches the other process
evicted), N at least 2 and at least --burst-ms of the faster runtime's runs
(sized by one probe burst of each). Before each burst run.py waits until the
other process's threads have used under 0.1 ms of CPU for 5 ms (at most
--gap-ms): ORT's intra-op pool spins for ~40 ms after a run at 2 threads,
which would otherwise land in our burst. A figure is the median over all the
kept runs of one runtime; ratio = ORT median / webnnc median; "pairs" gives
the median and 10th-90th percentile of each pair's ratio of burst medians: the two
runtimes seconds apart rather than processes apart, so a change of the host's
speed between two processes no longer lands in one runtime's figure alone.

--per-process: alternate
--rounds rounds of `webnn-run --bench K --json` and `node bench/ort_bench.js`
(ONNX Runtime for Node, graph optimizations 'all', intra-op threads T, inter-op
1, sequential), the order flipping every round so a drift of the VM's clock
hits both alike; with fewer threads than CPUs both processes of a round run
on the same CPUs, the rounds walking over them (--no-pin: wherever the
scheduler puts them), so a vCPU slower than another for a while slows both
runtimes alike. Each figure in the table is the median over rounds of the
per-round median; "per round" gives the lowest and highest ratio of one
round's two processes, the spread the host's state left.

Start-up (load + session + first run) is one sample per process, so
--startup-runs more processes per runtime, alternating, only load and run
once; its median is over those and the timed processes (the rounds', or the
cell's paced one). Outputs are compared (webnn-run --output-dir vs ORT's:
the first round's, or a paced process's at its end), peak RSS is read per
child by bench/micro/maxrss.cpp.

--precision relaxed compiles our side with `webnnc compile --precision relaxed`
(bf16 conv/matmul operands, float32 accumulation, on CPUs with AVX512-BF16);
ORT stays float32. Agreement is then checked at bf16's tolerance (see
TOLERANCES) and each cell records what webnn-run really ran ("dot_products":
bf16, or float32 when the CPU has no AVX512-BF16).

FLOP counts come from the ONNX graph (2 x MACs of Conv, ConvTranspose, Gemm and
MatMul); the "% of peak" column divides achieved GFLOP/s by the fp32 FMA peak
that bench/micro/peak.cpp measures for that thread count.

Exit status: 0 when every model that compiled ran and agreed with ORT; 1 when
a run crashed or outputs disagreed (and, with --smoke, when the model did not
compile); 2 on a usage error; 77 when a benchmark dependency (torch,
onnxruntime-node) is missing: run bench/install-bench-deps.sh. Timing never
fails a run.
"""
import argparse
import json
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)
DEFAULT_CACHE = os.path.join(BENCH, ".models")
ALL_MODELS = ["resnet50", "mobilenetv2", "bert_base", "minilm"]
# --suite NAME: model lists. "broad" is one model of each family a user might
# bring (bench/models/export_models.py); "int8" the QDQ models that
# bench/quantize_qdq.py makes from float ones (NAME_int8); "heldout" models and
# shapes in no other suite, never profiled or tuned on, to check that what was
# tuned on "broad" holds elsewhere.
SUITES = {
    "default": ALL_MODELS,
    "broad": ["efficientnet_b0", "mobilenetv3_large", "shufflenetv2", "densenet121", "convnext_tiny", "vit_b16",
              "swin_t", "regnety_400mf", "resnext50", "squeezenet", "googlenet", "mnasnet", "deeplabv3_mbv3",
              "transformer", "audio_encoder", "lstm_tagger", "gru_stack"],
    "int8": ["resnet50_int8", "mobilenetv2_int8", "bert_base_int8"],
    "heldout": ["resnet18", "mobilenetv3_small", "shufflenetv2_x05", "shufflenetv2_x15", "regnetx_400mf",
                "efficientnet_b1", "mnasnet05", "squeezenet10", "lraspp_mbv3", "mobilenetv2_160", "minilm_s64", "lstm_frames"],
}
INT8_SUFFIX = "_int8"
INT8_EVAL_INPUTS = 8  # inputs for the int8-vs-float agreement figures
SKIP = 77  # ctest's conventional "skipped" exit code

# Agreement rule: |ours - ort| <= ATOL * max|ort| + RTOL * |ort|, elementwise.
# Relaxed precision rounds every conv/matmul operand to bf16 (8 significant
# bits): elementwise relative bounds mean nothing for small values, so it is
# held to 3% of the output's largest magnitude (measured: ~4e-3 on ResNet-50
# logits, ~3e-3 on BERT-base hidden states; docs/PERFORMANCE.md).
TOLERANCES = {"exact": (1e-3, 1e-4), "relaxed": (0.0, 3e-2)}  # (RTOL, ATOL)
# An int8 QDQ model against ORT's int8 kernels: a value one quantization step
# off after any requantization moves everything downstream by a step, so
# elementwise bounds mean nothing; held to 10% of the output's largest magnitude
# (BERT-base int8 is itself 13% from float on its hidden states).
INT8_ATOL = 1e-1
RTOL, ATOL = TOLERANCES["exact"]

# Used for "% of peak" only when the microbenchmark is not run (--no-peak):
# shared/notes/cpu-kernels.md, register-bound FMA loop on this machine class.
NOTED_PEAK_GFLOPS = {1: 230.0, 2: 455.0}

CHILD_TIMEOUT_S = 3600

# The default timing mode (--paced or --per-process) and --paced's sleep
# before each burst (docs/PERFORMANCE.md, Method).
DEFAULT_PACED = True
DEFAULT_GAP_MS = 300.0
# --paced: a runtime counts as idle once its threads used under 0.1 ms of CPU
# in this long (PacedChild.wait_idle).
IDLE_WINDOW_MS = 5.0


def log(msg):
    print(msg, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------
# Children: run one command, with its own peak RSS.
# --------------------------------------------------------------------------

class Child:
    def __init__(self, rc, stdout, stderr, max_rss_mb, wall_s):
        self.rc, self.stdout, self.stderr = rc, stdout, stderr
        self.max_rss_mb, self.wall_s = max_rss_mb, wall_s

    def first_error_line(self):
        for line in self.stderr.splitlines():
            if line.strip():
                return line.strip()
        if self.rc < 0:
            return "killed by signal %d" % -self.rc
        return "exit code %d" % self.rc


_MAXRSS = None  # path of the compiled bench/micro/maxrss.cpp launcher


def run_child(cmd, timeout=CHILD_TIMEOUT_S, env=None, cpus=None):
    """Runs cmd to completion under the maxrss launcher (see maxrss.cpp for why
    getrusage() here would be wrong), in its own process group so a timeout
    kills the whole tree; on the CPUs `cpus` when given (pin_for_round)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.NamedTemporaryFile("r", suffix=".rss") as rss:
        t0 = time.monotonic()
        proc = subprocess.Popen([_MAXRSS, rss.name] + cmd, stdout=out, stderr=err,
                                stdin=subprocess.DEVNULL, start_new_session=True,
                                env=dict(os.environ, **env) if env else None,
                                preexec_fn=(lambda: os.sched_setaffinity(0, cpus)) if cpus else None)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        wall = time.monotonic() - t0
        fields = rss.read().split()
        rc, max_rss_mb = proc.returncode, None
        if len(fields) == 2:
            rc, max_rss_mb = int(fields[0]), int(fields[1]) / 1024.0
        out.seek(0)
        err.seek(0)
        stderr = err.read().decode(errors="replace")
        if wall > timeout:
            stderr = "timed out after %d s\n" % timeout + stderr
        return Child(rc, out.read().decode(errors="replace"), stderr, max_rss_mb, wall)


class PacedError(Exception):
    pass


class PacedChild:
    """One runtime's process for a whole cell, started with --paced and driven
    over its stdin: burst(n) asks for n timed runs and returns their
    milliseconds (the protocol: docs/CLI.md, webnn-run --paced). Under the
    maxrss launcher like run_child, on the CPUs `cpus`; the process group is
    killed if the cell outlives `timeout`."""

    def __init__(self, cmd, env=None, cpus=None, timeout=CHILD_TIMEOUT_S):
        self._err = tempfile.TemporaryFile()
        self._rss = tempfile.NamedTemporaryFile("r", suffix=".rss")
        self.proc = subprocess.Popen([_MAXRSS, self._rss.name] + cmd, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self._err, start_new_session=True,
                                     env=dict(os.environ, **env) if env else None,
                                     preexec_fn=(lambda: os.sched_setaffinity(0, cpus)) if cpus else None)
        self._timer = threading.Timer(timeout, self._kill)
        self._timer.daemon = True
        self._timer.start()
        self.header = self._answer()  # load_ms, session_ms, first_run_ms, ... once warm
        try:  # the runtime's own process, the launcher's child
            with open("/proc/%d/task/%d/children" % (self.proc.pid, self.proc.pid)) as f:
                self._runtime_pid = int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            self._runtime_pid = None

    def cpu_state(self):
        """(CPU time of all the runtime's threads so far in ns, whether any
        of them is running or runnable), or None where /proc does not say."""
        if self._runtime_pid is None:
            return None
        total, runnable = 0, False
        try:
            tids = os.listdir("/proc/%d/task" % self._runtime_pid)
        except OSError:
            return None
        for tid in tids:
            try:
                with open("/proc/%d/task/%s/schedstat" % (self._runtime_pid, tid)) as f:
                    total += int(f.read().split()[0])
                with open("/proc/%d/task/%s/stat" % (self._runtime_pid, tid)) as f:
                    runnable |= f.read().rsplit(")", 1)[1].split()[0] == "R"
            except (OSError, ValueError, IndexError):
                pass
        return total, runnable

    def wait_idle(self, max_ms, quiet_ms=IDLE_WINDOW_MS):
        """Sleeps until none of this runtime's threads has run or been
        runnable for quiet_ms (under 0.1 ms of CPU in all), at most max_ms:
        ORT's intra-op pool spins for tens of milliseconds after a run at 2
        threads, which would land in the other runtime's burst; a spinning
        thread the host preempted uses no CPU but is still runnable. Returns
        the milliseconds waited."""
        t0 = time.monotonic()
        state = self.cpu_state()
        last, since = (state[0] if state else 0), t0
        while True:
            time.sleep(0.001)
            now = time.monotonic()
            if (now - t0) * 1e3 >= max_ms:
                break
            state = self.cpu_state()
            if state is None:  # no /proc: the whole of max_ms
                continue
            cpu, runnable = state
            if runnable or cpu - last > 100e3:  # still busy
                last, since = cpu, now
            elif (now - since) * 1e3 >= quiet_ms:
                break
        return (time.monotonic() - t0) * 1e3

    def _kill(self):
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def _answer(self):
        line = self.proc.stdout.readline()
        if not line:
            raise PacedError(self.close().first_error_line())
        try:
            return json.loads(line)
        except ValueError:
            self._kill()
            raise PacedError("not a JSON line: %r" % line[:80])

    def burst(self, n):
        try:
            self.proc.stdin.write(b"%d\n" % n)
            self.proc.stdin.flush()
        except BrokenPipeError:
            raise PacedError(self.close().first_error_line())
        runs = self._answer().get("runs")
        if not isinstance(runs, list) or len(runs) != n:
            self._kill()
            raise PacedError("answered %r to a burst of %d" % (runs, n))
        return runs

    def close(self):
        """EOF on stdin (the process writes its --output-dir files and exits);
        its exit as a Child (rc, stderr, peak RSS). Once; later calls return
        the same Child."""
        if getattr(self, "_closed", None):
            return self._closed
        try:
            self.proc.stdin.close()
        except BrokenPipeError:
            pass
        self.proc.wait()
        self._timer.cancel()
        fields = self._rss.read().split()
        rc, max_rss_mb = self.proc.returncode, None
        if len(fields) == 2:
            rc, max_rss_mb = int(fields[0]), int(fields[1]) / 1024.0
        self._err.seek(0)
        stderr = self._err.read().decode(errors="replace")
        self._rss.close()
        self._err.close()
        self._closed = Child(rc, "", stderr, max_rss_mb, None)
        return self._closed


# --------------------------------------------------------------------------
# Tools
# --------------------------------------------------------------------------

def find_tool(name, build_dir):
    candidates = []
    if build_dir:
        candidates += [os.path.join(build_dir, "bin", name), os.path.join(build_dir, name)]
    for d in ("build-bench", "build"):
        candidates.append(os.path.join(ROOT, d, "bin", name))
    for c in candidates:
        if os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return shutil.which(name)


def ort_available():
    return os.path.isfile(os.path.join(BENCH, "node_modules", "onnxruntime-node", "package.json")) \
        and shutil.which("node") is not None


def build_micro(name, cache_dir):
    """Compiles bench/micro/NAME.cpp into the cache dir (kept out of the main
    CMake build on purpose: -march=native, and nothing here ships)."""
    src = os.path.join(BENCH, "micro", name + ".cpp")
    exe = os.path.join(cache_dir, name)
    if not os.path.exists(exe) or os.path.getmtime(exe) < os.path.getmtime(src):
        os.makedirs(cache_dir, exist_ok=True)
        subprocess.run(["g++", "-O3", "-march=native", "-pthread", src, "-o", exe + ".tmp"], check=True)
        os.replace(exe + ".tmp", exe)
    return exe


def measure_peaks(cache_dir):
    exe = build_micro("peak", cache_dir)
    log("measuring machine peaks (bench/micro/peak.cpp)...")
    res = run_child([exe, "--mem-mb", "1024"], timeout=600)
    if res.rc != 0:
        raise RuntimeError("peak microbenchmark failed: " + res.first_error_line())
    j = json.loads(res.stdout)
    return {"isa": j["isa"],
            "fma_gflops": {int(k): v for k, v in j["fma_gflops"].items()},
            "read_gbps": {int(k): v for k, v in j["read_gbps"].items()},
            "source": "measured"}


def machine_summary():
    info = {"cpu": platform.processor() or platform.machine(), "cores": os.cpu_count()}
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        keep = ("Model name", "CPU(s)", "Thread(s) per core", "L1d cache", "L2 cache", "L3 cache",
                "Hypervisor vendor")
        for line in out.splitlines():
            k, _, v = line.partition(":")
            if k.strip() in keep:
                info[k.strip()] = v.strip()
        flags = next((l.split(":", 1)[1].split() for l in out.splitlines() if l.startswith("Flags")), [])
        info["avx512"] = sorted(f for f in flags if f.startswith("avx512"))
    except OSError:
        pass
    try:
        with open("/proc/meminfo") as f:
            info["mem_gb"] = round(int(f.readline().split()[1]) / 1024 / 1024, 1)
    except OSError:
        pass
    return info


# --------------------------------------------------------------------------
# Models: export, FLOPs, inputs
# --------------------------------------------------------------------------

def export_model(name, cache_dir):
    sys.path.insert(0, os.path.join(BENCH, "models"))
    import export_models  # torch is imported here, not at start-up
    if not name.endswith(INT8_SUFFIX):
        return export_models.export(name, cache_dir)
    # NAME_int8: the float model, then bench/quantize_qdq.py, cached the same way.
    float_path = export_models.export(name[:-len(INT8_SUFFIX)], cache_dir)
    path = os.path.join(cache_dir, name + ".onnx")
    if not os.path.exists(path):
        sys.path.insert(0, BENCH)
        import quantize_qdq
        log("%s: quantizing %s" % (name, os.path.basename(float_path)))
        quantize_qdq.quantize(float_path, path)
    return path


def _dims(vi):
    """Dims of a value (None for a symbolic one); None when its rank is unknown."""
    t = vi.type.tensor_type
    if not t.HasField("shape"):
        return None
    return [d.dim_value if d.HasField("dim_value") else None for d in t.shape.dim]


def count_flops(onnx_path):
    """2 x multiply-accumulates of Conv, ConvTranspose, Gemm and MatMul, from
    the shapes ONNX shape inference gives. Everything else (elementwise,
    normalization, softmax, pooling) is a few percent at most for these
    models and is not counted: GFLOP/s here means matrix-unit work."""
    import onnx
    model = onnx.load(onnx_path, load_external_data=False)
    # data_prop follows constant shape arithmetic (Shape -> Gather -> Concat ->
    # Reshape, as torch exports of conv1d stacks have), without which those
    # convolutions' outputs have no shape.
    model = onnx.shape_inference.infer_shapes(model, data_prop=True)
    g = model.graph
    shapes = {}
    for vi in list(g.input) + list(g.value_info) + list(g.output):
        dims = _dims(vi)
        if dims is not None:
            shapes[vi.name] = dims
    for t in g.initializer:
        shapes[t.name] = list(t.dims)
    macs = 0
    unknown = []

    def prod(xs):
        p = 1
        for x in xs:
            p *= x
        return p

    for node in g.node:
        if node.op_type not in ("Conv", "ConvTranspose", "Gemm", "MatMul"):
            continue
        ins = [shapes.get(n) for n in node.input]
        out = shapes.get(node.output[0])
        if any(s is None or None in s for s in ins[:2]) or out is None or None in out:
            unknown.append(node.name or node.op_type)
            continue
        if node.op_type == "Conv":
            w = ins[1]  # [M, C/group, kH, kW]
            macs += prod(out) * prod(w[1:])
        elif node.op_type == "ConvTranspose":
            x, w = ins[0], ins[1]  # w: [C, M/group, kH, kW]; each input pixel scatters into M/group x k
            macs += prod(x) * prod(w[1:])
        elif node.op_type == "Gemm":
            trans_a = next((a.i for a in node.attribute if a.name == "transA"), 0)
            a = ins[0]
            k = a[0] if trans_a else a[1]
            macs += prod(out) * k
        else:  # MatMul, numpy broadcasting
            a = ins[0]
            k = a[-1] if len(a) >= 1 else 1
            macs += prod(out) * k
    return 2 * macs, unknown


def graph_inputs(onnx_path):
    import onnx
    from onnx import TensorProto
    model = onnx.load(onnx_path, load_external_data=False)
    inits = {t.name for t in model.graph.initializer}
    np_type = {TensorProto.FLOAT: np.float32, TensorProto.INT64: np.int64, TensorProto.INT32: np.int32,
               TensorProto.FLOAT16: np.float16, TensorProto.UINT8: np.uint8, TensorProto.INT8: np.int8,
               TensorProto.BOOL: np.bool_}
    result = []
    for vi in model.graph.input:
        if vi.name in inits:
            continue
        dims = _dims(vi)
        if dims is None or None in dims:
            raise RuntimeError("%s: input '%s' has a dynamic or unknown shape %s" % (onnx_path, vi.name, dims))
        result.append((vi.name, np_type[vi.type.tensor_type.elem_type], dims))
    return result


def write_inputs(onnx_path, work_dir, seed=1234):
    """Seeded random inputs: N(0,1) floats; integers in [0, 1000) (valid token
    ids for any vocabulary of at least 1000)."""
    rng = np.random.default_rng(seed)
    bindings = []
    for name, dtype, dims in graph_inputs(onnx_path):
        if np.issubdtype(dtype, np.floating):
            arr = rng.standard_normal(dims).astype(dtype)
        elif dtype == np.bool_:
            arr = rng.integers(0, 2, dims).astype(np.bool_)
        else:
            arr = rng.integers(0, 1000, dims).astype(dtype)
        path = os.path.join(work_dir, "input_%d.npy" % len(bindings))
        np.save(path, arr)
        bindings.append((name, path))
    return bindings


# --------------------------------------------------------------------------
# Comparison
# --------------------------------------------------------------------------

def compare_outputs(ours_dir, ort_dir, rtol=None, atol=None):
    """Returns (ok, max_abs, max_rel, message). max_rel is max|diff| / max|ort|."""
    rtol = RTOL if rtol is None else rtol
    atol = ATOL if atol is None else atol
    ort_files = sorted(f for f in os.listdir(ort_dir) if f.endswith(".npy"))
    if not ort_files:
        return False, None, None, "ORT wrote no outputs"
    ok, max_abs, max_rel, problems = True, 0.0, 0.0, []
    for f in ort_files:
        ours_path = os.path.join(ours_dir, f)
        if not os.path.exists(ours_path):
            ok = False
            problems.append("webnn-run wrote no %s" % f)
            continue
        ref = np.load(os.path.join(ort_dir, f))
        got = np.load(ours_path)
        if ref.shape != got.shape:
            ok = False
            problems.append("%s: shape %s vs ORT %s" % (f, got.shape, ref.shape))
            continue
        ref64, got64 = ref.astype(np.float64), got.astype(np.float64)
        if not np.all(np.isfinite(got64) == np.isfinite(ref64)):
            ok = False
            problems.append("%s: non-finite values differ" % f)
            continue
        finite = np.isfinite(ref64)
        if ref64[finite].size > 1 and np.ptp(ref64[finite]) == 0:
            # A constant output (a zero-initialized head) agrees with anything
            # that ends in that constant, whatever came before it.
            ok = False
            problems.append("%s: ORT's output is constant (%g): the comparison would check nothing" %
                            (f, ref64[finite].flat[0]))
            continue
        diff = np.abs(got64[finite] - ref64[finite])
        scale = float(np.max(np.abs(ref64[finite]))) if diff.size else 0.0
        err = float(diff.max()) if diff.size else 0.0
        max_abs = max(max_abs, err)
        max_rel = max(max_rel, err / scale if scale > 0 else err)
        bound = atol * scale + rtol * np.abs(ref64[finite])
        if diff.size and np.any(diff > bound):
            ok = False
            problems.append("%s: max abs err %.3g (max |ORT| %.3g)" % (f, err, scale))
    return ok, max_abs, max_rel, "; ".join(problems)


# --------------------------------------------------------------------------
# One (model, threads) cell
# --------------------------------------------------------------------------

def webnn_run_cmd(tool, wnn, bindings, threads, iters, warmup, out_dir=None, wait="default"):
    """iters None: --paced (the runs come over stdin, PacedChild)."""
    cmd = [tool, wnn, "--wait", wait]
    for name, path in bindings:
        cmd += ["--input", "%s=%s" % (name, path)]
    cmd += ["--paced"] if iters is None else ["--bench", str(iters)]
    cmd += ["--warmup", str(warmup), "--threads", str(threads), "--json"]
    if out_dir:
        cmd += ["--output-dir", out_dir]
    return cmd


def ort_cmd(onnx_path, bindings, threads, iters, warmup, out_dir=None, spin=True):
    """iters None: --paced, as webnn_run_cmd."""
    cmd = ["node", os.path.join(BENCH, "ort_bench.js"), onnx_path]
    if not spin:
        cmd.append("--no-spin")
    for name, path in bindings:
        cmd += ["--input", "%s=%s" % (name, path)]
    cmd += ["--paced"] if iters is None else ["--bench", str(iters)]
    cmd += ["--warmup", str(warmup), "--threads", str(threads)]
    if out_dir:
        cmd += ["--output-dir", out_dir]
    return cmd


def summarize(runs, startups):
    """Median over rounds of each figure a round reports; start-up's median is
    over `startups` (parsed processes: the rounds' and the extra start-up
    ones), whose load / session / first-run splits are kept too."""
    if not runs:
        return None
    med = lambda key: statistics.median(r[key] for r in runs)
    by_total = sorted(startups, key=lambda r: r["startup_ms"])
    return {
        "median_ms": med("median_ms"),
        "min_ms": min(r["min_ms"] for r in runs),
        "startup_ms": statistics.median(r["startup_ms"] for r in startups),
        "startup_samples": [r["startup_ms"] for r in by_total],
        "startup_splits_ms": [[r["load_ms"], r["session_ms"], r["first_run_ms"]] for r in by_total],
        "load_ms": med("load_ms"),
        "first_run_ms": med("first_run_ms"),
        "max_rss_mb": max((r["max_rss_mb"] or 0) for r in runs) or None,
        "rounds": [r["median_ms"] for r in runs],
        "wait_policies": [r.get("wait_policy") for r in runs],
        "arena_bytes": runs[0].get("arena_bytes"),
        "dot_products": runs[0].get("dot_products"),
    }


def parse_round(child):
    j = json.loads(child.stdout)
    lat = j["latency_ms"]
    return {
        "median_ms": lat["median"], "min_ms": lat["min"],
        "dot_products": j.get("dot_products"),
        "wait_policy": j.get("thread_wait"),  # webnn-run --wait: default, spin or block
        "load_ms": j["load_ms"], "session_ms": j.get("session_ms", 0.0), "first_run_ms": j["first_run_ms"],
        # Start-up = everything before the first result: load + session
        # creation + first run (ORT creates its session inside load).
        "startup_ms": j["load_ms"] + j.get("session_ms", 0.0) + j["first_run_ms"],
        "max_rss_mb": child.max_rss_mb,
        "arena_bytes": j.get("arena_bytes"),
    }


def iters_for(previous_rounds, args):
    """--iters, cut after the first round so that one run of K iterations
    stays near --seconds-per-run (a 2 s model at 20 iterations is 40 s per
    round, and the median of 5 is as good as that of 20). At least 5."""
    if not previous_rounds or args.seconds_per_run <= 0:
        return args.iters
    ms = previous_rounds[0]["median_ms"]
    return max(min(5, args.iters), min(args.iters, int(args.seconds_per_run * 1e3 / max(ms, 1e-3))))


def int8_vs_float(model, onnx_path, wnn, threads, tools, work_dir):
    """Agreement of an int8 QDQ model with its float original over
    INT8_EVAL_INPUTS seeded inputs (not the calibration ones): top-1 of each
    [1, classes] output and max|diff| / max|float|, for webnn-run on the int8
    artifact and for ORT on the int8 model, both against ORT on the float one."""
    float_path = os.path.join(os.path.dirname(onnx_path), model[:-len(INT8_SUFFIX)] + ".onnx")
    stats = {"inputs": INT8_EVAL_INPUTS, "top1_webnn": [], "top1_ort": [], "rel_err_webnn": 0.0,
             "rel_err_ort": 0.0}
    for i in range(INT8_EVAL_INPUTS):
        d = os.path.join(work_dir, "eval_%d" % i)
        os.makedirs(d, exist_ok=True)
        bindings = write_inputs(onnx_path, d, seed=4321 + i)
        outs = {}
        for who, cmd in (("webnn", webnn_run_cmd(tools["webnn-run"], wnn, bindings, threads, 1, 0,
                                                 os.path.join(d, "webnn"))),
                         ("ort", ort_cmd(onnx_path, bindings, threads, 1, 0, os.path.join(d, "ort"))),
                         ("float", ort_cmd(float_path, bindings, threads, 1, 0, os.path.join(d, "float")))):
            child = run_child(cmd)
            if child.rc != 0:
                return {"error": "%s run failed: %s" % (who, child.first_error_line())}
            outs[who] = {f: np.load(os.path.join(d, who, f)) for f in sorted(os.listdir(os.path.join(d, who)))}
        for f, ref in outs["float"].items():
            scale = float(np.max(np.abs(ref))) or 1.0
            for who in ("webnn", "ort"):
                got = outs[who][f]
                stats["rel_err_" + who] = max(stats["rel_err_" + who], float(np.max(np.abs(got - ref))) / scale)
                if ref.ndim == 2 and ref.shape[0] == 1 and ref.shape[1] > 1:
                    stats["top1_" + who].append(int(np.argmax(got)) == int(np.argmax(ref)))
        shutil.rmtree(d, ignore_errors=True)
    for who in ("webnn", "ort"):
        hits = stats.pop("top1_" + who)
        stats["top1_" + who] = (sum(hits) / len(hits)) if hits else None
    return stats


def pin_for_round(r, threads, args):
    """The CPUs both runtimes of round r run on, or None (all of them).

    A VM's vCPUs can run at different speeds for minutes; with fewer threads
    than CPUs, where the scheduler put each process decided part of the
    ratio. Both processes of a round get the same `threads` CPUs, and the
    rounds walk over the CPUs, so each runtime sees each CPU equally often."""
    cpus = sorted(os.sched_getaffinity(0))
    if args.no_pin or threads >= len(cpus):
        return None
    start = (r * threads) % len(cpus)
    return {cpus[(start + i) % len(cpus)] for i in range(threads)}


def process_rounds(cell, onnx_path, wnn, bindings, threads, args, tools, ours_out, ort_out):
    """--per-process: args.rounds rounds, each one `webnn-run --bench K` and one
    `ort_bench.js --bench K` process back to back. Returns (ours_runs,
    ort_runs, ours_failed, ort_failed): one parse_round() per process."""
    model = cell["model"]
    ours_runs, ort_runs = [], []
    ours_failed = ort_failed = False
    for r in range(args.rounds):
        first = r == 0
        order = ["ours", "ort"] if r % 2 == 0 else ["ort", "ours"]
        cpus = pin_for_round(r, threads, args)
        for who in order:
            if who == "ours" and not ours_failed:
                cmd = webnn_run_cmd(tools["webnn-run"], wnn, bindings, threads, iters_for(ours_runs, args), args.warmup,
                                    ours_out if first else None, wait="block" if args.no_spin else "default")
                child = run_child(cmd, env=args.ours_env_dict, cpus=cpus)
                if child.rc != 0:
                    ours_failed = True
                    cell["errors"].append("webnn-run failed (%s): %s"
                                          % ("signal %d" % -child.rc if child.rc < 0 else "exit %d" % child.rc,
                                             child.first_error_line()))
                    continue
                ours_runs.append(parse_round(child))
            elif who == "ort" and not ort_failed:
                cmd = ort_cmd(onnx_path, bindings, threads, iters_for(ort_runs, args), args.warmup,
                              ort_out if first else None, spin=not args.no_spin)
                child = run_child(cmd, cpus=cpus)
                if child.rc != 0:
                    ort_failed = True
                    cell["errors"].append("ORT failed: " + child.first_error_line())
                    continue
                ort_runs.append(parse_round(child))
        log("  %s t=%d round %d/%d: webnnc %s ms, ORT %s ms" % (
            model, threads, r + 1, args.rounds,
            "%.2f" % ours_runs[-1]["median_ms"] if ours_runs and not ours_failed else "-",
            "%.2f" % ort_runs[-1]["median_ms"] if ort_runs and not ort_failed else "-"))
    return ours_runs, ort_runs, ours_failed, ort_failed


def burst_runs(ms, args):
    """Timed runs per burst: at least 2 and at least --burst-ms of the faster
    runtime's runs (ms: its median)."""
    return max(2, int(np.ceil(args.burst_ms / max(ms, 1e-3))))


def paced_bursts(cell, onnx_path, wnn, bindings, threads, args, tools, ours_out, ort_out):
    """--paced: both runtimes loaded once for the whole cell (PacedChild), on
    the same CPUs, then args.pairs pairs of bursts, A B then B A, each burst
    preceded by --gap-ms of sleep (the other side's idle threads stop
    spinning) and its first run dropped (the caches the other process
    evicted). Returns what process_rounds does, one entry per runtime: the
    median over every kept run, the per-burst medians in "bursts"; the
    cell gets "pairs" (each pair's ORT/webnnc ratio of burst medians),
    "burst_runs" and "pair_ratio_p10"/"_p90"."""
    model = cell["model"]
    cpus = pin_for_round(0, threads, args)
    children = {}
    failed = {"ours": False, "ort": False}
    try:
        for who in ("ours", "ort"):  # one after the other: their start-up work does not overlap
            if who == "ours":
                cmd = webnn_run_cmd(tools["webnn-run"], wnn, bindings, threads, None, args.warmup, ours_out,
                                    wait="block" if args.no_spin else "default")
                env = args.ours_env_dict
            else:
                cmd = ort_cmd(onnx_path, bindings, threads, None, args.warmup, ort_out, spin=not args.no_spin)
                env = None
            try:
                children[who] = PacedChild(cmd, env=env, cpus=cpus)
            except PacedError as e:
                failed[who] = True
                cell["errors"].append(("webnn-run failed: %s" if who == "ours" else "ORT failed: %s") % e)
        if any(failed.values()):
            return [], [], failed["ours"], failed["ort"]
        try:
            # One burst of 2 each (dropped) sizes the bursts.
            probe = {}
            for who in ("ours", "ort"):
                probe[who] = children[who].burst(2)[-1]
            n = burst_runs(min(probe.values()), args)
            kept = {"ours": [], "ort": []}
            medians = {"ours": [], "ort": []}
            pairs, waits = [], {"ours": [], "ort": []}
            for p in range(args.pairs):
                for who in (("ours", "ort") if p % 2 == 0 else ("ort", "ours")):
                    other = "ort" if who == "ours" else "ours"
                    waits[other].append(children[other].wait_idle(args.gap_ms))
                    runs = children[who].burst(n + 1)[1:]
                    kept[who] += runs
                    medians[who].append(statistics.median(runs))
                pairs.append(medians["ort"][-1] / medians["ours"][-1])
        except PacedError as e:
            failed[who] = True
            cell["errors"].append(("webnn-run failed: %s" if who == "ours" else "ORT failed: %s") % e)
            return [], [], failed["ours"], failed["ort"]
        cell["burst_runs"] = n
        cell["pairs"] = pairs
        # How long each runtime's threads kept the CPU after its bursts.
        cell["idle_wait_ms"] = {"after_" + ("webnnc" if who == "ours" else "ort"): {
            "median": statistics.median(w), "max": max(w)} for who, w in waits.items()}
        cell["pair_ratio_p10"], cell["pair_ratio_p90"] = (float(v) for v in np.percentile(pairs, [10, 90]))
        cell["pair_ratio_median"] = statistics.median(pairs)
    finally:
        exits = {who: c.close() for who, c in children.items()}
    result = {}
    for who, child in exits.items():
        if child.rc != 0:
            failed[who] = True
            cell["errors"].append(("webnn-run failed (%s): %s" if who == "ours" else "ORT failed (%s): %s") % (
                "signal %d" % -child.rc if child.rc < 0 else "exit %d" % child.rc, child.first_error_line()))
            continue
        h = children[who].header
        result[who] = [{
            "median_ms": statistics.median(kept[who]), "min_ms": min(kept[who]),
            "dot_products": h.get("dot_products"), "wait_policy": h.get("thread_wait"),
            "load_ms": h["load_ms"], "session_ms": h.get("session_ms", 0.0), "first_run_ms": h["first_run_ms"],
            "startup_ms": h["load_ms"] + h.get("session_ms", 0.0) + h["first_run_ms"],
            "max_rss_mb": child.max_rss_mb, "arena_bytes": h.get("arena_bytes"),
            "bursts": medians[who], "timed_runs": len(kept[who]),
        }]
    ratio = (result["ort"][0]["median_ms"] / result["ours"][0]["median_ms"]) if len(result) == 2 else None
    log("  %s t=%d paced: %d pairs of %d-run bursts: webnnc %s ms, ORT %s ms, %s (pairs p10-p90 %.2f-%.2fx)" % (
        model, threads, args.pairs, n, fmt(result.get("ours") and result["ours"][0]["median_ms"]),
        fmt(result.get("ort") and result["ort"][0]["median_ms"]), fmt(ratio, "%.2fx"),
        cell["pair_ratio_p10"], cell["pair_ratio_p90"]))
    return result.get("ours", []), result.get("ort", []), failed["ours"], failed["ort"]


def bench_cell(model, onnx_path, wnn, bindings, threads, args, tools, work_dir):
    cell = {"model": model, "threads": threads, "ours": None, "ort": None, "errors": []}
    ours_out = os.path.join(work_dir, "out_webnn_t%d" % threads)
    ort_out = os.path.join(work_dir, "out_ort_t%d" % threads)
    timed = paced_bursts if args.paced else process_rounds
    ours_runs, ort_runs, ours_failed, ort_failed = timed(cell, onnx_path, wnn, bindings, threads, args, tools,
                                                         ours_out, ort_out)
    # Start-up is one sample per process, and a process's first parallel
    # region on this VM is now and then milliseconds late: more processes,
    # alternating like the rounds, each loading and running once.
    ours_startups, ort_startups = list(ours_runs), list(ort_runs)
    for r in range(args.startup_runs):
        cpus = pin_for_round(r, threads, args)
        for who in (["ours", "ort"] if r % 2 == 0 else ["ort", "ours"]):
            if who == "ours" and ours_runs and not ours_failed:
                child = run_child(webnn_run_cmd(tools["webnn-run"], wnn, bindings, threads, 1, 0,
                                                wait="block" if args.no_spin else "default"),
                                  env=args.ours_env_dict, cpus=cpus)
                if child.rc == 0:
                    ours_startups.append(parse_round(child))
            elif who == "ort" and ort_runs and not ort_failed:
                child = run_child(ort_cmd(onnx_path, bindings, threads, 1, 0, spin=not args.no_spin), cpus=cpus)
                if child.rc == 0:
                    ort_startups.append(parse_round(child))
    cell["ours"] = summarize(ours_runs, ours_startups)
    cell["ort"] = summarize(ort_runs, ort_startups)
    for who, runs in (("ours", ours_runs), ("ort", ort_runs)):
        if cell[who] and "bursts" in runs[0]:  # paced: one process, its bursts' medians
            cell[who]["rounds"] = runs[0]["bursts"]
    if cell["ours"] and cell["ort"]:
        cell["ratio"] = cell["ort"]["median_ms"] / cell["ours"]["median_ms"]
    if cell["ours"] and cell["ort"]:
        int8 = model.endswith(INT8_SUFFIX)
        ok, max_abs, max_rel, msg = compare_outputs(ours_out, ort_out, *((0.0, INT8_ATOL) if int8 else ()))
        cell["outputs_agree"] = ok
        cell["max_abs_err"] = max_abs
        cell["max_rel_err"] = max_rel
        if not ok:
            cell["errors"].append("outputs disagree with ORT: " + msg)
    return cell


# --------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------

def fmt(v, spec="%.2f", none="-"):
    return none if v is None else spec % v


def markdown_table(results, peaks):
    paced = any("pairs" in c for m in results for c in m.get("cells", []))
    lines = [
        "| model | GFLOP | compile s | threads | ORT ms | webnnc ms | ORT/webnnc | %s | webnnc GFLOP/s (%% peak) "
        % ("pairs: median (p10-p90)" if paced else "per round") +
        "| ORT GFLOP/s (% peak) | start-up ORT/webnnc | peak RSS ORT / webnnc MB | max rel err |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for m in results:
        gflop = m["flops"] / 1e9 if m.get("flops") else None
        gflop_text = fmt(gflop, "%.3g")
        if m.get("compile_error"):
            lines.append("| %s | %s | - | - | - | - | - | - | webnnc: cannot compile: %s | | | | |"
                         % (m["model"], gflop_text, m["compile_error"].replace("|", "\\|")))
            continue
        for c in m["cells"]:
            ours, ort = c["ours"], c["ort"]
            peak = peaks["fma_gflops"].get(c["threads"])

            def rate(s):
                if not s or not gflop:
                    return "-"
                gfs = gflop / (s["median_ms"] / 1e3)
                return "%.1f (%.0f%%)" % (gfs, 100 * gfs / peak) if peak else "%.1f" % gfs

            ratio = ort["median_ms"] / ours["median_ms"] if ours and ort else None
            startup = ort["startup_ms"] / ours["startup_ms"] if ours and ort else None
            err = fmt(c.get("max_rel_err"), "%.1e")
            if c["errors"]:
                err += " **" + "; ".join(c["errors"]).replace("|", "\\|") + "**"
            lines.append("| %s | %s | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s / %s | %s |" % (
                m["model"], gflop_text, fmt(m.get("compile_s"), "%.2f"), c["threads"],
                fmt(ort and ort["median_ms"]), fmt(ours and ours["median_ms"]), fmt(ratio, "%.2fx"),
                pair_ratio_range(c) if "pairs" in c else round_ratio_range(ours, ort), rate(ours), rate(ort),
                fmt(startup, "%.2fx"),
                fmt(ort and ort["max_rss_mb"], "%.0f"), fmt(ours and ours["max_rss_mb"], "%.0f"), err))
    for t, (gm, n) in sorted(geomean_ratios(results).items()):
        lines.append("\ngeometric mean ORT/webnnc at %d thread(s) over %d models: %.2fx" % (t, n, gm))
    int8 = [m for m in results if m.get("int8_vs_float")]
    if int8:
        lines += ["", "| int8 model | top-1 = float, webnnc / ORT int8 | max abs err vs float / max abs float, webnnc / ORT "
                  "int8 | inputs |", "|---|---|---|---|"]
        for m in int8:
            a = m["int8_vs_float"]
            if "error" in a:
                lines.append("| %s | %s | | |" % (m["model"], a["error"].replace("|", "\\|")))
                continue
            pct = lambda v: "-" if v is None else "%.0f%%" % (100 * v)
            lines.append("| %s | %s / %s | %.3g / %.3g | %d |" % (m["model"], pct(a["top1_webnn"]), pct(a["top1_ort"]),
                                                                a["rel_err_webnn"], a["rel_err_ort"], a["inputs"]))
    return "\n".join(lines)


def pair_ratio_range(cell):
    """--paced: the median and the 10th to 90th percentile of the pairs'
    ORT/webnnc ratios (each pair: one burst of each runtime, seconds apart)."""
    return "%.2fx (%.2f-%.2fx)" % (cell["pair_ratio_median"], cell["pair_ratio_p10"], cell["pair_ratio_p90"])


def round_ratio_range(ours, ort):
    """The lowest and highest ORT/webnnc ratio of one round's pair (the two
    runtimes' processes of the same round, back to back): how far the
    host's state moved the ratio within this cell."""
    if not ours or not ort:
        return "-"
    pairs = [o / w for w, o in zip(ours["rounds"], ort["rounds"]) if w > 0]
    if not pairs:
        return "-"
    return "%.2f-%.2fx" % (min(pairs), max(pairs))


def geomean_ratios(results):
    """{threads: (geometric mean of ORT/webnnc medians, model count)} over the
    cells where both ran."""
    logs = {}
    for m in results:
        for c in m.get("cells", []):
            if c["ours"] and c["ort"]:
                logs.setdefault(c["threads"], []).append(
                    np.log(c["ort"]["median_ms"] / c["ours"]["median_ms"]))
    return {t: (float(np.exp(np.mean(v))), len(v)) for t, v in logs.items()}


def header_text(report):
    p = report["peaks"]
    mach = report["machine"]
    lines = [
        "machine: %s, %s CPU(s), %s GB RAM; L2 %s, L3 %s" % (
            mach.get("Model name", mach["cpu"]), mach.get("CPU(s)", mach["cores"]), mach.get("mem_gb", "?"),
            mach.get("L2 cache", "?"), mach.get("L3 cache", "?")),
        "peaks (%s, %s): fp32 FMA %s GFLOP/s (the %% of peak denominators); DRAM read %s GB/s" % (
            p["source"], p.get("isa", "?"),
            ", ".join("%.0f at %d thr" % (v, k) for k, v in sorted(p["fma_gflops"].items())),
            ", ".join("%.1f at %d thr" % (v, k) for k, v in sorted(p.get("read_gbps", {}).items())) or "-"),
        "ORT: onnxruntime-node %s; webnnc: %s" % (report.get("ort_version") or "?", report.get("webnnc_commit", "?")),
        "load average before/after: %s / %s" % (
            " ".join("%.1f" % x for x in report["loadavg_before"]),
            " ".join("%.1f" % x for x in report["loadavg_after"])),
    ]
    if report.get("mode") == "paced":
        lines.append("paced: one process per runtime and cell, %d warm-up run(s), then %d pairs of bursts "
                     "(A B, B A, ...), each at least 2 runs and %.0f ms, its first run dropped, after the other "
                     "runtime idled (<= %.0f ms); figures are medians over the kept runs; \"pairs\": median and "
                     "p10-p90 of the pairs' ratios; start-up: median over %d processes per runtime" % (
                         report["warmup"], report["pairs"], report["burst_ms"], report["gap_ms"],
                         1 + report.get("startup_runs", 0)))
    else:
        lines.append("rounds %d, up to %d timed runs after %d warm-up per round; figures are medians over rounds; "
                     "start-up: median over %d processes per runtime" % (
                         report["rounds"], report["iters"], report["warmup"],
                         report["rounds"] + report.get("startup_runs", 0)))
    if report.get("pinned"):
        lines.append("cells with fewer threads than CPUs: both runtimes of a cell on the same CPUs"
                     if report.get("mode") == "paced" else
                     "cells with fewer threads than CPUs: both runtimes of a round on the same CPUs, "
                     "the rounds walking over them")
    if report.get("no_spin"):
        lines.append("--no-spin: webnn-run --wait block; ORT session.intra_op.allow_spinning=0")
    if report.get("precision") == "relaxed":
        ran = sorted({c["ours"]["dot_products"] for m in report["results"] for c in m.get("cells", [])
                      if c.get("ours") and c["ours"].get("dot_products")})
        lines.append("--precision relaxed: webnnc conv/matmul dot products in %s (float32 accumulation), ORT float32; "
                     "agreement within %.0e of max |ORT|; %% of peak is against the fp32 peak"
                     % ("/".join(ran) or "?", TOLERANCES["relaxed"][1]))
    if report.get("ours_env"):
        lines.append("webnn-run environment: " + " ".join("%s=%s" % kv for kv in sorted(report["ours_env"].items())))
    cores = os.cpu_count() or 1
    if max(report["loadavg_before"][0], report["loadavg_after"][0]) > cores:
        lines.append("WARNING: load average above the %d CPU(s): other processes shared the cores, absolute "
                     "times and the measured peaks are low; only the alternating ratios compare" % cores)
    fma = p["fma_gflops"]
    if "measured_fma_gflops" in p:
        lines.append("measured FMA peak this run: " + ", ".join(
            "%.0f at %d thr" % (v, k) for k, v in sorted(p["measured_fma_gflops"].items())))
    if p["source"] == "measured" and 2 in fma and 1 in fma and fma[2] < 1.5 * fma[1]:
        lines.append("WARNING: 2-thread FMA peak measured at %.0f, under 1.5x the 1-thread %.0f: the second core "
                     "was busy; %% of peak at 2 threads uses that figure" % (fma[2], fma[1]))
    return "\n".join(lines)


def git_commit():
    try:
        return subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True).stdout.strip() or None
    except OSError:
        return None


# --------------------------------------------------------------------------

def main(argv=None):
    ap = argparse.ArgumentParser(description="webnnc vs ONNX Runtime benchmark")
    ap.add_argument("--models",
                    help="comma-separated: resnet50, mobilenetv2, bert_base, minilm, tiny_cnn (the default: %s); "
                         "with --suite, the suite's models to keep" % ",".join(ALL_MODELS))
    ap.add_argument("--suite", choices=sorted(SUITES),
                    help="a model list (--models keeps some of it): " + "; ".join(
                        "%s: %s" % (k, ",".join(v)) for k, v in sorted(SUITES.items())))
    ap.add_argument("--threads", default="1,2", help="comma-separated thread counts")
    ap.add_argument("--rounds", type=int, default=None,
                    help="--per-process: alternating rounds per model and thread count (default 5)")
    ap.add_argument("--no-pin", action="store_true",
                    help="with fewer threads than CPUs, do not pin both runtimes of a round to the same CPUs")
    ap.add_argument("--startup-runs", type=int, default=6,
                    help="extra alternating processes per runtime that only load and run once, for the start-up "
                         "median (which also counts each round's process)")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--paced", dest="paced", action="store_true", default=DEFAULT_PACED,
                      help="both runtimes loaded once per cell, alternated burst by burst over a pipe "
                           "(--pairs, --burst-ms, --gap-ms)%s" % (" (the default)" if DEFAULT_PACED else ""))
    mode.add_argument("--per-process", dest="paced", action="store_false",
                      help="alternate whole processes, one per runtime per round (--rounds, --iters)%s"
                           % ("" if DEFAULT_PACED else " (the default)"))
    ap.add_argument("--pairs", type=int, default=20, help="--paced: pairs of bursts per cell")
    ap.add_argument("--burst-ms", type=float, default=50.0,
                    help="--paced: a burst is at least this long for the faster runtime, and at least 2 timed "
                         "runs, plus one dropped run")
    ap.add_argument("--gap-ms", type=float, default=DEFAULT_GAP_MS,
                    help="--paced: before each burst, wait until the other runtime's threads have been idle for "
                         "%g ms (ORT's pool spins for tens of ms after a run), at most this long" % IDLE_WINDOW_MS)
    ap.add_argument("--iters", type=int, default=None, help="--per-process: timed runs per round (--bench K; "
                                                             "default 20)")
    ap.add_argument("--warmup", type=int, default=3, help="untimed runs before timing, per round")
    ap.add_argument("--seconds-per-run", type=float, default=10.0,
                    help="after round 1, fewer timed runs when a round would take longer (0: never)")
    ap.add_argument("--build-dir", help="where bin/webnnc and bin/webnn-run are (default: build-bench, build)")
    ap.add_argument("--cache-dir", default=DEFAULT_CACHE, help="exported models, peak binary, work files")
    ap.add_argument("--ours-env", action="append", default=[], metavar="NAME=VALUE",
                    help="environment variable for webnn-run only (repeatable), e.g. OMP_WAIT_POLICY=passive")
    ap.add_argument("--no-spin", action="store_true",
                    help="idle worker threads sleep, both runtimes: webnn-run --wait block (and "
                         "OMP_WAIT_POLICY=passive for oneDNN's OpenMP team), session.intra_op.allow_spinning=0 "
                         "for ORT (for a machine shared with other work)")
    ap.add_argument("--json", action="store_true", help="print the report as JSON instead of markdown")
    ap.add_argument("--markdown", help="also write the markdown report to this file")
    ap.add_argument("--peak-gflops", metavar="T:GFLOPS,...",
                    help="fp32 peak per thread count for the %% of peak column, e.g. 1:230,2:455 (the idle-machine "
                         "figures of shared/notes/cpu-kernels.md), instead of this run's measurement, which a "
                         "busy machine pulls down")
    ap.add_argument("--no-peak", action="store_true",
                    help="don't run the peak microbenchmark (use the noted peaks for %% of peak)")
    ap.add_argument("--no-prepack", action="store_true",
                    help="compile without --prepack (weights packed at the first run instead of at compile time)")
    ap.add_argument("--precision", choices=sorted(TOLERANCES), default="exact",
                    help="webnnc compile --precision for our side (relaxed: bf16 dot products); ORT stays fp32")
    ap.add_argument("--smoke", action="store_true",
                    help="quick check: tiny CNN, 2 pairs (--per-process: 1 round, 3 runs); fails on crash, compile "
                         "error or mismatch")
    args = ap.parse_args(argv)

    if args.paced and (args.rounds is not None or args.iters is not None):
        log("run.py: --rounds and --iters time --per-process cells; --paced (the default) times --pairs pairs "
            "of bursts")
    args.rounds = 5 if args.rounds is None else args.rounds
    args.iters = 20 if args.iters is None else args.iters
    if args.smoke:
        args.models, args.rounds, args.iters, args.warmup, args.no_peak = "tiny_cnn", 1, 3, 1, True
        args.startup_runs, args.pairs = 1, 2
    try:
        named = [m for m in (args.models or "").split(",") if m]
        if args.suite:
            models = [m for m in SUITES[args.suite] if not named or m in named]
            if named and len(models) != len(named):
                ap.error("--models %s: not in suite %s (%s)" % (
                    ",".join(m for m in named if m not in SUITES[args.suite]), args.suite,
                    ",".join(SUITES[args.suite])))
        else:
            models = named or list(ALL_MODELS)
        threads = [int(t) for t in args.threads.split(",") if t]
    except ValueError:
        ap.error("--threads expects integers")
    if args.rounds < 1 or args.iters < 1 or args.warmup < 0 or args.startup_runs < 0 or not threads or min(threads) < 1:
        ap.error("--rounds and --iters >= 1, --warmup and --startup-runs >= 0, threads >= 1")
    if args.pairs < 1 or not args.burst_ms >= 0 or not args.gap_ms >= 0:
        ap.error("--pairs >= 1, --burst-ms and --gap-ms >= 0")

    global RTOL, ATOL
    RTOL, ATOL = TOLERANCES[args.precision]
    args.ours_env_dict = {"OMP_WAIT_POLICY": "passive"} if args.no_spin else {}
    for kv in args.ours_env:
        k, eq, v = kv.partition("=")
        if not eq or not k:
            ap.error("--ours-env expects NAME=VALUE, got '%s'" % kv)
        args.ours_env_dict[k] = v

    tools = {t: find_tool(t, args.build_dir) for t in ("webnnc", "webnn-run")}
    for t, p in tools.items():
        if not p:
            log("run.py: %s not found (build it: ninja -C build webnnc webnn-run, or pass --build-dir)" % t)
            return 2
    if not ort_available():
        log("run.py: onnxruntime-node not installed: run bench/install-bench-deps.sh")
        return SKIP
    try:
        import torch  # noqa: F401  (the exporter needs it; fail early, not mid-run)
        import onnx  # noqa: F401
    except ImportError as e:
        log("run.py: %s: run bench/install-bench-deps.sh" % e)
        return SKIP

    os.makedirs(args.cache_dir, exist_ok=True)
    global _MAXRSS
    _MAXRSS = build_micro("maxrss", args.cache_dir)
    report = {
        "machine": machine_summary(),
        "webnnc": tools["webnnc"], "webnn_run": tools["webnn-run"], "webnnc_commit": git_commit(),
        "mode": "paced" if args.paced else "per-process",
        "rounds": args.rounds, "iters": args.iters, "warmup": args.warmup, "startup_runs": args.startup_runs,
        "pairs": args.pairs, "burst_ms": args.burst_ms, "gap_ms": args.gap_ms,
        "ours_env": args.ours_env_dict,
        "no_spin": args.no_spin, "precision": args.precision, "pinned": not args.no_pin,
        "loadavg_before": list(os.getloadavg()),
        "command": " ".join([os.path.relpath(sys.argv[0], ROOT) if sys.argv[0] else "bench/run.py"] + sys.argv[1:]),
    }
    try:
        with open(os.path.join(BENCH, "node_modules", "onnxruntime-node", "package.json")) as f:
            report["ort_version"] = json.load(f)["version"]
    except (OSError, ValueError, KeyError):
        report["ort_version"] = None
    if args.no_peak:
        report["peaks"] = {"fma_gflops": dict(NOTED_PEAK_GFLOPS), "read_gbps": {}, "source": "noted",
                           "isa": "avx512f"}
    else:
        report["peaks"] = measure_peaks(args.cache_dir)
    if args.peak_gflops:
        try:
            given = {int(k): float(v) for k, v in (kv.split(":") for kv in args.peak_gflops.split(","))}
        except ValueError:
            ap.error("--peak-gflops expects T:GFLOPS,... e.g. 1:230,2:455")
        report["peaks"]["measured_fma_gflops"] = report["peaks"]["fma_gflops"]
        report["peaks"]["fma_gflops"] = given
        report["peaks"]["source"] = "--peak-gflops %s; bandwidth measured" % args.peak_gflops

    failures = []
    results = []
    for model in models:
        log("%s: exporting" % model)
        try:
            onnx_path = export_model(model, args.cache_dir)
        except Exception as e:  # an exporter failure is this model's, not the suite's
            failures.append("%s: export failed: %s" % (model, e))
            results.append({"model": model, "compile_error": "export failed: %s" % e, "cells": []})
            continue
        entry = {"model": model, "onnx": onnx_path, "cells": []}
        entry["flops"], unknown = count_flops(onnx_path)
        if unknown:
            entry["flops_uncounted_nodes"] = unknown
        work_dir = os.path.join(args.cache_dir, "work", model)
        shutil.rmtree(work_dir, ignore_errors=True)
        os.makedirs(work_dir)
        wnn = os.path.join(work_dir, model + ".wnn")
        log("%s: compiling with webnnc" % model)
        cmd = [tools["webnnc"], "compile", onnx_path, "-o", wnn, "--precision", args.precision]
        if not args.no_prepack:
            cmd += ["--prepack", "--prepack-threads", ",".join(str(t) for t in threads)]
        child = run_child(cmd)
        entry["compile_s"] = child.wall_s
        entry["compile_rss_mb"] = child.max_rss_mb
        if child.rc != 0:
            entry["compile_error"] = child.first_error_line()
            log("%s: webnnc: cannot compile: %s" % (model, entry["compile_error"]))
            if args.smoke or child.rc < 0:
                failures.append("%s: webnnc %s: %s" % (model, "crashed" if child.rc < 0 else "cannot compile",
                                                        entry["compile_error"]))
            results.append(entry)
            continue
        entry["wnn_bytes"] = os.path.getsize(wnn)
        bindings = write_inputs(onnx_path, work_dir)
        for t in threads:
            cell = bench_cell(model, onnx_path, wnn, bindings, t, args, tools, work_dir)
            for e in cell["errors"]:
                if not e.startswith("ORT failed"):
                    failures.append("%s t=%d: %s" % (model, t, e))
                else:
                    failures.append("%s t=%d: %s (reference runtime)" % (model, t, e))
            entry["cells"].append(cell)
        if model.endswith(INT8_SUFFIX) and entry["cells"] and entry["cells"][0]["ours"]:
            log("%s: int8 vs float agreement over %d inputs" % (model, INT8_EVAL_INPUTS))
            entry["int8_vs_float"] = int8_vs_float(model, onnx_path, wnn, threads[-1], tools, work_dir)
        results.append(entry)
    report["loadavg_after"] = list(os.getloadavg())
    report["results"] = results
    report["geomean_ort_over_webnnc"] = {str(t): {"ratio": gm, "models": n}
                                         for t, (gm, n) in geomean_ratios(results).items()}
    report["failures"] = failures

    table = markdown_table(results, report["peaks"])
    text = header_text(report) + "\n\n" + table + "\n"
    if failures:
        text += "\nfailures:\n" + "\n".join("- " + f for f in failures) + "\n"
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text)
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print(text)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
