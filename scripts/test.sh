#!/usr/bin/env bash
# Sets up (Debian packages), builds, and runs the whole test suite with CTest.
#   BUILD_DIR  build folder (default: build); CTEST_PARALLEL  parallel jobs (default: 2)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/setup.sh
# Both libraries from one compilation, so the tests also cover libonnxopt.so (docs/packaging.md).
# Line tables only (-g1): the big test files compile in a third less time; stack traces keep
# file:line. BUILD_CXX_FLAGS overrides it (e.g. "-O2 -g -DNDEBUG" for full debug info).
bash scripts/build.sh -DONNXOPT_BUILD_STATIC_AND_SHARED=ON \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="${BUILD_CXX_FLAGS:--O2 -g1 -DNDEBUG}"
bash scripts/test_sanitized.sh  # ASan + UBSan build: unit and golden tests, short fuzz runs
cd "${BUILD_DIR:-build}"
ctest --output-on-failure -j"${CTEST_PARALLEL:-2}"
