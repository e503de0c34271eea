#!/usr/bin/env bash
# Installs every build and test dependency of webnnc from Debian 12's archive.
# Safe to re-run: apt skips what is already present.
set -euo pipefail
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
PKGS=(
  build-essential cmake ninja-build git pkg-config
  # MLIR/LLVM 22: dialect, webnn-opt, mlir-tblgen, lit, FileCheck
  libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools
  # ONNX front end
  libonnx-dev libprotobuf-dev protobuf-compiler
  # artifact, CLIs, JSON, tests
  libflatbuffers-dev flatbuffers-compiler libcli11-dev nlohmann-json3-dev libgtest-dev
  # CPU kernels
  libdnnl-dev nettle-dev
  # asan and fuzz presets: clang with libFuzzer and the sanitizer runtimes
  # (the tsan preset uses gcc's libtsan, which comes with build-essential)
  clang libclang-rt-dev
  # test material and helper scripts (run with /usr/bin/python3; mpmath:
  # scripts/fit-erf-rational.py's reference values)
  libonnx-testdata python3-numpy python3-onnx python3-mpmath
  # the Python package webnn (bindings/python) and `webnnc inspect --dot`'s test
  pybind11-dev python3-dev graphviz
  # GPU backend (docs/GPU.md): Vulkan headers (the loader is opened at run
  # time), lavapipe as the test device, validation layers, shader compiler
  libvulkan-dev mesa-vulkan-drivers vulkan-validationlayers vulkan-tools glslc spirv-tools
)
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq || true
$SUDO apt-get install -y -qq --no-install-recommends "${PKGS[@]}"

# The benchmark's reference runtime (ONNX Runtime for Node, from npm) and
# exporter (PyTorch, from Debian): ctest runs a smoke pass of the benchmark
# and compares real models against ONNX Runtime's outputs.
"$(dirname "${BASH_SOURCE[0]}")/../bench/install-bench-deps.sh"
