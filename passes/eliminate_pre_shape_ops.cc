// eliminate-pre-shape-ops: Shape(f(X)) and Size(f(X)) read X when f's output has its input's
// shape by f's definition (Cast, the unary elementwise operators, Softmax, the normalizations:
// keepsInputShape) and only Shape and Size nodes read it, so that f goes. ONNX Runtime's
// PreShapeNodeElimination does it for Cast. Shape's start and end (opset 15) slice the same dims
// either way. See docs/passes/eliminate-pre-shape-ops.md.

#include <string>

#include "absl/strings/str_cat.h"
#include "onnxopt/rewrite/pattern_pass.h"
#include "onnxopt/rewrite/rewriter.h"
#include "onnxopt/rewrite/shape_oracle.h"

namespace onnxopt {
namespace {

bool isShapeOrSize(const ir::Node* node) {
  return node != nullptr && node->op().domain().empty() &&
         (node->opType() == "Shape" || node->opType() == "Size");
}

// Whether only Shape and Size nodes, and `passed` (a node below that goes), read `node`'s
// outputs: it goes once those read what it reads. A Shape or Size moves up only past such
// nodes, so that every node passed goes: going past one something else reads would take none
// of them away and give the value above one more reader, and a fusion that wants that value to
// itself (BatchNormalization into the Conv before it) would then decline.
bool onlyShapesRead(const ir::Node& node, const ir::Node* passed) {
  for (const ir::Value* output : node.outputs()) {
    if (output == nullptr) continue;
    for (const ir::Use& use : output->uses()) {
      if (use.isGraphOutput() || (use.user() != passed && !isShapeOrSize(use.user()))) {
        return false;
      }
    }
  }
  return true;
}

class ReadShapeOfInput final : public RewritePattern {
 public:
  explicit ReadShapeOfInput(const std::string& op_type)
      : RewritePattern(absl::StrCat("read-", op_type, "-of-input"), {op_type, 1}) {}

  LogicalResult matchAndRewrite(const ir::Node& node, PatternRewriter& rewriter) const override {
    ir::Value* operand = node.input(0);
    if (operand == nullptr) return failure();
    // The top of a chain (Shape(Relu(Cast(X))) reads X), in one rewrite.
    ir::Value* source = shapeSourceOf(*operand, onlyShapesRead);
    if (source == operand) return failure();
    if (source == nullptr) {
      return rewriter.notifyMatchFailure(node, [] {
        return absl::StrCat("more than ", kMaxShapeKeepingChain,
                            " operators that keep their input's shape are chained before it");
      });
    }
    if (failed(rewriter.match(node))) return failure();
    rewriter.setInput(node, 0, source);
    return success();
  }
};

class EliminatePreShapeOps final : public PatternPass {
 public:
  EliminatePreShapeOps() : PatternPass("eliminate-pre-shape-ops") {}

 private:
  void populatePatterns(RewritePatternSet& patterns) const override {
    patterns.add<ReadShapeOfInput>("Shape");
    patterns.add<ReadShapeOfInput>("Size");
  }
};

}  // namespace

std::unique_ptr<Pass> createEliminatePreShapeOpsPass() {
  return std::make_unique<EliminatePreShapeOps>();
}

}  // namespace onnxopt
