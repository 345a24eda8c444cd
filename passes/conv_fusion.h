#pragma once

// What the Conv fusions (fuse-bn-into-conv, fuse-add-bias-into-conv, fuse-mul-into-conv) share:
// reading a Conv or ConvTranspose whose weight and bias are constants, the output channel of each
// weight element (ConvTranspose and groups included), which constants vary per output channel
// only (an Add's or Mul's other operand beside a Conv), values rounded once to the weight's
// type, and the rewrite that makes the Conv take the fused value's place. Header-only:
// passes/CMakeLists.txt compiles every .cc here as a pass.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "onnxopt/ir/describe.h"
#include "onnxopt/rewrite/constant.h"
#include "onnxopt/rewrite/match.h"
#include "onnxopt/rewrite/rewriter.h"
#include "onnxopt/rewrite/schema.h"
#include "onnxopt/rewrite/tensor_util.h"

namespace onnxopt::conv_fusion {

// The Conv or ConvTranspose (default domain) producing `value`, else null.
inline const ir::Node* convProducerOf(const ir::Value* value) {
  const ir::Node* conv = producerOf(value, "Conv");
  return conv != nullptr ? conv : producerOf(value, "ConvTranspose");
}

// A Conv or ConvTranspose whose weight (and bias, if it has one) are constants. The bias is read
// as doubles; the weight is read only by scaledWeight, element by element: a fusion that only
// changes the bias does not need it, and a weight of millions of elements would take twice its
// size in doubles.
struct FusableConv {
  const ir::Node* node = nullptr;
  bool transposed = false;
  int64_t group = 1;
  int32_t elem_type = 0;
  std::vector<int64_t> weight_dims;
  std::optional<ConstantView> weight;
  std::optional<std::vector<double>> bias;  // out_channels values
  int64_t out_channels = 0;

  int64_t rank() const { return static_cast<int64_t>(weight_dims.size()); }

  // Calls fn(channel, first, count) for each run of `count` weight elements (row-major, from
  // `first`) that contribute to one output channel. Conv's weight is [M, C/group, k...]: channel
  // m is the run at index m on axis 0. ConvTranspose's is [C, M/group, k...]: input channel i
  // belongs to group i / (C/group), whose output channels are group * M/group + j for j along
  // axis 1, so each run of kernel elements has its own channel.
  template <typename Fn>
  void forEachChannelRun(int64_t num_elements, Fn&& fn) const {
    int64_t kernel = 1;
    for (size_t i = 2; i < weight_dims.size(); ++i) kernel *= weight_dims[i];
    const int64_t per_group_out = weight_dims[1];
    const int64_t run = transposed ? kernel : per_group_out * kernel;
    const int64_t in_per_group = weight_dims[0] / group;
    for (int64_t first = 0, r = 0; first < num_elements; first += run, ++r) {
      fn(transposed ? (r / per_group_out / in_per_group) * per_group_out + r % per_group_out : r,
         first, run);
    }
  }
};

// Whether the Conv family's type constraint T (float16, float, double; bfloat16 from version 22)
// holds a type the fusions compute exactly in double and round once.
inline bool isFusableElemType(int32_t elem_type) {
  return elem_type == onnx::TensorProto::FLOAT || elem_type == onnx::TensorProto::DOUBLE ||
         elem_type == onnx::TensorProto::FLOAT16 || elem_type == onnx::TensorProto::BFLOAT16;
}

// Reads `conv` (a Conv or ConvTranspose) for a fusion rooted at `root`. Declines (reason recorded
// on `root`) when it is not one whose weights can be rewritten; an error for malformed attributes
// or constants.
inline LogicalResult readFusableConv(const ir::Node& root, const ir::Node& conv,
                                     PatternRewriter& rewriter, FusableConv* out) {
  auto decline = [&](absl::string_view why) {
    return rewriter.notifyMatchFailure(root, [&] { return absl::StrCat(ir::describe(conv), ": ", why); });
  };
  if (conv.numOutputs() != 1 || conv.output(0) == nullptr || conv.input(0) == nullptr ||
      conv.input(1) == nullptr || conv.numInputs() > 3) {
    return decline("not one output and two or three inputs");
  }
  absl::StatusOr<int64_t> group = getIntOr(conv, "group", 1);
  if (!group.ok()) return rewriter.emitError(conv, group.status());
  if (*group < 1) return decline(absl::StrCat("group is ", *group));

  absl::StatusOr<std::optional<ConstantView>> weight = readConstant(*conv.input(1));
  if (!weight.ok()) return rewriter.emitError(conv, weight.status());
  if (!*weight) return decline(absl::StrCat("the weight '", conv.input(1)->name(), "' is not a constant"));
  const ConstantView& w = **weight;
  if (!isFusableElemType(w.elemType())) {
    return decline(absl::StrCat("the weight's element type ", ir::elemTypeName(w.elemType()),
                                " is not float16, bfloat16, float or double"));
  }
  if (w.rank() < 3) return decline(absl::StrCat("the weight has rank ", w.rank(), ", not 3 or more"));
  const bool transposed = conv.opType() == "ConvTranspose";
  const int64_t grouped_axis = w.dims()[0];
  if (grouped_axis % *group != 0) {
    return decline(absl::StrCat("the weight's axis 0 (", grouped_axis, ") is not a multiple of group ", *group));
  }
  out->node = &conv;
  out->transposed = transposed;
  out->group = *group;
  out->elem_type = w.elemType();
  out->weight_dims.assign(w.dims().begin(), w.dims().end());
  out->weight = w;
  out->out_channels = transposed ? w.dims()[1] * *group : w.dims()[0];
  out->bias.reset();

  const ir::Value* bias_value = conv.input(2);
  if (bias_value == nullptr) return success();
  absl::StatusOr<std::optional<ConstantView>> bias = readConstant(*bias_value);
  if (!bias.ok()) return rewriter.emitError(conv, bias.status());
  if (!*bias) return decline(absl::StrCat("the bias '", bias_value->name(), "' is not a constant"));
  const ConstantView& b = **bias;
  if (b.elemType() != w.elemType() || b.rank() != 1 || b.dims()[0] != out->out_channels) {
    return decline(absl::StrCat("the bias is not ", ir::elemTypeName(w.elemType()), "[",
                                out->out_channels, "]"));
  }
  out->bias = b.asDoubles();
  if (!out->bias) return decline("the bias's data cannot be read");
  return success();
}

// The value per output channel of a constant that an elementwise op (Add, Mul: numpy
// broadcasting, aligned from the right) combines with a Conv output of rank `rank` and
// `channels` channels (axis 1), when its value provably depends on the channel alone: every dim
// is 1 except, possibly, the one aligned with axis 1, which is `channels`; and its rank is at
// most `rank`, so that the result keeps the Conv output's shape. [C] against a rank-4 output
// aligns with the last axis, not the channel axis: nullopt. Also nullopt when the data cannot be
// read or a value is not finite (Inf * 0 inside the Conv's sum would give NaN where the
// unfused model gives a number, or the reverse).
inline std::optional<std::vector<double>> perChannelValues(const ConstantView& c, int64_t rank,
                                                           int64_t channels) {
  if (c.rank() > rank) return std::nullopt;
  const int64_t channel_index = c.rank() - rank + 1;  // the constant's dim aligned with axis 1
  bool varies = false;
  for (int64_t i = 0; i < c.rank(); ++i) {
    const int64_t dim = c.dims()[i];
    if (dim == 1) continue;
    if (i != channel_index || dim != channels) return std::nullopt;
    varies = true;
  }
  std::optional<std::vector<double>> values = c.asDoubles();
  if (!values || values->size() != static_cast<size_t>(varies ? channels : 1)) return std::nullopt;
  for (double v : *values) {
    if (!std::isfinite(v)) return std::nullopt;
  }
  if (!varies) values->assign(static_cast<size_t>(channels), (*values)[0]);
  return values;
}

// A binary elementwise op's Conv operand and its other operand, a constant that varies per output
// channel only (perChannelValues), of the weight's type.
struct ConvWithChannelConstant {
  FusableConv conv;
  std::vector<double> per_channel;  // out_channels values
};

// Reads `root` (Add or Mul from opset 7: numpy broadcasting) as Op(Conv(...), C) or
// Op(C, Conv(...)), the Conv or ConvTranspose as readFusableConv reads it. A plain failure when
// neither operand is a Conv's output; a decline (reason recorded on `root`) when the other is not
// such a constant or the Conv's weights cannot be rewritten; an error for malformed constants.
inline LogicalResult readConvWithChannelConstant(const ir::Node& root, PatternRewriter& rewriter,
                                                 ConvWithChannelConstant* out) {
  if (root.numInputs() != 2 || root.output(0) == nullptr) return failure();
  size_t conv_index = 0;
  const ir::Node* conv = convProducerOf(root.input(0));
  if (conv == nullptr) {
    conv_index = 1;
    conv = convProducerOf(root.input(1));
    if (conv == nullptr) return failure();
  }
  const ir::Value* other = root.input(1 - conv_index);
  if (other == nullptr) return failure();
  // The other operand first: it is rarely a constant (a residual Add, a gating Mul), and
  // reading the Conv reads its weight, from disk for external data.
  absl::StatusOr<std::optional<ConstantView>> constant = readConstant(*other);
  if (!constant.ok()) return rewriter.emitError(root, constant.status());
  if (!*constant) {
    return rewriter.notifyMatchFailure(root, [&] { return absl::StrCat("'", other->name(), "' is not a constant"); });
  }
  if (failed(readFusableConv(root, *conv, rewriter, &out->conv))) return failure();
  const FusableConv& fusable = out->conv;
  std::optional<std::vector<double>> per_channel =
      perChannelValues(**constant, fusable.rank(), fusable.out_channels);
  if ((*constant)->elemType() != fusable.elem_type || !per_channel) {
    return rewriter.notifyMatchFailure(root, [&] {
      return absl::StrCat("'", other->name(), "' is not a finite ", ir::elemTypeName(fusable.elem_type),
                          " constant that varies along the channel axis 1 of the rank-",
                          fusable.rank(), " output only");
    });
  }
  out->per_channel = *std::move(per_channel);
  return success();
}

// `value` rounded to float by round-to-odd: the nearest float, or, when `value` lies between two
// floats, the one whose last bit is 1. Rounding that result to a type of at most 22 significant
// bits (float16: 11, bfloat16: 8) gives what rounding `value` to it directly would: one rounding,
// not two.
inline float roundToOddFloat(double value) {
  if (!std::isfinite(value)) return static_cast<float>(value);
  float nearest = static_cast<float>(value);
  if (std::isinf(nearest)) nearest = std::copysign(std::numeric_limits<float>::max(), nearest);
  if (static_cast<double>(nearest) == value) return nearest;
  uint32_t bits;
  std::memcpy(&bits, &nearest, sizeof bits);
  if ((bits & 1) == 0) {
    // Sign and magnitude: one less is the neighbour nearer zero.
    bits = std::fabs(static_cast<double>(nearest)) > std::fabs(value) ? bits - 1 : bits + 1;
  }
  float odd;
  std::memcpy(&odd, &bits, sizeof odd);
  return odd;
}

// How the fusions store a double in a weight of one of the types isFusableElemType accepts:
// rounded once (float16 and bfloat16 through round-to-odd float), the element read back as a
// double by decode(). finite(v): whether v stays finite once rounded. A fused weight or bias that
// overflows (float16's 65504 is near) makes the fused node's sums infinite, or NaN, where the
// unfused model scales or shifts a finite sum and stays finite: W = 2e28 times s = 2e10 is inf in
// float, while (x * W) * s is 2e38 for an x of 0.5.
struct DoubleElements {
  using Stored = double;
  static double decode(double element) { return element; }
  static double round(double v) { return v; }
  static bool finite(double v) { return std::isfinite(v); }
};
struct FloatElements {
  using Stored = float;
  static double decode(float element) { return element; }
  static float round(double v) { return static_cast<float>(v); }
  // At or past the midpoint between float's largest and 2^128 it rounds to infinity (and
  // converting it is undefined behaviour in C++).
  static bool finite(double v) { return std::isfinite(v) && std::fabs(v) < 0x1.ffffffp127; }
};
template <float (*ToFloat)(uint16_t), uint16_t (*FromFloat)(float)>
struct SixteenBitElements {
  using Stored = uint16_t;
  static double decode(uint16_t bits) { return ToFloat(bits); }
  static uint16_t round(double v) { return FromFloat(roundToOddFloat(v)); }
  static bool finite(double v) { return std::isfinite(v) && std::isfinite(ToFloat(round(v))); }
};

// fn(Elements{}) for the Elements of `elem_type` (isFusableElemType).
template <typename Fn>
decltype(auto) withElementsOf(int32_t elem_type, Fn&& fn) {
  switch (elem_type) {
    case onnx::TensorProto::DOUBLE: return fn(DoubleElements{});
    case onnx::TensorProto::FLOAT: return fn(FloatElements{});
    case onnx::TensorProto::FLOAT16: return fn(SixteenBitElements<halfToFloat, floatToHalf>{});
    default: return fn(SixteenBitElements<bfloat16ToFloat, floatToBfloat16>{});  // BFLOAT16
  }
}

// Whether every value stays finite once rounded to `elem_type` as encode() rounds it.
inline bool roundsFinite(int32_t elem_type, absl::Span<const double> values) {
  return withElementsOf(elem_type, [&](auto elements) {
    return std::all_of(values.begin(), values.end(),
                       [&](double v) { return elements.finite(v); });
  });
}

// `values`, each rounded once to `elem_type` (isFusableElemType), as a tensor of `dims`.
inline onnx::TensorProto encode(int32_t elem_type, absl::Span<const int64_t> dims,
                                absl::Span<const double> values) {
  std::string bytes = withElementsOf(elem_type, [&](auto elements) {
    using Stored = typename decltype(elements)::Stored;
    std::string out(values.size() * sizeof(Stored), '\0');
    for (size_t i = 0; i < values.size(); ++i) {
      const Stored element = elements.round(values[i]);
      std::memcpy(out.data() + i * sizeof(Stored), &element, sizeof element);
    }
    return out;
  });
  return makeTensor(elem_type, dims, std::move(bytes));
}

// The Conv's weight with each element multiplied, in double, by the scale of its output channel
// and rounded once to the weight's type, as encode() rounds; nullopt when the weight's data
// cannot be read or a product does not stay finite once rounded (as roundsFinite). Element by
// element: no vector of doubles twice the weight's size.
inline std::optional<onnx::TensorProto> scaledWeight(const FusableConv& conv,
                                                     absl::Span<const double> scale) {
  std::string scratch;
  const std::optional<absl::string_view> bytes = elementBytes(conv.weight->proto(), &scratch);
  if (!bytes) return std::nullopt;
  std::optional<std::string> scaled = withElementsOf(conv.elem_type, [&](auto elements) {
    using Stored = typename decltype(elements)::Stored;
    std::optional<std::string> out(std::string(bytes->size(), '\0'));
    conv.forEachChannelRun(static_cast<int64_t>(bytes->size() / sizeof(Stored)),
                           [&](int64_t channel, int64_t first, int64_t run) {
      const double factor = scale[static_cast<size_t>(channel)];
      for (int64_t e = first; e < first + run && out; ++e) {
        Stored element;
        std::memcpy(&element, bytes->data() + e * sizeof(Stored), sizeof element);
        const double product = elements.decode(element) * factor;
        if (!elements.finite(product)) {
          out.reset();
          return;
        }
        element = elements.round(product);
        std::memcpy(out->data() + e * sizeof(Stored), &element, sizeof element);
      }
    });
    return out;
  });
  if (!scaled) return std::nullopt;
  return makeTensor(conv.elem_type, conv.weight_dims, *std::move(scaled));
}

// The rewrite, after a successful rewriter.match(root, {conv.node}): the Conv reads the new
// weight (when given) and bias (when given), new initializers in the root's graph (the old ones
// stay for any other readers), and its output takes the place of the root's.
inline void rewriteConv(const ir::Node& root, const FusableConv& conv,
                        std::optional<onnx::TensorProto> weight, const std::vector<double>* bias,
                        PatternRewriter& rewriter) {
  const ir::Node& node = *conv.node;
  const std::string bias_hint = node.input(2) != nullptr
                                    ? absl::StrCat(node.input(2)->name(), "_fused")
                                    : absl::StrCat(node.input(1)->name(), "_bias");
  if (weight) {
    ir::Value* w = rewriter.createInitializer(absl::StrCat(node.input(1)->name(), "_fused"),
                                              *std::move(weight));
    rewriter.setInput(node, 1, w);
  }
  if (bias != nullptr) {
    const int64_t dims[] = {conv.out_channels};
    ir::Value* b = rewriter.createInitializer(bias_hint, encode(conv.elem_type, dims, *bias));
    rewriter.setInput(node, std::min<size_t>(2, node.numInputs()), b);
  }
  rewriter.replaceAllUsesWith(*root.output(0), *node.output(0));
}

}  // namespace onnxopt::conv_fusion
