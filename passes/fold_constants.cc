// fold-constants: a node of the default domain whose inputs are all constants (initializers that
// are not graph inputs, Constant nodes, results of earlier folds) is computed by the constant
// evaluator (include/onnxopt/eval/evaluator.h) and replaced by its result: an initializer of the
// node's graph under the output's name, a main-graph or body output's included.
//
// Models of IR version < 4 are left alone: there every initializer must also be a graph input,
// which would change the model's interface.
//
// Only the deterministic ops the evaluator has kernels for are roots (eval::kernelOpTypes):
// random ops, QuantizeLinear/DequantizeLinear (kept for quantized models), ops with subgraphs and
// other domains are never offered. Any error of the evaluator (no kernel for the version, type or
// attribute; inputs the op rejects; an output too large) is a decline, with its reason under
// --debug.
//
// Size guard: folding frees the constant inputs that only the folded node reads. A result of
// more bytes than that is kept only when it is at most `max-size` bytes, so the saved model
// never grows by more than that per fold, and a weight other nodes still read is never copied
// (Transpose(W) of a W with other readers folds only when small). Readers of the same inputs
// with the same op and attributes compute the same result and fold with the node, so a weight
// that every reader transposes alike is stored transposed once. See docs/passes/fold-constants.md.

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "onnxopt/eval/evaluator.h"
#include "onnxopt/ir/describe.h"
#include "onnxopt/ir/tensor.h"
#include "onnxopt/ir/type.h"
#include "onnxopt/rewrite/constant.h"
#include "onnxopt/rewrite/match.h"
#include "onnxopt/rewrite/pattern_pass.h"
#include "onnxopt/rewrite/rewriter.h"
#include "onnxopt/rewrite/tensor_util.h"
#include "shape_folding.h"

namespace onnxopt {
namespace {

// Never folded, though the evaluator may compute them: kept for quantized models.
bool keptForQuantizedModels(const std::string& op_type) {
  return op_type == "QuantizeLinear" || op_type == "DequantizeLinear";
}

inline constexpr int64_t kDefaultMaxSize = int64_t{1} << 20;
// Readers of a weight compared when looking for ones that compute the same result: enough for
// the layers that share a weight, and a bound that keeps a weight read by thousands linear.
inline constexpr size_t kMaxReadersCompared = 64;

// Other nodes that compute what `node` computes (sameComputation), in the same
// graph, with no output a graph output (the replacement takes the node's own) and none read that
// the node leaves unread (the fold replaces only the node's read outputs).
std::vector<const ir::Node*> twinsOf(const ir::Node& node) {
  std::vector<const ir::Node*> twins;
  const ir::Value* first = node.input(0);
  if (first == nullptr || first->uses().size() > kMaxReadersCompared) return twins;
  for (const ir::Use& use : first->uses()) {
    const ir::Node* other = use.user();
    if (other == nullptr || other == &node || use.index() != 0 || other->graph() != node.graph() ||
        !sameComputation(node, *other) ||
        std::find(twins.begin(), twins.end(), other) != twins.end()) {
      continue;
    }
    bool replaceable = true;
    for (size_t i = 0; i < other->numOutputs(); ++i) {
      const ir::Value* output = other->output(i);
      if (output == nullptr || !output->hasUses()) continue;
      const ir::Value* own = node.output(i);
      replaceable = replaceable && !output->isGraphOutput() && own != nullptr && own->hasUses();
    }
    if (replaceable) twins.push_back(other);
  }
  return twins;
}

// Why the computed tensor does not fit what the model declares for `output`; "" when it fits.
std::string declarationMismatch(const ir::Value& output, const onnx::TensorProto& computed) {
  const ir::Type declared = output.type();
  if (!declared.isTensor()) return "";
  if (declared.elemType() != onnx::TensorProto::UNDEFINED &&
      declared.elemType() != computed.data_type()) {
    return absl::StrCat("the model declares '", output.name(), "' of element type ",
                        declared.elemType(), ", the fold computed ", computed.data_type());
  }
  const std::optional<ir::Shape>& shape = declared.shape();
  if (!shape) return "";
  bool fits = static_cast<int>(shape->size()) == computed.dims_size();
  for (int i = 0; fits && i < computed.dims_size(); ++i) {
    const ir::Dim& dim = (*shape)[i];
    fits = !dim.isKnown() || dim.value() == computed.dims(i);
  }
  if (fits) return "";
  return absl::StrCat("the model declares '", output.name(), "' as ", shapeText(shape),
                      ", the fold computed [", absl::StrJoin(computed.dims(), ", "), "]");
}

class FoldConstantNode final : public RewritePattern {
 public:
  FoldConstantNode(const std::string& op_type, const PassOption<int64_t>& max_size)
      : RewritePattern("fold-constants", {op_type, 1}), max_size_(max_size) {}

  LogicalResult matchAndRewrite(const ir::Node& node, PatternRewriter& rewriter) const override {
    if (!node.hasUsedOutputs()) return failure();
    if (rewriter.model().irVersion() < 4) {
      return rewriter.notifyMatchFailure(
          node, "IR version < 4 wants every initializer to be a graph input too");
    }
    for (const ir::Value* input : node.inputs()) {
      if (input == nullptr || isConstant(*input)) continue;
      if (input->isInitializer()) {
        return rewriter.notifyMatchFailure(node, [&] {
          return absl::StrCat("'", input->name(),
                              "' is an initializer that is also a graph input: the caller may "
                              "feed it");
        });
      }
      return failure();
    }
    if (!eval::hasKernel(node)) {
      return rewriter.notifyMatchFailure(node, [&] {
        return absl::StrCat("the evaluator has no ", node.opType(), " kernel at opset ",
                            rewriter.opsetVersion(node).value_or(0));
      });
    }

    std::vector<const ir::Node*> readers = twinsOf(node);
    readers.push_back(&node);
    std::vector<ConstantView> views;  // keep alive what `inputs` point into
    std::vector<const onnx::TensorProto*> inputs;
    int64_t freed_bytes = 0;
    for (const ir::Value* input : node.inputs()) {
      if (input == nullptr) {
        inputs.push_back(nullptr);
        continue;
      }
      absl::StatusOr<std::optional<ConstantView>> view =
          readConstant(*input, std::numeric_limits<int64_t>::max());
      if (failed(rewriter.check(node, view.status()))) return failure();
      if (!*view) {
        return rewriter.notifyMatchFailure(node, [&] {
          return absl::StrCat("constant '", input->name(),
                              "' is sparse, segmented or of an element type of no known size");
        });
      }
      const bool first_read = std::find(node.inputs().begin(), node.inputs().end(), input) ==
                              node.inputs().begin() + inputs.size();
      if (first_read && onlyReadBy(*input, readers)) {
        freed_bytes += dataBytes((*view)->proto(), (*view)->numElements()).value_or(0);
      }
      views.push_back(**view);
      inputs.push_back(&views.back().proto());
    }
    eval::EvalLimits limits;
    limits.max_output_bytes = std::max(freed_bytes, *max_size_);
    absl::StatusOr<std::vector<onnx::TensorProto>> results = eval::evaluate(node, inputs, limits);
    if (!results.ok()) {
      // The evaluator's errors name the node, which the reason line names already.
      return rewriter.notifyMatchFailure(node, [&] {
        absl::string_view reason = results.status().message();
        absl::ConsumePrefix(&reason, absl::StrCat(ir::describe(node), ": "));
        return std::string(reason);
      });
    }
    if (results->size() != node.numOutputs()) {
      return rewriter.notifyMatchFailure(node, "the evaluator gave a result per output it does not have");
    }
    int64_t result_bytes = 0;
    for (size_t i = 0; i < results->size(); ++i) {
      const ir::Value* output = node.output(i);
      if (output == nullptr || !output->hasUses()) continue;
      const onnx::TensorProto& result = (*results)[i];
      const int64_t count = ir::tensorElementCount(result).value_or(0);
      result_bytes += dataBytes(result, count).value_or(0);
      if (std::string why = declarationMismatch(*output, (*results)[i]); !why.empty()) {
        return rewriter.notifyMatchFailure(node, why);
      }
    }
    if (result_bytes > freed_bytes && result_bytes > *max_size_) {
      return rewriter.notifyMatchFailure(node, [&] {
        return absl::StrCat("the result takes ", result_bytes, " bytes, over max-size (",
                            *max_size_, ") and more than the ", freed_bytes,
                            " bytes of constants the fold frees");
      });
    }

    if (failed(rewriter.match(node))) return failure();
    for (size_t i = 0; i < results->size(); ++i) {
      const ir::Value* output = node.output(i);
      if (output == nullptr || !output->hasUses()) continue;
      ir::Value* replacement = rewriter.createInitializer(output->name(), std::move((*results)[i]));
      // The twins first, so that the replacement ends up with the node's own output name.
      for (const ir::Node* twin : readers) {
        const ir::Value* twin_output = twin->output(i);
        if (twin != &node && twin_output != nullptr && twin_output->hasUses()) {
          rewriter.replaceAllUsesWith(*twin_output, *replacement);
        }
      }
      rewriter.replaceAllUsesWith(*output, *replacement);
    }
    return success();
  }

 private:
  const PassOption<int64_t>& max_size_;
};

class FoldConstants final : public PatternPass {
 public:
  FoldConstants() : PatternPass("fold-constants") {}

 private:
  void populatePatterns(RewritePatternSet& patterns) const override {
    for (const std::string& op_type : eval::kernelOpTypes()) {
      if (!keptForQuantizedModels(op_type)) patterns.add<FoldConstantNode>(op_type, max_size_);
    }
    addShapeFoldingPatterns(patterns);
  }

  PassOption<int64_t> max_size_{
      *this, "max-size", kDefaultMaxSize,
      "bytes a folded result may take beyond the constants the fold frees", atLeast(0)};
};

}  // namespace

std::unique_ptr<Pass> createFoldConstantsPass() { return std::make_unique<FoldConstants>(); }

}  // namespace onnxopt
