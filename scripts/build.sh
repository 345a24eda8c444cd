#!/usr/bin/env bash
# Configures (CMake + Ninja, RelWithDebInfo) and builds onnx-opt.
#   BUILD_DIR   build folder, relative to the repository root or absolute (default: build)
#   BUILD_TYPE  CMake build type (default: RelWithDebInfo)
# Extra arguments go to the CMake configure step, e.g.
#   scripts/build.sh -DONNXOPT_BUILD_BENCHMARKS=OFF
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

BUILD_DIR=${BUILD_DIR:-build}
BUILD_TYPE=${BUILD_TYPE:-RelWithDebInfo}

cache="$BUILD_DIR/CMakeCache.txt"
if [[ -f $cache ]] && ! grep -qx 'CMAKE_GENERATOR:INTERNAL=Ninja' "$cache"; then
  echo "build.sh: $BUILD_DIR was configured with another generator; remove it or set BUILD_DIR" >&2
  exit 1
fi

cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE="$BUILD_TYPE" "$@" >/dev/null
cmake --build "$BUILD_DIR"
