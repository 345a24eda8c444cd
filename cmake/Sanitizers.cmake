# ONNXOPT_SANITIZE: everything built here (library, tools, tests) carries AddressSanitizer and
# UndefinedBehaviorSanitizer; any UB report aborts the process so that a test fails on it.
# ONNXOPT_FUZZ adds libFuzzer's coverage instrumentation to the same code (fuzzer-no-link: the
# tests still have their own main) and builds the targets in fuzz/.
# Both need clang (configure with -DCMAKE_CXX_COMPILER=clang++-14). The Debian libraries
# (protobuf, onnx, absl, gtest) are not instrumented: see scripts/test_sanitized.sh.
option(ONNXOPT_SANITIZE "Build with AddressSanitizer and UndefinedBehaviorSanitizer (clang)" OFF)
option(ONNXOPT_FUZZ "Build the libFuzzer targets in fuzz/ (clang; implies ONNXOPT_SANITIZE)" OFF)

if(ONNXOPT_FUZZ)
  set(ONNXOPT_SANITIZE ON)
endif()
if(NOT ONNXOPT_SANITIZE)
  return()
endif()
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "ONNXOPT_SANITIZE and ONNXOPT_FUZZ need clang: "
                      "configure with -DCMAKE_CXX_COMPILER=clang++-14")
endif()

set(ONNXOPT_SANITIZER_FLAGS -fsanitize=address,undefined -fno-sanitize-recover=undefined
                            -fno-omit-frame-pointer)
add_compile_options(${ONNXOPT_SANITIZER_FLAGS})
add_link_options(-fsanitize=address,undefined)
if(ONNXOPT_FUZZ)
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
