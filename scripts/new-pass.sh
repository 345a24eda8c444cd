#!/usr/bin/env bash
# Creates a new built-in pass: its file, its golden test file and its docs page, and adds its
# registry line to passes/passes.def. Nothing else needs editing (passes/CMakeLists.txt and
# tests/passes/CMakeLists.txt pick the files up).
#   scripts/new-pass.sh NAME ROOT_OP     e.g. scripts/new-pass.sh eliminate-nop-pad Pad
# ROOT_DIR (default: the repository) is where the files go.
set -euo pipefail

if [[ $# -ne 2 || ! $1 =~ ^[a-z][a-z0-9-]*$ || ! $2 =~ ^[A-Za-z][A-Za-z0-9]*$ ]]; then
  echo "usage: scripts/new-pass.sh NAME ROOT_OP  (NAME: lower-case words joined by '-')" >&2
  exit 2
fi
name=$1
root_op=$2
root=${ROOT_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
file=${name//-/_}
# eliminate-nop-pad -> EliminateNopPad
class=$(sed -E 's/(^|-)([a-z])/\U\2/g' <<<"$name")
pass_file=$root/passes/$file.cc
golden=$root/tests/passes/$name.onnxtxt
doc=$root/docs/passes/$name.md
registry=$root/passes/passes.def

for f in "$pass_file" "$golden" "$doc"; do
  [[ -e $f ]] && { echo "new-pass.sh: $f exists already" >&2; exit 1; }
done
grep -q "ONNXOPT_PASS(\"$name\"" "$registry" && { echo "new-pass.sh: $name is registered" >&2; exit 1; }

cat >"$pass_file" <<CC
// $name: what it matches and what it rewrites it to. See docs/passes/$name.md.

#include "onnxopt/rewrite/pattern_pass.h"
#include "onnxopt/rewrite/rewriter.h"

namespace onnxopt {
namespace {

class ${class}Pattern final : public RewritePattern {
 public:
  // The opsets whose $root_op spec the pattern was checked against.
  ${class}Pattern() : RewritePattern("$name", {"$root_op", 1}) {}

  LogicalResult matchAndRewrite(const ir::Node& node, PatternRewriter& rewriter) const override {
    // Every check first; rewriter.notifyMatchFailure(node, "why") once the root and its first
    // operand matched. Then rewriter.match(node, {absorbed...}) and the rewrite, through the
    // rewriter only.
    (void)node;
    (void)rewriter;
    return failure();
  }
};

class ${class} final : public PatternPass {
 public:
  ${class}() : PatternPass("$name") {}

 private:
  void populatePatterns(RewritePatternSet& patterns) const override {
    patterns.add<${class}Pattern>();
  }
};

}  // namespace

std::unique_ptr<Pass> create${class}Pass() { return std::make_unique<${class}>(); }

}  // namespace onnxopt
CC

cat >"$golden" <<TXT
# Golden tests of $name (format: docs/testing.md): positive cases and the near misses where the
# pass must not fire, side by side.
# PIPELINE: $name
<ir_version: 8, opset_import: ["" : 13]>
leaves_unrelated_nodes (float[2] X) => (float[2] Y) {
  Y = Relu(X)
}
# EXPECT-UNCHANGED
TXT

cat >"$doc" <<MD
# $name

What it matches (root: \`$root_op\`, the opsets it handles), what it rewrites it to, and every
case where it declines. Golden cases: [tests/passes/$name.onnxtxt](../../tests/passes/$name.onnxtxt).
MD

# The registry line goes after the last pass (after the last line of its entry, which may span
# several), before the named pipelines.
awk -v line="ONNXOPT_PASS(\"$name\", create${class}Pass, \"TODO: one line on what $name does\")" '
  /^ONNXOPT_PASS\(/ { in_entry = 1 }
  in_entry && /\)[[:space:]]*$/ { last = NR; in_entry = 0 }
  { lines[NR] = $0 }
  END { for (i = 1; i <= NR; ++i) { print lines[i]; if (i == last) print line } }
' "$registry" >"$registry.new"
mv "$registry.new" "$registry"
echo "new-pass.sh: created passes/$file.cc, tests/passes/$name.onnxtxt, docs/passes/$name.md;"
echo "  registered $name in passes/passes.def (write its summary there)"
