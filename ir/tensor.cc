#include "onnxopt/ir/tensor.h"

#include <climits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "onnxopt/ir/type.h"
#include "external_data.h"
#include "proto_io.h"

namespace onnxopt::ir {

// Tensors made from a caller's proto own a heap copy of it (a Swap: no bytes copied, unless the
// caller's proto lives on an arena).
Tensor::Tensor(onnx::TensorProto&& proto) : proto_(new onnx::TensorProto) { proto_->Swap(&proto); }

Tensor::Tensor(onnx::TensorProto&& proto, ExternalData external)
    : proto_(new onnx::TensorProto), external_(std::move(external)) {
  proto_->Swap(&proto);
}

Tensor::Tensor(ProtoPtr<onnx::TensorProto> proto, std::shared_ptr<google::protobuf::Arena> arena,
               std::optional<ExternalData> external)
    : arena_(std::move(arena)), proto_(std::move(proto)), external_(std::move(external)) {}

// The arena frees what its messages hold only when it goes, with the model: without this, a
// weight dropped while the model is optimized (a folded Transpose's input) would hold its
// bytes to the end, next to the weight that replaced it.
Tensor::~Tensor() {
  if (proto_ && proto_->GetArena() != nullptr && proto_->has_raw_data()) {
    std::string().swap(*proto_->mutable_raw_data());
  }
}

std::optional<int64_t> Tensor::numElements() const {
  absl::StatusOr<int64_t> elements = tensorElementCount(*proto_);
  if (!elements.ok()) return std::nullopt;
  return *elements;
}

namespace {

absl::Status badTensor(const onnx::TensorProto& tensor, absl::string_view problem) {
  return absl::InvalidArgumentError(absl::StrCat("tensor '", tensor.name(), "': ", problem));
}

std::string dimsText(const onnx::TensorProto& tensor) {
  return absl::StrCat("[", absl::StrJoin(tensor.dims(), ","), "]");
}

// Where a tensor of `data_type` keeps its elements when not in raw_data, and how many values
// make one element. Null for STRING (string_data) and unknown types.
struct TypedField {
  const char* name;
  int values_per_element;
  int (onnx::TensorProto::*size)() const;
};

std::optional<TypedField> typedFieldOf(int32_t data_type) {
  using T = onnx::TensorProto;
  switch (data_type) {
    case T::FLOAT: return TypedField{"float_data", 1, &T::float_data_size};
    case T::COMPLEX64: return TypedField{"float_data", 2, &T::float_data_size};
    case T::DOUBLE: return TypedField{"double_data", 1, &T::double_data_size};
    case T::COMPLEX128: return TypedField{"double_data", 2, &T::double_data_size};
    case T::INT64: return TypedField{"int64_data", 1, &T::int64_data_size};
    case T::UINT32:
    case T::UINT64: return TypedField{"uint64_data", 1, &T::uint64_data_size};
    case T::INT32:
    case T::INT16:
    case T::INT8:
    case T::UINT16:
    case T::UINT8:
    case T::BOOL:
    case T::FLOAT16:
    case T::BFLOAT16: return TypedField{"int32_data", 1, &T::int32_data_size};
    case T::STRING: return TypedField{"string_data", 1, &T::string_data_size};
    default: return std::nullopt;
  }
}

}  // namespace

absl::StatusOr<int64_t> tensorElementCount(const onnx::TensorProto& tensor) {
  int64_t elements = 1;
  for (int i = 0; i < tensor.dims_size(); ++i) {
    const int64_t dim = tensor.dims(i);
    if (dim < 0) {
      return badTensor(tensor, absl::StrCat("dim ", i, " of dims ", dimsText(tensor), " is negative"));
    }
    if (dim > 0 && elements > INT64_MAX / dim) {
      return badTensor(tensor,
                       absl::StrCat("the product of dims ", dimsText(tensor), " overflows int64"));
    }
    elements *= dim;
  }
  return elements;
}

absl::Status checkTensorData(const onnx::TensorProto& tensor) {
  if (absl::Status status =
          checkWireTypes(tensor, [&] { return absl::StrCat("tensor '", tensor.name(), "'"); });
      !status.ok()) {
    return status;
  }
  absl::StatusOr<int64_t> elements = tensorElementCount(tensor);
  if (!elements.ok()) return elements.status();
  if (tensor.data_location() == onnx::TensorProto::EXTERNAL) return absl::OkStatus();
  auto mismatch = [&](absl::string_view field, int64_t held, absl::string_view unit,
                      const std::string& needed) {
    const std::string type = onnx::TensorProto::DataType_Name(
        static_cast<onnx::TensorProto::DataType>(tensor.data_type()));
    return badTensor(tensor, absl::StrCat(field, " holds ", held, " ", unit, " but dims ",
                                          dimsText(tensor), " of ", type, " need ", needed));
  };
  // ONNX keeps strings in string_data only (its checker refuses them in raw_data): with bytes
  // in raw_data, string_data would not hold the elements the dims promise.
  if (tensor.data_type() == onnx::TensorProto::STRING && !tensor.raw_data().empty()) {
    return badTensor(tensor, absl::StrCat("raw_data holds ", tensor.raw_data().size(),
                                          " bytes, but a string tensor keeps its values in "
                                          "string_data"));
  }
  if (tensor.has_raw_data() && tensor.data_type() != onnx::TensorProto::STRING) {
    const int64_t element_size = elemTypeSize(tensor.data_type());
    if (element_size == 0) return absl::OkStatus();
    const int64_t held = static_cast<int64_t>(tensor.raw_data().size());
    if (*elements > INT64_MAX / element_size) {
      return mismatch("raw_data", held, "bytes", "more bytes than int64 can count");
    }
    if (held != *elements * element_size) {
      return mismatch("raw_data", held, "bytes", absl::StrCat(*elements * element_size));
    }
    return absl::OkStatus();
  }
  const std::optional<TypedField> field = typedFieldOf(tensor.data_type());
  if (!field) return absl::OkStatus();
  const int64_t held = (tensor.*(field->size))();
  if (held % field->values_per_element != 0 || held / field->values_per_element != *elements) {
    return mismatch(field->name, held, "values",
                    *elements > INT64_MAX / field->values_per_element
                        ? std::string("more values than int64 can count")
                        : absl::StrCat(*elements * field->values_per_element));
  }
  return absl::OkStatus();
}

absl::Status Tensor::loadExternalData() {
  if (!external_) return absl::OkStatus();
  std::string bytes;
  absl::Status read = readFileRange(external_->path, external_->offset, external_->length, &bytes);
  if (!read.ok()) {
    return absl::Status(read.code(), absl::StrCat("tensor '", proto_->name(), "': ", read.message()));
  }
  proto_->set_raw_data(std::move(bytes));
  proto_->clear_external_data();
  proto_->clear_data_location();
  external_.reset();
  return absl::OkStatus();
}

absl::StatusOr<std::string> Tensor::readExternalBytes(int64_t offset, int64_t length) const {
  if (!external_) {
    return absl::FailedPreconditionError(
        absl::StrCat("tensor '", proto_->name(), "': its data is not external"));
  }
  if (offset < 0 || length < 0 || offset > external_->length - length) {
    return absl::OutOfRangeError(absl::StrCat("tensor '", proto_->name(), "': bytes [", offset,
                                              ", ", offset, " + ", length, ") are outside its ",
                                              external_->length, " bytes of external data"));
  }
  std::string bytes;
  absl::Status read = readFileRange(external_->path, external_->offset + offset, length, &bytes);
  if (!read.ok()) {
    return absl::Status(read.code(), absl::StrCat("tensor '", proto_->name(), "': ", read.message()));
  }
  return bytes;
}

}  // namespace onnxopt::ir
