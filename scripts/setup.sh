#!/usr/bin/env bash
# Installs the Debian 12 packages onnx-opt needs to build and test, if any are missing.
# Idempotent: when everything is installed it only checks (no apt-get update, no network).
# Run as root (or with sudo available).
set -euo pipefail

packages=(
  # build
  build-essential
  cmake
  ninja-build
  pkg-config           # the test that builds a consumer with onnxopt.pc
  # libraries (all from Debian: nothing is downloaded at build time)
  libonnx-dev          # ONNX 1.12: protos, schemas, parser, checker, shape inference
  libprotobuf-dev
  protobuf-compiler
  libabsl-dev
  # tests and benchmarks
  libgtest-dev
  libbenchmark-dev
  libonnx-testdata     # the round-trip corpus
  llvm-14-tools        # FileCheck-14 for the golden text tests
  clang-14 libclang-rt-14-dev  # the sanitizer build and libFuzzer (scripts/test_sanitized.sh)
  # Python: Debian's interpreter /usr/bin/python3 owns these (not a pyenv python3 on PATH)
  python3-onnx         # example and test-data generators
  python3-pytest
  pybind11-dev
  python3-dev          # Python.h for the module (python/)
  python3-torch        # tests/python export models with torch.onnx.export
  # tests/realexports exports torchvision models at test time. With python3-torch and
  # python3-onnx: ~150 MB of .debs (~630 MB installed), which dpkg unpacks in ~30 s
  python3-torchvision
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null | grep -qx installed; then
    missing+=("$p")
  fi
done

if ((${#missing[@]} > 0)); then
  sudo=()
  if [[ $EUID -ne 0 ]]; then
    if command -v sudo >/dev/null; then
      sudo=(sudo)
    else
      echo "setup.sh: missing packages (${missing[*]}); run as root to install them" >&2
      exit 1
    fi
  fi
  echo "setup.sh: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  echo "setup.sh: installed ${#missing[@]} package(s)"
else
  echo "setup.sh: all ${#packages[@]} packages present"
fi

# ONNX Runtime for the equivalence tests: onnxruntime-node from npm, pinned by the lock file.
# It installs Debian's nodejs and npm only when no node is on the machine at all.
bash "$(dirname "$0")/../tests/equivalence/install.sh"
