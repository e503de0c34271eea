#!/usr/bin/env python3
"""webnn-run --device gpu end to end (docs/GPU.md): the bundled MLP example
compiled and run on the Vulkan device with the validation layers on, checked
against its reference; one submit per run; the pipeline cache written and
used; --timeout ends a run the GPU has not finished (one line, exit 3) and
leaves one within its time alone; and with the Vulkan loader made unopenable
for the process, the CPU still runs the artifact while a GPU request is one
clear error."""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time


def run(cmd, env, expect_rc):
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)
    if r.returncode != expect_rc:
        sys.exit(f"FAIL: {' '.join(cmd)}: exit {r.returncode}, expected {expect_rc}\n{r.stdout}{r.stderr}")
    return r


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bin", required=True)
    p.add_argument("--examples", required=True)
    a = p.parse_args()
    webnnc, webnn_run = os.path.join(a.bin, "webnnc"), os.path.join(a.bin, "webnn-run")
    mlp = os.path.join(a.examples, "mlp")
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, XDG_RUNTIME_DIR=tmp, LP_NUM_THREADS="2", WEBNN_VULKAN_VALIDATION="1",
                   WEBNN_VULKAN_CACHE_DIR=os.path.join(tmp, "cache"))
        art = os.path.join(tmp, "mlp.wnn")
        run([webnnc, "compile", os.path.join(mlp, "mlp.webnn"), "-o", art], env, 0)
        feed = ["--input", "x=" + os.path.join(mlp, "input.npy")]
        check = ["--expected", "probs=" + os.path.join(mlp, "expected.npy"), "--rtol", "1e-5", "--atol", "1e-7"]
        run([webnn_run, art, "--device", "gpu"] + feed + check, env, 0)

        stats = []
        for _ in range(2):  # cold, then warm pipeline cache
            r = run([webnn_run, art, "--device=gpu:0", "--bench", "5", "--json"] + feed + check, env, 0)
            j = json.loads(r.stdout)
            if j.get("tool") != "webnn-run" or "isa" not in j.get("cpu", {}) or "artifact_schema_version" not in j:
                sys.exit(f"FAIL: --device gpu --json lacks the build info (tool, versions, cpu): {sorted(j)}")
            stats.append(j["gpu"])
        for s in stats:
            if s["submits_per_run"] != 1 or s["dispatches"] < 1:
                sys.exit(f"FAIL: expected one submit per run and some dispatches: {s}")
        if not os.path.exists(stats[0]["pipeline_cache"]):
            sys.exit(f"FAIL: no pipeline cache at {stats[0]['pipeline_cache']}")
        print(f"pipelines: cold {stats[0]['pipeline_ms']:.2f} ms, warm {stats[1]['pipeline_ms']:.2f} ms; "
              f"recording {stats[1]['record_ms']:.3f} ms; {stats[1]['dispatches']} dispatches, 1 submit per run")

        # --timeout: eight chained 512x512 matmuls take lavapipe seconds; a 0.05 s
        # limit ends the process at once with one line and exit 3, no outputs written.
        import numpy as np
        import onnx
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "common"))
        from onnx_graphs import matmul_chain
        slow = os.path.join(tmp, "slow")
        onnx.save(matmul_chain(8, 512), slow + ".onnx")
        np.save(slow + "_x.npy", np.full((512, 512), 0.01, np.float32))
        run([webnnc, "compile", slow + ".onnx", "-o", slow + ".wnn"], env, 0)
        out_dir = os.path.join(tmp, "slow_out")
        start = time.monotonic()
        r = run([webnn_run, slow + ".wnn", "--device", "gpu", "-i", f"x={slow}_x.npy", "--timeout", "0.05",
                 "--output-dir", out_dir], env, 3)
        took = time.monotonic() - start
        lines = r.stderr.strip().splitlines()
        if len(lines) != 1 or not lines[0].startswith("webnn-run: error: timed out after 0.05 s: the GPU had not "
                                                      "finished its work by the deadline"):
            sys.exit(f"FAIL: --timeout on the GPU: expected one 'timed out' line, got:\n{r.stderr}")
        if os.path.exists(out_dir) and os.listdir(out_dir):
            sys.exit(f"FAIL: outputs written after a GPU timeout: {os.listdir(out_dir)}")
        if took > 10:
            sys.exit(f"FAIL: --timeout 0.05 took {took:.1f} s to end the process")
        r = run([webnn_run, art, "--device", "gpu", "--timeout", "60"] + feed + check, env, 0)
        run([webnn_run, art, "--device", "gpu", "--timeout", "-1"] + feed, env, 2)
        print(f"--timeout 0.05 on the GPU: exit 3 after {took:.2f} s")

        run([webnn_run, art, "--device", "gpu:99"] + feed, env, 1)
        run([webnn_run, art, "--device", "tpu"] + feed, env, 2)

        # No Vulkan loader for this process.
        gone = dict(env, WEBNN_VULKAN_LOADER=os.path.join(tmp, "no-such-dir", "libvulkan.so.1"))
        run([webnn_run, art] + feed + check, gone, 0)
        r = run([webnn_run, art, "--device", "gpu"] + feed, gone, 1)
        lines = r.stderr.strip().splitlines()
        if len(lines) != 1 or "Vulkan loader" not in lines[0] or not lines[0].startswith("webnn-run: error:"):
            sys.exit(f"FAIL: expected one error line naming the Vulkan loader, got:\n{r.stderr}")
        r = run([webnn_run, "--list-devices"], gone, 0)
        if "gpu      none:" not in r.stdout:
            sys.exit(f"FAIL: --list-devices without a loader:\n{r.stdout}")
    print("webnn-run --device gpu: ok")


if __name__ == "__main__":
    main()
