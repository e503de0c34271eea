"""What the Vulkan model checks (check_llama_gpu.py, check_ppocr_gpu.py) share:
running a tool, and comparing each GPU output with the CPU backend's."""
import subprocess

import numpy as np


def run(cmd, env=None):
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({r.returncode}):\n{r.stdout}\n{r.stderr}")
    return r.stdout


def outputs_match(label, cpu, gpu, rtol, atol):
    """Every output in `cpu` (name -> array) against the same name in `gpu`:
    same shape and type, |gpu - cpu| <= atol + rtol |cpu|; prints a line each."""
    ok = True
    for f, c in cpu.items():
        g = gpu[f]
        if g.shape != c.shape or g.dtype != c.dtype:
            print(f"{label}/{f}: gpu {g.dtype} {list(g.shape)} vs cpu {c.dtype} {list(c.shape)} -> FAIL")
            ok = False
            continue
        c64, g64 = c.astype(np.float64), g.astype(np.float64)
        err = np.abs(g64 - c64)
        good = bool(np.all(err <= atol + rtol * np.abs(c64)))
        print(f"{label}/{f} {list(c.shape)}: max abs err {err.max():.3g} "
              f"(max |cpu| {np.abs(c64).max():.3g}) -> {'ok' if good else 'FAIL'}")
        ok = ok and good
    return ok
