#include "onnxopt/rewrite/tensor_util.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "absl/base/casts.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "onnxopt/ir/tensor.h"
#include "onnxopt/ir/type.h"
#include "onnxopt/rewrite/operands.h"
#include "strided_walker.h"

namespace onnxopt {

// Raw data is little-endian; elements are copied to and from it with memcpy.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "raw_data is read as host-order bytes");

using onnx::TensorProto;

namespace {

void setDims(TensorProto* tensor, absl::Span<const int64_t> dims) {
  tensor->mutable_dims()->Assign(dims.begin(), dims.end());
}

bool hasInlineData(const TensorProto& tensor) {
  return tensor.data_location() != TensorProto::EXTERNAL && !tensor.has_segment();
}

// Packs a typed field's values into raw_data form, each converted to `Element` (an int32_data
// value of an int8 tensor keeps its low byte, as ONNX defines the field).
template <typename Element, typename Field>
void packAs(const Field& field, std::string* out) {
  out->resize(static_cast<size_t>(field.size()) * sizeof(Element));
  char* cursor = out->data();
  for (const auto value : field) {
    const Element element = static_cast<Element>(value);
    std::memcpy(cursor, &element, sizeof(Element));
    cursor += sizeof(Element);
  }
}

// Fills `out` from the typed field of `tensor`'s type; false for types without one.
bool packTypedField(const TensorProto& tensor, std::string* out) {
  switch (tensor.data_type()) {
    case TensorProto::FLOAT:
    case TensorProto::COMPLEX64: packAs<float>(tensor.float_data(), out); return true;
    case TensorProto::DOUBLE:
    case TensorProto::COMPLEX128: packAs<double>(tensor.double_data(), out); return true;
    case TensorProto::INT64: packAs<int64_t>(tensor.int64_data(), out); return true;
    case TensorProto::UINT64: packAs<uint64_t>(tensor.uint64_data(), out); return true;
    case TensorProto::UINT32: packAs<uint32_t>(tensor.uint64_data(), out); return true;
    case TensorProto::INT32: packAs<int32_t>(tensor.int32_data(), out); return true;
    case TensorProto::INT16: packAs<int16_t>(tensor.int32_data(), out); return true;
    case TensorProto::UINT16:
    case TensorProto::FLOAT16:
    case TensorProto::BFLOAT16: packAs<uint16_t>(tensor.int32_data(), out); return true;
    case TensorProto::INT8: packAs<int8_t>(tensor.int32_data(), out); return true;
    case TensorProto::UINT8:
    case TensorProto::BOOL: packAs<uint8_t>(tensor.int32_data(), out); return true;
    default: return false;
  }
}

// Calls visit(i) for the input's flat index i of each element of the tensor transposed by
// `perm`, in the transposed tensor's order.
template <typename Visit>
void forEachSourceIndex(absl::Span<const int64_t> dims, absl::Span<const int64_t> perm,
                        Visit&& visit) {
  const std::vector<int64_t> input_strides = rowMajorStrides(dims);
  std::vector<int64_t> out_dims, steps;
  int64_t count = 1;
  for (const int64_t axis : perm) {
    out_dims.push_back(dims[axis]);
    steps.push_back(input_strides[axis]);
    count *= dims[axis];
  }
  SourceWalker walker(std::move(out_dims), std::move(steps));
  for (int64_t i = 0; i < count; ++i) visit(walker.next());
}

template <typename Field>
void gatherField(const Field& in, int values_per_element, absl::Span<const int64_t> dims,
                 absl::Span<const int64_t> perm, Field* out) {
  out->Reserve(in.size());
  forEachSourceIndex(dims, perm, [&](int64_t source) {
    for (int k = 0; k < values_per_element; ++k)
      *out->Add() = in.Get(source * values_per_element + k);
  });
}

absl::Status badTensor(const TensorProto& tensor, absl::string_view problem) {
  return absl::InvalidArgumentError(absl::StrCat("tensor '", tensor.name(), "': ", problem));
}

absl::Status checkPermutation(const TensorProto& tensor, absl::Span<const int64_t> perm) {
  if (perm.size() == static_cast<size_t>(tensor.dims_size()) && isPermutation(perm)) {
    return absl::OkStatus();
  }
  return badTensor(tensor, absl::StrCat("perm [", absl::StrJoin(perm, ", "),
                                        "] is not a permutation of the axes of a rank-",
                                        tensor.dims_size(), " tensor"));
}

// The typed field of a tensor's type: how many values it holds, and how many make one element
// (two for complex types).
struct TypedValues {
  int64_t held;
  int per_element;
};

TypedValues typedValues(const TensorProto& tensor) {
  switch (tensor.data_type()) {
    case TensorProto::FLOAT: return {tensor.float_data_size(), 1};
    case TensorProto::COMPLEX64: return {tensor.float_data_size(), 2};
    case TensorProto::DOUBLE: return {tensor.double_data_size(), 1};
    case TensorProto::COMPLEX128: return {tensor.double_data_size(), 2};
    case TensorProto::INT64: return {tensor.int64_data_size(), 1};
    case TensorProto::UINT32:
    case TensorProto::UINT64: return {tensor.uint64_data_size(), 1};
    case TensorProto::STRING: return {tensor.string_data_size(), 1};
    default: return {tensor.int32_data_size(), 1};
  }
}

// Transposes the typed field of `in`'s type into `out`; the caller has checked the counts.
void transposeTypedField(const TensorProto& in, int per_element, absl::Span<const int64_t> dims,
                         absl::Span<const int64_t> perm, TensorProto* out) {
  switch (in.data_type()) {
    case TensorProto::FLOAT:
    case TensorProto::COMPLEX64:
      gatherField(in.float_data(), per_element, dims, perm, out->mutable_float_data());
      return;
    case TensorProto::DOUBLE:
    case TensorProto::COMPLEX128:
      gatherField(in.double_data(), per_element, dims, perm, out->mutable_double_data());
      return;
    case TensorProto::INT64:
      gatherField(in.int64_data(), per_element, dims, perm, out->mutable_int64_data());
      return;
    case TensorProto::UINT32:
    case TensorProto::UINT64:
      gatherField(in.uint64_data(), per_element, dims, perm, out->mutable_uint64_data());
      return;
    case TensorProto::STRING:
      gatherField(in.string_data(), per_element, dims, perm, out->mutable_string_data());
      return;
    default:
      gatherField(in.int32_data(), per_element, dims, perm, out->mutable_int32_data());
      return;
  }
}

}  // namespace

TensorProto makeInt64Tensor(absl::Span<const int64_t> values) {
  TensorProto tensor;
  tensor.set_data_type(TensorProto::INT64);
  tensor.add_dims(static_cast<int64_t>(values.size()));
  tensor.mutable_int64_data()->Assign(values.begin(), values.end());
  return tensor;
}

TensorProto makeInt64Scalar(int64_t value) {
  TensorProto tensor;
  tensor.set_data_type(TensorProto::INT64);
  tensor.add_int64_data(value);
  return tensor;
}

TensorProto makeTensor(int32_t elem_type, absl::Span<const int64_t> dims, std::string raw_bytes) {
  TensorProto tensor;
  tensor.set_data_type(elem_type);
  setDims(&tensor, dims);
  tensor.set_raw_data(std::move(raw_bytes));
  return tensor;
}

TensorProto makeFloatTensor(absl::Span<const float> values, absl::Span<const int64_t> dims) {
  TensorProto tensor;
  tensor.set_data_type(TensorProto::FLOAT);
  setDims(&tensor, dims);
  tensor.mutable_float_data()->Assign(values.begin(), values.end());
  return tensor;
}

float halfToFloat(uint16_t bits) {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  const uint32_t exponent = (bits >> 10) & 0x1fu;
  const uint32_t mantissa = bits & 0x3ffu;
  if (exponent == 0x1f) return absl::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
  if (exponent != 0) {
    // Rebias the exponent from 15 to 127.
    return absl::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
  }
  // Zero or subnormal: mantissa * 2^-24, exact in float.
  const float magnitude = static_cast<float>(mantissa) * 0x1p-24f;
  return sign != 0 ? -magnitude : magnitude;
}

uint16_t floatToHalf(float value) {
  const uint32_t bits = absl::bit_cast<uint32_t>(value);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u) {
    // NaN: keep the payload's top bits and set the quiet bit, so that it stays a NaN.
    return static_cast<uint16_t>(sign | 0x7e00u | ((magnitude >> 13) & 0x3ffu));
  }
  // 65520 (0x477ff000) is halfway between the largest half, 65504, and 65536: ties go to the
  // even neighbour, infinity.
  if (magnitude >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);
  uint32_t result;
  uint32_t rest;  // the bits shifted out
  uint32_t halfway;
  if (magnitude >= 0x38800000u) {  // 2^-14 and up: a normal half
    result = (magnitude >> 13) - (112u << 10);
    rest = magnitude & 0x1fffu;
    halfway = 0x1000u;
  } else {
    // A half subnormal (or zero): the value in units of 2^-24. The float's mantissa with its
    // implicit bit, m * 2^(e - 150), is shifted right by 126 - e.
    const uint32_t exponent = magnitude >> 23;
    if (exponent < 102) return sign;  // below 2^-25: rounds to zero
    const uint32_t mantissa = (magnitude & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126 - exponent;
    result = mantissa >> shift;
    rest = mantissa & ((1u << shift) - 1);
    halfway = 1u << (shift - 1);
  }
  // A carry out of the mantissa moves to the next exponent, which is the right answer.
  if (rest > halfway || (rest == halfway && (result & 1u) != 0)) ++result;
  return static_cast<uint16_t>(sign | result);
}

float bfloat16ToFloat(uint16_t bits) {
  return absl::bit_cast<float>(static_cast<uint32_t>(bits) << 16);
}

uint16_t floatToBfloat16(float value) {
  const uint32_t bits = absl::bit_cast<uint32_t>(value);
  // A NaN whose payload lies in the low half would truncate to infinity: set the quiet bit.
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((bits >> 16) | 0x40u);
  const uint32_t rounding = 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>((bits + rounding) >> 16);
}

std::optional<absl::string_view> elementBytes(const TensorProto& tensor, std::string* scratch) {
  const int64_t element_size = ir::elemTypeSize(tensor.data_type());
  if (element_size == 0 || !hasInlineData(tensor)) return std::nullopt;
  const absl::StatusOr<int64_t> count = ir::tensorElementCount(tensor);
  if (!count.ok() || *count > INT64_MAX / element_size) return std::nullopt;
  absl::string_view bytes;
  if (tensor.has_raw_data()) {
    bytes = tensor.raw_data();
  } else {
    if (!packTypedField(tensor, scratch)) return std::nullopt;
    bytes = *scratch;
  }
  if (static_cast<int64_t>(bytes.size()) != *count * element_size) return std::nullopt;
  return bytes;
}

std::optional<int64_t> dataBytes(const TensorProto& tensor, int64_t count) {
  if (tensor.data_type() == TensorProto::STRING) {
    int64_t total = 0;
    for (const std::string& element : tensor.string_data()) total += element.size();
    return total;
  }
  const int64_t element_size = ir::elemTypeSize(tensor.data_type());
  if (element_size == 0) return std::nullopt;
  return count > std::numeric_limits<int64_t>::max() / element_size
             ? std::numeric_limits<int64_t>::max()
             : count * element_size;
}

absl::StatusOr<TensorProto> transposeTensor(const TensorProto& tensor,
                                            absl::Span<const int64_t> perm) {
  if (!hasInlineData(tensor))
    return badTensor(tensor, "cannot transpose external or segmented data");
  if (absl::Status status = checkPermutation(tensor, perm); !status.ok()) return status;
  const absl::StatusOr<int64_t> count = ir::tensorElementCount(tensor);
  if (!count.ok()) return count.status();
  const absl::Span<const int64_t> dims(tensor.dims().data(), tensor.dims_size());

  TensorProto out;
  out.set_name(tensor.name());
  out.set_data_type(tensor.data_type());
  out.set_doc_string(tensor.doc_string());
  for (const int64_t axis : perm) out.add_dims(dims[axis]);

  const bool is_string = tensor.data_type() == TensorProto::STRING;
  const int64_t element_size = ir::elemTypeSize(tensor.data_type());
  if (element_size == 0 && !is_string) {
    return badTensor(tensor, absl::StrCat("cannot transpose elements of type ", tensor.data_type(),
                                          ", which has no known size"));
  }
  if (tensor.has_raw_data()) {
    const std::string& in = tensor.raw_data();
    // Divided, not multiplied: absurd dims must not overflow.
    const int64_t held = static_cast<int64_t>(in.size());
    if (is_string || held % element_size != 0 || held / element_size != *count) {
      return badTensor(tensor, absl::StrCat("raw_data holds ", in.size(), " bytes, not ", *count,
                                            " elements of ", ir::elemTypeName(tensor.data_type())));
    }
    std::string transposed(in.size(), '\0');
    char* cursor = transposed.data();
    const size_t size = static_cast<size_t>(element_size);
    forEachSourceIndex(dims, perm, [&](int64_t source) {
      std::memcpy(cursor, in.data() + source * element_size, size);
      cursor += size;
    });
    out.set_raw_data(std::move(transposed));
    return out;
  }
  const TypedValues values = typedValues(tensor);
  if (values.held % values.per_element != 0 || values.held / values.per_element != *count) {
    return badTensor(tensor,
                     absl::StrCat("the typed field holds ", values.held, " values for ", *count,
                                  " elements of ", ir::elemTypeName(tensor.data_type())));
  }
  transposeTypedField(tensor, values.per_element, dims, perm, &out);
  return out;
}

std::optional<TensorProto> joinLastAxis(absl::Span<const TensorProto* const> parts, int64_t rows,
                                        absl::Span<const int64_t> dims, int32_t elem_type) {
  if (rows <= 0) return std::nullopt;
  std::vector<std::string> scratch(parts.size());
  std::vector<absl::string_view> bytes;
  size_t total = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    std::optional<absl::string_view> elements = elementBytes(*parts[i], &scratch[i]);
    absl::StatusOr<int64_t> count = ir::tensorElementCount(*parts[i]);
    if (!elements || !count.ok() || *count % rows != 0) return std::nullopt;
    bytes.push_back(*elements);
    total += elements->size();
  }
  std::string joined;
  joined.reserve(total);
  for (int64_t row = 0; row < rows; ++row) {
    for (absl::string_view part : bytes) {
      const size_t row_bytes = part.size() / static_cast<size_t>(rows);
      joined.append(part.data() + static_cast<size_t>(row) * row_bytes, row_bytes);
    }
  }
  return makeTensor(elem_type, dims, std::move(joined));
}

bool sameTensorContents(const TensorProto& a, const TensorProto& b) {
  if (a.data_type() != b.data_type() || !hasInlineData(a) || !hasInlineData(b) ||
      !std::equal(a.dims().begin(), a.dims().end(), b.dims().begin(), b.dims().end())) {
    return false;
  }
  if (a.data_type() == TensorProto::STRING) {
    const absl::StatusOr<int64_t> count = ir::tensorElementCount(a);
    return count.ok() && !a.has_raw_data() && !b.has_raw_data() && a.string_data_size() == *count &&
           std::equal(a.string_data().begin(), a.string_data().end(), b.string_data().begin(),
                      b.string_data().end());
  }
  std::string scratch_a;
  std::string scratch_b;
  const std::optional<absl::string_view> bytes_a = elementBytes(a, &scratch_a);
  const std::optional<absl::string_view> bytes_b = elementBytes(b, &scratch_b);
  return bytes_a && bytes_b && *bytes_a == *bytes_b;
}

}  // namespace onnxopt
