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
#include "onnxopt/rewrite/match.h"
#include "onnxopt/rewrite/pattern_pass.h"
#include "onnxopt/rewrite/rewriter.h"
#include "onnxopt/rewrite/schema.h"
#include "onnxopt/rewrite/shape_oracle.h"

namespace onnxopt {
namespace {

using ir::describe;

// One axis of E, counted from the right.
struct ExpandedDim {
  ir::Dim dim = ir::Dim::unknown();
  bool same_as_input = false;  // provably X's dim on this axis (X has the axis)
};

// A target S whose broadcast with a value V of shape Shape(V) is V itself: S = Shape(V) (whole
// range). Values read with the same key cover each other's target.
const ir::Value* shapeOfSource(const ir::Value* target) {
  const ir::Node* node = producerOf(target, "Shape");
  if (node == nullptr || node->input(0) == nullptr || node->attr("end") != nullptr) return nullptr;
  const ir::Attribute* start = node->attr("start");
  if (start != nullptr && (start->kind() != onnx::AttributeProto::INT || start->i() != 0)) {
    return nullptr;
  }
  return node->input(0);
}

struct ExpandFacts {
  const ir::Node* expand = nullptr;
  ir::Value* input = nullptr;
  ir::Value* target = nullptr;
  std::optional<ir::Shape> input_shape;
  // E's axes, left to right; nullopt when E's rank is not known.
  std::optional<std::vector<ExpandedDim>> dims;
  // Set when the target is Shape(V) for a value V (whole range): E = broadcast(X, V's shape).
  const ir::Value* target_shape_of = nullptr;
  std::string why_unknown;  // why dims is nullopt
  absl::Status error;       // a malformed node met on the way: the pass fails with it
};

// Combines what the target's value says about axis i (from the right) with X's dim there.
ExpandedDim expandedDimFrom(const std::optional<ir::Dim>& target_dim,
                            const std::optional<ir::Dim>& input_dim) {
  // E keeps X's dim where X's is a size other than 1 (a valid Expand has 1 or the same there),
  // where the target has no axis or a 1, and where the two provably agree.
  if (input_dim && (isKnownNotOne(*input_dim) || !target_dim || isKnownOne(*target_dim) ||
                    target_dim->provablyEquals(*input_dim))) {
    return {*input_dim, true};
  }
  if (!target_dim || isKnownOne(*target_dim)) return {ir::Dim::known(1), false};
  // X's dim is absent, 1, or may be either 1 or the target's: E has the target's dim then.
  if (!input_dim || isKnownOne(*input_dim) || isKnownNotOne(*target_dim)) {
    return {*target_dim, false};
  }
  return {};
}

ExpandFacts analyzeExpand(const ir::Node& expand, PatternRewriter& rewriter) {
  ExpandFacts facts;
  facts.expand = &expand;
  facts.input = expand.input(0);
  facts.target = expand.input(1);
  ShapeOracle& shapes = rewriter.shapes();
  facts.input_shape = shapes.typeOf(*facts.input).shape();
  facts.target_shape_of = shapeOfSource(facts.target);
  absl::StatusOr<std::optional<ShapeValue>> target = shapes.shapeValueOf(*facts.target);
  if (!target.ok()) {
    facts.error = target.status();
    return facts;
  }
  // E's declared (or inferred) shape, asked only when needed: it may run shape inference.
  auto declared = [&]() -> const std::optional<ir::Shape>& {
    return shapes.typeOf(*expand.output(0)).shape();
  };
  // The target's dims; without them, or without X's rank (a target 1 may then be any of X's
  // dims), as many unknown dims as E's rank.
  std::optional<ir::Shape> target_shape;
  if (*target && !(*target)->scalar && facts.input_shape) target_shape = (*target)->elems;
  if (!target_shape && declared()) target_shape = ir::Shape(declared()->size(), ir::Dim::unknown());
  if (!target_shape) {
    facts.why_unknown = absl::StrCat("the rank of the Expand's output is unknown (input ",
                                     shapeText(facts.input_shape), ")");
    return facts;
  }
  const size_t rank =
      std::max(target_shape->size(), facts.input_shape ? facts.input_shape->size() : 0);
  std::vector<ExpandedDim> dims(rank);
  for (size_t i = 0; i < rank; ++i) {
    const std::optional<ir::Dim> target_dim = dimFromRight(target_shape, i);
    const std::optional<ir::Dim> input_dim = dimFromRight(facts.input_shape, i);
    if ((target_dim && target_dim->isKnown() && target_dim->value() < 0) ||
        (target_dim && input_dim && isKnownNotOne(*target_dim) && isKnownNotOne(*input_dim) &&
         target_dim->value() != input_dim->value())) {
      facts.why_unknown = absl::StrCat("the target ", shapeText(target_shape),
                                       " is not a valid Expand of the input ",
                                       shapeText(facts.input_shape));
      return facts;
    }
    ExpandedDim& out = dims[rank - 1 - i];
    out = expandedDimFrom(target_dim, input_dim);
    // The model's declaration, or shape inference, may name a dim the target left unknown.
    if (out.same_as_input || !out.dim.isUnknown() || !declared() || declared()->size() != rank) {
      continue;
    }
    out.dim = (*declared())[rank - 1 - i];
    out.same_as_input = input_dim && out.dim.provablyEquals(*input_dim);
  }
  facts.dims = std::move(dims);
  return facts;
}

// Whether E is X: same rank and every axis provably X's.
bool isNop(const ExpandFacts& facts) {
  return facts.dims && facts.input_shape && facts.dims->size() == facts.input_shape->size() &&
         std::all_of(facts.dims->begin(), facts.dims->end(),
                     [](const ExpandedDim& dim) { return dim.same_as_input; });
}

// Whether `value`, as an operand broadcast with E, already has every axis E's target could add:
// broadcast(value, S) == value. True for V when S = Shape(V), and for Expand(_, S') when S' is S
// or Shape(V) of the same V.
bool coversTarget(const ir::Value* value, const ExpandFacts& facts) {
  if (value == nullptr) return false;
  if (value == facts.expand->output(0)) return true;  // broadcast(E, E) = E
  if (facts.target_shape_of != nullptr && value == facts.target_shape_of) return true;
  const ir::Node* producer = producerOf(value, "Expand");
  if (producer == nullptr || producer->input(1) == nullptr) return false;
  const ir::Value* other_target = producer->input(1);
  return other_target == facts.target ||
         (facts.target_shape_of != nullptr && shapeOfSource(other_target) == facts.target_shape_of);
}

// Another operand of a multidirectionally broadcasting consumer, as the proof sees it.
struct OtherOperand {
  std::optional<ir::Shape> shape;  // nullopt: rank unknown
  bool covers_target = false;
};

// Proves broadcast(X, others...) == broadcast(E, others...), axis by axis. Returns "" on
// success, the reason otherwise.
std::string proveBroadcastAbsorbsExpand(const ExpandFacts& facts,
                                        const std::vector<OtherOperand>& others) {
  for (const OtherOperand& other : others) {
    if (other.covers_target) return "";
  }
  if (!facts.dims) return facts.why_unknown;
  const std::vector<ExpandedDim>& dims = *facts.dims;
  const size_t rank = dims.size();
  for (size_t i = 0; i < rank; ++i) {
    const ExpandedDim& e = dims[rank - 1 - i];
    const std::optional<ir::Dim> x = dimFromRight(facts.input_shape, i);
    bool present = x.has_value();
    bool covered = e.same_as_input || (x && (isKnownNotOne(*x) || e.dim.provablyEquals(*x)));
    for (const OtherOperand& other : others) {
      const std::optional<ir::Dim> z = dimFromRight(other.shape, i);
      if (!z) continue;
      present = true;
      if (isKnownNotOne(*z) || e.dim.provablyEquals(*z)) covered = true;
    }
    const std::string where = absl::StrCat("axis -", i + 1, " of the Expand's output");
    if (!present) {
      return absl::StrCat(where, " exists in no other operand: reading around the Expand ",
                          "would lower the output's rank");
    }
    if (!covered && !isKnownOne(e.dim)) {
      return absl::StrCat(where, " (", dimText(e.dim),
                          ") is not provably given by the other operands or the input ",
                          shapeText(facts.input_shape));
    }
  }
  return "";
}

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
    const ExpandFacts facts = analyzeExpand(expand, rewriter);
    if (!facts.error.ok()) return rewriter.emitError(expand, facts.error);
    if (facts.target_shape_of != input && !isNop(facts)) {
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
      const std::optional<int64_t> input_rank = shapes.rankOf(*expand.input(0));
      if (input_rank && *input_rank > 2) {
        return absl::StrCat("the Expand's input has rank ", *input_rank, ", more than C's 2");
      }
      const std::optional<int64_t> output_rank = shapes.rankOf(*expand.output(0));
      if (!input_rank && (!output_rank || *output_rank > 2)) {
        return std::string("the rank of the Expand's input is unknown (and its output's is not <= 2)");
      }
      return std::string();
    }
    const ExpandFacts facts = analyzeExpand(expand, rewriter);
    if (!facts.error.ok()) return facts.error;
    std::vector<OtherOperand> others;
    if (kind_ == BroadcastKind::kExpandInput) {
      // The consumer Expand broadcasts with its target S2: its "other operand" is S2's value.
      const ir::Value* target = node.input(1);
      if (target == nullptr) return std::string("the consumer Expand has no shape input");
      OtherOperand other;
      other.covers_target =
          target == facts.target ||
          (facts.target_shape_of != nullptr && shapeOfSource(target) == facts.target_shape_of);
      absl::StatusOr<std::optional<ShapeValue>> value = shapes.shapeValueOf(*target);
      if (!value.ok()) return value.status();
      if (*value && !(*value)->scalar) other.shape = ir::Shape((*value)->elems);
      others.push_back(std::move(other));
    } else {
      for (size_t i = 0; i < node.numInputs(); ++i) {
        const ir::Value* operand = node.input(i);
        if (i == index || operand == nullptr) continue;
        others.push_back({shapes.typeOf(*operand).shape(), coversTarget(operand, facts)});
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
