// Data-movement and shape kernels: they move elements (any type, strings included) without
// computing on them, except Cast and Range. Each computes what ONNX Runtime's CPU kernel does,
// and declines where that is not certain (Cast of NaN or out-of-range values to integers, casts
// from and to strings, Range on inputs that are not scalars).

#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "../framework/strided_walker.h"
#include "element_math.h"
#include "kernel.h"
#include "onnxopt/ir/describe.h"
#include "onnxopt/ir/type.h"
#include "onnxopt/rewrite/operands.h"
#include "onnxopt/rewrite/schema.h"
#include "onnxopt/rewrite/shape_oracle.h"
#include "onnxopt/rewrite/tensor_util.h"

namespace onnxopt::eval {
namespace {

using onnx::TensorProto;

// The versions of these ops after opset 17 take every tensor type.
absl::Status checkType(const KernelContext& ctx, absl::string_view param, int32_t elem_type) {
  return checkElemType(ctx, param, elem_type, kEveryTypeAfterLibonnx);
}

// The blocks a row-major tensor of `dims` splits into around `axis`: `outer` runs of the dims
// before it, each `inner` elements per step along it. An empty tensor has none, however large
// its other dims ([1e18, 0] concatenated on axis 1 would otherwise loop 1e18 times).
struct Blocks {
  int64_t outer;
  int64_t inner;
};

Blocks blocksAround(absl::Span<const int64_t> dims, int64_t axis) {
  if (absl::c_linear_search(dims, 0)) return {0, 0};
  return {product(dims.subspan(0, axis)), product(dims.subspan(axis + 1))};
}

// Element `to` of `out` becomes element `from` of `in`; both of one type.
inline void copyElement(const EvalTensor& in, int64_t from, EvalTensor& out, int64_t to,
                        int64_t element_size) {
  if (element_size == 0) {
    out.strings[to] = in.strings[from];
  } else {
    std::memcpy(out.bytes.data() + to * element_size, in.bytes.data() + from * element_size,
                element_size);
  }
}

// Elements [to, to + count) of `out` become elements [from, from + count) of `in`.
void copyRun(const EvalTensor& in, int64_t from, EvalTensor& out, int64_t to, int64_t count) {
  const int64_t element_size = elementSize(in.elem_type);
  if (element_size == 0) {
    std::copy_n(in.strings.begin() + from, count, out.strings.begin() + to);
  } else {
    std::memcpy(out.bytes.data() + to * element_size, in.bytes.data() + from * element_size,
                count * element_size);
  }
}

// A tensor of `dims` whose elements are `in`'s as the walker reads them.
absl::StatusOr<EvalTensor> gather(const KernelContext& ctx, const EvalTensor& in,
                                  absl::Span<const int64_t> dims, SourceWalker walker) {
  absl::StatusOr<EvalTensor> out = ctx.allocate(in.elem_type, dims);
  if (!out.ok()) return out.status();
  const int64_t element_size = elementSize(in.elem_type);
  const int64_t count = out->numElements();
  for (int64_t k = 0; k < count; ++k) copyElement(in, walker.next(), *out, k, element_size);
  return out;
}

// `in`'s elements under new dims (same count, checked by the caller).
absl::StatusOr<EvalTensor> withDims(const KernelContext& ctx, const EvalTensor& in,
                                    std::vector<int64_t> dims) {
  // Judged like any output, though the input already holds as much: an empty input may still
  // be given dims whose other dims multiply past int64.
  absl::Status judged = ctx.outputElements(in.elem_type, dims).status();
  if (!judged.ok()) return judged;
  EvalTensor out = in;
  out.dims = std::move(dims);
  return out;
}

// A list of axes (attribute or input) normalized against `rank`; duplicates are invalid.
absl::StatusOr<std::vector<int64_t>> normalizeAxes(const KernelContext& ctx,
                                                   absl::Span<const int64_t> axes, int64_t rank,
                                                   bool negative_allowed) {
  std::vector<int64_t> out;
  std::vector<bool> seen(rank, false);
  for (const int64_t axis : axes) {
    if (axis < 0 && !negative_allowed) {
      return ctx.invalid(absl::StrCat(ctx.node().opType(), " version ", ctx.sinceVersion(),
                                      " takes no negative axis (", axis, ")"));
    }
    absl::StatusOr<int64_t> normalized = normalizeAxis(ctx, axis, rank);
    if (!normalized.ok()) return normalized.status();
    if (seen[*normalized]) return ctx.invalid(absl::StrCat("axis ", axis, " is given twice"));
    seen[*normalized] = true;
    out.push_back(*normalized);
  }
  return out;
}

// An integer operand (int32 or int64) that must be 1-D.
absl::StatusOr<std::vector<int64_t>> read1D(const KernelContext& ctx, const EvalTensor& t,
                                            absl::string_view what) {
  if (t.dims.size() != 1) {
    return ctx.invalid(absl::StrCat(what, " must be 1-D, not of dims ", dimsText(t.dims)));
  }
  return readInts(ctx, t);
}

// An int64 operand that must be 1-D (shape, axes, split, repeats).
absl::StatusOr<std::vector<int64_t>> readInt64List(const KernelContext& ctx, const EvalTensor& t,
                                                   absl::string_view what) {
  if (t.elem_type != TensorProto::INT64) return ctx.invalid(absl::StrCat(what, " must be int64"));
  return read1D(ctx, t, what);
}

// An index along a dim of `dim` elements. Negative indices count from the back (the spec allows
// them from version 11; ONNX Runtime takes them at every version).
absl::StatusOr<int64_t> indexInDim(const KernelContext& ctx, int64_t index, int64_t dim) {
  if (index < -dim || index >= dim) {
    return ctx.invalid(absl::StrCat("index ", index, " is out of range for a dim of ", dim));
  }
  return index < 0 ? index + dim : index;
}

// ---- Identity, Shape, Size ----

Outputs identityKernel(const KernelContext& ctx) {
  absl::StatusOr<const EvalTensor*> in = ctx.requiredInput(0);
  if (!in.ok()) return in.status();
  return singleOutput(withDims(ctx, **in, (*in)->dims));
}

Outputs shapeKernel(const KernelContext& ctx) {
  absl::StatusOr<const EvalTensor*> in = ctx.requiredInput(0);
  if (!in.ok()) return in.status();
  const int64_t rank = static_cast<int64_t>((*in)->dims.size());
  int64_t start = 0;
  int64_t end = rank;
  if (ctx.sinceVersion() >= 15) {
    absl::StatusOr<int64_t> start_attr = getIntOr(ctx.node(), "start", 0);
    if (!start_attr.ok()) return start_attr.status();
    absl::StatusOr<std::optional<int64_t>> end_attr = getInt(ctx.node(), "end");
    if (!end_attr.ok()) return end_attr.status();
    // Negative values count from the back; both are then clamped to [0, rank].
    auto clamp = [rank](int64_t value) {
      if (value < 0) value += rank;
      return std::min(std::max<int64_t>(value, 0), rank);
    };
    start = clamp(*start_attr);
    end = end_attr->has_value() ? clamp(**end_attr) : rank;
  }
  const int64_t count = std::max<int64_t>(end - start, 0);
  absl::StatusOr<EvalTensor> out = ctx.allocate(TensorProto::INT64, {count});
  if (!out.ok()) return out.status();
  for (int64_t i = 0; i < count; ++i) out->mutableData<int64_t>()[i] = (*in)->dims[start + i];
  return singleOutput(std::move(out));
}

Outputs sizeKernel(const KernelContext& ctx) {
  absl::StatusOr<const EvalTensor*> in = ctx.requiredInput(0);
  if (!in.ok()) return in.status();
  absl::StatusOr<EvalTensor> out = ctx.allocate(TensorProto::INT64, {});
  if (!out.ok()) return out.status();
  *out->mutableData<int64_t>() = (*in)->numElements();
  return singleOutput(std::move(out));
}

// ---- Cast, CastLike ----

// Whether a floating value truncated toward zero fits integer type To.
template <typename To>
bool truncatedFits(double value) {
  if (std::isnan(value)) return false;
  const double truncated = std::trunc(value);
  if constexpr (std::is_same_v<To, bool>) {
    return true;
  } else if constexpr (std::is_signed_v<To>) {
    // -2^(bits-1) is exact in double; 2^(bits-1) is the first value beyond the range.
    const double low = static_cast<double>(std::numeric_limits<To>::min());
    return truncated >= low && truncated < -low;
  } else {
    return truncated >= 0 && truncated < 2.0 * (static_cast<double>(std::numeric_limits<To>::max() / 2) + 1);
  }
}

template <typename From, typename To>
absl::Status castElements(const KernelContext& ctx, const EvalTensor& in, EvalTensor& out) {
  const From* src = in.data<From>();
  To* dst = out.mutableData<To>();
  const int64_t count = in.numElements();
  for (int64_t i = 0; i < count; ++i) {
    const From value = src[i];
    if constexpr (kIsHalf<To>) {
      // Float16 and BFloat16 as ONNX Runtime makes them: through float (a double or a wide
      // integer rounds to float first).
      dst[i] = narrow<To>(static_cast<float>(widen(value)));
    } else if constexpr (kIsFloating<From>) {
      const double wide = toDouble(value);
      if constexpr (std::is_floating_point_v<To>) {
        dst[i] = static_cast<To>(wide);
      } else {
        if (!truncatedFits<To>(wide)) {
          return ctx.invalid(absl::StrCat("element ", i, " (", wide, ") is ",
                                          std::isnan(wide) ? "NaN" : "out of range", " for ",
                                          ir::elemTypeName(out.elem_type)));
        }
        dst[i] = static_cast<To>(wide);
      }
    } else {
      // Integers and bool: C++ conversions, as ONNX Runtime's (wrapping between integers).
      dst[i] = static_cast<To>(value);
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<EvalTensor> castTensor(const KernelContext& ctx, const EvalTensor& in, int32_t to) {
  if (in.elem_type == to) return withDims(ctx, in, in.dims);
  if (in.elem_type == TensorProto::STRING || to == TensorProto::STRING) {
    return ctx.unimplemented(absl::StrCat("casts from ", ir::elemTypeName(in.elem_type), " to ",
                                          ir::elemTypeName(to), " (string casts are not implemented)"));
  }
  if (elementSize(to) == 0) {
    return ctx.unimplemented(absl::StrCat("casts to ", ir::elemTypeName(to)));
  }
  if (isFloatingElemType(in.elem_type) && to == TensorProto::BOOL) {
    // NaN's truth is not certain across ONNX Runtime's cast paths.
    return ctx.unimplemented("casts from floating types to bool");
  }
  absl::StatusOr<EvalTensor> out = ctx.allocate(to, in.dims);
  if (!out.ok()) return out.status();
  constexpr uint32_t kFixed = kNumeric | kBool;
  absl::Status status = dispatchType<kFixed>(ctx, in.elem_type, [&](auto from_tag) {
    return dispatchType<kFixed>(ctx, to, [&](auto to_tag) {
      return castElements<decltype(from_tag), decltype(to_tag)>(ctx, in, *out);
    });
  });
  if (!status.ok()) return status;
  return out;
}

Outputs castKernel(const KernelContext& ctx) {
  absl::StatusOr<const EvalTensor*> in = ctx.requiredInput(0);
  if (!in.ok()) return in.status();
  absl::StatusOr<std::optional<int64_t>> to = getInt(ctx.node(), "to");
  if (!to.ok()) return to.status();
  if (!to->has_value()) return ctx.invalid("attribute 'to' is missing");
  if (absl::Status status = checkType(ctx, "T1", (*in)->elem_type); !status.ok()) return status;
  const int32_t target = ir::elemTypeFromAttribute(**to);
  if (absl::Status status = checkType(ctx, "T2", target); !status.ok()) return status;
  return singleOutput(castTensor(ctx, **in, target));
}

Outputs castLikeKernel(const KernelContext& ctx) {
  absl::StatusOr<const EvalTensor*> in = ctx.requiredInput(0);
  if (!in.ok()) return in.status();
  absl::StatusOr<const EvalTensor*> like = ctx.requiredInput(1);
  if (!like.ok()) return like.status();
  return singleOutput(castTensor(ctx, **in, (*like)->elem_type));
}

// ---- Reshape, Flatten, Squeeze, Unsqueeze ----

Outputs reshapeKernel(const KernelContext& ctx) {
  absl::StatusOr<const EvalTensor*> in = ctx.requiredInput(0);
  if (!in.ok()) return in.status();
  absl::StatusOr<const EvalTensor*> shape_input = ctx.requiredInput(1);
  if (!shape_input.ok()) return shape_input.status();
  absl::StatusOr<std::vector<int64_t>> shape = readInt64List(ctx, **shape_input, "shape");
  if (!shape.ok()) return shape.status();
  int64_t allow_zero = 0;
  if (ctx.sinceVersion() >= 14) {
    absl::StatusOr<int64_t> attr = getIntOr(ctx.node(), "allowzero", 0);
    if (!attr.ok()) return attr.status();
    allow_zero = *attr;
  }
  const std::vector<int64_t>& in_dims = (*in)->dims;
  std::vector<int64_t> dims = *shape;
  std::optional<size_t> inferred;
  bool has_zero = false;
  int64_t known = 1;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == -1) {
      if (inferred) return ctx.invalid(absl::StrCat("shape ", dimsText(*shape), " has two -1"));
      inferred = i;
      continue;
    }
    if (dims[i] < -1) return ctx.invalid(absl::StrCat("shape ", dimsText(*shape), " has a dim below -1"));
    if (dims[i] == 0) {
      has_zero = true;
      if (allow_zero == 0) {
        if (i >= in_dims.size()) {
          return ctx.invalid(absl::StrCat("shape ", dimsText(*shape), " copies dim ", i,
                                          " of an input of rank ", in_dims.size()));
        }
        dims[i] = in_dims[i];
      }
    }
    if (dims[i] != 0 && known > std::numeric_limits<int64_t>::max() / dims[i]) {
      return ctx.invalid(absl::StrCat("shape ", dimsText(*shape), " overflows"));
    }
    known *= dims[i];
  }
  if (allow_zero != 0 && has_zero && inferred) {
    return ctx.invalid(absl::StrCat("shape ", dimsText(*shape), " has both 0 and -1 with allowzero"));
  }
  const int64_t count = (*in)->numElements();
  if (inferred) {
    if (known == 0 || count % known != 0) {
      return ctx.invalid(absl::StrCat("cannot reshape ", dimsText(in_dims), " to ", dimsText(*shape)));
    }
    dims[*inferred] = count / known;
  } else if (known != count) {
    return ctx.invalid(absl::StrCat("cannot reshape ", dimsText(in_dims), " to ", dimsText(*shape)));
  }
  return singleOutput(withDims(ctx, **in, std::move(dims)));
}

Outputs flattenKernel(const KernelContext& ctx) {
  absl::StatusOr<const EvalTensor*> in = ctx.requiredInput(0);
  if (!in.ok()) return in.status();
  if (absl::Status status = checkType(ctx, "T", (*in)->elem_type); !status.ok()) return status;
  absl::StatusOr<int64_t> axis = getIntOr(ctx.node(), "axis", 1);
  if (!axis.ok()) return axis.status();
  const std::vector<int64_t>& in_dims = (*in)->dims;
  const int64_t rank = static_cast<int64_t>(in_dims.size());
  // Axis is in [0, rank] (from version 11 also [-rank, -1]).
  const int64_t low = ctx.sinceVersion() >= 11 ? -rank : 0;
  if (*axis < low || *axis > rank) {
    return ctx.invalid(absl::StrCat("axis ", *axis, " is out of range for rank ", rank));
  }
  const int64_t split = *axis < 0 ? *axis + rank : *axis;
  const absl::Span<const int64_t> dims(in_dims);
  return singleOutput(withDims(ctx, **in, {product(dims.subspan(0, split)), product(dims.subspan(split))}));
}

// Axes of Squeeze and Unsqueeze: the attribute before version 13, the optional second input from.
absl::StatusOr<std::optional<std::vector<int64_t>>> axesOperand(const KernelContext& ctx) {
  if (ctx.sinceVersion() < 13) return getInts(ctx.node(), "axes");
  const EvalTensor* axes = ctx.input(1);
  if (axes == nullptr) return std::optional<std::vector<int64_t>>();
  absl::StatusOr<std::vector<int64_t>> values = readInt64List(ctx, *axes, "axes");
  if (!values.ok()) return values.status();
  return std::optional<std::vector<int64_t>>(*std::move(values));
}

Outputs squeezeKernel(const KernelContext& ctx) {
  absl::StatusOr<const EvalTensor*> in = ctx.requiredInput(0);
  if (!in.ok()) return in.status();
  absl::StatusOr<std::optional<std::vector<int64_t>>> axes = axesOperand(ctx);
  if (!axes.ok()) return axes.status();
  const std::vector<int64_t>& in_dims = (*in)->dims;
  const int64_t rank = static_cast<int64_t>(in_dims.size());
  std::vector<bool> squeezed(rank, false);
  // An empty list squeezes every dim of 1, as if none were given (ONNX Runtime's reading).
  if (axes->has_value() && !(*axes)->empty()) {
    absl::StatusOr<std::vector<int64_t>> normalized =
        normalizeAxes(ctx, **axes, rank, ctx.sinceVersion() >= 11);
    if (!normalized.ok()) return normalized.status();
    for (const int64_t axis : *normalized) {
      if (in_dims[axis] != 1) {
        return ctx.invalid(absl::StrCat("cannot squeeze axis ", axis, " of dims ", dimsText(in_dims)));
      }
      squeezed[axis] = true;
    }
  } else {
    for (int64_t i = 0; i < rank; ++i) squeezed[i] = in_dims[i] == 1;
  }
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < rank; ++i) {
    if (!squeezed[i]) dims.push_back(in_dims[i]);
  }
  return singleOutput(withDims(ctx, **in, std::move(dims)));
}

Outputs unsqueezeKernel(const KernelContext& ctx) {
  absl::StatusOr<const EvalTensor*> in = ctx.requiredInput(0);
  if (!in.ok()) return in.status();
  absl::StatusOr<std::optional<std::vector<int64_t>>> axes = axesOperand(ctx);
  if (!axes.ok()) return axes.status();
  if (!axes->has_value()) return ctx.invalid("axes are missing");
  const std::vector<int64_t>& in_dims = (*in)->dims;
  const int64_t rank = static_cast<int64_t>(in_dims.size() + (*axes)->size());
  absl::StatusOr<std::vector<int64_t>> normalized =
      normalizeAxes(ctx, **axes, rank, ctx.sinceVersion() >= 11);
  if (!normalized.ok()) return normalized.status();
  std::vector<bool> inserted(rank, false);
  for (const int64_t axis : *normalized) inserted[axis] = true;
  std::vector<int64_t> dims;
  size_t next = 0;
  for (int64_t i = 0; i < rank; ++i) dims.push_back(inserted[i] ? 1 : in_dims[next++]);
  return singleOutput(withDims(ctx, **in, std::move(dims)));
}

// ---- Concat, Split ----

Outputs concatKernel(const KernelContext& ctx) {
  std::vector<const EvalTensor*> inputs;
  for (size_t i = 0; i < ctx.numInputs(); ++i) {
    absl::StatusOr<const EvalTensor*> in = ctx.requiredInput(i);
    if (!in.ok()) return in.status();
    inputs.push_back(*in);
  }
  if (inputs.empty()) return ctx.invalid("no inputs");
  // Version 1's axis is optional with default 1; from version 4 it is required.
  absl::StatusOr<std::optional<int64_t>> axis_attr = getInt(ctx.node(), "axis");
  if (!axis_attr.ok()) return axis_attr.status();
  if (!axis_attr->has_value() && ctx.sinceVersion() >= 4) return ctx.invalid("attribute 'axis' is missing");
  const int64_t axis_value = axis_attr->value_or(1);
  const EvalTensor& first = *inputs.front();
  const int64_t rank = static_cast<int64_t>(first.dims.size());
  if (axis_value < 0 && ctx.sinceVersion() < 11) return ctx.invalid("a negative axis needs version 11");
  absl::StatusOr<int64_t> axis = normalizeAxis(ctx, axis_value, rank);
  if (!axis.ok()) return axis.status();
  std::vector<int64_t> dims = first.dims;
  dims[*axis] = 0;
  for (const EvalTensor* in : inputs) {
    bool matches = in->elem_type == first.elem_type && in->dims.size() == first.dims.size();
    for (int64_t i = 0; matches && i < rank; ++i) matches = i == *axis || in->dims[i] == first.dims[i];
    if (!matches) {
      return ctx.invalid(absl::StrCat("inputs of dims ", dimsText(first.dims), " and ",
                                      dimsText(in->dims), " do not concatenate on axis ", *axis));
    }
    dims[*axis] += in->dims[*axis];
  }
  absl::StatusOr<EvalTensor> out = ctx.allocate(first.elem_type, dims);
  if (!out.ok()) return out.status();
  const Blocks blocks = blocksAround(dims, *axis);
  int64_t to = 0;
  for (int64_t o = 0; o < blocks.outer; ++o) {
    for (const EvalTensor* in : inputs) {
      const int64_t run = in->dims[*axis] * blocks.inner;
      copyRun(*in, o * run, *out, to, run);
      to += run;
    }
  }
  return singleOutput(std::move(out));
}

Outputs splitKernel(const KernelContext& ctx) {
  absl::StatusOr<const EvalTensor*> in = ctx.requiredInput(0);
  if (!in.ok()) return in.status();
  absl::StatusOr<int64_t> axis_attr = getIntOr(ctx.node(), "axis", 0);
  if (!axis_attr.ok()) return axis_attr.status();
  const std::vector<int64_t>& in_dims = (*in)->dims;
  if (*axis_attr < 0 && ctx.sinceVersion() < 11) return ctx.invalid("a negative axis needs version 11");
  absl::StatusOr<int64_t> axis = normalizeAxis(ctx, *axis_attr, static_cast<int64_t>(in_dims.size()));
  if (!axis.ok()) return axis.status();
  const int64_t dim = in_dims[*axis];
  const int64_t num_outputs = static_cast<int64_t>(ctx.node().outputs().size());

  // The split sizes: an input (version 1 and 13+), an attribute (before 13), num_outputs (18+),
  // or else equal parts, one per output.
  std::optional<std::vector<int64_t>> sizes;
  const EvalTensor* split_input = ctx.input(1);
  if (split_input != nullptr && (ctx.sinceVersion() == 1 || ctx.sinceVersion() >= 13)) {
    absl::StatusOr<std::vector<int64_t>> values = readInt64List(ctx, *split_input, "split");
    if (!values.ok()) return values.status();
    sizes = *std::move(values);
  } else if (ctx.sinceVersion() < 13) {
    absl::StatusOr<std::optional<std::vector<int64_t>>> attr = getInts(ctx.node(), "split");
    if (!attr.ok()) return attr.status();
    sizes = *std::move(attr);
  }
  std::optional<int64_t> requested_parts;
  if (ctx.sinceVersion() >= 18) {
    absl::StatusOr<std::optional<int64_t>> attr = getInt(ctx.node(), "num_outputs");
    if (!attr.ok()) return attr.status();
    requested_parts = *attr;
  }
  if (sizes && requested_parts) return ctx.invalid("both split and num_outputs are given");
  if (!sizes && !requested_parts && ctx.sinceVersion() >= 18) {
    return ctx.invalid("neither split nor num_outputs is given");
  }
  if (!sizes) {
    const int64_t parts = requested_parts.value_or(num_outputs);
    if (parts != num_outputs || parts <= 0) {
      return ctx.invalid(absl::StrCat("num_outputs ", parts, " for ", num_outputs, " outputs"));
    }
    if (requested_parts) {
      sizes = splitChunkSizes(dim, parts);
      if (!sizes) {
        return ctx.invalid(absl::StrCat("num_outputs ", parts, " on a dim of ", dim,
                                        ": ONNX Runtime cuts no such chunks"));
      }
    } else {
      if (dim % parts != 0) {
        return ctx.invalid(absl::StrCat("dim ", dim, " does not split into ", parts, " equal parts"));
      }
      sizes = std::vector<int64_t>(parts, dim / parts);
    }
  }
  if (static_cast<int64_t>(sizes->size()) != num_outputs) {
    return ctx.invalid(absl::StrCat(sizes->size(), " split sizes for ", num_outputs, " outputs"));
  }
  int64_t total = 0;
  for (const int64_t size : *sizes) {
    if (size < 0 || size > dim) return ctx.invalid(absl::StrCat("split ", dimsText(*sizes), " has a bad size"));
    total += size;
  }
  if (total != dim) {
    return ctx.invalid(absl::StrCat("split ", dimsText(*sizes), " does not sum to dim ", dim));
  }
  const Blocks blocks = blocksAround(in_dims, *axis);
  std::vector<EvalTensor> outputs;
  int64_t offset = 0;
  for (const int64_t size : *sizes) {
    std::vector<int64_t> dims = in_dims;
    dims[*axis] = size;
    absl::StatusOr<EvalTensor> out = ctx.allocate((*in)->elem_type, dims);
    if (!out.ok()) return out.status();
    for (int64_t o = 0; o < blocks.outer; ++o) {
      copyRun(**in, (o * dim + offset) * blocks.inner, *out, o * size * blocks.inner,
              size * blocks.inner);
    }
    offset += size;
    outputs.push_back(*std::move(out));
  }
  return outputs;
}

// ---- Slice ----

Outputs sliceKernel(const KernelContext& ctx) {
  absl::StatusOr<const EvalTensor*> in = ctx.requiredInput(0);
  if (!in.ok()) return in.status();
  const std::vector<int64_t>& in_dims = (*in)->dims;
  const int64_t rank = static_cast<int64_t>(in_dims.size());
  std::vector<int64_t> starts, ends;
  std::optional<std::vector<int64_t>> axes, steps;
  if (ctx.sinceVersion() < 10) {
    absl::StatusOr<std::optional<std::vector<int64_t>>> s = getInts(ctx.node(), "starts");
    if (!s.ok()) return s.status();
    absl::StatusOr<std::optional<std::vector<int64_t>>> e = getInts(ctx.node(), "ends");
    if (!e.ok()) return e.status();
    absl::StatusOr<std::optional<std::vector<int64_t>>> a = getInts(ctx.node(), "axes");
    if (!a.ok()) return a.status();
    if (!s->has_value() || !e->has_value()) return ctx.invalid("starts or ends is missing");
    starts = **s;
    ends = **e;
    axes = *a;
  } else {
    const EvalTensor* operands[4] = {ctx.input(1), ctx.input(2), ctx.input(3), ctx.input(4)};
    if (operands[0] == nullptr || operands[1] == nullptr) return ctx.invalid("starts or ends is missing");
    std::vector<int64_t> values[4];
    for (int i = 0; i < 4; ++i) {
      if (operands[i] == nullptr) continue;
      if (operands[i]->elem_type != operands[0]->elem_type) {
        return ctx.invalid("starts, ends, axes and steps must have one type");
      }
      absl::StatusOr<std::vector<int64_t>> read = read1D(ctx, *operands[i], "a Slice operand");
      if (!read.ok()) return read.status();
      values[i] = *std::move(read);
    }
    starts = values[0];
    ends = values[1];
    if (operands[2] != nullptr) axes = values[2];
    if (operands[3] != nullptr) steps = values[3];
  }
  if (ends.size() != starts.size() || (axes && axes->size() != starts.size()) ||
      (steps && steps->size() != starts.size())) {
    return ctx.invalid("starts, ends, axes and steps differ in length");
  }
  if (!axes) {
    if (static_cast<int64_t>(starts.size()) > rank) return ctx.invalid("more starts than axes");
    axes.emplace();
    for (size_t i = 0; i < starts.size(); ++i) axes->push_back(static_cast<int64_t>(i));
  }
  absl::StatusOr<std::vector<int64_t>> normalized = normalizeAxes(ctx, *axes, rank, true);
  if (!normalized.ok()) return normalized.status();

  std::vector<int64_t> dims = in_dims;
  std::vector<int64_t> first(rank, 0);
  std::vector<int64_t> step_of(rank, 1);
  for (size_t i = 0; i < starts.size(); ++i) {
    const int64_t axis = (*normalized)[i];
    const int64_t dim = in_dims[axis];
    const int64_t step = steps ? (*steps)[i] : 1;
    const std::optional<SliceRange> range = sliceRange(dim, starts[i], ends[i], step);
    if (!range) return ctx.invalid(absl::StrCat("step 0 on axis ", axis));
    dims[axis] = range->count;
    first[axis] = range->first;
    step_of[axis] = range->step;
  }
  const std::vector<int64_t> in_strides = rowMajorStrides(in_dims);
  std::vector<int64_t> strides(rank);
  int64_t base = 0;
  for (int64_t a = 0; a < rank; ++a) {
    strides[a] = step_of[a] * in_strides[a];
    if (dims[a] > 0) base += first[a] * in_strides[a];
  }
  if (product(dims) == 0) base = 0;
  return singleOutput(gather(ctx, **in, dims, SourceWalker(dims, strides, base)));
}

// ---- Gather, GatherElements ----

Outputs gatherKernel(const KernelContext& ctx) {
  absl::StatusOr<const EvalTensor*> data = ctx.requiredInput(0);
  if (!data.ok()) return data.status();
  absl::StatusOr<const EvalTensor*> indices_input = ctx.requiredInput(1);
  if (!indices_input.ok()) return indices_input.status();
  absl::StatusOr<int64_t> axis_attr = getIntOr(ctx.node(), "axis", 0);
  if (!axis_attr.ok()) return axis_attr.status();
  // ONNX Runtime 1.30's Gather gives empty strings where the data's strings belong.
  if ((*data)->elem_type == TensorProto::STRING) return ctx.unimplemented("Gather of strings");
  const std::vector<int64_t>& data_dims = (*data)->dims;
  absl::StatusOr<int64_t> axis = normalizeAxis(ctx, *axis_attr, static_cast<int64_t>(data_dims.size()));
  if (!axis.ok()) return axis.status();
  absl::StatusOr<std::vector<int64_t>> indices = readInts(ctx, **indices_input);
  if (!indices.ok()) return indices.status();
  const int64_t dim = data_dims[*axis];
  for (int64_t& index : *indices) {
    absl::StatusOr<int64_t> in_dim = indexInDim(ctx, index, dim);
    if (!in_dim.ok()) return in_dim.status();
    index = *in_dim;
  }
  std::vector<int64_t> dims(data_dims.begin(), data_dims.begin() + *axis);
  dims.insert(dims.end(), (*indices_input)->dims.begin(), (*indices_input)->dims.end());
  dims.insert(dims.end(), data_dims.begin() + *axis + 1, data_dims.end());
  absl::StatusOr<EvalTensor> out = ctx.allocate((*data)->elem_type, dims);
  if (!out.ok()) return out.status();
  const Blocks blocks = blocksAround(data_dims, *axis);
  int64_t to = 0;
  for (int64_t o = 0; o < blocks.outer; ++o) {
    for (const int64_t index : *indices) {
      copyRun(**data, (o * dim + index) * blocks.inner, *out, to, blocks.inner);
      to += blocks.inner;
    }
  }
  return singleOutput(std::move(out));
}

Outputs gatherElementsKernel(const KernelContext& ctx) {
  absl::StatusOr<const EvalTensor*> data = ctx.requiredInput(0);
  if (!data.ok()) return data.status();
  absl::StatusOr<const EvalTensor*> indices_input = ctx.requiredInput(1);
  if (!indices_input.ok()) return indices_input.status();
  absl::StatusOr<int64_t> axis_attr = getIntOr(ctx.node(), "axis", 0);
  if (!axis_attr.ok()) return axis_attr.status();
  const std::vector<int64_t>& data_dims = (*data)->dims;
  const std::vector<int64_t>& index_dims = (*indices_input)->dims;
  const int64_t rank = static_cast<int64_t>(data_dims.size());
  absl::StatusOr<int64_t> axis = normalizeAxis(ctx, *axis_attr, rank);
  if (!axis.ok()) return axis.status();
  if (index_dims.size() != data_dims.size()) {
    return ctx.invalid(absl::StrCat("indices of dims ", dimsText(index_dims), " for data of dims ",
                                    dimsText(data_dims)));
  }
  for (int64_t a = 0; a < rank; ++a) {
    if (a != *axis && index_dims[a] > data_dims[a]) {
      return ctx.invalid(absl::StrCat("indices of dims ", dimsText(index_dims),
                                      " exceed data of dims ", dimsText(data_dims)));
    }
  }
  absl::StatusOr<std::vector<int64_t>> indices = readInts(ctx, **indices_input);
  if (!indices.ok()) return indices.status();
  const int64_t dim = data_dims[*axis];
  std::vector<int64_t> strides = rowMajorStrides(data_dims);
  const int64_t axis_stride = strides[*axis];
  strides[*axis] = 0;
  absl::StatusOr<EvalTensor> out = ctx.allocate((*data)->elem_type, index_dims);
  if (!out.ok()) return out.status();
  SourceWalker walker(index_dims, strides);
  const int64_t element_size = elementSize((*data)->elem_type);
  for (size_t k = 0; k < indices->size(); ++k) {
    absl::StatusOr<int64_t> index = indexInDim(ctx, (*indices)[k], dim);
    if (!index.ok()) return index.status();
    copyElement(**data, walker.next() + *index * axis_stride, *out, static_cast<int64_t>(k), element_size);
  }
  return singleOutput(std::move(out));
}

// ---- Transpose, Expand, Tile ----

Outputs transposeKernel(const KernelContext& ctx) {
  absl::StatusOr<const EvalTensor*> in = ctx.requiredInput(0);
  if (!in.ok()) return in.status();
  const std::vector<int64_t>& in_dims = (*in)->dims;
  const int64_t rank = static_cast<int64_t>(in_dims.size());
  absl::StatusOr<std::optional<std::vector<int64_t>>> perm_attr = getInts(ctx.node(), "perm");
  if (!perm_attr.ok()) return perm_attr.status();
  std::vector<int64_t> perm;
  if (perm_attr->has_value()) {
    perm = **perm_attr;
  } else {
    for (int64_t i = rank; i-- > 0;) perm.push_back(i);
  }
  if (static_cast<int64_t>(perm.size()) != rank || !isPermutation(perm)) {
    return ctx.invalid(absl::StrCat("perm ", dimsText(perm), " is not a permutation of rank ", rank));
  }
  const std::vector<int64_t> in_strides = rowMajorStrides(in_dims);
  std::vector<int64_t> dims, strides;
  for (const int64_t axis : perm) {
    dims.push_back(in_dims[axis]);
    strides.push_back(in_strides[axis]);
  }
  return singleOutput(gather(ctx, **in, dims, SourceWalker(dims, strides)));
}

Outputs expandKernel(const KernelContext& ctx) {
  absl::StatusOr<const EvalTensor*> in = ctx.requiredInput(0);
  if (!in.ok()) return in.status();
  absl::StatusOr<const EvalTensor*> shape_input = ctx.requiredInput(1);
  if (!shape_input.ok()) return shape_input.status();
  absl::StatusOr<std::vector<int64_t>> shape = readInt64List(ctx, **shape_input, "shape");
  if (!shape.ok()) return shape.status();
  for (const int64_t dim : *shape) {
    if (dim < 0) return ctx.invalid(absl::StrCat("shape ", dimsText(*shape), " has a negative dim"));
  }
  const std::vector<int64_t> shapes[] = {(*in)->dims, *shape};
  absl::StatusOr<std::vector<int64_t>> dims = broadcastDims(ctx, shapes);
  if (!dims.ok()) return dims.status();
  return singleOutput(gather(ctx, **in, *dims, SourceWalker(*dims, broadcastStrides((*in)->dims, *dims))));
}

Outputs tileKernel(const KernelContext& ctx) {
  absl::StatusOr<const EvalTensor*> in = ctx.requiredInput(0);
  if (!in.ok()) return in.status();
  absl::StatusOr<const EvalTensor*> repeats_input = ctx.requiredInput(1);
  if (!repeats_input.ok()) return repeats_input.status();
  absl::StatusOr<std::vector<int64_t>> repeats = readInt64List(ctx, **repeats_input, "repeats");
  if (!repeats.ok()) return repeats.status();
  const std::vector<int64_t>& in_dims = (*in)->dims;
  if (repeats->size() != in_dims.size()) {
    return ctx.invalid(absl::StrCat("repeats ", dimsText(*repeats), " for an input of rank ", in_dims.size()));
  }
  std::vector<int64_t> dims;
  for (size_t i = 0; i < in_dims.size(); ++i) {
    if ((*repeats)[i] < 0) return ctx.invalid(absl::StrCat("repeats ", dimsText(*repeats), " has a negative count"));
    if (in_dims[i] != 0 && (*repeats)[i] > std::numeric_limits<int64_t>::max() / in_dims[i]) {
      return absl::ResourceExhaustedError(absl::StrCat(ir::describe(ctx.node()), ": repeats ",
                                                       dimsText(*repeats), " overflow"));
    }
    dims.push_back(in_dims[i] * (*repeats)[i]);
  }
  return singleOutput(gather(ctx, **in, dims, SourceWalker(dims, rowMajorStrides(in_dims), 0, in_dims)));
}

// ---- ConstantOfShape, Range, Where, NonZero ----

Outputs constantOfShapeKernel(const KernelContext& ctx) {
  absl::StatusOr<const EvalTensor*> shape_input = ctx.requiredInput(0);
  if (!shape_input.ok()) return shape_input.status();
  absl::StatusOr<std::vector<int64_t>> shape = readInt64List(ctx, **shape_input, "shape");
  if (!shape.ok()) return shape.status();
  absl::StatusOr<const TensorProto*> value_attr = getTensor(ctx.node(), "value");
  if (!value_attr.ok()) return value_attr.status();
  EvalTensor value;
  if (*value_attr == nullptr) {
    value.elem_type = TensorProto::FLOAT;
    value.dims = {1};
    value.bytes.assign(sizeof(float), '\0');
  } else {
    absl::StatusOr<EvalTensor> decoded = fromProto(**value_attr);
    if (!decoded.ok()) {
      return absl::Status(decoded.status().code(),
                          absl::StrCat(ir::describe(ctx.node()), ": value: ", decoded.status().message()));
    }
    value = *std::move(decoded);
  }
  if (value.numElements() != 1) return ctx.invalid("value must hold one element");
  if (value.elem_type == TensorProto::STRING) return ctx.invalid("value must not be a string");
  absl::StatusOr<EvalTensor> out = ctx.allocate(value.elem_type, *shape);
  if (!out.ok()) return out.status();
  const int64_t count = out->numElements();
  const int64_t element_size = elementSize(value.elem_type);
  for (int64_t k = 0; k < count; ++k) copyElement(value, 0, *out, k, element_size);
  return singleOutput(std::move(out));
}

template <typename T>
absl::Status fillRange(const KernelContext& ctx, const EvalTensor& start_t, const EvalTensor& limit_t,
                       const EvalTensor& delta_t, std::optional<EvalTensor>& result) {
  const T start = *start_t.data<T>();
  const T limit = *limit_t.data<T>();
  const T delta = *delta_t.data<T>();
  if (delta == 0) return ctx.invalid("delta is 0");
  if constexpr (std::is_integral_v<T>) {
    T difference;
    if (__builtin_sub_overflow(limit, start, &difference)) return ctx.invalid("limit - start overflows");
  }
  // ONNX Runtime's count and values: ceil of the difference (in T, then double) over delta,
  // and each value the previous one plus delta.
  const double steps = std::ceil((1.0 * (limit - start)) / delta);
  if (std::isnan(steps)) return ctx.invalid("start, limit or delta is NaN");
  if (steps > static_cast<double>(std::numeric_limits<int64_t>::max() / 2)) {
    return absl::ResourceExhaustedError(
        absl::StrCat(ir::describe(ctx.node()), ": Range of ", steps, " elements"));
  }
  const int64_t count = steps > 0 ? static_cast<int64_t>(steps) : 0;
  absl::StatusOr<EvalTensor> out = ctx.allocate(start_t.elem_type, {count});
  if (!out.ok()) return out.status();
  T value = start;
  for (int64_t i = 0; i < count; ++i) {
    out->mutableData<T>()[i] = value;
    if (i + 1 < count) value = static_cast<T>(value + delta);
  }
  result = *std::move(out);
  return absl::OkStatus();
}

Outputs rangeKernel(const KernelContext& ctx) {
  const EvalTensor* operands[3];
  for (size_t i = 0; i < 3; ++i) {
    absl::StatusOr<const EvalTensor*> in = ctx.requiredInput(i);
    if (!in.ok()) return in.status();
    operands[i] = *in;
    if (operands[i]->numElements() != 1 || operands[i]->dims.size() > 1) {
      return ctx.invalid(absl::StrCat("input ", i, " is not a scalar"));
    }
    if (operands[i]->elem_type != operands[0]->elem_type) return ctx.invalid("inputs differ in type");
  }
  std::optional<EvalTensor> out;
  const int32_t type = operands[0]->elem_type;
  absl::Status status;
  switch (type) {
    case TensorProto::FLOAT: status = fillRange<float>(ctx, *operands[0], *operands[1], *operands[2], out); break;
    case TensorProto::DOUBLE: status = fillRange<double>(ctx, *operands[0], *operands[1], *operands[2], out); break;
    case TensorProto::INT16: status = fillRange<int16_t>(ctx, *operands[0], *operands[1], *operands[2], out); break;
    case TensorProto::INT32: status = fillRange<int32_t>(ctx, *operands[0], *operands[1], *operands[2], out); break;
    case TensorProto::INT64: status = fillRange<int64_t>(ctx, *operands[0], *operands[1], *operands[2], out); break;
    default: return ctx.invalid(absl::StrCat("Range does not take ", ir::elemTypeName(type)));
  }
  if (!status.ok()) return status;
  return singleOutput(*std::move(out));
}

Outputs whereKernel(const KernelContext& ctx) {
  const EvalTensor* operands[3];
  for (size_t i = 0; i < 3; ++i) {
    absl::StatusOr<const EvalTensor*> in = ctx.requiredInput(i);
    if (!in.ok()) return in.status();
    operands[i] = *in;
  }
  const EvalTensor& condition = *operands[0];
  if (condition.elem_type != TensorProto::BOOL) return ctx.invalid("condition must be bool");
  if (operands[1]->elem_type != operands[2]->elem_type) return ctx.invalid("X and Y differ in type");
  if (absl::Status status = checkType(ctx, "T", operands[1]->elem_type); !status.ok()) return status;
  const std::vector<int64_t> shapes[] = {condition.dims, operands[1]->dims, operands[2]->dims};
  absl::StatusOr<std::vector<int64_t>> dims = broadcastDims(ctx, shapes);
  if (!dims.ok()) return dims.status();
  absl::StatusOr<EvalTensor> out = ctx.allocate(operands[1]->elem_type, *dims);
  if (!out.ok()) return out.status();
  SourceWalker walkers[3] = {
      SourceWalker(*dims, broadcastStrides(condition.dims, *dims)),
      SourceWalker(*dims, broadcastStrides(operands[1]->dims, *dims)),
      SourceWalker(*dims, broadcastStrides(operands[2]->dims, *dims)),
  };
  const int64_t element_size = elementSize(out->elem_type);
  const int64_t count = out->numElements();
  for (int64_t k = 0; k < count; ++k) {
    const bool take_x = condition.data<bool>()[walkers[0].next()];
    const int64_t x = walkers[1].next();
    const int64_t y = walkers[2].next();
    copyElement(*operands[take_x ? 1 : 2], take_x ? x : y, *out, k, element_size);
  }
  return singleOutput(std::move(out));
}

Outputs nonZeroKernel(const KernelContext& ctx) {
  absl::StatusOr<const EvalTensor*> in = ctx.requiredInput(0);
  if (!in.ok()) return in.status();
  const std::vector<int64_t>& in_dims = (*in)->dims;
  // ONNX Runtime gives a scalar's result a shape the spec does not settle.
  if (in_dims.empty()) return ctx.unimplemented("NonZero of a scalar");
  if (absl::Status status = checkType(ctx, "T", (*in)->elem_type); !status.ok()) return status;
  std::vector<int64_t> positions;
  absl::Status status = dispatchType<kNumeric | kBool>(ctx, (*in)->elem_type, [&](auto tag) {
    using T = decltype(tag);
    const T* data = (*in)->data<T>();
    const int64_t count = (*in)->numElements();
    for (int64_t k = 0; k < count; ++k) {
      if (widen(data[k]) != MathType<T>{}) positions.push_back(k);
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  const int64_t rank = static_cast<int64_t>(in_dims.size());
  const int64_t found = static_cast<int64_t>(positions.size());
  absl::StatusOr<EvalTensor> out = ctx.allocate(TensorProto::INT64, {rank, found});
  if (!out.ok()) return out.status();
  int64_t* coords = out->mutableData<int64_t>();
  for (int64_t j = 0; j < found; ++j) {
    int64_t rest = positions[j];
    for (int64_t a = rank; a-- > 0;) {
      coords[a * found + j] = rest % in_dims[a];
      rest /= in_dims[a];
    }
  }
  return singleOutput(std::move(out));
}

// ---- ScatterND ----

// A copy of the data with the slices the index tuples name replaced by the updates': reduction
// "none" only (add, mul, max and min declined). Declined too: a negative index (versions and
// runtimes disagree on it) and a slice named twice (the spec leaves which update wins open).
Outputs scatterNdKernel(const KernelContext& ctx) {
  absl::StatusOr<const EvalTensor*> data = ctx.requiredInput(0);
  if (!data.ok()) return data.status();
  absl::StatusOr<const EvalTensor*> indices_input = ctx.requiredInput(1);
  if (!indices_input.ok()) return indices_input.status();
  absl::StatusOr<const EvalTensor*> updates = ctx.requiredInput(2);
  if (!updates.ok()) return updates.status();
  absl::StatusOr<std::string> reduction = getStringOr(ctx.node(), "reduction", "none");
  if (!reduction.ok()) return reduction.status();
  if (*reduction != "none") return ctx.unimplemented(absl::StrCat("reduction '", *reduction, "'"));
  const std::vector<int64_t>& data_dims = (*data)->dims;
  const std::vector<int64_t>& index_dims = (*indices_input)->dims;
  if (index_dims.empty() || index_dims.back() < 1 ||
      index_dims.back() > static_cast<int64_t>(data_dims.size())) {
    return ctx.invalid(absl::StrCat("indices of dims ", dimsText(index_dims), " for data of dims ",
                                    dimsText(data_dims)));
  }
  const size_t k = static_cast<size_t>(index_dims.back());
  std::vector<int64_t> update_dims(index_dims.begin(), index_dims.end() - 1);
  update_dims.insert(update_dims.end(), data_dims.begin() + k, data_dims.end());
  if ((*updates)->dims != update_dims || (*updates)->elem_type != (*data)->elem_type) {
    return ctx.invalid(absl::StrCat("updates of dims ", dimsText((*updates)->dims), " where ",
                                    dimsText(update_dims), " of the data's type belong"));
  }
  absl::StatusOr<std::vector<int64_t>> indices = readInts(ctx, **indices_input);
  if (!indices.ok()) return indices.status();
  absl::StatusOr<EvalTensor> out = ctx.allocate((*data)->elem_type, data_dims);
  if (!out.ok()) return out.status();
  copyRun(**data, 0, *out, 0, (*data)->numElements());
  const std::vector<int64_t> strides = rowMajorStrides(data_dims);
  const int64_t slice = strides[k - 1];
  absl::flat_hash_set<int64_t> written;
  for (size_t t = 0; t * k < indices->size(); ++t) {
    int64_t offset = 0;
    for (size_t j = 0; j < k; ++j) {
      const int64_t index = (*indices)[t * k + j];
      if (index < 0) return ctx.unimplemented(absl::StrCat("negative index ", index));
      if (index >= data_dims[j]) {
        return ctx.invalid(absl::StrCat("index ", index, " is out of range for a dim of ", data_dims[j]));
      }
      offset += index * strides[j];
    }
    if (!written.insert(offset).second) return ctx.unimplemented("a slice named twice");
    copyRun(**updates, static_cast<int64_t>(t) * slice, *out, offset, slice);
  }
  return singleOutput(std::move(out));
}

// Versions are since_version values; each range covers every version of the op up to opset 23
// whose semantics the kernel implements (versions that only added element types included).
constexpr KernelEntry kKernels[] = {
    {"Identity", 1, 23, identityKernel},
    // Cast-1 names the target type by a string; ONNX Runtime runs no model that old.
    {"Cast", 6, 23, castKernel},
    {"CastLike", 15, 23, castLikeKernel},
    {"Shape", 1, 23, shapeKernel},
    {"Size", 1, 23, sizeKernel},
    // Reshape-1 takes its shape as an attribute; ONNX Runtime runs no model that old.
    {"Reshape", 5, 23, reshapeKernel},
    {"Flatten", 1, 23, flattenKernel},
    {"Squeeze", 1, 23, squeezeKernel},
    {"Unsqueeze", 1, 23, unsqueezeKernel},
    {"Concat", 1, 13, concatKernel},
    {"Split", 1, 18, splitKernel},
    {"Slice", 1, 13, sliceKernel},
    {"Gather", 1, 13, gatherKernel},
    {"GatherElements", 11, 13, gatherElementsKernel},
    {"ScatterND", 11, 18, scatterNdKernel},
    {"Transpose", 1, 23, transposeKernel},
    {"Expand", 8, 13, expandKernel},
    // Tile-1 has different inputs (tiles and axis).
    {"Tile", 6, 13, tileKernel},
    {"ConstantOfShape", 9, 23, constantOfShapeKernel},
    {"Range", 11, 11, rangeKernel},
    {"Where", 9, 16, whereKernel},
    {"NonZero", 9, 13, nonZeroKernel},
};

}  // namespace

absl::Span<const KernelEntry> movementKernels() { return kKernels; }

}  // namespace onnxopt::eval
