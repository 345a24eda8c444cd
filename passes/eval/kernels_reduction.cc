// Reduction kernels: ReduceSum, ReduceMean, ReduceProd, ReduceMin, ReduceMax, with axes as an
// attribute (before opset 13 for ReduceSum, 18 for the others) or as an input.
//
// ONNX Runtime's order of accumulation depends on the shape and the reduced axes (Eigen's
// vectorized sums, its "fast reduce" paths), and it accumulates integers in double, saturating.
// So a sum or product is folded only when every partial result in any order is exact: then
// every order gives the exact result, which is computed here with integers. Anything else
// declines.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "onnxopt/rewrite/schema.h"
#include "element_math.h"
#include "kernel.h"

namespace onnxopt::eval {
namespace {

using onnx::TensorProto;

enum class Reduce { kSum, kMean, kProd, kMin, kMax };

std::optional<std::vector<int32_t>> typesAfterLibonnx(absl::string_view op_type,
                                                      int64_t since_version,
                                                      absl::string_view param) {
  if (param != "T") return std::nullopt;
  std::vector<int32_t> types = {TensorProto::FLOAT16,  TensorProto::FLOAT, TensorProto::DOUBLE,
                                TensorProto::BFLOAT16, TensorProto::INT32, TensorProto::INT64,
                                TensorProto::UINT32,   TensorProto::UINT64};
  const bool min_or_max = op_type == "ReduceMin" || op_type == "ReduceMax";
  if (min_or_max) {
    types.push_back(TensorProto::INT8);
    types.push_back(TensorProto::UINT8);
  }
  if (since_version == 18) return types;
  if (since_version == 20 && min_or_max) {
    types.push_back(TensorProto::BOOL);
    return types;
  }
  return std::nullopt;
}

// Which input dims are reduced; empty `reduced` with `identity` set means the output is the
// input itself (noop_with_empty_axes).
struct ReducedAxes {
  std::vector<bool> reduced;
  bool identity = false;
};

bool axesAreInput(const KernelContext& ctx) {
  const bool is_sum = ctx.node().opType() == "ReduceSum";
  return ctx.sinceVersion() >= (is_sum ? 13 : 18);
}

absl::StatusOr<ReducedAxes> reducedAxes(const KernelContext& ctx, int64_t rank) {
  std::vector<int64_t> axes;
  bool noop_with_empty_axes = false;
  if (axesAreInput(ctx)) {
    const absl::StatusOr<int64_t> noop = getIntOr(ctx.node(), "noop_with_empty_axes", 0);
    if (!noop.ok()) return noop.status();
    noop_with_empty_axes = *noop != 0;
    if (const EvalTensor* axes_input = ctx.input(1)) {
      if (axes_input->elem_type != TensorProto::INT64) {
        return ctx.invalid("axes (input 1) is not an int64 tensor");
      }
      const absl::StatusOr<std::vector<int64_t>> values = readInts(ctx, *axes_input);
      if (!values.ok()) return values.status();
      axes = *values;
    }
  } else {
    const absl::StatusOr<std::optional<std::vector<int64_t>>> attr = getInts(ctx.node(), "axes");
    if (!attr.ok()) return attr.status();
    if (*attr) axes = **attr;
    if (ctx.sinceVersion() < 11) {
      // Version 1 does not say what a negative axis means.
      for (const int64_t axis : axes) {
        if (axis < 0) return ctx.unimplemented("a negative axis before opset 11");
      }
    }
  }
  ReducedAxes result;
  if (axes.empty()) {
    result.identity = noop_with_empty_axes;
    result.reduced.assign(rank, !noop_with_empty_axes);
    return result;
  }
  result.reduced.assign(rank, false);
  for (const int64_t axis : axes) {
    const absl::StatusOr<int64_t> normalized = normalizeAxis(ctx, axis, rank);
    if (!normalized.ok()) return normalized.status();
    if (result.reduced[*normalized])
      return ctx.invalid(absl::StrCat("axis ", axis, " is repeated"));
    result.reduced[*normalized] = true;
  }
  return result;
}

// ---- exact sums and products of floating-point numbers ----

// The precision and exponent range of T's format (frexp convention: finite values are below
// 2^max_exp, normal ones at least 2^(min_exp - 1)).
struct FloatFormat {
  int digits;
  int max_exp;
  int min_exp;
};

template <typename T>
constexpr FloatFormat formatOf() {
  if constexpr (std::is_same_v<T, Float16>) {
    return {11, 16, -13};
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    return {8, 128, -125};
  } else {
    return {std::numeric_limits<T>::digits, std::numeric_limits<T>::max_exponent,
            std::numeric_limits<T>::min_exponent};
  }
}

// A finite nonzero value as odd * 2^exponent.
struct Decomposed {
  uint64_t odd;
  int exponent;
  bool negative;
};

Decomposed decompose(double value) {
  int exponent = 0;
  const double fraction = std::frexp(std::fabs(value), &exponent);
  uint64_t mantissa = static_cast<uint64_t>(std::ldexp(fraction, 53));
  exponent -= 53;
  while ((mantissa & 1) == 0) {
    mantissa >>= 1;
    ++exponent;
  }
  return {mantissa, exponent, std::signbit(value)};
}

int bitLength(uint64_t value) {
  int bits = 0;
  for (; value != 0; value >>= 1) ++bits;
  return bits;
}

// The sum of `values` (widened to double), when every partial sum in any order is exact in a
// format of `format`'s precision: all values are multiples of the smallest one's lowest bit,
// 2^e, and their magnitudes add up to less than 2^(digits + e). nullopt otherwise.
std::optional<double> exactSum(absl::Span<const double> values, FloatFormat format) {
  int lowest = std::numeric_limits<int>::max();
  bool all_negative_zeros = !values.empty();
  std::vector<Decomposed> parts;
  parts.reserve(values.size());
  for (const double value : values) {
    if (!std::isfinite(value)) return std::nullopt;
    all_negative_zeros = all_negative_zeros && value == 0 && std::signbit(value);
    if (value == 0) continue;
    parts.push_back(decompose(value));
    lowest = std::min(lowest, parts.back().exponent);
  }
  // ORT's Eigen sum keeps a sum of -0s negative, its accumulating loops start from +0.
  if (all_negative_zeros) return std::nullopt;
  if (parts.empty()) return 0.0;
  const uint64_t limit = uint64_t{1} << format.digits;
  uint64_t magnitude = 0;
  int64_t sum = 0;
  for (const Decomposed& part : parts) {
    const int shift = part.exponent - lowest;
    if (shift + bitLength(part.odd) > format.digits) return std::nullopt;
    const uint64_t scaled = part.odd << shift;
    magnitude += scaled;
    if (magnitude >= limit) return std::nullopt;
    sum += part.negative ? -static_cast<int64_t>(scaled) : static_cast<int64_t>(scaled);
  }
  return std::ldexp(static_cast<double>(sum), lowest);
}

// The product of `values`, when every partial product in any order is exact in `format`: the
// odd parts multiply to less than 2^digits, and no subset's product leaves the format's range
// (so a zero never meets an infinity). nullopt otherwise.
std::optional<double> exactProduct(absl::Span<const double> values, FloatFormat format) {
  const uint64_t limit = uint64_t{1} << format.digits;
  uint64_t odd = 1;
  int exponent = 0;
  int positive_exponents = 0;
  int negative_exponents = 0;
  bool negative = false;
  bool zero = false;
  for (const double value : values) {
    if (!std::isfinite(value)) return std::nullopt;
    negative = negative != std::signbit(value);
    if (value == 0) {
      zero = true;
      continue;
    }
    const Decomposed part = decompose(value);
    if (part.odd >= limit || odd > (limit - 1) / part.odd) return std::nullopt;
    odd *= part.odd;
    exponent += part.exponent;
    (part.exponent > 0 ? positive_exponents : negative_exponents) += part.exponent;
  }
  if (bitLength(odd) + positive_exponents > format.max_exp) return std::nullopt;
  if (negative_exponents < format.min_exp - format.digits) return std::nullopt;
  const double magnitude = zero ? 0.0 : std::ldexp(static_cast<double>(odd), exponent);
  return negative ? -magnitude : magnitude;
}

// ---- exact integer sums and products ----

// ORT accumulates integers in double and saturates: results whose every partial result stays
// within 2^53 (and whose value fits T) are exact in every order.
constexpr int64_t kExactInDouble = int64_t{1} << 53;

template <typename T>
std::optional<T> fitting(int64_t value) {
  if (value > kExactInDouble || value < -kExactInDouble) return std::nullopt;
  if constexpr (std::is_unsigned_v<T>) {
    if (value < 0 || static_cast<uint64_t>(value) > std::numeric_limits<T>::max())
      return std::nullopt;
  } else {
    if (value < std::numeric_limits<T>::min() || value > std::numeric_limits<T>::max()) {
      return std::nullopt;
    }
  }
  return static_cast<T>(value);
}

template <typename T>
int64_t magnitudeOf(T value) {
  if constexpr (std::is_signed_v<T>) {
    if (value < 0)
      return value == std::numeric_limits<T>::min() ? kExactInDouble + 1
                                                    : -static_cast<int64_t>(value);
  }
  return static_cast<uint64_t>(value) > static_cast<uint64_t>(kExactInDouble)
             ? kExactInDouble + 1
             : static_cast<int64_t>(value);
}

template <typename T>
std::optional<int64_t> integerSum(absl::Span<const T> values) {
  int64_t magnitude = 0;
  int64_t sum = 0;
  for (const T value : values) {
    const int64_t m = magnitudeOf(value);
    // Checked before adding: a large negative int64 has a magnitude near 2^63.
    if (m > kExactInDouble) return std::nullopt;
    magnitude += m;
    if (magnitude > kExactInDouble) return std::nullopt;
    sum += static_cast<int64_t>(value);
  }
  return sum;
}

template <typename T>
std::optional<int64_t> integerProduct(absl::Span<const T> values) {
  int64_t magnitude = 1;  // of the nonzero values' product: bounds every partial product
  bool negative = false;
  bool zero = false;
  for (const T value : values) {
    if (value == 0) {
      zero = true;
      continue;
    }
    const int64_t m = magnitudeOf(value);
    if (m > kExactInDouble || magnitude > kExactInDouble / m) return std::nullopt;
    magnitude *= m;
    if constexpr (std::is_signed_v<T>) negative = negative != (value < 0);
  }
  if (zero) return 0;
  return negative ? -magnitude : magnitude;
}

// ---- the reduction of one group of elements ----

template <Reduce kOp, typename T>
std::optional<T> reduceGroup(absl::Span<const T> group, const char** why) {
  if (kOp == Reduce::kMean && group.empty()) {
    *why = "a Mean over no elements";
    return std::nullopt;
  }
  if constexpr (kOp == Reduce::kMin || kOp == Reduce::kMax) {
    if (group.empty()) {
      *why = "a Min/Max over no elements";
      return std::nullopt;
    }
    T best = group.front();
    for (const T value : group) {
      if constexpr (kIsFloating<T>) {
        const MathType<T> v = widen(value);
        const MathType<T> b = widen(best);
        if (std::isnan(v)) {
          *why = "a Min/Max over a NaN (ONNX Runtime's result depends on the order)";
          return std::nullopt;
        }
        if (v == 0 && b == 0 && std::signbit(v) != std::signbit(b)) {
          *why = "a Min/Max over zeros of both signs";
          return std::nullopt;
        }
        if (kOp == Reduce::kMax ? b < v : v < b) best = value;
      } else {
        if (kOp == Reduce::kMax ? best < value : value < best) best = value;
      }
    }
    return best;
  } else if constexpr (kIsFloating<T>) {
    std::vector<double> values;
    values.reserve(group.size());
    for (const T value : group) values.push_back(static_cast<double>(widen(value)));
    constexpr FloatFormat format = formatOf<T>();
    if constexpr (kOp == Reduce::kProd) {
      const std::optional<double> product = exactProduct(values, format);
      if (!product) {
        *why = "a floating-point product whose partial products are not all exact";
        return std::nullopt;
      }
      return floatResult<T>(*product);
    } else {
      const std::optional<double> sum = exactSum(values, format);
      if (!sum) {
        *why =
            "a floating-point sum whose partial sums are not all exact (ONNX Runtime's order "
            "of accumulation is not known)";
        return std::nullopt;
      }
      const MathType<T> total = static_cast<MathType<T>>(*sum);
      if constexpr (kOp == Reduce::kSum) {
        return narrow<T>(total);
      } else {
        // Eigen's mean and ORT's fast paths divide the sum by the count, in T's computing type.
        if (group.size() > (uint64_t{1} << std::numeric_limits<MathType<T>>::digits)) {
          *why = "a Mean over more elements than its type counts exactly";
          return std::nullopt;
        }
        return narrow<T>(total / static_cast<MathType<T>>(group.size()));
      }
    }
  } else {
    if constexpr (kOp == Reduce::kProd) {
      const std::optional<int64_t> product = integerProduct(group);
      const std::optional<T> result = product ? fitting<T>(*product) : std::nullopt;
      if (!result) *why = "an integer product beyond its type or 2^53";
      return result;
    } else {
      const std::optional<int64_t> sum = integerSum(group);
      std::optional<T> result = sum ? fitting<T>(*sum) : std::nullopt;
      if (!result) *why = "an integer sum beyond its type or 2^53";
      if (result && kOp == Reduce::kMean) {
        // ORT divides the sum in double and truncates; below 2^53 that is integer division.
        result = static_cast<T>(*sum / static_cast<int64_t>(group.size()));
      }
      return result;
    }
  }
}

template <Reduce kOp>
Outputs reduceKernel(const KernelContext& ctx) {
  const EvalTensor* data = ctx.input(0);
  if (data == nullptr) return ctx.invalid("input 0 is missing");
  if (absl::Status status = checkElemType(ctx, "T", data->elem_type, typesAfterLibonnx);
      !status.ok()) {
    return status;
  }
  const int64_t rank = static_cast<int64_t>(data->dims.size());
  const absl::StatusOr<ReducedAxes> axes = reducedAxes(ctx, rank);
  if (!axes.ok()) return axes.status();
  const absl::StatusOr<int64_t> keepdims = getIntOr(ctx.node(), "keepdims", 1);
  if (!keepdims.ok()) return keepdims.status();
  if (axes->identity) {
    std::vector<EvalTensor> outputs;
    outputs.push_back(*data);
    return outputs;
  }
  std::vector<int64_t> kept_dims;  // the input's dims with 1 for each reduced axis
  std::vector<int64_t> out_dims;
  for (int64_t axis = 0; axis < rank; ++axis) {
    kept_dims.push_back(axes->reduced[axis] ? 1 : data->dims[axis]);
    if (!axes->reduced[axis] || *keepdims != 0) out_dims.push_back(kept_dims.back());
  }
  absl::StatusOr<EvalTensor> out = ctx.allocate(data->elem_type, out_dims);
  if (!out.ok()) return out.status();
  const absl::Status status =
      dispatchType<kNumeric | kBool>(ctx, data->elem_type, [&](auto tag) -> absl::Status {
        using T = decltype(tag);
        const int64_t groups = out->numElements();
        const int64_t count = data->numElements();
        // Each input element's group: the output element it reduces into.
        const std::vector<int64_t> group_of = broadcastIndex(kept_dims, data->dims);
        std::vector<std::vector<T>> members(static_cast<size_t>(groups));
        const T* in = data->data<T>();
        for (int64_t i = 0; i < count; ++i) members[group_of[i]].push_back(in[i]);
        T* o = out->template mutableData<T>();
        for (int64_t g = 0; g < groups; ++g) {
          std::optional<T> result;
          const char* why = nullptr;
          if constexpr (std::is_same_v<T, bool>) {
            if (members[g].empty()) return ctx.unimplemented("a Min/Max over no elements");
            const auto& group = members[g];
            result = kOp == Reduce::kMax
                         ? std::any_of(group.begin(), group.end(), [](bool b) { return b; })
                         : std::all_of(group.begin(), group.end(), [](bool b) { return b; });
          } else {
            result = reduceGroup<kOp, T>(members[g], &why);
          }
          if (!result) return ctx.unimplemented(why != nullptr ? why : "no such reduction");
          o[g] = *result;
        }
        return absl::OkStatus();
      });
  if (!status.ok()) return status;
  return singleOutput(std::move(out));
}

// Each entry spans the operator's versions in ONNX's docs/Changelog.md (1, 11, 13, 18 and 20);
// reducedAxes and checkElemType tell them apart.
constexpr KernelEntry kKernels[] = {
    {"ReduceSum", 1, 13, reduceKernel<Reduce::kSum>},
    {"ReduceMean", 1, 18, reduceKernel<Reduce::kMean>},
    {"ReduceProd", 1, 18, reduceKernel<Reduce::kProd>},
    {"ReduceMin", 1, 20, reduceKernel<Reduce::kMin>},
    {"ReduceMax", 1, 20, reduceKernel<Reduce::kMax>},
};

}  // namespace

absl::Span<const KernelEntry> reductionKernels() { return kKernels; }

}  // namespace onnxopt::eval
