#!/bin/bash
# Installs an onnx-opt build into a temporary prefix, builds examples/consumer against the
# installed package (find_package(onnxopt) + onnxopt::onnxopt), runs it, and checks its output.
#
#   consumer_test.sh BUILD_DIR SOURCE_DIR WORK_DIR GENERATOR CXX_COMPILER MAKE_PROGRAM BUILD_TYPE
#                    [LIBRARY]
#
# LIBRARY: "static" or "shared" sets ONNXOPT_SHARED_LIBS for the consumer, so that onnxopt::onnxopt
# is that library, and checks that the program links it; empty: the package's default.
set -euo pipefail
build_dir=$1 source_dir=$2 work=$3 generator=$4 cxx=$5 make_program=$6 build_type=${7:-}
library=${8:-}

source "$(dirname "${BASH_SOURCE[0]}")/install_into_work.sh"
# Every public header is installed, and the package files are where find_package looks.
for header in $(cd "$source_dir/include" && find onnxopt -name '*.h'); do
  [[ -f $prefix/include/$header ]] || die "header $header was not installed"
done
config=$(find "$prefix" -name onnxoptConfig.cmake | head -n1)
[[ -n $config ]] || die "no onnxoptConfig.cmake under $prefix"

step "configure and build examples/consumer against the installed package"
cmake -S "$source_dir/examples/consumer" -B "$work/build" -G "$generator" \
  -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_MAKE_PROGRAM="$make_program" \
  ${build_type:+-DCMAKE_BUILD_TYPE="$build_type"} \
  ${library:+-DONNXOPT_SHARED_LIBS=$([[ $library == shared ]] && echo ON || echo OFF)} \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >>"$log" 2>&1 \
  || die "configuring the consumer failed"
found_dir=$(sed -n 's/^onnxopt_DIR:PATH=//p' "$work/build/CMakeCache.txt")
[[ $found_dir == "$prefix"/* ]] || die "find_package(onnxopt) found '$found_dir', not the installed package"
cmake --build "$work/build" >>"$log" 2>&1 || die "building the consumer failed"
# The consumer must compile against the installed headers, never the source tree.
if grep -q -- "-I$source_dir/include" "$work/build/compile_commands.json"; then
  die "the consumer was compiled with the source tree's include directory"
fi
app=$work/build/optimize-with-plugin
[[ -x $app ]] || die "no consumer executable"
needed=$(readelf -d "$app" | grep NEEDED || true)
case $library in
  shared)
    grep -q '\[libonnxopt\.so\.' <<<"$needed" || die "the consumer does not load libonnxopt.so"
    loaded=$(ldd "$app" | sed -n 's/^\s*libonnxopt\.so[^ ]* => \([^ ]*\).*/\1/p')
    [[ $loaded == "$prefix"/* ]] || die "the consumer loads libonnxopt.so from '$loaded', not $prefix"
    ;;
  static)
    if grep -q libonnxopt <<<"$needed"; then
      die "the consumer loads libonnxopt.so instead of linking the archive"
    fi
    ;;
esac

# check FILE PATTERN: PATTERN (an extended regex) must match a line of FILE.
check() { grep -Eq -- "$2" "$1" || { echo "---- output:"; cat "$1"; die "no line matches /$2/"; }; }

step "run it on examples/legacy_classifier.onnx (binary file to file)"
"$app" "$source_dir/examples/legacy_classifier.onnx" "$work/legacy.onnx" \
  "example-eliminate-identity,-O1" >"$work/out1.txt" 2>&1 \
  || { cat "$work/out1.txt"; die "a named pipeline inside pipeline text should expand"; }
check "$work/out1.txt" "^  fuse-transpose-gemm +[0-9]+ "
"$app" "$source_dir/examples/legacy_classifier.onnx" "$work/legacy.onnx" >"$work/out2.txt" 2>&1 \
  || { cat "$work/out2.txt"; die "the consumer failed on legacy_classifier.onnx"; }
cat "$work/out2.txt"
check "$work/out2.txt" "^pipeline: example-eliminate-identity,eliminate-dead-nodes$"
check "$work/out2.txt" "^  example-eliminate-identity +[0-9]+ +0 +0 +0 "
check "$work/out2.txt" "^  eliminate-dead-nodes +[0-9]+ "
check "$work/out2.txt" "^nodes: 11 -> 11$"
[[ -s $work/legacy.onnx ]] || die "no output model written"

step "run it on tests/api/data/identities.onnxtxt (text to ModelProto, optimize in place)"
"$app" "$source_dir/tests/api/data/identities.onnxtxt" "$work/identities.onnx" >"$work/out3.txt" 2>&1 \
  || { cat "$work/out3.txt"; die "the consumer failed on identities.onnxtxt"; }
cat "$work/out3.txt"
check "$work/out3.txt" "^  example-eliminate-identity +[0-9]+ +3 +3 +3 "
check "$work/out3.txt" "^nodes: 4 -> 1$"

step "a named pipeline with the plugin registered"
"$app" "$source_dir/tests/api/data/identities.onnxtxt" "$work/o1.onnx" -O1 >"$work/out4.txt" 2>&1 \
  || { cat "$work/out4.txt"; die "the consumer failed with -O1"; }
check "$work/out4.txt" "^pipeline: "
check "$work/out4.txt" "^nodes: 4 -> "

echo "PASS"
