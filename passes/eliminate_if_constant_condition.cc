// eliminate-if-constant-condition: an If whose condition is a constant runs the same branch every
// time, so that branch's nodes and initializers move into the enclosing graph, before the If, and
// the branch's outputs replace the If's. See docs/passes/eliminate-if-constant-condition.md.

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "onnxopt/rewrite/constant.h"
#include "onnxopt/rewrite/pattern_pass.h"
#include "onnxopt/rewrite/rewriter.h"

namespace onnxopt {
namespace {

// One element of bool: what "a single element" of the condition's tensor(bool) fits in.
constexpr int64_t kConditionReadLimit = 64;

class InlineTakenBranch final : public RewritePattern {
 public:
  // Versions 1, 11, 13, 16, 19, 21 and 23 differ in the output types only: the condition is a
  // tensor(bool) of a single element (of any rank) in all of them.
  InlineTakenBranch() : RewritePattern("inline-taken-branch", {"If", 1}) {}

  LogicalResult matchAndRewrite(const ir::Node& node, PatternRewriter& rewriter) const override {
    const ir::Value* cond = node.input(0);
    if (cond == nullptr) return failure();
    if (cond->isGraphInput()) {
      return rewriter.notifyMatchFailure(node, "the condition is a graph input (a caller may "
                                               "feed it, even with an initializer)");
    }
    if (!isConstant(*cond)) {
      return rewriter.notifyMatchFailure(node, "the condition is not a constant");
    }
    absl::StatusOr<std::optional<ConstantView>> constant =
        readConstant(*cond, kConditionReadLimit);
    if (!constant.ok()) return rewriter.emitError(node, constant.status());
    if (!*constant) {
      return rewriter.notifyMatchFailure(node, "the condition is not a constant of one element");
    }
    if ((*constant)->elemType() != onnx::TensorProto::BOOL) {
      return rewriter.notifyMatchFailure(node, "the condition is not a bool tensor");
    }
    if ((*constant)->numElements() != 1) {
      return rewriter.notifyMatchFailure(node, [&] {
        return absl::StrCat("the condition has ", (*constant)->numElements(),
                            " elements, not one");
      });
    }
    const std::optional<std::vector<int64_t>> value = (*constant)->asInts();
    if (!value) return rewriter.notifyMatchFailure(node, "the condition's data is malformed");
    const char* taken = (*value)[0] != 0 ? "then_branch" : "else_branch";
    const ir::Attribute* branch = node.attr(taken);
    if (branch == nullptr || branch->kind() != onnx::AttributeProto::GRAPH ||
        branch->graphs().size() != 1) {
      return rewriter.emitError(
          node, absl::InvalidArgumentError(absl::StrCat("attribute '", taken,
                                                        "' is missing or not a graph")));
    }
    const ir::Graph& body = *branch->graphs().front();
    if (!body.inputs().empty()) {
      return rewriter.notifyMatchFailure(node, [&] {
        return absl::StrCat("the ", taken, " declares inputs, which a branch has none of");
      });
    }
    if (body.outputs().size() != node.numOutputs()) {
      return rewriter.notifyMatchFailure(node, [&] {
        return absl::StrCat("the ", taken, " returns ", body.outputs().size(), " values for ",
                            node.numOutputs(), " outputs");
      });
    }
    for (const ir::Value* initializer : body.initializers()) {
      if (initializer->isSparseInitializer()) {
        return rewriter.notifyMatchFailure(node, [&] {
          return absl::StrCat("the ", taken, " has a sparse initializer, '", initializer->name(),
                              "'");
        });
      }
    }
    if (failed(rewriter.match(node))) return failure();
    const std::vector<ir::Value*> results = rewriter.inlineSubgraph(body);
    for (size_t i = 0; i < node.numOutputs() && i < results.size(); ++i) {
      const ir::Value* output = node.output(i);
      if (output == nullptr || !output->hasUses()) continue;
      ir::Value* result = results[i];
      // A main-graph output keeps its name and a body output stays a node output of the body: an
      // initializer, an outer value, or a value returned twice takes it through an Identity.
      if (!rewriter.canReplaceAllUsesWith(*output, *result)) {
        result = rewriter.createNode("Identity", {result}, {output->name()})->output(0);
      }
      rewriter.replaceAllUsesWith(*output, *result);
    }
    rewriter.eraseNode(node);
    return success();
  }
};

class EliminateIfConstantCondition final : public PatternPass {
 public:
  EliminateIfConstantCondition() : PatternPass("eliminate-if-constant-condition") {}

 private:
  void populatePatterns(RewritePatternSet& patterns) const override {
    patterns.add<InlineTakenBranch>();
  }
};

}  // namespace

std::unique_ptr<Pass> createEliminateIfConstantConditionPass() {
  return std::make_unique<EliminateIfConstantCondition>();
}

}  // namespace onnxopt
