"""What bench/gpu_check.sh and bench/gpu_coopmat_check.sh share: their
arguments, running a tool, and the xz-compressed artifacts and .npy inputs
that travel to a GPU machine without webnnc."""
import argparse
import lzma
import subprocess

import numpy as np

# Redrawn weights repeat a random pattern of PERIOD elements: xz finds the
# repeats, and PERIOD (a prime) lines up with no row length.
PERIOD = 4099


def arguments(prog, runs_help):
    ap = argparse.ArgumentParser(prog=prog + " BIN_DIR")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--prepare", metavar="DIR")
    ap.add_argument("--models", metavar="DIR")
    ap.add_argument("--runs", type=int, default=0, help=runs_help)
    return ap


def sh(cmd, env=None):
    return subprocess.run(cmd, capture_output=True, text=True, env=env)


def two_values(shape, rng, lo, hi, dtype=np.float32):
    """lo or hi in a random pattern of PERIOD elements repeated over `shape`."""
    n = 1
    for d in shape:
        n *= int(d)
    pick = rng.random(min(max(n, 1), PERIOD)) < 0.5
    return np.resize(np.where(pick, lo, hi).astype(dtype), shape)


def xz_file(src, dst):
    with open(src, "rb") as f, lzma.open(dst, "wb", preset=6) as g:
        while chunk := f.read(1 << 24):
            g.write(chunk)


def unxz_file(src, dst):
    with lzma.open(src) as f, open(dst, "wb") as g:
        while chunk := f.read(1 << 24):
            g.write(chunk)


def save_npy_xz(path, array):
    with lzma.open(path, "wb", preset=6) as f:
        np.save(f, array)


def load_npy_xz(path):
    with lzma.open(path) as f:
        return np.load(f)
