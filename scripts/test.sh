#!/usr/bin/env bash
# Sets up (Debian packages), builds, and runs the whole test suite with CTest.
#   BUILD_DIR  build folder (default: build); CTEST_PARALLEL  parallel jobs (default: 2)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/setup.sh
# Both libraries from one compilation, so the tests also cover libonnxopt.so (docs/packaging.md).
bash scripts/build.sh -DONNXOPT_BUILD_STATIC_AND_SHARED=ON
bash scripts/test_sanitized.sh  # ASan + UBSan build: unit and golden tests, short fuzz runs
cd "${BUILD_DIR:-build}"
ctest --output-on-failure -j"${CTEST_PARALLEL:-2}"
