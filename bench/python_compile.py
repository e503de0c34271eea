"""webnn.compile in process vs webnnc compile --json in a subprocess (the
package's path before the compiler library), alternating rounds, medians;
also the first compile in a fresh interpreter, which imports the compiler.

    PYTHONPATH=BUILD/python /usr/bin/python3 bench/python_compile.py MODEL...
"""
import json, os, statistics, subprocess, sys, tempfile, time
import webnn
models = sys.argv[1:]
out = os.path.join(tempfile.mkdtemp(prefix="webnn-compile-bench-"), "bench.wnn")
webnnc = webnn.webnnc_path()
def inproc(m):
    webnn.compile(m, out)
def subproc(m):
    p = subprocess.run([webnnc, "compile", m, "-o", out, "--json"], capture_output=True, text=True)
    r = json.loads(p.stdout); assert r["status"] == "ok"
for m in models:
    # first call in a fresh interpreter: imports the compiler module
    cold = []
    for _ in range(5):
        p = subprocess.run([sys.executable, "-c", "import sys,time,webnn; t=time.perf_counter(); webnn.compile(sys.argv[1], sys.argv[2]); print(time.perf_counter()-t)", m, out], capture_output=True, text=True, env=os.environ)
        cold.append(float(p.stdout))
    inproc(m); subproc(m)
    a, b = [], []
    n = 15 if "mobilenet" in m else 40
    for i in range(n):
        for f, l in ((inproc, a), (subproc, b)) if i % 2 == 0 else ((subproc, b), (inproc, a)):
            t = time.perf_counter(); f(m); l.append(time.perf_counter() - t)
    ma, mb = statistics.median(a) * 1e3, statistics.median(b) * 1e3
    print(f"{os.path.basename(m)}: in process {ma:.1f} ms, first call in a fresh process {statistics.median(cold)*1e3:.1f} ms, "
          f"subprocess webnnc --json {mb:.1f} ms, ratio {mb/ma:.2f}x ({n} alternating rounds)")
print("loadavg", open("/proc/loadavg").read().strip())
