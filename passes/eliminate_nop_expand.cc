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
#include "framework/builtin_passes.h"
#include "framework/describe.h"
#include "onnxopt/rewrite/pattern_pass.h"
#include "onnxopt/rewrite/rewriter.h"
#include "onnxopt/rewrite/shape_oracle.h"

namespace onnxopt {
namespace {

using detail::describe;

constexpr int64_t kExpandSinceOpset = 8;
// How many nodes the shape-value evaluator may look at for one target: keeps every match O(1).
constexpr int kShapeEvalBudget = 32;

bool isDefaultDomainOp(const ir::Node* node, absl::string_view op_type) {
  return node != nullptr && node->is(op_type);
}

std::string dimToString(const ir::Dim& dim) {
  if (dim.isKnown()) return absl::StrCat(dim.value());
  if (dim.isSymbolic()) return dim.symbol();
  return "?";
}

std::string shapeToString(const std::optional<ir::Shape>& shape) {
  if (!shape) return "[rank unknown]";
  std::vector<std::string> dims;
  for (const ir::Dim& dim : *shape) dims.push_back(dimToString(dim));
  return absl::StrCat("[", absl::StrJoin(dims, ","), "]");
}

// The dim at position `i` counted from the right (0 = last axis), if the shape has that many.
std::optional<ir::Dim> dimFromRight(const std::optional<ir::Shape>& shape, size_t i) {
  if (!shape || i >= shape->size()) return std::nullopt;
  return (*shape)[shape->size() - 1 - i];
}

bool isKnownNotOne(const ir::Dim& dim) { return dim.isKnown() && dim.value() != 1; }
bool isKnownOne(const ir::Dim& dim) { return dim.isKnown() && dim.value() == 1; }

// An integer attribute, or nullopt when absent; `ok` turns false when it has the wrong kind.
std::optional<int64_t> intAttr(const ir::Node& node, absl::string_view name, bool* ok) {
  const ir::Attribute* attribute = node.attr(name);
  if (attribute == nullptr) return std::nullopt;
  if (attribute->kind() != onnx::AttributeProto::INT) {
    *ok = false;
    return std::nullopt;
  }
  return attribute->i();
}

// ---------------------------------------------------------------------------------------------
// The value of a small int64 shape tensor (1-D, or a scalar while computing one), element by
// element as dims: known sizes, symbols (from the declared shapes that Shape reads), or unknown.
// ---------------------------------------------------------------------------------------------

struct ShapeValue {
  ir::Shape elems;
  bool scalar = false;
};

class ShapeValueEvaluator {
 public:
  explicit ShapeValueEvaluator(PatternRewriter& rewriter) : rewriter_(rewriter) {}

  std::optional<ShapeValue> evaluate(const ir::Value* value) {
    if (value == nullptr || budget_-- <= 0) return std::nullopt;
    ShapeOracle& shapes = rewriter_.shapes();
    if (ShapeOracle::isConstant(*value)) {
      std::optional<std::vector<int64_t>> ints = shapes.constantInts(*value);
      std::optional<int64_t> rank = shapes.rankOf(*value);
      if (!ints || !rank || *rank > 1) return std::nullopt;
      ShapeValue result;
      result.scalar = *rank == 0;
      if (result.scalar && ints->size() != 1) return std::nullopt;
      result.elems.reserve(ints->size());
      for (int64_t v : *ints) result.elems.push_back(ir::Dim::known(v));
      return result;
    }
    const ir::Node* node = value->producer();
    if (node == nullptr || !node->op().domain().empty()) return std::nullopt;
    const std::optional<int64_t> opset = rewriter_.opsetVersion(*node);
    if (!opset) return std::nullopt;
    if (node->opType() == "Identity") return evaluate(node->input(0));
    if (node->opType() == "Shape") {
      const ir::Value* data = node->input(0);
      if (data == nullptr) return std::nullopt;
      const std::optional<ir::Shape> shape = shapes.typeOf(*data).shape();
      if (!shape) return std::nullopt;
      const int64_t rank = static_cast<int64_t>(shape->size());
      std::optional<int64_t> start = readInt(*node, "start");
      std::optional<int64_t> end = readInt(*node, "end");
      if (!error_.ok() || (*opset < 15 && (start || end))) return std::nullopt;
      auto clamp = [rank](int64_t v) {
        if (v < 0) v += rank;
        return std::min(std::max<int64_t>(v, 0), rank);
      };
      const int64_t begin = clamp(start.value_or(0));
      const int64_t stop = clamp(end.value_or(rank));
      ShapeValue result;
      result.elems.reserve(static_cast<size_t>(std::max<int64_t>(stop - begin, 0)));
      for (int64_t i = begin; i < stop; ++i) result.elems.push_back((*shape)[i]);
      return result;
    }
    if (node->opType() == "Gather") {
      const std::optional<int64_t> axis = readInt(*node, "axis");
      if (!error_.ok() || (axis && *axis != 0 && *axis != -1)) return std::nullopt;
      std::optional<ShapeValue> data = evaluate(node->input(0));
      const ir::Value* indices = node->input(1);
      if (!data || data->scalar || indices == nullptr || !ShapeOracle::isConstant(*indices)) {
        return std::nullopt;
      }
      std::optional<std::vector<int64_t>> index_values = shapes.constantInts(*indices);
      std::optional<int64_t> index_rank = shapes.rankOf(*indices);
      if (!index_values || !index_rank || *index_rank > 1) return std::nullopt;
      ShapeValue result;
      result.scalar = *index_rank == 0;
      if (result.scalar && index_values->size() != 1) return std::nullopt;
      const int64_t size = static_cast<int64_t>(data->elems.size());
      for (int64_t index : *index_values) {
        if (index < 0) index += size;
        if (index < 0 || index >= size) return std::nullopt;
        result.elems.push_back(data->elems[index]);
      }
      return result;
    }
    if (node->opType() == "Unsqueeze") {
      std::vector<int64_t> axes;
      if (*opset >= 13) {
        const ir::Value* axes_value = node->input(1);
        if (axes_value == nullptr || !ShapeOracle::isConstant(*axes_value)) return std::nullopt;
        std::optional<std::vector<int64_t>> values = shapes.constantInts(*axes_value);
        if (!values) return std::nullopt;
        axes = *values;
      } else {
        // Unsqueeze 1 and 11 require axes, a list of ints.
        const ir::Attribute* attribute = required(*node, "axes", onnx::AttributeProto::INTS);
        if (attribute == nullptr) return std::nullopt;
        axes.assign(attribute->ints().begin(), attribute->ints().end());
      }
      // Only a scalar made into a 1-element vector: axes [0] or [-1].
      if (axes.size() != 1 || (axes[0] != 0 && axes[0] != -1)) return std::nullopt;
      std::optional<ShapeValue> data = evaluate(node->input(0));
      if (!data || !data->scalar) return std::nullopt;
      data->scalar = false;
      return data;
    }
    if (node->opType() == "Concat") {
      // Concat requires axis from opset 4; Concat 1 defaults it to 1.
      std::optional<int64_t> axis;
      if (*opset >= 4) {
        const ir::Attribute* attribute = required(*node, "axis", onnx::AttributeProto::INT);
        if (attribute == nullptr) return std::nullopt;
        axis = attribute->i();
      } else {
        axis = readInt(*node, "axis");
        if (!error_.ok()) return std::nullopt;
      }
      if (!axis || (*axis != 0 && *axis != -1)) return std::nullopt;
      ShapeValue result;
      for (const ir::Value* input : node->inputs()) {
        std::optional<ShapeValue> part = evaluate(input);
        if (!part || part->scalar) return std::nullopt;
        result.elems.insert(result.elems.end(), part->elems.begin(), part->elems.end());
      }
      return result;
    }
    return std::nullopt;
  }

 // Set when a node on the way is malformed (an attribute its op requires is missing, or one
  // has the wrong kind): the evaluation gives up and the pass fails with this error rather than
  // guess what the node means.
  const absl::Status& error() const { return error_; }

 private:
  absl::Status wrongKind(const ir::Node& node, const ir::Attribute& attribute,
                         onnx::AttributeProto::AttributeType kind) {
    return absl::InvalidArgumentError(absl::StrCat(
        describe(node), ": attribute '", attribute.name(), "' is ",
        onnx::AttributeProto::AttributeType_Name(attribute.kind()), ", but ONNX defines it as ",
        onnx::AttributeProto::AttributeType_Name(kind)));
  }

  // An optional INT attribute; nullopt when absent or of the wrong kind (error_ set).
  std::optional<int64_t> readInt(const ir::Node& node, absl::string_view name) {
    const ir::Attribute* attribute = node.attr(name);
    if (attribute == nullptr) return std::nullopt;
    if (attribute->kind() != onnx::AttributeProto::INT) {
      if (error_.ok()) error_ = wrongKind(node, *attribute, onnx::AttributeProto::INT);
      return std::nullopt;
    }
    return attribute->i();
  }

  // A required attribute of kind `kind`; null, with error_ set, when it is missing or not that.
  const ir::Attribute* required(const ir::Node& node, absl::string_view name,
                                onnx::AttributeProto::AttributeType kind) {
    const ir::Attribute* attribute = node.attr(name);
    if (attribute != nullptr && attribute->kind() == kind) return attribute;
    if (error_.ok()) {
      error_ = attribute != nullptr
                   ? wrongKind(node, *attribute, kind)
                   : absl::InvalidArgumentError(absl::StrCat(
                         describe(node), ": required attribute '", name, "' is missing"));
    }
    return nullptr;
  }

  PatternRewriter& rewriter_;
  int budget_ = kShapeEvalBudget;
  absl::Status error_;
};

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
  const ir::Node* node = target != nullptr ? target->producer() : nullptr;
  if (!isDefaultDomainOp(node, "Shape") || node->input(0) == nullptr) return nullptr;
  bool ok = true;
  const std::optional<int64_t> start = intAttr(*node, "start", &ok);
  if (!ok || node->attr("end") != nullptr || (start && *start != 0)) return nullptr;
  return node->input(0);
}

struct ExpandFacts {
  ir::Node* expand = nullptr;
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

ExpandFacts analyzeExpand(ir::Node& expand, PatternRewriter& rewriter) {
  ExpandFacts facts;
  facts.expand = &expand;
  facts.input = expand.input(0);
  facts.target = expand.input(1);
  ShapeOracle& shapes = rewriter.shapes();
  facts.input_shape = shapes.typeOf(*facts.input).shape();
  facts.target_shape_of = shapeOfSource(facts.target);

  // The target's value, as dims.
  std::optional<ShapeValue> target;
  {
    ShapeValueEvaluator evaluator(rewriter);
    target = evaluator.evaluate(facts.target);
    facts.error = evaluator.error();
    if (!facts.error.ok()) return facts;
    if (target && target->scalar) target.reset();
  }
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
        facts.why_unknown = absl::StrCat("the target ", shapeToString(target_shape),
                                         " does not broadcast with the input ",
                                         shapeToString(facts.input_shape));
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
        "the rank of the Expand's output is unknown (input ", shapeToString(facts.input_shape),
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
  const ir::Node* producer = value->producer();
  if (isDefaultDomainOp(producer, "Expand") && producer->input(1) != nullptr) {
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
      return absl::StrCat(where, " (", dimToString(e.dim),
                          ") is not provably given by the other operands or the input ",
                          shapeToString(facts.input_shape));
    }
  }
  return "";
}

// The Expand producing `value` in the default domain, or null.
ir::Node* expandProducing(const ir::Value* value) {
  ir::Node* producer = value != nullptr ? value->producer() : nullptr;
  if (!isDefaultDomainOp(producer, "Expand") || producer->input(0) == nullptr ||
      producer->input(1) == nullptr) {
    return nullptr;
  }
  return producer;
}

// ---------------------------------------------------------------------------------------------
// Pattern 1: an Expand that does nothing.
// ---------------------------------------------------------------------------------------------

class RemoveNopExpand final : public RewritePattern {
 public:
  RemoveNopExpand() : RewritePattern("Expand", "remove-nop-expand") {}

  LogicalResult matchAndRewrite(ir::Node& expand, PatternRewriter& rewriter) const override {
    const std::optional<int64_t> opset = rewriter.opsetVersion(expand);
    if (!opset || *opset < kExpandSinceOpset) {
      return rewriter.notifyMatchFailure(expand, "Expand does not exist before opset 8");
    }
    ir::Value* input = expand.input(0);
    ir::Value* output = expand.output(0);
    if (input == nullptr || expand.input(1) == nullptr || output == nullptr) {
      return rewriter.notifyMatchFailure(expand, "Expand without its input, shape or output");
    }
    if (!output->hasUses()) return rewriter.notifyMatchFailure(expand, "output is not read");

    const ExpandFacts facts = analyzeExpand(expand, rewriter);
    if (!facts.error.ok()) return rewriter.emitError(expand, facts.error);
    const bool nop = facts.target_shape_of == input || isNop(facts);
    if (!nop) {
      return rewriter.notifyMatchFailure(expand, [&facts] {
        return facts.dims ? absl::StrCat("the output is not provably the input's shape ",
                                         shapeToString(facts.input_shape))
                          : facts.why_unknown;
      });
    }

    // Can X take every use of E, graph outputs included?
    bool forward_all = rewriter.canReplaceAllUsesWith(*output, *input);
    bool has_node_use = false;
    for (const ir::Use& use : output->uses()) {
      if (use.isGraphOutput()) {
        // A subgraph output takes X only when X is a node output of that subgraph and not yet
        // one of its outputs (a body does not return an outer value or its own input directly).
        const ir::Graph* graph = use.graphOutputOf();
        if (graph->parentNode() != nullptr &&
            (input->graph() != graph || input->producer() == nullptr || input->isGraphOutput())) {
          forward_all = false;
        }
      } else {
        has_node_use = true;
      }
    }
    if (!forward_all && !has_node_use) {
      return rewriter.notifyMatchFailure(
          expand, absl::StrCat("the output '", output->name(),
                               "' is only a graph output that the input '", input->name(),
                               "' cannot stand in for"));
    }

    if (failed(rewriter.match(expand))) return failure();
    if (forward_all) {
      rewriter.replaceAllUsesWith(*output, *input);
    } else {
      // The Expand stays for the graph output; every node reads X.
      const std::vector<ir::Use> uses(output->uses().begin(), output->uses().end());
      for (const ir::Use& use : uses) {
        if (!use.isGraphOutput()) rewriter.setInput(*use.user(), use.index(), input);
      }
    }
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
  ReadAroundExpand(const std::string& op_type, BroadcastKind kind, int64_t since_opset)
      : RewritePattern(op_type, absl::StrCat("read-around-expand-", op_type)),
        kind_(kind),
        since_opset_(since_opset) {}

  LogicalResult matchAndRewrite(ir::Node& node, PatternRewriter& rewriter) const override {
    // Cheap check first: does any operand we may read around come from an Expand?
    std::vector<size_t> candidates;
    for (size_t i = 0; i < node.numInputs(); ++i) {
      if (!operandBroadcasts(i) || expandProducing(node.input(i)) == nullptr) continue;
      candidates.push_back(i);
    }
    if (candidates.empty()) {
      return rewriter.notifyMatchFailure(node, "no broadcast operand is an Expand's output");
    }
    const std::optional<int64_t> opset = rewriter.opsetVersion(node);
    if (!opset || *opset < kExpandSinceOpset) {
      return rewriter.notifyMatchFailure(node, "Expand does not exist before opset 8");
    }
    if (*opset < since_opset_) {
      return rewriter.notifyMatchFailure(
          node, absl::StrCat(node.opType(), " does not broadcast this way before opset ",
                             since_opset_));
    }
    if (node.attr("broadcast") != nullptr || node.attr("axis") != nullptr) {
      if (kind_ == BroadcastKind::kMultidirectional || kind_ == BroadcastKind::kGemmC) {
        return rewriter.notifyMatchFailure(
            node, "has a legacy 'broadcast'/'axis' attribute that its opset does not define");
      }
    }

    std::vector<std::string> reasons;
    for (size_t index : candidates) {
      ir::Node* expand = expandProducing(node.input(index));
      const std::optional<int64_t> expand_opset = rewriter.opsetVersion(*expand);
      if (!expand_opset || *expand_opset < kExpandSinceOpset) {
        reasons.push_back(absl::StrCat("input ", index, ": Expand does not exist before opset 8"));
        continue;
      }
      absl::Status error;
      std::string why = whyNot(node, index, *expand, rewriter, &error);
      if (!error.ok()) return rewriter.emitError(*expand, error);
      if (!why.empty()) {
        reasons.push_back(absl::StrCat("input ", index, " (", describe(*expand), "): ", why));
        continue;
      }
      if (failed(rewriter.match(node))) return failure();
      rewriter.setInput(node, index, expand->input(0));
      return success();
    }
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

  // "" when the consumer may read the Expand's input instead of operand `index`. `error` is set
  // when a malformed node was met on the way.
  std::string whyNot(ir::Node& node, size_t index, ir::Node& expand, PatternRewriter& rewriter,
                     absl::Status* error) const {
    ShapeOracle& shapes = rewriter.shapes();
    if (kind_ == BroadcastKind::kGemmC) {
      // No dims needed: C = E is unidirectionally broadcastable to [M,N], X's dims are each 1 or
      // E's, so X is too (rank(X) <= rank(E) <= 2), with the same values.
      const std::optional<int64_t> input_rank = shapes.rankOf(*expand.input(0));
      if (input_rank && *input_rank > 2) {
        return absl::StrCat("the Expand's input has rank ", *input_rank,
                            ", more than Gemm's C may have");
      }
      if (!input_rank) {
        const std::optional<int64_t> output_rank = shapes.rankOf(*expand.output(0));
        if (!output_rank || *output_rank > 2) {
          return "the rank of the Expand's input is unknown (and its output's is not <= 2)";
        }
      }
      return "";
    }

    const ExpandFacts facts = analyzeExpand(expand, rewriter);
    if (!facts.error.ok()) {
      *error = facts.error;
      return "";
    }
    std::vector<OtherOperand> others;
    if (kind_ == BroadcastKind::kExpandInput) {
      // The consumer Expand broadcasts with its target S2: its "other operand" is S2's value.
      const ir::Value* target = node.input(1);
      if (target == nullptr) return "the consumer Expand has no shape input";
      OtherOperand other;
      other.covers_target =
          target == facts.target ||
          (facts.target_shape_of != nullptr && shapeOfSource(target) == facts.target_shape_of);
      ShapeValueEvaluator evaluator(rewriter);
      std::optional<ShapeValue> value = evaluator.evaluate(target);
      if (!evaluator.error().ok()) {
        *error = evaluator.error();
        return "";
      }
      if (value && !value->scalar) other.shape = ir::Shape(value->elems);
      others.push_back(std::move(other));
    } else {
      for (size_t i = 0; i < node.numInputs(); ++i) {
        if (i == index) continue;
        const ir::Value* operand = node.input(i);
        if (operand == nullptr) continue;
        OtherOperand other;
        other.shape = shapes.typeOf(*operand).shape();
        other.covers_target = coversTarget(operand, facts);
        others.push_back(std::move(other));
      }
    }
    return proveBroadcastAbsorbsExpand(facts, others);
  }

  BroadcastKind kind_;
  int64_t since_opset_;
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
