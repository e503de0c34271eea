"""webnn-run and webnnc command lines run through `TOOL batch` worker processes.

A conformance case is tiny: starting webnnc (libMLIR/libLLVM's dynamic
linking) or webnn-run (for the GPU, a Vulkan instance with the validation
layer and a device) costs more than compiling or running it. `TOOL batch`
(tools/common/BatchJobs.h) reads one job per stdin line (the arguments of
one command as a JSON array) and answers each with one JSON line (exit
code, stdout, stderr), so a worker serves many cases. The harnesses call
run() from their thread pools exactly where they started a process; run()
returns the same (returncode, stdout, stderr) and raises
subprocess.TimeoutExpired on a timeout.

A job that crashes or outlasts its timeout takes its worker with it: the
job gets the worker's exit status (or the timeout) and what it printed
outside a job's capture, and the next job starts a fresh worker. A worker
is also replaced after `jobs_per_worker` jobs, so no state builds up for
long. Jobs that share a worker run one after another in one process:
webnn-run's jobs share its Vulkan device and pipelines, webnnc's nothing
but the process (each compile has its own MLIR context).
"""
import json
import os
import queue
import select
import subprocess
import tempfile
import threading


class _Worker:
    def __init__(self, tool):
        self.log = tempfile.TemporaryFile(mode="w+b")
        self.proc = subprocess.Popen([tool, "batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.log)
        self.jobs = 0
        self.buffer = b""

    def send(self, args):
        self.proc.stdin.write((json.dumps(args) + "\n").encode())
        self.proc.stdin.flush()
        self.jobs += 1

    def answer(self, timeout):
        """The job's answer line, or None at end of output; raises TimeoutError."""
        fd = self.proc.stdout.fileno()
        while b"\n" not in self.buffer:
            ready, _, _ = select.select([fd], [], [], timeout)
            if not ready:
                raise TimeoutError
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return None
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line.decode("utf-8", "replace"))

    def outside_output(self):
        self.log.seek(0)
        return self.log.read()[-4000:].decode("utf-8", "replace")

    def close(self, kill=False):
        try:
            if kill:
                self.proc.kill()
            else:
                self.proc.stdin.close()
        except OSError:
            pass
        self.proc.wait()
        self.log.close()


class BatchRunner:
    def __init__(self, tool, jobs_per_worker=200):
        self.tool = tool
        self.jobs_per_worker = jobs_per_worker
        self.idle = queue.SimpleQueue()
        self.lock = threading.Lock()
        self.all = []

    def _take(self):
        try:
            return self.idle.get_nowait()
        except queue.Empty:
            w = _Worker(self.tool)
            with self.lock:
                self.all.append(w)
            return w

    def _retire(self, w, kill=False):
        w.close(kill)
        with self.lock:
            if w in self.all:
                self.all.remove(w)

    def run(self, cmd, timeout):
        """cmd as for subprocess.run: [tool, args...]."""
        w = self._take()
        try:
            w.send(cmd[1:])
            a = w.answer(timeout)
        except TimeoutError:
            self._retire(w, kill=True)
            raise subprocess.TimeoutExpired(cmd, timeout)
        except (OSError, ValueError) as e:  # the worker died before or while answering
            self._retire(w, kill=True)
            return subprocess.CompletedProcess(cmd, 1, "", f"{os.path.basename(self.tool)} batch worker failed: {e}")
        if a is None:  # it ended inside this job: a crash, or a timeout's exit
            code = w.proc.wait()
            text = w.outside_output()
            self._retire(w)
            return subprocess.CompletedProcess(cmd, code if code != 0 else 1, "",
                                               text or f"{os.path.basename(self.tool)} batch ended with status {code}")
        if w.jobs >= self.jobs_per_worker:
            self._retire(w)
        else:
            self.idle.put(w)
        return subprocess.CompletedProcess(cmd, a["exit"], a["stdout"], a["stderr"])

    def close(self):
        """Ends every worker; a later run() starts new ones."""
        while True:
            try:
                self.idle.get_nowait()
            except queue.Empty:
                break
        with self.lock:
            workers = list(self.all)
        for w in workers:
            self._retire(w)


class ProcessRunner:
    """One process per command line (--batch 0)."""

    def run(self, cmd, timeout):
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)

    def close(self):
        pass


def make_runner(tool, batch):
    return BatchRunner(tool, batch) if batch > 0 else ProcessRunner()
