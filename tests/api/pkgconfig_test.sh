#!/bin/bash
# Installs an onnx-opt build into a temporary prefix and builds examples/consumer/main.cc with
# nothing but `c++ main.cc $(pkg-config --cflags --libs onnxopt)` (PKG_CONFIG_PATH pointing into
# the prefix), then runs it. The program links whichever library -lonnxopt finds: the shared one
# when it is installed (then loaded from the prefix), else the static archive.
#
#   pkgconfig_test.sh BUILD_DIR SOURCE_DIR WORK_DIR CXX_COMPILER PKG_CONFIG
set -euo pipefail
build_dir=$1 source_dir=$2 work=$3 cxx=$4 pkg_config=$5

source "$(dirname "${BASH_SOURCE[0]}")/install_into_work.sh"
pc=$(find "$prefix" -path '*/pkgconfig/onnxopt.pc' | head -n1)
[[ -n $pc ]] || die "no pkgconfig/onnxopt.pc under $prefix"
cat "$pc"
export PKG_CONFIG_PATH=${pc%/onnxopt.pc}
"$pkg_config" --exists --print-errors onnxopt >>"$log" 2>&1 || die "pkg-config cannot read onnxopt.pc"
libdir=$("$pkg_config" --variable=libdir onnxopt)
[[ $libdir == "$prefix"/* && -d $libdir ]] || die "libdir '$libdir' is not the installed one"

step "c++ main.cc \$(pkg-config --cflags --libs onnxopt)"
flags=$("$pkg_config" --cflags --libs onnxopt)
echo "$flags"
app=$work/optimize-with-plugin
# shellcheck disable=SC2086  # the flags are words
"$cxx" -std=c++17 "$source_dir/examples/consumer/main.cc" $flags -o "$app" >>"$log" 2>&1 \
  || die "building the consumer with pkg-config's flags failed"

needed=$(readelf -d "$app" | grep NEEDED || true)
if [[ -e $libdir/libonnxopt.so ]]; then
  step "check it loads the installed libonnxopt.so"
  grep -q '\[libonnxopt\.so\.' <<<"$needed" || die "the consumer does not load libonnxopt.so"
  export LD_LIBRARY_PATH=$libdir
  loaded=$(ldd "$app" | sed -n 's/^\s*libonnxopt\.so[^ ]* => \([^ ]*\).*/\1/p')
  [[ $loaded == "$libdir"/* ]] || die "the consumer loads libonnxopt.so from '$loaded', not $libdir"
else
  step "check it links the static archive"
  [[ -f $libdir/libonnxopt.a ]] || die "neither libonnxopt.so nor libonnxopt.a in $libdir"
  if grep -q libonnxopt <<<"$needed"; then die "the consumer loads a libonnxopt.so"; fi
fi

step "run it on tests/api/data/identities.onnxtxt"
"$app" "$source_dir/tests/api/data/identities.onnxtxt" "$work/identities.onnx" >"$work/out.txt" 2>&1 \
  || { cat "$work/out.txt"; die "the consumer failed"; }
cat "$work/out.txt"
grep -Eq '^  example-eliminate-identity +[0-9]+ +3 +3 +3 ' "$work/out.txt" \
  || die "the out-of-tree pass did not remove the three Identity nodes"
grep -Eq '^nodes: 4 -> 1$' "$work/out.txt" || die "the model was not optimized to one node"
[[ -s $work/identities.onnx ]] || die "no output model written"

echo "PASS"
