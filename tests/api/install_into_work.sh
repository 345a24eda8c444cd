# Sourced by the install tests after they set $build_dir and $work: a fresh $work, the step/die
# helpers, and `cmake --install` of $build_dir into $prefix=$work/prefix (its log in $log).
rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix
log=$work/log.txt

step() { echo "== $*"; }
die() { echo "FAIL: $*"; echo "---- log:"; tail -n 60 "$log" 2>/dev/null; exit 1; }

step "install $build_dir into $prefix"
cmake --install "$build_dir" --prefix "$prefix" >"$log" 2>&1 || die "cmake --install failed"
