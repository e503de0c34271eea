#!/usr/bin/env python3
"""The backend seam (docs/BACKENDS.md), checked by grep over the sources.

1. No file outside runtime/backends/cpu/ includes a CPU backend header,
   except the CPU backend's own tests (test/unit/kernels/), the CPU latency
   estimator (runtime/estimate/, over the backend's cost functions, and its
   test) and the Vulkan tests (the CPU kernels are their reference).
2. runtime/core/ and runtime/include/ name no backend: no "cpu::" and no
   "backends/cpu" in code or comments, and no WEBNN_HAVE_*_BACKEND switch.

Usage: check_backend_seam.py [REPO_ROOT]. First checks itself on a small
tree with known violations (so a broken pattern cannot pass silently), then
prints every violation in REPO_ROOT as file:line: text and exits 1 if there is
any, else prints a count and exits 0.
"""
import os
import re
import sys
import tempfile

SOURCE_EXTS = (".h", ".hpp", ".c", ".cc", ".cpp", ".inc", ".def", ".in")
SKIP_DIRS = {".git", "third_party", "node_modules", "__pycache__"}
# Where CPU backend headers may be included: the backend itself and its own
# tests; the CPU latency estimator (runtime/estimate/, built on the CPU
# backend's cost functions, about that backend by design) and its test; the
# Vulkan backend's tests, which use the CPU kernels as their reference.
CPU_OWN = ("runtime/backends/cpu/", "test/unit/kernels/", "runtime/estimate/", "test/unit/runtime/EstimateTest.cpp",
           "test/unit/vulkan/")
CPU_INCLUDE = re.compile(r'^\s*#\s*include\s*[<"](?:runtime/)?backends/cpu/')
BACKEND_NAME = re.compile(r'cpu::|backends/cpu|WEBNN_HAVE_\w*_BACKEND')


def sources(root):
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root)
        # Build trees (build, build-runtime, ...) and vendored code are not ours.
        dirnames[:] = [d for d in dirnames
                       if d not in SKIP_DIRS and not (rel_dir == "." and d.startswith("build"))]
        for name in filenames:
            if name.endswith(SOURCE_EXTS):
                path = os.path.join(dirpath, name)
                yield os.path.relpath(path, root).replace(os.sep, "/"), path


def violations(root):
    problems, checked = [], 0
    for rel, path in sources(root):
        checked += 1
        in_core = rel.startswith(("runtime/core/", "runtime/include/"))
        cpu_own = rel.startswith(CPU_OWN)
        with open(path, encoding="utf-8", errors="replace") as f:
            for n, line in enumerate(f, 1):
                if not cpu_own and CPU_INCLUDE.search(line):
                    problems.append(f"{rel}:{n}: includes a CPU backend header outside the CPU backend: {line.strip()}")
                elif in_core and BACKEND_NAME.search(line):
                    problems.append(f"{rel}:{n}: runtime/core and runtime/include name no backend: {line.strip()}")
    return problems, checked


def self_test():
    files = {
        "runtime/core/Backend.h": "// the interface\n",
        "runtime/core/Bad.cpp": '#include "backends/cpu/Kernel.h"\n',
        "runtime/include/webnn/bad.h": "// uses cpu::ThreadPool\n",
        "runtime/core/Switch.cpp": "#ifdef WEBNN_HAVE_CPU_BACKEND\n",
        "tools/x/Tool.cpp": '#include "runtime/backends/cpu/Memory.h"\n',
        "runtime/backends/cpu/Ok.cpp": '#include "runtime/backends/cpu/Memory.h"\n',
        "test/unit/kernels/Ok.cpp": '#include "backends/cpu/ThreadPool.h"\n',
        "build-x/Ok.cpp": '#include "backends/cpu/ThreadPool.h"\n',
    }
    with tempfile.TemporaryDirectory() as root:
        for rel, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
            with open(os.path.join(root, rel), "w") as f:
                f.write(text)
        found = sorted(p.split(":")[0] for p in violations(root)[0])
    want = ["runtime/core/Bad.cpp", "runtime/core/Switch.cpp", "runtime/include/webnn/bad.h", "tools/x/Tool.cpp"]
    if found != want:
        print(f"self-test: found {found}, expected {want}", file=sys.stderr)
        return False
    return True


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
    if not os.path.isfile(os.path.join(root, "runtime", "core", "Backend.h")):
        print(f"{root}: not a webnnc checkout (no runtime/core/Backend.h)", file=sys.stderr)
        return 2
    if not self_test():
        return 2
    problems, checked = violations(root)
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} violation(s) of the backend seam (docs/BACKENDS.md)")
        return 1
    print(f"backend seam: {checked} source files checked, no violations")
    return 0


if __name__ == "__main__":
    sys.exit(main())
