#pragma once

// What fuse-layer-norm and fuse-rms-norm share: reading the decomposed normalization
//   [Cast back] <- [Add bias] <- [Cast back] <- [Mul scale] <- [Cast back] <- core
//   core = Div(n, Sqrt(Add(ReduceMean(Pow(s, 2) or Mul(s, s)), eps)))
//       or Mul(n, Reciprocal(Sqrt(...))) / Mul(n, Div(1, Sqrt(...))), either operand order
// from its last node up, the ReduceMean axes in both forms (attribute before opset 18, input
// from 18), the centering x - ReduceMean(x), the scale and bias constants shaped as the fused
// op's normalized shape, and which node of a chain ends the longest match, the one fused.
// Header-only: passes/CMakeLists.txt compiles every .cc here as a pass.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "conv_fusion.h"
#include "onnxopt/ir/describe.h"
#include "onnxopt/rewrite/constant.h"
#include "onnxopt/rewrite/match.h"
#include "onnxopt/rewrite/rewriter.h"
#include "onnxopt/rewrite/schema.h"
#include "onnxopt/rewrite/shape_oracle.h"
#include "onnxopt/rewrite/tensor_util.h"

namespace onnxopt::norm_match {

// How reading a candidate ended. kNone: not this pattern at all (no reason worth showing).
// kDecline: almost, `why` says what differs. kError: the model is malformed.
struct Verdict {
  enum Kind { kMatch, kNone, kDecline, kError };
  Kind kind = kMatch;
  std::string why;
  absl::Status error;

  static Verdict match() { return {}; }
  static Verdict none() { return {kNone, {}, {}}; }
  static Verdict decline(std::string why) { return {kDecline, std::move(why), {}}; }
  static Verdict fail(absl::Status error) { return {kError, {}, std::move(error)}; }
  bool ok() const { return kind == kMatch; }
};

// Reports a verdict that is not a match through the rewriter, as the pattern returns it.
inline LogicalResult report(const ir::Node& root, const Verdict& verdict, PatternRewriter& rewriter) {
  switch (verdict.kind) {
    case Verdict::kError:
      return rewriter.emitError(root, verdict.error);
    case Verdict::kDecline:
      return rewriter.notifyMatchFailure(root, verdict.why);
    default:
      return failure();
  }
}

// The constant `value` holds as a view; nullopt when it is not one. Errors as readConstant.
inline absl::StatusOr<std::optional<ConstantView>> constantOf(const ir::Value* value) {
  if (value == nullptr) return std::optional<ConstantView>();
  return readConstant(*value);
}

// Whether `value` is a constant of one element equal to `expected` whose rank is at most
// `max_rank`, so that an elementwise op with it keeps the other operand's shape.
inline absl::StatusOr<bool> isScalarConstant(const ir::Value* value, double expected,
                                             int64_t max_rank) {
  absl::StatusOr<std::optional<ConstantView>> c = constantOf(value);
  if (!c.ok()) return c.status();
  return *c && (*c)->numElements() == 1 && (*c)->rank() <= max_rank && (*c)->allEqualTo(expected);
}

// The tail: what follows the core, each step optional, at most one Cast back.
struct Tail {
  const ir::Node* root = nullptr;
  const ir::Node* cast_back = nullptr;
  const ir::Node* scale_mul = nullptr;
  const ir::Value* scale = nullptr;
  bool scale_in_body = false;  // applied before the Cast back, in the body's type
  const ir::Node* bias_add = nullptr;
  const ir::Value* bias = nullptr;
  bool bias_in_body = false;
  const ir::Node* core = nullptr;
};

// The core's parts: n * 1/Sqrt(ReduceMean(square of s) + eps).
struct Core {
  const ir::Node* node = nullptr;        // the Div or Mul that normalizes
  const ir::Value* numerator = nullptr;  // n
  const ir::Node* reciprocal = nullptr;  // Reciprocal or Div(1, .), when node is a Mul
  const ir::Node* sqrt = nullptr;
  const ir::Node* add_eps = nullptr;
  double epsilon = 0;
  const ir::Node* mean = nullptr;    // ReduceMean of the square
  const ir::Node* square = nullptr;  // Pow(s, 2) or Mul(s, s)
  const ir::Value* squared = nullptr;  // s
};

// The Reciprocal (or Div(1, x)) producing `value`, with the value it inverts.
inline absl::StatusOr<std::pair<const ir::Node*, const ir::Value*>> reciprocalOf(
    const ir::Value* value, int64_t max_rank) {
  if (const ir::Node* r = producerOf(value, "Reciprocal"); r != nullptr) return std::make_pair(r, r->input(0));
  const ir::Node* div = producerOf(value, "Div");
  if (div == nullptr || div->numInputs() != 2) return std::make_pair<const ir::Node*, const ir::Value*>(nullptr, nullptr);
  absl::StatusOr<bool> one = isScalarConstant(div->input(0), 1.0, max_rank);
  if (!one.ok()) return one.status();
  if (!*one) return std::make_pair<const ir::Node*, const ir::Value*>(nullptr, nullptr);
  return std::make_pair(div, div->input(1));
}

// Whether `node` is the core's Div or Mul (not a scale Mul), telling which operand is n.
inline absl::StatusOr<bool> isCoreNode(const ir::Node& node, int64_t max_rank, Core* core) {
  if (node.numInputs() != 2 || node.output(0) == nullptr) return false;
  if (node.is("Div")) {
    if (producerOf(node.input(1), "Sqrt") == nullptr) return false;
    core->node = &node;
    core->numerator = node.input(0);
    core->reciprocal = nullptr;
    core->sqrt = producerOf(node.input(1), "Sqrt");
    return true;
  }
  if (!node.is("Mul")) return false;
  for (size_t i = 0; i < 2; ++i) {
    absl::StatusOr<std::pair<const ir::Node*, const ir::Value*>> r = reciprocalOf(node.input(i), max_rank);
    if (!r.ok()) return r.status();
    if (r->first == nullptr) continue;
    const ir::Node* sqrt = producerOf(r->second, "Sqrt");
    if (sqrt == nullptr) continue;
    core->node = &node;
    core->numerator = node.input(1 - i);
    core->reciprocal = r->first;
    core->sqrt = sqrt;
    return true;
  }
  return false;
}

// The value an elementwise tail step continues from, when `operand` of `node` is a constant and
// the other operand exists: the index of the constant operand, or nullopt.
inline std::optional<size_t> constantOperand(const ir::Node& node) {
  if (node.numInputs() != 2 || node.input(0) == nullptr || node.input(1) == nullptr) return std::nullopt;
  for (size_t i = 0; i < 2; ++i) {
    if (isConstant(*node.input(i)) && !isConstant(*node.input(1 - i))) return i;
  }
  return std::nullopt;
}

// Reads the tail from `root` up to the core: Cast back (at most one, anywhere), Add of a
// constant bias (with `allow_bias`), Mul by a constant scale, in that order from the root. The
// constant 1 in Div(1, x) may have at most the rank of root's output (0 when not known). kNone
// when `root` does not end a normalization.
inline Verdict readTail(const ir::Node& root, bool allow_bias, ShapeOracle& shapes, Tail* tail, Core* core) {
  const int64_t max_rank =
      root.output(0) != nullptr ? shapes.inferredTypeOf(*root.output(0)).rank().value_or(0) : 0;
  *tail = Tail();
  tail->root = &root;
  const ir::Node* cur = &root;
  int stage = 0;  // 0: bias may come, 1: scale may come, 2: only the core
  for (int steps = 0; steps < 4 && cur != nullptr; ++steps) {
    if (cur->is("Cast")) {
      if (tail->cast_back != nullptr || cur->input(0) == nullptr) return Verdict::none();
      tail->cast_back = cur;
      cur = cur->input(0)->producer();
      continue;
    }
    absl::StatusOr<bool> is_core = isCoreNode(*cur, max_rank, core);
    if (!is_core.ok()) return Verdict::fail(is_core.status());
    if (*is_core) {
      tail->core = cur;
      return Verdict::match();
    }
    std::optional<size_t> c = constantOperand(*cur);
    if (!c) return Verdict::none();
    const bool in_body = tail->cast_back != nullptr;
    if (cur->is("Add") && allow_bias && stage == 0) {
      tail->bias_add = cur;
      tail->bias = cur->input(*c);
      tail->bias_in_body = in_body;
      stage = 1;
    } else if (cur->is("Mul") && stage <= 1) {
      tail->scale_mul = cur;
      tail->scale = cur->input(*c);
      tail->scale_in_body = in_body;
      stage = 2;
    } else {
      return Verdict::none();
    }
    cur = cur->input(1 - *c)->producer();
  }
  return Verdict::none();
}

// The axes a ReduceMean reduces, resolved against `rank`, sorted; nullopt (with `why`) when it
// is not a keepdims=1 reduction of known axes. Opset 13-17 (ReduceMean-13): the `axes`
// attribute, all axes when absent. From 18 (ReduceMean-18): the optional `axes` input, which
// must be a constant; absent or empty means all axes unless noop_with_empty_axes is 1.
inline absl::StatusOr<std::optional<std::vector<int64_t>>> reducedAxes(const ir::Node& mean, int64_t rank,
                                                                       std::string* why) {
  absl::StatusOr<int64_t> keepdims = getIntOr(mean, "keepdims", 1);
  if (!keepdims.ok()) return keepdims.status();
  if (*keepdims != 1) {
    *why = absl::StrCat(ir::describe(mean), " has keepdims=", *keepdims, ", not 1");
    return std::nullopt;
  }
  std::optional<int64_t> since = sinceVersionOf(mean);
  if (!since) {
    *why = absl::StrCat(ir::describe(mean), ": its version is not known");
    return std::nullopt;
  }
  std::vector<int64_t> axes;
  if (*since >= 18) {
    absl::StatusOr<int64_t> noop = getIntOr(mean, "noop_with_empty_axes", 0);
    if (!noop.ok()) return noop.status();
    if (mean.input(1) != nullptr) {
      absl::StatusOr<std::optional<std::vector<int64_t>>> ints = readConstantInts(*mean.input(1));
      if (!ints.ok()) return ints.status();
      if (!*ints) {
        *why = absl::StrCat(ir::describe(mean), ": its axes '", mean.input(1)->name(), "' are not a constant");
        return std::nullopt;
      }
      axes = std::move(**ints);
    }
    if (axes.empty() && *noop != 0) {
      *why = absl::StrCat(ir::describe(mean), " reduces nothing (no axes, noop_with_empty_axes=1)");
      return std::nullopt;
    }
  } else {
    absl::StatusOr<std::optional<std::vector<int64_t>>> attr = getInts(mean, "axes");
    if (!attr.ok()) return attr.status();
    if (*attr) axes = std::move(**attr);
  }
  if (axes.empty()) {
    for (int64_t a = 0; a < rank; ++a) axes.push_back(a);
  }
  for (int64_t& a : axes) {
    if (a < -rank || a >= rank) {
      *why = absl::StrCat(ir::describe(mean), ": axis ", a, " is outside rank ", rank);
      return std::nullopt;
    }
    if (a < 0) a += rank;
  }
  std::sort(axes.begin(), axes.end());
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  return axes;
}

// How many trailing axes `mean` normalizes (its axes are exactly the last k of `rank`); 0 with
// `why` when it does not reduce a trailing block with keepdims=1.
inline absl::StatusOr<int64_t> trailingAxesOf(const ir::Node& mean, int64_t rank, std::string* why) {
  absl::StatusOr<std::optional<std::vector<int64_t>>> axes = reducedAxes(mean, rank, why);
  if (!axes.ok()) return axes.status();
  if (!*axes) return 0;
  const int64_t k = static_cast<int64_t>((*axes)->size());
  for (int64_t i = 0; i < k; ++i) {
    if ((**axes)[i] != rank - k + i) {
      *why = absl::StrCat(ir::describe(mean), " reduces axes [", absl::StrJoin(**axes, ", "),
                          "], not the last ones of rank ", rank);
      return 0;
    }
  }
  return k;
}

// The ReduceMean that the Sub `sub` subtracts from its own operand 0 (x - ReduceMean(x), the
// centering of a layer normalization), else null.
inline const ir::Node* centeringMeanOf(const ir::Node& sub) {
  const ir::Node* mean = producerOf(sub.input(1), "ReduceMean");
  return mean != nullptr && mean->input(0) == sub.input(0) ? mean : nullptr;
}

// Reads the core below `core->node` (set by readTail): the Sqrt of Add(ReduceMean(square), eps).
// `rank` is the rank of the normalized value. Sets everything but the ReduceMean's axes, which
// the caller compares. kNone when the Sqrt is not of an Add of a ReduceMean (a division by some
// other square root: attention's Sqrt(d_k)).
inline Verdict readCoreBody(Core* core, int64_t rank) {
  const ir::Node* sqrt = core->sqrt;
  const ir::Node* add = producerOf(sqrt->input(0), "Add");
  if (add == nullptr || add->numInputs() != 2) return Verdict::none();
  for (size_t i = 0; i < 2; ++i) {
    const ir::Node* mean = producerOf(add->input(i), "ReduceMean");
    if (mean == nullptr) continue;
    const ir::Value* eps = add->input(1 - i);
    absl::StatusOr<std::optional<ConstantView>> c = constantOf(eps);
    if (!c.ok()) return Verdict::fail(c.status());
    if (!*c) {
      return Verdict::decline(absl::StrCat("epsilon '", eps ? eps->name() : "", "' is not a constant"));
    }
    std::optional<std::vector<double>> values = (*c)->asDoubles();
    if ((*c)->numElements() != 1 || (*c)->rank() > rank || !values || !((*values)[0] > 0) ||
        !std::isfinite((*values)[0]) || static_cast<double>(static_cast<float>((*values)[0])) != (*values)[0]) {
      return Verdict::decline(absl::StrCat("epsilon '", eps->name(),
                                           "' is not a positive finite scalar that a float holds exactly"));
    }
    core->add_eps = add;
    core->epsilon = (*values)[0];
    core->mean = mean;
    const ir::Value* sq = mean->input(0);
    if (const ir::Node* pow = producerOf(sq, "Pow"); pow != nullptr && pow->numInputs() == 2) {
      absl::StatusOr<bool> two = isScalarConstant(pow->input(1), 2.0, rank);
      if (!two.ok()) return Verdict::fail(two.status());
      if (!*two) return Verdict::decline("the Pow's exponent is not a constant 2");
      core->square = pow;
      core->squared = pow->input(0);
    } else if (const ir::Node* mul = producerOf(sq, "Mul");
               mul != nullptr && mul->numInputs() == 2 && mul->input(0) == mul->input(1)) {
      core->square = mul;
      core->squared = mul->input(0);
    } else {
      return Verdict::decline("the variance's ReduceMean does not read Pow(x, 2) or Mul(x, x)");
    }
    return Verdict::match();
  }
  return Verdict::none();
}

// Whether `v` (finite or not) survives a round trip through `elem_type` unchanged.
inline bool representable(double v, int32_t elem_type) {
  if (std::isnan(v)) return true;
  const float f = static_cast<float>(v);
  if (static_cast<double>(f) != v) return elem_type == onnx::TensorProto::DOUBLE;
  switch (elem_type) {
    case onnx::TensorProto::FLOAT16:
      return halfToFloat(floatToHalf(f)) == f;
    case onnx::TensorProto::BFLOAT16:
      return bfloat16ToFloat(floatToBfloat16(f)) == f;
    default:
      return true;
  }
}

// The operand the fused op takes for a scale or bias constant `value` of the tail, applied to a
// value of rank `rank` whose last `k` dims are `normalized` (known, or nullopt where not): the
// constant itself when it has exactly the normalized shape and `elem_type`; else a new tensor
// of the normalized shape and `elem_type` (`*tensor`), when the constant broadcasts along the
// normalized axes only (every other aligned dim 1, rank at most `rank`) and each value converts
// exactly. A decline otherwise, or when the constant is not of `source_type`, the type of the
// value the tail applies it to.
inline Verdict shapeParameter(const ir::Value& value, const char* what, int64_t rank,
                              const std::vector<std::optional<int64_t>>& normalized, int32_t source_type,
                              int32_t elem_type, std::optional<onnx::TensorProto>* tensor) {
  tensor->reset();
  absl::StatusOr<std::optional<ConstantView>> read = readConstant(value);
  if (!read.ok()) return Verdict::fail(read.status());
  if (!*read) return Verdict::decline(absl::StrCat("the ", what, " '", value.name(), "' is not a constant"));
  const ConstantView& c = **read;
  if (c.elemType() != source_type) {
    return Verdict::decline(absl::StrCat("the ", what, " '", value.name(), "' is not ",
                                         ir::elemTypeName(source_type), " like the value it applies to"));
  }
  const int64_t k = static_cast<int64_t>(normalized.size());
  auto decline = [&](absl::string_view why) {
    return Verdict::decline(absl::StrCat("the ", what, " '", value.name(), "' ", why));
  };
  if (c.rank() > rank) return decline("has a higher rank than the normalized value: it broadcasts it bigger");
  bool exact_shape = c.rank() == k && c.elemType() == elem_type;
  for (int64_t i = 0; i < c.rank(); ++i) {
    const int64_t axis = rank - c.rank() + i;  // the value's axis this dim aligns with
    const int64_t dim = c.dims()[i];
    if (axis < rank - k) {
      if (dim != 1) return decline("varies along an axis that is not normalized");
      continue;
    }
    const std::optional<int64_t>& n = normalized[static_cast<size_t>(axis - (rank - k))];
    if (dim != 1 && (!n || *n != dim)) {
      return decline("does not broadcast to the normalized shape without enlarging it");
    }
    if (!n || *n != dim) exact_shape = false;
  }
  if (exact_shape) return Verdict::match();
  std::vector<int64_t> dims;
  int64_t count = 1;
  for (const std::optional<int64_t>& n : normalized) {
    if (!n) return decline("needs reshaping to the normalized shape, whose dims are not all known");
    dims.push_back(*n);
    count *= *n;
  }
  std::optional<std::vector<double>> values = c.asDoubles();
  if (!values) return decline("cannot be read");
  for (double v : *values) {
    if (!representable(v, elem_type)) {
      return decline(absl::StrCat("has a value that ", ir::elemTypeName(elem_type), " does not hold exactly"));
    }
  }
  // Broadcast: element e of the normalized shape reads the constant's element at the same
  // coordinates, a dim of 1 (or a missing leading dim) reading coordinate 0.
  std::vector<double> out(static_cast<size_t>(count));
  for (int64_t e = 0; e < count; ++e) {
    int64_t rest = e;
    int64_t src = 0;
    int64_t src_stride = 1;
    for (int64_t a = k - 1; a >= 0; --a) {
      const int64_t coord = rest % dims[a];
      rest /= dims[a];
      const int64_t ci = c.rank() - k + a;  // the constant's dim aligned with normalized axis a
      if (ci < 0) continue;
      const int64_t cdim = c.dims()[ci];
      if (cdim != 1) src += coord * src_stride;
      src_stride *= cdim;
    }
    out[static_cast<size_t>(e)] = (*values)[static_cast<size_t>(src)];
  }
  *tensor = conv_fusion::encode(elem_type, dims, out);
  return Verdict::match();
}

// A tensor of ones of the normalized shape, or nullopt when a dim is not known.
inline std::optional<onnx::TensorProto> onesOf(const std::vector<std::optional<int64_t>>& normalized,
                                               int32_t elem_type) {
  std::vector<int64_t> dims;
  int64_t count = 1;
  for (const std::optional<int64_t>& n : normalized) {
    if (!n) return std::nullopt;
    dims.push_back(*n);
    count *= *n;
  }
  return conv_fusion::encode(elem_type, dims, std::vector<double>(static_cast<size_t>(count), 1.0));
}

// With a Cast back in the tail (a float body): the fp16/bf16 value that `x`, the body's input,
// is a Cast to float of, when the Cast back returns to that type; *input and *out_type are set
// to it and its type. Without a Cast back, x and its type. kNone when the Cast back is not the
// other end of such a Cast: the normalization then ends below it.
inline Verdict readCastAround(const Tail& tail, ir::Value* x, ShapeOracle& shapes, ir::Value** input,
                              int32_t* out_type) {
  *input = x;
  *out_type = shapes.elemTypeOf(*x);
  if (tail.cast_back == nullptr) return Verdict::match();
  absl::StatusOr<std::optional<int64_t>> to = getInt(*tail.cast_back, "to");
  if (!to.ok()) return Verdict::fail(to.status());
  const ir::Node* cast_in = producerOf(x, "Cast");
  if (cast_in == nullptr || cast_in->input(0) == nullptr) return Verdict::none();
  absl::StatusOr<std::optional<int64_t>> in_to = getInt(*cast_in, "to");
  if (!in_to.ok()) return Verdict::fail(in_to.status());
  const int32_t narrow = shapes.elemTypeOf(*cast_in->input(0));
  if (in_to->value_or(0) != onnx::TensorProto::FLOAT || narrow != to->value_or(0) ||
      (narrow != onnx::TensorProto::FLOAT16 && narrow != onnx::TensorProto::BFLOAT16)) {
    return Verdict::none();
  }
  *input = cast_in->input(0);
  *out_type = narrow;
  return Verdict::match();
}

// The last `k` dims of `shape` (rank `rank`), each known or nullopt.
inline std::vector<std::optional<int64_t>> normalizedDims(const ir::Shape& shape, int64_t rank, int64_t k) {
  std::vector<std::optional<int64_t>> dims;
  for (int64_t a = rank - k; a < rank; ++a) {
    const ir::Dim& dim = shape[static_cast<size_t>(a)];
    dims.push_back(dim.isKnown() ? std::optional<int64_t>(dim.value()) : std::nullopt);
  }
  return dims;
}


// What the fused op reads, alike for LayerNormalization and RMSNormalization once the core
// matched: the input (x, or the fp16/bf16 value cast to x), the types, and the scale, used as
// it is (`scale`) or made (`scale_tensor`: the model's of the normalized shape, or ones).
struct FusedOperands {
  ir::Value* input = nullptr;
  int32_t body_type = 0;  // what the body computes in: float
  int32_t out_type = 0;   // what the fused op returns
  std::vector<std::optional<int64_t>> normalized;
  ir::Value* scale = nullptr;
  std::optional<onnx::TensorProto> scale_tensor;
};

// Reads FusedOperands for `op` over the last `k` of x's `rank` axes.
inline Verdict readFusedOperands(absl::string_view op, const Tail& tail, ir::Value* x, const ir::Shape& shape,
                                 int64_t rank, int64_t k, ShapeOracle& shapes, FusedOperands* out) {
  out->body_type = shapes.elemTypeOf(*x);
  if (out->body_type != onnx::TensorProto::FLOAT) {
    return Verdict::decline(absl::StrCat("the body computes in ", ir::elemTypeName(out->body_type), ", not float: ",
                                         op, " would compute in float (stash_type)"));
  }
  Verdict v = readCastAround(tail, x, shapes, &out->input, &out->out_type);
  if (!v.ok()) return v;
  out->normalized = normalizedDims(shape, rank, k);
  if (tail.scale != nullptr) {
    v = shapeParameter(*tail.scale, "scale", rank, out->normalized, tail.scale_in_body ? out->body_type : out->out_type,
                       out->out_type, &out->scale_tensor);
    if (!v.ok()) return v;
    if (!out->scale_tensor) out->scale = const_cast<ir::Value*>(tail.scale);
    return Verdict::match();
  }
  out->scale_tensor = onesOf(out->normalized, out->out_type);
  if (!out->scale_tensor) {
    return Verdict::decline(
        absl::StrCat("there is no scale, and ", op, "'s (ones) needs the normalized dims, not all known"));
  }
  return Verdict::match();
}

// Whether `root` ends the longest chain of the normalization `match`, which is the one fused: a
// decline (reason recorded on `root`) when the one reader of its output takes the match further,
// a node of one of `tail_ops` (the scale's Mul, the bias's Add, the Cast back) from which `read`,
// the pattern's own reading, finds the same core.
template <typename Match>
LogicalResult endsLongestMatch(const ir::Node& root, const Match& match, PatternRewriter& rewriter,
                               Verdict (*read)(const ir::Node&, PatternRewriter&, Match*),
                               std::initializer_list<absl::string_view> tail_ops) {
  if (!hasSingleReader(*root.output(0))) return success();
  const ir::Node* next = root.output(0)->uses()[0].user();
  if (next->graph() != root.graph() || rewriter.opsetVersion(*next) != rewriter.opsetVersion(root) ||
      std::none_of(tail_ops.begin(), tail_ops.end(), [&](absl::string_view op) { return next->is(op); })) {
    return success();
  }
  Match longer;
  if (!read(*next, rewriter, &longer).ok() || longer.core.node != match.core.node) return success();
  return rewriter.notifyMatchFailure(root, [&] { return absl::StrCat("the match goes on to ", ir::describe(*next)); });
}

// The scale the fused op reads: the model's, or a new initializer named after it with `suffix`.
inline ir::Value* fusedScale(FusedOperands& operands, const Tail& tail, absl::string_view suffix,
                             PatternRewriter& rewriter) {
  if (operands.scale != nullptr) return operands.scale;
  return rewriter.createInitializer(
      tail.scale != nullptr ? absl::StrCat(tail.scale->name(), "_", suffix) : absl::StrCat(suffix, "_scale"),
      std::move(*operands.scale_tensor));
}

// The fused op's axis (the first of the last k) and epsilon; stash_type keeps its default,
// float, the body's type.
inline void setNormAttributes(PatternRewriter& rewriter, const ir::Node& fused, int64_t k, double epsilon) {
  rewriter.setIntAttr(fused, "axis", -k);
  onnx::AttributeProto attr;
  attr.set_name("epsilon");
  attr.set_type(onnx::AttributeProto::FLOAT);
  attr.set_f(static_cast<float>(epsilon));
  rewriter.setAttr(fused, ir::Attribute(std::move(attr)));
}

}  // namespace onnxopt::norm_match
