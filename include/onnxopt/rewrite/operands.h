#pragma once

// List operands that ONNX moved from attributes to inputs (Squeeze and Unsqueeze axes at opset
// 13, Slice starts/ends/axes/steps at opset 10), read and written in the form the node's opset
// uses, and axes resolved against a rank.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "onnxopt/export.h"
#include "onnxopt/ir/ir.h"

namespace onnxopt {

class PatternRewriter;

// An `axes` list: the attribute before opset `input_since` of the node's domain, input
// `input_index` from then on.
struct AxesOperand {
  bool given = false;                          // the attribute or the input is there
  std::optional<std::vector<int64_t>> values;  // nullopt when given but not a constant
};

// An error when the attribute has another kind, or the input is a malformed constant.
ONNXOPT_API absl::StatusOr<AxesOperand> readAxesOperand(const ir::Node& node, int64_t input_since,
                                                        size_t input_index = 1);

// The node's `axes` become `axes`: an INTS attribute before opset `input_since`, else a new
// int64 initializer at input `input_index`. Only after a successful PatternRewriter::match().
ONNXOPT_API void setAxesOperand(PatternRewriter& rewriter, const ir::Node& node,
                                int64_t input_since, absl::Span<const int64_t> axes,
                                size_t input_index = 1);

// `axes` counted from the front of a rank-`rank` shape, in the order given; nullopt when one is
// outside [-rank, rank) or two name the same axis. Without a rank, non-negative axes resolve to
// themselves, and a negative one, or one beyond the most dims a tensor has
// (kMaxRankFromShapeLength), to nullopt.
ONNXOPT_API std::optional<std::vector<int64_t>> resolveAxes(absl::Span<const int64_t> axes,
                                                            std::optional<int64_t> rank);
// resolveAxes, in ascending order: a set of axes, to compare with another.
ONNXOPT_API std::optional<std::vector<int64_t>> resolveAxesSorted(absl::Span<const int64_t> axes,
                                                                  std::optional<int64_t> rank);

// Whether no axis is negative: they then need no rank to be resolved.
ONNXOPT_API bool allNonNegative(absl::Span<const int64_t> axes);

// The position of the `index`-th axis (from 0) of those not in `sorted_axes` (ascending, from
// the front): where an axis of Squeeze's output sits in its input when `sorted_axes` are the
// squeezed ones, or an axis of Unsqueeze's input in its output when they are the inserted ones.
ONNXOPT_API int64_t axisSkipping(int64_t index, absl::Span<const int64_t> sorted_axes);

// The axes a Transpose moves: output axis i is input axis perm[i]. Its `perm` attribute, or the
// reversal of `rank` axes when it has none; nullopt when it has none and no rank is given. An
// error when `perm` has another kind or is not a permutation of its length.
ONNXOPT_API absl::StatusOr<std::optional<std::vector<int64_t>>> readTransposePerm(
    const ir::Node& transpose, std::optional<int64_t> rank);
// The rank of a Transpose's input its `perm` states; nullopt without one.
ONNXOPT_API std::optional<int64_t> rankFromPerm(const ir::Node& transpose);
// The perm of Transpose(Transpose(x, first), second): output axis i is axis second[i] of the
// middle tensor, which is axis first[second[i]] of x. Both of one length.
ONNXOPT_API std::vector<int64_t> composePerms(absl::Span<const int64_t> first,
                                              absl::Span<const int64_t> second);
// Whether `perm` leaves every axis where it is.
ONNXOPT_API bool isIdentityPerm(absl::Span<const int64_t> perm);
// Whether `perm` holds each of 0 .. perm.size() - 1 once.
ONNXOPT_API bool isPermutation(absl::Span<const int64_t> perm);

// A Slice's constant arguments, defaults filled in: axes [0, n) when absent, steps 1 when
// absent. Slice-1 reads starts, ends and axes from attributes; Slice-10 on from inputs 1-4.
struct SliceArguments {
  std::vector<int64_t> starts, ends, axes, steps;
};

// nullopt when an argument input is not a constant. An error when an attribute has the wrong
// kind, a constant is malformed, or the lists' lengths differ.
ONNXOPT_API absl::StatusOr<std::optional<SliceArguments>> readSliceArguments(const ir::Node& slice);

// One bound of a Clip: the float attribute `min` or `max` before opset 11, the optional scalar
// input 1 or 2 from then on. An absent bound is ONNX's default: the lowest (min) or largest
// (max) value of the element type, not an infinity.
struct ClipBound {
  bool given = false;           // the attribute or the input is there
  std::optional<double> value;  // nullopt when given but not a constant scalar
};
struct ClipBounds {
  ClipBound min, max;
};

// An error when an attribute has another kind, a bound is a malformed constant, or the model
// imports no opset of the node's domain.
ONNXOPT_API absl::StatusOr<ClipBounds> readClipBounds(const ir::Node& clip);

// A Gemm's scalars and flags, ONNX's defaults for those absent: Y = alpha * A' * B' + beta * C,
// A' = A transposed when trans_a, B' likewise.
struct GemmAttributes {
  float alpha = 1.0f;
  float beta = 1.0f;
  bool trans_a = false;
  bool trans_b = false;
  bool operator==(const GemmAttributes& other) const {
    return alpha == other.alpha && beta == other.beta && trans_a == other.trans_a &&
           trans_b == other.trans_b;
  }
};

// An error naming the node when one of them has another kind than ONNX defines.
ONNXOPT_API absl::StatusOr<GemmAttributes> readGemmAttributes(const ir::Node& gemm);

class ShapeOracle;

// The element type a Cast (`to`, opset 6 on) or CastLike (its second input's type, known for
// sure) converts to; 0 when it is not known or is no tensor element type (`to = 0`, UNDEFINED,
// makes a model ONNX Runtime refuses, so no rewrite may take such a Cast for a no-op). An error
// naming the node when `to` has another kind than an int.
ONNXOPT_API absl::StatusOr<int32_t> readCastTarget(const ir::Node& cast, ShapeOracle& shapes);

}  // namespace onnxopt
