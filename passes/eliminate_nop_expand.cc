// eliminate-nop-expand: removes Expand nodes that do nothing, and reads around Expand nodes whose
// only job is a broadcast their consumer does anyway. Expand exists from opset 8.
//
// 1. remove-nop-expand: E = Expand(X, S) whose output provably has X's shape is X. The rewriter
//    forwards every use X may take; the Expand stays for graph outputs X cannot become.
// 2. read-around-expand-<op>: a consumer that broadcasts its operands reads X instead of E when
//    that provably changes nothing. Numpy-style broadcasting ops (from the opset each broadcasts
//    so): broadcast(X, Z...) must provably equal broadcast(E, Z...) axis by axis; since X's dims
//    are each 1 or E's, equal shapes mean equal values. Gemm's C (unidirectional to [M, N]): X of
//    rank <= 2 will do. PRelu's slope: checked multidirectionally, which both the spec and ONNX
//    Runtime agree with. Expand's own input: Expand(Expand(X, S1), S2) reads X when S1 adds
//    nothing to S2. Targets computed at run time are followed through Shape/Gather/Unsqueeze/
//    Concat (ShapeOracle::shapeValueOf); an unknown dim the proof needs makes the pattern decline.
// See docs/passes/eliminate-nop-expand.md.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "onnxopt/ir/describe.h"
#include "onnxopt/rewrite/expand_analysis.h"
#include "onnxopt/rewrite/match.h"
#include "onnxopt/rewrite/pattern_pass.h"
#include "onnxopt/rewrite/rewriter.h"
#include "onnxopt/rewrite/schema.h"
#include "onnxopt/rewrite/shape_oracle.h"

namespace onnxopt {
namespace {

using ir::describe;

// The Expand producing `value`, with both its inputs, or null.
const ir::Node* expandProducing(const ir::Value* value) {
  const ir::Node* expand = producerOf(value, "Expand");
  return expand && expand->input(0) && expand->input(1) ? expand : nullptr;
}

class RemoveNopExpand final : public RewritePattern {
 public:
  RemoveNopExpand() : RewritePattern("remove-nop-expand", {"Expand", 8}) {}

  LogicalResult matchAndRewrite(const ir::Node& expand, PatternRewriter& rewriter) const override {
    ir::Value* input = expand.input(0);
    const ir::Value* output = expand.output(0);
    if (input == nullptr || expand.input(1) == nullptr || output == nullptr) return failure();
    const ExpandFacts facts = analyzeExpand(expand, rewriter.shapes());
    if (!facts.error.ok()) return rewriter.emitError(expand, facts.error);
    if (!sameShapeByDefinition(facts.target_shape_of, input) && !expandIsNop(facts)) {
      return rewriter.notifyMatchFailure(expand, [&facts] {
        return facts.dims ? absl::StrCat("the output is not provably the input's shape ",
                                         shapeText(facts.input_shape))
                          : facts.why_unknown;
      });
    }
    // Every use X may take; the Expand stays for graph outputs it may not take (X is a graph
    // input, an initializer, an outer value of a body, ...).
    if (!rewriter.canReplaceAnyUseWith(*output, *input)) {
      return rewriter.notifyMatchFailure(
          expand, absl::StrCat("the output '", output->name(),
                               "' is only a graph output that the input '", input->name(),
                               "' cannot stand in for"));
    }
    if (failed(rewriter.match(expand))) return failure();
    rewriter.replaceUsesWhereAllowed(*output, *input);
    return success();
  }
};

enum class BroadcastKind {
  kMultidirectional,  // every input, numpy-style
  kGemmC,             // input 2, unidirectional to [M,N]
  kPReluSlope,        // input 1, unidirectional to X (checked multidirectionally)
  kExpandInput,       // input 0 of an Expand, broadcast with the target
};

class ReadAroundExpand final : public RewritePattern {
 public:
  // Expand exists from opset 8; the consumer broadcasts this way from `since_opset`.
  ReadAroundExpand(const std::string& op_type, BroadcastKind kind, int64_t since_opset)
      : RewritePattern(absl::StrCat("read-around-expand-", op_type),
                       {op_type, std::max<int64_t>(8, since_opset)}),
        kind_(kind) {}

  LogicalResult matchAndRewrite(const ir::Node& node, PatternRewriter& rewriter) const override {
    std::vector<std::string> reasons;
    for (size_t index = 0; index < node.numInputs(); ++index) {
      const ir::Node* expand = operandBroadcasts(index) ? expandProducing(node.input(index)) : nullptr;
      if (expand == nullptr) continue;
      if (kind_ != BroadcastKind::kPReluSlope && kind_ != BroadcastKind::kExpandInput &&
          (node.attr("broadcast") != nullptr || node.attr("axis") != nullptr)) {
        return rewriter.notifyMatchFailure(
            node, "has a legacy 'broadcast'/'axis' attribute that its opset does not define");
      }
      absl::StatusOr<std::string> why = whyNot(node, index, *expand, rewriter);
      if (!why.ok()) return rewriter.emitError(*expand, why.status());
      if (!why->empty()) {
        reasons.push_back(absl::StrCat("input ", index, " (", describe(*expand), "): ", *why));
        continue;
      }
      if (failed(rewriter.match(node))) return failure();
      rewriter.setInput(node, index, expand->input(0));
      return success();
    }
    if (reasons.empty()) return failure();  // no broadcast operand is an Expand's output
    return rewriter.notifyMatchFailure(node, absl::StrJoin(reasons, "; "));
  }

 private:
  bool operandBroadcasts(size_t index) const {
    switch (kind_) {
      case BroadcastKind::kMultidirectional:
        return true;
      case BroadcastKind::kGemmC:
        return index == 2;
      case BroadcastKind::kPReluSlope:
        return index == 1;
      case BroadcastKind::kExpandInput:
        return index == 0;
    }
    return false;
  }

  // "" when the consumer may read the Expand's input instead of operand `index`; an error when
  // a malformed node was met on the way.
  absl::StatusOr<std::string> whyNot(const ir::Node& node, size_t index, const ir::Node& expand,
                                     PatternRewriter& rewriter) const {
    ShapeOracle& shapes = rewriter.shapes();
    if (kind_ == BroadcastKind::kGemmC) {
      // No dims needed: C = E is unidirectionally broadcastable to [M,N], X's dims are each 1 or
      // E's, so X is too (rank(X) <= rank(E) <= 2), with the same values.
      const std::optional<int64_t> input_rank = shapes.inferredTypeOf(*expand.input(0)).rank();
      if (input_rank && *input_rank > 2) {
        return absl::StrCat("the Expand's input has rank ", *input_rank, ", more than C's 2");
      }
      if (input_rank) return std::string();
      // The output's rank costs the Expand's shape rule: asked only when the input's is unknown.
      const std::optional<int64_t> output_rank = shapes.inferredTypeOf(*expand.output(0)).rank();
      if (!output_rank || *output_rank > 2) {
        return std::string("the rank of the Expand's input is unknown (and its output's is not <= 2)");
      }
      return std::string();
    }
    const ExpandFacts facts = analyzeExpand(expand, rewriter.shapes());
    if (!facts.error.ok()) return facts.error;
    std::vector<OtherOperand> others;
    if (kind_ == BroadcastKind::kExpandInput) {
      // The consumer Expand broadcasts with its target S2: its "other operand" is S2's value.
      const ir::Value* target = node.input(1);
      if (target == nullptr) return std::string("the consumer Expand has no shape input");
      OtherOperand other;
      other.covers_target =
          target == facts.target ||
          sameShapeByDefinition(shapeOfSource(target), facts.target_shape_of);
      absl::StatusOr<std::optional<ShapeValue>> value = shapes.inferredShapeValueOf(*target);
      if (!value.ok()) return value.status();
      if (*value && !(*value)->scalar) other.shape = ir::Shape((*value)->elems);
      others.push_back(std::move(other));
    } else {
      for (size_t i = 0; i < node.numInputs(); ++i) {
        const ir::Value* operand = node.input(i);
        if (i == index || operand == nullptr) continue;
        others.push_back({shapes.inferredTypeOf(*operand).shape(), coversExpandTarget(operand, facts)});
      }
    }
    return proveBroadcastAbsorbsExpand(facts, others);
  }

  BroadcastKind kind_;
};

class EliminateNopExpand final : public PatternPass {
 public:
  EliminateNopExpand() : PatternPass("eliminate-nop-expand") {}

 private:
  void populatePatterns(RewritePatternSet& patterns) const override {
    patterns.add<RemoveNopExpand>();
    // The opset from which each operator broadcasts numpy-style (before: `broadcast`/`axis`,
    // or equal shapes only).
    static constexpr struct { const char* op_type; int64_t since; } kMultidirectional[] = {
        {"Add", 7},     {"Sub", 7},     {"Mul", 7},        {"Div", 7},
        {"Pow", 7},     {"Equal", 7},   {"Greater", 7},    {"Less", 7},
        {"And", 7},     {"Or", 7},      {"Xor", 7},        {"Max", 8},
        {"Min", 8},     {"Sum", 8},     {"Mean", 8},       {"Where", 9},
        {"Mod", 10},    {"BitShift", 11}, {"GreaterOrEqual", 12}, {"LessOrEqual", 12},
        {"BitwiseAnd", 18}, {"BitwiseOr", 18}, {"BitwiseXor", 18},
    };
    for (const auto& consumer : kMultidirectional) {
      patterns.add<ReadAroundExpand>(consumer.op_type, BroadcastKind::kMultidirectional,
                                     consumer.since);
    }
    patterns.add<ReadAroundExpand>("Gemm", BroadcastKind::kGemmC, 7);
    patterns.add<ReadAroundExpand>("PRelu", BroadcastKind::kPReluSlope, 7);
    patterns.add<ReadAroundExpand>("Expand", BroadcastKind::kExpandInput, 8);
  }
};

}  // namespace

std::unique_ptr<Pass> createEliminateNopExpandPass() {
  return std::make_unique<EliminateNopExpand>();
}

}  // namespace onnxopt
