// lift-constants: a Constant node becomes an initializer of its own graph, under the Constant's
// output name, so that every later pass and ONNX Runtime see one form of constant. In every graph
// scope: a Constant inside an If branch or a Loop body becomes an initializer of that body.
//
// Constant's versions (1, 9, 11, 12, 13, 19, 21, 23) differ only in the attribute forms and the
// element types they allow; each form stands for one tensor, which the initializer holds:
// `value` as it is (doc string included), value_float(s), value_int(s), value_string(s) as the
// scalar or 1-D tensor the spec defines. Declines: sparse_value (an initializer would hold it
// densely, larger), external data in `value` (the folder it resolves against is the model's, not
// the initializer's), element types without a known size, and models of IR version < 4, where
// every initializer must also be a graph input (which would change the model's interface). An
// output of the main graph or of a body becomes an initializer of its name. See
// docs/passes/lift-constants.md.

#include <limits>
#include <optional>
#include <string>

#include "onnxopt/rewrite/constant.h"
#include "onnxopt/rewrite/pattern_pass.h"
#include "onnxopt/rewrite/rewriter.h"

namespace onnxopt {
namespace {

class LiftConstantToInitializer final : public RewritePattern {
 public:
  LiftConstantToInitializer() : RewritePattern("lift-constant-to-initializer", {"Constant", 1}) {}

  LogicalResult matchAndRewrite(const ir::Node& constant,
                                PatternRewriter& rewriter) const override {
    const ir::Value* output = constant.output(0);
    if (output == nullptr || !output->hasUses()) return failure();
    if (rewriter.model().irVersion() < 4) {
      return rewriter.notifyMatchFailure(
          constant, "IR version < 4 wants every initializer to be a graph input too");
    }
    if (const ir::Attribute* sparse = constant.attr("sparse_value"); sparse != nullptr) {
      return rewriter.notifyMatchFailure(constant, "sparse_value stays sparse");
    }
    if (const ir::Attribute* value = constant.attr("value");
        value != nullptr && value->kind() == onnx::AttributeProto::TENSOR &&
        value->t().data_location() == onnx::TensorProto::EXTERNAL) {
      return rewriter.notifyMatchFailure(constant, "its value is in external data");
    }
    // Lifting moves the tensor whatever its size: no cap.
    absl::StatusOr<std::optional<ConstantView>> read =
        readConstant(*output, std::numeric_limits<int64_t>::max());
    if (failed(rewriter.check(constant, read.status()))) return failure();
    if (!*read) {
      return rewriter.notifyMatchFailure(constant, "its element type has no known size");
    }
    if (failed(rewriter.match(constant))) return failure();
    ir::Value* initializer = rewriter.createInitializer(output->name(), (*read)->proto());
    rewriter.replaceAllUsesWith(*output, *initializer);
    return success();
  }
};

class LiftConstants final : public PatternPass {
 public:
  LiftConstants() : PatternPass("lift-constants") {}

 private:
  void populatePatterns(RewritePatternSet& patterns) const override {
    patterns.add<LiftConstantToInitializer>();
  }
};

}  // namespace

std::unique_ptr<Pass> createLiftConstantsPass() { return std::make_unique<LiftConstants>(); }

}  // namespace onnxopt
