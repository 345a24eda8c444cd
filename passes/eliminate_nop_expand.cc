// eliminate-nop-expand: removes Expand nodes that do nothing, and reads around Expand nodes whose
// only job is a broadcast that their consumer does anyway.
//
// 1. remove-nop-expand (root: Expand). `E = Expand(X, S)` whose output provably has X's shape
//    (same rank, every dim provably equal) is X: every reader reads X instead, and the Expand dies.
//      X[N,4], S = [1,4] | [4] | [1] | [] | Shape(X)   ->   E is X
//    When E is a graph output that X cannot stand in for (X is a graph input, an initializer or
//    itself a graph output; or E is an output of a subgraph and X comes from an outer scope), the
//    Expand stays for that output and only the nodes reading E read X instead.
//
// 2. read-around-expand (root: the consumer). A consumer that broadcasts its operands itself reads
//    X instead of `E = Expand(X, S)` when that provably changes nothing:
//    - numpy-style (multidirectional) broadcasting operators, from the opset where they broadcast
//      that way (Add/Sub/Mul/Div/Pow/Equal/Greater/Less/And/Or/Xor 7, Max/Min/Sum/Mean 8,
//      Where 9, Mod 10, BitShift 11, GreaterOrEqual/LessOrEqual 12, BitwiseAnd/Or/Xor 18):
//      for operands (E, Z...), the output shape broadcast(X, Z...) must provably equal
//      broadcast(E, Z...), axis by axis. Since E = broadcast(X, S), X's dims are each 1 or E's,
//      and broadcasting X directly picks the same elements as broadcasting E, so equal shapes
//      mean equal values. Element types do not change (Expand keeps its input's type).
//    - Gemm's C (opset 7 on: unidirectional broadcast to [M,N]): C = E must be unidirectionally
//      broadcastable to [M,N], and X's dims are each 1 or E's, with rank(X) <= rank(E) <= 2, so X
//      is too, with the same values. No dim is needed, only rank(X) <= 2 (or rank(E) <= 2).
//    - PRelu's slope (unidirectional to X): checked with the multidirectional rule against X, so
//      that both the spec (slope unidirectional to X) and ONNX Runtime (which broadcasts PRelu
//      both ways) give the same result. PRelu's X is not read around (the output takes X's shape).
//    - Expand's own input: Expand(Expand(X, S1), S2) reads X when S1 adds nothing to S2.
//    The Expand stays as long as another reader needs it (the driver erases it when none does).
//    Target shapes computed at run time are fine when the proof does not need their values: the
//    Gemm case; a target `Shape(Z)` (or an Expand to the same target) where Z is another operand;
//    and targets that a small evaluator follows through Shape/Gather/Unsqueeze/Concat/Identity to
//    known or symbolic dims. An unknown dim that the proof needs makes the pattern decline.
//
// Expand exists from opset 8: every pattern declines below it.

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

// The dim at position `i` counted from the right (0 = last axis), if the shape has that many.
std::optional<ir::Dim> dimFromRight(const std::optional<ir::Shape>& shape, size_t i) {
  if (!shape || i >= shape->size()) return std::nullopt;
  return (*shape)[shape->size() - 1 - i];
}

bool isKnownNotOne(const ir::Dim& dim) { return dim.isKnown() && dim.value() != 1; }
bool isKnownOne(const ir::Dim& dim) { return dim.isKnown() && dim.value() == 1; }

// ---------------------------------------------------------------------------------------------
// What is known about E = Expand(X, S).
// ---------------------------------------------------------------------------------------------

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
  ExpandedDim out;
  if (input_dim && isKnownNotOne(*input_dim)) {
    // A valid Expand has the target's dim 1 or equal here: E keeps X's dim.
    out.dim = *input_dim;
    out.same_as_input = true;
    return out;
  }
  if (!target_dim || isKnownOne(*target_dim)) {
    if (input_dim) {
      out.dim = *input_dim;
      out.same_as_input = true;
    } else {
      out.dim = ir::Dim::known(1);
    }
    return out;
  }
  // The target's dim is a size other than 1, a symbol, or unknown; X's dim is absent, 1, a
  // symbol or unknown.
  if (input_dim && target_dim->provablyEquals(*input_dim)) {
    out.dim = *input_dim;
    out.same_as_input = true;
    return out;
  }
  if (!input_dim || isKnownOne(*input_dim)) {
    out.dim = *target_dim;  // known (not 1), symbolic (whatever it is at run time) or unknown
    return out;
  }
  if (isKnownNotOne(*target_dim)) {
    out.dim = *target_dim;  // X's dim must be 1 or this size: E has this size
    return out;
  }
  return out;  // unknown
}

ExpandFacts analyzeExpand(const ir::Node& expand, PatternRewriter& rewriter) {
  ExpandFacts facts;
  facts.expand = &expand;
  facts.input = expand.input(0);
  facts.target = expand.input(1);
  ShapeOracle& shapes = rewriter.shapes();
  facts.input_shape = shapes.typeOf(*facts.input).shape();
  facts.target_shape_of = shapeOfSource(facts.target);

  // The target's value, as dims.
  absl::StatusOr<std::optional<ShapeValue>> evaluated = shapes.shapeValueOf(*facts.target);
  if (!evaluated.ok()) {
    facts.error = evaluated.status();
    return facts;
  }
  std::optional<ShapeValue> target = *std::move(evaluated);
  if (target && target->scalar) target.reset();
  if (target) {
    for (const ir::Dim& dim : target->elems) {
      if (dim.isKnown() && dim.value() < 0) {
        facts.why_unknown = "the target shape has a negative dim";
        return facts;
      }
    }
  }
  if (target && facts.input_shape) {
    const size_t rank = std::max(target->elems.size(), facts.input_shape->size());
    std::vector<ExpandedDim> dims(rank);
    const std::optional<ir::Shape> target_shape(target->elems);
    for (size_t i = 0; i < rank; ++i) {
      const std::optional<ir::Dim> target_dim = dimFromRight(target_shape, i);
      const std::optional<ir::Dim> input_dim = dimFromRight(facts.input_shape, i);
      if (target_dim && input_dim && isKnownNotOne(*target_dim) && isKnownNotOne(*input_dim) &&
          target_dim->value() != input_dim->value()) {
        facts.why_unknown = absl::StrCat("the target ", shapeText(target_shape),
                                         " does not broadcast with the input ",
                                         shapeText(facts.input_shape));
        return facts;
      }
      dims[rank - 1 - i] = expandedDimFrom(target_dim, input_dim);
    }
    // What the model or shape inference says about E may name a dim the target left unknown
    // (asked only then: it may run ONNX's shape inference).
    const bool any_unknown = std::any_of(dims.begin(), dims.end(), [](const ExpandedDim& dim) {
      return !dim.same_as_input && dim.dim.isUnknown();
    });
    if (any_unknown) {
      const std::optional<ir::Shape> declared = shapes.typeOf(*expand.output(0)).shape();
      if (declared && declared->size() == rank) {
        for (size_t i = 0; i < rank; ++i) {
          ExpandedDim& out = dims[i];
          if (out.same_as_input || !out.dim.isUnknown()) continue;
          out.dim = (*declared)[i];
          const std::optional<ir::Dim> input_dim = dimFromRight(facts.input_shape, rank - 1 - i);
          if (input_dim && out.dim.provablyEquals(*input_dim)) out.same_as_input = true;
        }
      }
    }
    facts.dims = std::move(dims);
    return facts;
  }
  // The target's value is not known: E's declared or inferred shape.
  const std::optional<ir::Shape> declared = shapes.typeOf(*expand.output(0)).shape();
  if (!declared) {
    facts.why_unknown = absl::StrCat(
        "the rank of the Expand's output is unknown (input ", shapeText(facts.input_shape),
        target ? "" : ", target shape not known", ")");
    return facts;
  }
  const size_t rank = declared->size();
  if (facts.input_shape && facts.input_shape->size() > rank) {
    facts.why_unknown = "the Expand's declared output has a lower rank than its input";
    return facts;
  }
  std::vector<ExpandedDim> dims(rank);
  for (size_t i = 0; i < rank; ++i) {
    ExpandedDim& out = dims[rank - 1 - i];
    out.dim = (*declared)[rank - 1 - i];
    const std::optional<ir::Dim> input_dim = dimFromRight(facts.input_shape, i);
    if (input_dim && (isKnownNotOne(*input_dim) || out.dim.provablyEquals(*input_dim))) {
      out.dim = *input_dim;
      out.same_as_input = true;
    }
  }
  facts.dims = std::move(dims);
  return facts;
}

// Whether E is X: same rank and every axis provably X's.
bool isNop(const ExpandFacts& facts) {
  if (!facts.dims || !facts.input_shape) return false;
  if (facts.dims->size() != facts.input_shape->size()) return false;
  for (const ExpandedDim& dim : *facts.dims) {
    if (!dim.same_as_input) return false;
  }
  return true;
}

// Whether `value`, as an operand broadcast with E, already has every axis E's target could add:
// broadcast(value, S) == value. True for V when S = Shape(V), and for Expand(_, S') when S' is S
// or Shape(V) of the same V.
bool coversTarget(const ir::Value* value, const ExpandFacts& facts) {
  if (value == nullptr) return false;
  if (value == facts.expand->output(0)) return true;  // broadcast(E, E) = E
  if (facts.target_shape_of != nullptr && value == facts.target_shape_of) return true;
  const ir::Node* producer = producerOf(value, "Expand");
  if (producer != nullptr && producer->input(1) != nullptr) {
    const ir::Value* other_target = producer->input(1);
    if (other_target == facts.target) return true;
    if (facts.target_shape_of != nullptr &&
        shapeOfSource(other_target) == facts.target_shape_of) {
      return true;
    }
  }
  return false;
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
  const ir::Node* producer = producerOf(value, "Expand");
  if (producer == nullptr || producer->input(0) == nullptr || producer->input(1) == nullptr) {
    return nullptr;
  }
  return producer;
}

// ---------------------------------------------------------------------------------------------
// Pattern 1: an Expand that does nothing.
// ---------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------
// Pattern 2: a consumer that broadcasts anyway reads around the Expand.
// ---------------------------------------------------------------------------------------------

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
    struct Consumer {
      const char* op_type;
      int64_t since;
    };
    // The opset from which each operator broadcasts numpy-style (before it, the
    // Add/Sub/Mul/Div/Pow/Equal/Greater/Less/And/Or/Xor family used `broadcast`/`axis`, and
    // Max/Min/Sum/Mean required equal shapes).
    static constexpr Consumer kMultidirectional[] = {
        {"Add", 7},     {"Sub", 7},     {"Mul", 7},        {"Div", 7},
        {"Pow", 7},     {"Equal", 7},   {"Greater", 7},    {"Less", 7},
        {"And", 7},     {"Or", 7},      {"Xor", 7},        {"Max", 8},
        {"Min", 8},     {"Sum", 8},     {"Mean", 8},       {"Where", 9},
        {"Mod", 10},    {"BitShift", 11}, {"GreaterOrEqual", 12}, {"LessOrEqual", 12},
        {"BitwiseAnd", 18}, {"BitwiseOr", 18}, {"BitwiseXor", 18},
    };
    for (const Consumer& consumer : kMultidirectional) {
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
