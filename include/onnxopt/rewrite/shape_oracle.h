#pragma once

// What is known about values' types and constant contents while a pass runs.

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "onnxopt/export.h"
#include "onnxopt/ir/ir.h"

namespace onnxopt {

// The value of a small int64 shape tensor (1-D, or a scalar while computing one), element by
// element as dims: known sizes, symbols (from the declared shapes that Shape reads), or unknown.
struct ShapeValue {
  ir::Shape elems;
  bool scalar = false;
};

// The longest shape input (Expand's, Reshape's, ConstantOfShape's) whose length is taken for the
// output's rank when its values are unknown. No tensor ONNX Runtime runs has more dims (NumPy
// allows 64); a longer input is no shape, and the rank it would give is left unknown rather
// than built (a shape input of length 1e18 comes from a single fuzzed constant).
inline constexpr int64_t kMaxRankFromShapeLength = 64;

// Types follow from the main graph's inputs, initializers and Constant nodes through local shape
// rules for the common operators (elementwise, Gemm, MatMul, Transpose, Reshape, Expand, If,
// Loop's carried values, ...) and, where those leave a value without a shape, ONNX's own shape
// inference over the whole model, run at most once per oracle (it costs about two protobuf
// parses of the model); its answers describe the model as it was then, and are not read for
// a value that a later change (forget()) reaches. What follows from them stands over a
// declaration (value_info, a graph output's or a body input's type); typeOf() lets
// declarations fill in what it leaves unknown, inferredTypeOf() does not, and every proof a pass
// makes reads the latter: a declaration may be stale. An unknown dim is never guessed. Answers
// are memoized per value; values are SSA, so an answer stays true until the producing node
// changes (forget()), though a change upstream may let the oracle know more. Returned
// references stay valid. The model's graphs must outlive the oracle (a PatternRewriter's oracle
// lives no longer than the subgraphs its pass retires).
class ONNXOPT_API ShapeOracle {
 public:
  explicit ShapeOracle(ir::Model& model);
  ~ShapeOracle();

  // Not a tensor (isTensor() == false) when nothing is known.
  const ir::Type& typeOf(const ir::Value& value) {
    const ir::Type* answer = known(value);
    return answer != nullptr ? *answer : resolve(value);
  }
  // nullopt when the rank is not known.
  std::optional<int64_t> rankOf(const ir::Value& value);
  int32_t elemTypeOf(const ir::Value& value) { return typeOf(value).elemType(); }

  // The type that follows from the graph's inputs (main graph), initializers and Constant nodes
  // alone, through the local rules and ONNX's inference: never from a declaration of an
  // intermediate value (value_info, graph outputs), which may be wrong. Unknown: the outputs of
  // other domains' ops and of nodes with subgraphs, the shapes of a subgraph's inputs, and what
  // ONNX inferred for a node whose inputs depend on an op libonnx does not know at the model's
  // opset (its opset-17 schema would guess). What shape folding reads. Memoized like typeOf().
  const ir::Type& inferredTypeOf(const ir::Value& value);

  // The int64 contents of a constant (an initializer that is not also a graph input, or a
  // Constant node's `value`/`value_ints`), e.g. an Expand target shape; nullopt otherwise.
  std::optional<std::vector<int64_t>> constantInts(const ir::Value& value);

  // The value of a shape computation: a constant, or Shape / Gather / Unsqueeze / Concat /
  // Slice / Identity of known or symbolic dims (Shape(X) is X's dims, symbols included). nullopt when
  // it is not known; an error naming the node when a node on the way is malformed (a required
  // attribute missing or of the wrong kind). Looks at a few dozen nodes at most.
  absl::StatusOr<std::optional<ShapeValue>> shapeValueOf(const ir::Value& value);
  // shapeValueOf() with Shape read through inferredTypeOf(): what shape folding may believe.
  absl::StatusOr<std::optional<ShapeValue>> inferredShapeValueOf(const ir::Value& value);

  // The node changed (an operand, an attribute, the op): answers about its outputs are dropped,
  // and so are those derived from them downstream, which may now say less than the oracle can
  // know (a Reshape whose shape input became a constant has known dims). At most
  // kMaxNodesForgottenPerChange nodes are visited, nearest first, so that a pass stays linear;
  // answers beyond stay true (values are SSA), if less precise, until the oracle is made afresh.
  // Returns the nodes that read a value whose answer went (valid until the next call): patterns
  // that read types may match them now.
  absl::Span<ir::Node* const> forget(const ir::Node& node);
  static constexpr size_t kMaxNodesForgottenPerChange = 1024;

 private:
  // typeOf() for a value without an answer yet.
  const ir::Type& resolve(const ir::Value& value);
  ir::Type infer(const ir::Value& value);
  // The rule's type of the node's output from its inputs' typeOf(), or with `inferred_only`
  // their inferredTypeOf().
  ir::Type applyLocalRule(const ir::Node& node, size_t output_index, bool inferred_only = false);
  void runOnnxShapeInference();

  // inferredTypeOf()'s answer, and whether ONNX's inference of the value may be believed: every
  // node it depends on is one libonnx knows at the model's opset.
  struct Inferred {
    ir::Type type;
    bool onnx_trusted = false;
  };
  const Inferred& resolveInferred(const ir::Value& value);
  Inferred inferFromInputs(const ir::Value& value);
  void recordInferred(const ir::Value& value, Inferred answer);
  // The type of a Loop's or Scan's body input that holds in every iteration: a carried value's,
  // proved by induction from its initial value, or a Scan input's slice; nullopt for other values
  // and when the body changes a carried value's rank.
  std::optional<ir::Type> bodyInputType(const ir::Value& input);
  // Records the types of every carried body input of `owner` (a Loop or Scan) that hold in every
  // iteration; see bodyInputType().
  void proveCarriedTypes(const ir::Node& owner, const ir::Graph& body);
  std::optional<ir::Type> scanSliceType(const ir::Node& scan, size_t body_index, int64_t opset);
  // A Loop's or Scan's output: a carried value's last value is of the type bodyInputType()
  // proves; a scan output stacks the body's per-iteration output along a dim of the iteration
  // count where the model fixes that count and it is not 0, else has only its element type.
  ir::Type carriedOutputType(const ir::Node& owner, size_t output_index);
  // The length of a Scan's sequences (its inputs from `states` on) along their scan axes;
  // nullopt unless every one is known and the same.
  std::optional<int64_t> scanLength(const ir::Node& scan, size_t states, int64_t opset);

  // The answers about one graph's values, indexed by Value::ordinal(): a pass asks about most
  // values it meets, and an array read costs less than hashing a pointer.
  struct GraphAnswers {
    std::vector<const ir::Type*> typed;        // typeOf()'s
    std::vector<const Inferred*> inferred;     // inferredTypeOf()'s
    // Values whose ONNX inference no longer describes them (onnxAnswerHolds()).
    std::vector<bool> onnx_answer_stale;
  };
  template <typename T>
  static T* answerAt(const std::vector<T*>& answers, const ir::Value& value) {
    return value.ordinal() < answers.size() ? answers[value.ordinal()] : nullptr;
  }
  // typeOf()'s answer about `value`, null when there is none yet. Inline: typeOf() asks it
  // several times per question.
  const ir::Type* known(const ir::Value& value) {
    return answerAt(answersIn(*value.graph()).typed, value);
  }
  const Inferred* knownInferred(const ir::Value& value) {
    return answerAt(answersIn(*value.graph()).inferred, value);
  }
  // Answers live in pools (references stay valid as they grow). A forgotten answer stays in its
  // pool, unreachable, until the oracle goes.
  const ir::Type& remember(const ir::Value& value, ir::Type type);
  // Drops every answer about `value`; whether there was one.
  bool dropAnswers(const ir::Value& value);
  // Whether ONNX's inference of `value` (a node output whose inputs are resolved) still
  // describes it: not once the value's producer, or a producer upstream, changed after the
  // inference ran on the model as it was. Marks the value where not, for its readers.
  bool onnxAnswerHolds(const ir::Value& value);
  void markOnnxAnswerStale(const ir::Value& value);
  bool onnxAnswerStale(const ir::Value& value);
  GraphAnswers& answersIn(const ir::Graph& graph) {
    if (&graph != last_graph_) switchToGraph(graph);
    return *last_answers_;
  }
  void switchToGraph(const ir::Graph& graph);

  ir::Model& model_;
  // Chunks of many answers: a pass makes thousands, and a deque's 512-byte blocks cost a malloc
  // per five.
  ir::detail::ObjectPool<ir::Type> answers_;
  ir::detail::ObjectPool<Inferred> inferred_answers_;
  absl::flat_hash_map<const ir::Graph*, GraphAnswers> answers_by_graph_;
  // The last graph asked about: almost every question is about the same graph as the one before.
  const ir::Graph* last_graph_ = nullptr;
  GraphAnswers* last_answers_ = nullptr;
  absl::flat_hash_map<const ir::Value*, ir::Type> onnx_inferred_;
  // Whether some value's ONNX inference no longer describes it: outputs of the nodes forget()
  // was told changed or walked to after the inference ran, and the values derived from them.
  bool any_onnx_answer_stale_ = false;
  // While bodyInputType() checks an assumption (depth > 0), the values answered under it, to
  // be dropped if it fails.
  int induction_depth_ = 0;
  std::vector<const ir::Value*> made_under_assumption_;
  // The values whose typeOf() answer rests on a declaration (a body's input, a value_info, a
  // graph output's type) rather than on the main graph's inputs alone.
  absl::flat_hash_set<const ir::Value*> claimed_;
  bool onnx_inference_ran_ = false;
  std::vector<ir::Node*> readers_of_forgotten_;  // forget()'s walk and answer
};

// `declared` (a value_info) with what contradicts `fact` replaced by the fact, as ONNX Runtime's
// merge counts a contradiction: another element type or rank, or another size for a dim both
// know; nullopt when nothing does. ONNX Runtime runs a model whose declaration an edit left
// stale, but checks an op's inputs against what it believes (a MatMul of a stale [N, 2] and a
// [3, 1] fails to load), and plans buffers from it.
std::optional<ir::Type> correctedDeclaration(const ir::Type& declared, const ir::Type& fact);

// Numpy-style (multidirectional) broadcast of two shapes, assuming the model is valid at run time:
// a dim against a known 1 gives the other dim; a known size other than 1 wins against a symbol or
// an unknown (the other must then be 1 or equal); equal symbols stay; anything else is unknown.
// nullopt when the shapes provably do not broadcast (two different known sizes, neither 1).
ONNXOPT_API std::optional<ir::Shape> broadcastShapes(const ir::Shape& a, const ir::Shape& b);

// Whether `from` provably broadcasts unidirectionally to `to` without changing it: its rank is
// not larger and every dim (right-aligned) is a known 1 or provably equal to `to`'s dim.
ONNXOPT_API bool broadcastsUnidirectionally(const ir::Shape& from, const ir::Shape& to);

// Which elements of a dim of size `dim` Slice takes for `start`, `end` and `step`, as ONNX
// Runtime's kernel does: clamped as the spec says (negative values count from the end), except
// that an open end (isOpenSliceEnd) with a negative step runs to the first element, as numpy's
// None, where the spec would clamp it to dim - 1 and take nothing. `count` elements, from
// `first` by `step`; nullopt for a step of 0.
struct SliceRange {
  int64_t first = 0;
  int64_t step = 1;
  int64_t count = 0;
};
// Whether a Slice end is INT32_MAX or INT64_MAX, which ONNX Runtime reads as "no end".
ONNXOPT_API bool isOpenSliceEnd(int64_t end);
ONNXOPT_API std::optional<SliceRange> sliceRange(int64_t dim, int64_t start, int64_t end,
                                                 int64_t step);

// The sizes of the `parts` chunks Split (from opset 18, `num_outputs`) cuts a dim of size `dim`
// into, as ONNX Runtime's kernel does where the spec leaves it open: chunks of ceil(dim / parts),
// computed in float, the last one dim % chunk where that is not 0. nullopt where ONNX Runtime
// refuses the node: no parts, more parts than elements (an empty dim included), or chunks that
// miss the dim (6 in 4 parts: 2+2+2+2; 2^24 + 1 in 2 parts, whose chunk rounds to 2^23).
ONNXOPT_API std::optional<std::vector<int64_t>> splitChunkSizes(int64_t dim, int64_t parts);

// Whether every dim of the two shapes is provably equal (same rank, same known sizes or symbols).
ONNXOPT_API bool provablyEqual(const ir::Shape& a, const ir::Shape& b);

// Whether output 0 of `node` has the shape of its input 0 by its operator's definition, at every
// opset (the unary elementwise operators, Cast, CastLike, IsNaN, IsInf, Not, Softmax and the
// normalizations, among others; ONNX domain only): the oracle's own rule for that output.
ONNXOPT_API bool keepsInputShape(const ir::Node& node);

// The value whose shape `value` has by definition: `value` itself, or up through the producers
// that keep their input's shape (keepsInputShape, output 0) as far as they go. Null when more
// than kMaxShapeKeepingChain of them are in a row: the bound keeps each caller's walk constant.
constexpr int kMaxShapeKeepingChain = 16;
ONNXOPT_API ir::Value* shapeSourceOf(ir::Value& value);
ONNXOPT_API const ir::Value* shapeSourceOf(const ir::Value& value);
// shapeSourceOf() that climbs only past the producers `may_pass` accepts, given the producer
// and the one passed just below it (null for the first).
ONNXOPT_API ir::Value* shapeSourceOf(
    ir::Value& value,
    absl::FunctionRef<bool(const ir::Node& producer, const ir::Node* below)> may_pass);

// Whether `a` and `b` have the same shape by definition: the same value, or values with the
// same shapeSourceOf (Relu(X) and Cast(X) have X's shape, whatever X's dims are).
ONNXOPT_API bool sameShapeByDefinition(const ir::Value* a, const ir::Value* b);

}  // namespace onnxopt
