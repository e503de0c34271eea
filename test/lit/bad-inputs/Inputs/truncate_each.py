#!/usr/bin/python3
"""Compiles every prefix of MODEL (copied next to its weights sidecar into DIR)
and checks each one fails with exit 1 and a single `error:` line, no crash,
no output file. usage: truncate_each.py MODEL DIR"""
import shutil
import subprocess
import sys
from pathlib import Path

model, work = Path(sys.argv[1]), Path(sys.argv[2])
for side in model.parent.glob(model.stem + ".*"):
    if side != model:
        shutil.copy(side, work / side.name)
text = model.read_bytes()
step = max(1, len(text) // 60)
for n in list(range(0, len(text) - 1, step)):
    path = work / model.name
    path.write_bytes(text[:n])
    r = subprocess.run(["webnnc", "compile", str(path), "-o", str(work / "out.wnn")],
                       capture_output=True, text=True)
    errors = [l for l in r.stderr.splitlines() if ": error: " in l]
    if r.returncode != 1 or len(errors) != 1 or (work / "out.wnn").exists():
        sys.exit(f"prefix of {n} bytes: exit {r.returncode}, stderr:\n{r.stderr}")
print(f"{len(range(0, len(text) - 1, step))} truncations rejected cleanly")
