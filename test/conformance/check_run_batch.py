#!/usr/bin/python3
"""`webnn-run batch`, `webnnc batch` and the harnesses' worker pool
(batch_workers.py).

    check_run_batch.py BIN_DIR EXAMPLES_DIR [--gpu]

One answer line per job, in order, with the exit code, stdout and stderr a
single run would give (a passing check, a failing check, a missing
artifact, a line that is no job, a subcommand); outputs bit-identical to a
single run's; webnnc batch's compile writes the artifact a single compile
writes, and refuses other commands; with --gpu (a Vulkan device, validation on), --device gpu jobs
share one device (the second creates no pipeline) and match the CPU. The
pool: a job past its timeout raises TimeoutExpired and the next job runs on
a fresh worker.
"""
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "common"))
import batch_workers  # noqa: E402


def fail(msg):
    sys.exit(f"FAIL: {msg}")


def main():
    bin_dir, examples = Path(sys.argv[1]), Path(sys.argv[2])
    gpu = "--gpu" in sys.argv[3:]
    webnnc, webnn_run = str(bin_dir / "webnnc"), str(bin_dir / "webnn-run")
    mlp = examples / "mlp"
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        env = dict(os.environ, XDG_RUNTIME_DIR=str(tmp), WEBNN_VULKAN_VALIDATION="1",
                   WEBNN_VULKAN_CACHE_DIR=str(tmp / "cache"))
        art = tmp / "mlp.wnn"
        subprocess.run([webnnc, "compile", str(mlp / "mlp.webnn"), "-o", str(art)], check=True)
        wrong = tmp / "wrong.npy"
        np.save(wrong, np.load(mlp / "expected.npy") + 1)
        feed = ["--input", f"x={mlp / 'input.npy'}"]
        good = ["--expected", f"probs={mlp / 'expected.npy'}", "--rtol", "1e-5", "--atol", "1e-7"]
        jobs = [
            [str(art)] + feed + good + ["--output-dir", str(tmp / "batch")],
            [str(art)] + feed + ["--expected", f"probs={wrong}"],
            [str(tmp / "missing.wnn")] + feed,
            "not a job",
            ["calibrate"],
        ]
        if gpu:
            jobs += [[str(art), "--device", "gpu", "--output-dir", str(tmp / f"gpu{i}")] + feed + good
                     for i in range(2)]
        text = "\n".join(j if isinstance(j, str) else json.dumps(j) for j in jobs) + "\n"
        r = subprocess.run([webnn_run, "batch"], input=text, capture_output=True, text=True, env=env, timeout=300)
        if r.returncode != 0:
            fail(f"webnn-run batch exited {r.returncode}: {r.stderr}")
        answers = [json.loads(line) for line in r.stdout.splitlines()]
        if [a["job"] for a in answers] != list(range(len(jobs))):
            fail(f"expected one answer per job in order, got {[a['job'] for a in answers]}")
        codes = [a["exit"] for a in answers]
        want = [0, 1, 1, 2, 2] + ([0, 0] if gpu else [])
        if codes != want:
            fail(f"exit codes {codes}, expected {want}:\n" + "\n".join(a["stderr"] for a in answers))
        if json.loads(answers[0]["stdout"])["checks"][0]["ok"] is not True:
            fail(f"the passing job's JSON does not say its check passed: {answers[0]['stdout']}")
        if "does not match" not in answers[1]["stderr"]:
            fail(f"the failing check says: {answers[1]['stderr']}")
        if "missing.wnn" not in answers[2]["stderr"] or "non-empty JSON array" not in answers[3]["stderr"] \
                or "'calibrate' is not run in a batch" not in answers[4]["stderr"]:
            fail("the bad jobs' messages: " + " | ".join(a["stderr"] for a in answers[2:5]))

        # webnnc batch: compiles only, each as a single compile would write it.
        cjobs = [["compile", str(mlp / "mlp.webnn"), "-o", str(tmp / "b.wnn")],
                 ["compile", str(tmp / "missing.webnn"), "-o", str(tmp / "m.wnn")],
                 ["inspect", str(art)], "[]"]
        r = subprocess.run([webnnc, "batch"], input="\n".join(j if isinstance(j, str) else json.dumps(j)
                                                            for j in cjobs) + "\n",
                           capture_output=True, text=True, timeout=120)
        canswers = [json.loads(line) for line in r.stdout.splitlines()]
        if r.returncode != 0 or [a["exit"] for a in canswers] != [0, 1, 2, 2]:
            fail(f"webnnc batch: exit {r.returncode}, answers {canswers}")
        if (tmp / "b.wnn").read_bytes() != art.read_bytes():
            fail("webnnc batch wrote another artifact than a single compile")
        if "missing.webnn" not in canswers[1]["stderr"] or "a compile command, not 'inspect'" \
                not in canswers[2]["stderr"]:
            fail(f"webnnc batch's messages: {canswers[1]['stderr']} | {canswers[2]['stderr']}")

        single = tmp / "single"
        subprocess.run([webnn_run, str(art), "--output-dir", str(single)] + feed, check=True, env=env)
        ref = np.load(single / "probs.npy")
        if np.load(tmp / "batch" / "probs.npy").tobytes() != ref.tobytes():
            fail("the batch's output differs from a single run's")
        if gpu:
            stats = [json.loads(a["stdout"])["gpu"] for a in answers[5:7]]
            if stats[0]["pipelines_created"] < 1 or stats[1]["pipelines_created"] != 0:
                fail(f"expected the second --device gpu job to reuse the device's pipelines: {stats}")
            for i in range(2):
                g = np.load(tmp / f"gpu{i}" / "probs.npy")
                if not np.allclose(g, ref, rtol=1e-5, atol=1e-7):
                    fail(f"GPU job {i} differs from the CPU")
        print(f"batch: {len(jobs)} jobs, exit codes {codes}" + (", GPU device shared" if gpu else ""))

        # The pool: a run past its timeout takes its worker; the next job gets a new one.
        import onnx
        from onnx_graphs import matmul_chain
        onnx.save(matmul_chain(6, 1024), tmp / "slow.onnx")
        np.save(tmp / "slow_x.npy", np.full((1024, 1024), 1e-3, np.float32))
        subprocess.run([webnnc, "compile", str(tmp / "slow.onnx"), "-o", str(tmp / "slow.wnn")], check=True)
        runner = batch_workers.BatchRunner(webnn_run)
        try:
            first = runner.run([webnn_run, str(art)] + feed + good, 60)
            if first.returncode != 0:
                fail(f"pool: the first job failed: {first.stderr}")
            try:
                runner.run([webnn_run, str(tmp / "slow.wnn"), "-i", f"x={tmp / 'slow_x.npy'}", "--bench", "50"], 0.05)
                fail("pool: a job past its timeout did not raise TimeoutExpired")
            except subprocess.TimeoutExpired:
                pass
            after = runner.run([webnn_run, str(art)] + feed + good, 60)
            if after.returncode != 0 or len(runner.all) != 1:
                fail(f"pool: after a timeout, exit {after.returncode}, {len(runner.all)} workers: {after.stderr}")
        finally:
            runner.close()
        print("pool: a timed-out job's worker replaced, the next job passed")


if __name__ == "__main__":
    main()
