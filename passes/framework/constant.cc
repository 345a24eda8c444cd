#include "onnxopt/rewrite/constant.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

#include "../../ir/external_data.h"
#include "absl/strings/str_cat.h"
#include "onnxopt/ir/describe.h"
#include "onnxopt/ir/tensor.h"
#include "onnxopt/ir/type.h"
#include "onnxopt/rewrite/tensor_util.h"

namespace onnxopt {

using onnx::AttributeProto;
using onnx::TensorProto;

namespace {

template <typename Element, typename Fn>
bool forEachElementOf(absl::string_view bytes, Fn&& fn) {
  for (size_t at = 0; at + sizeof(Element) <= bytes.size(); at += sizeof(Element)) {
    Element element;
    std::memcpy(&element, bytes.data() + at, sizeof(Element));
    fn(element);
  }
  return true;
}

// Calls fn(element) for each element of a numeric tensor, `element` of the C++ type that holds
// it exactly: bool as bool, float16 and bfloat16 widened to float. Returns false, calling
// nothing, for other types (strings, complex) and for data that does not match the dims.
template <typename Fn>
bool forEachNumber(const TensorProto& tensor, Fn&& fn) {
  std::string scratch;
  const std::optional<absl::string_view> bytes = elementBytes(tensor, &scratch);
  if (!bytes) return false;
  switch (tensor.data_type()) {
    case TensorProto::FLOAT: return forEachElementOf<float>(*bytes, fn);
    case TensorProto::DOUBLE: return forEachElementOf<double>(*bytes, fn);
    case TensorProto::INT8: return forEachElementOf<int8_t>(*bytes, fn);
    case TensorProto::INT16: return forEachElementOf<int16_t>(*bytes, fn);
    case TensorProto::INT32: return forEachElementOf<int32_t>(*bytes, fn);
    case TensorProto::INT64: return forEachElementOf<int64_t>(*bytes, fn);
    case TensorProto::UINT8: return forEachElementOf<uint8_t>(*bytes, fn);
    case TensorProto::UINT16: return forEachElementOf<uint16_t>(*bytes, fn);
    case TensorProto::UINT32: return forEachElementOf<uint32_t>(*bytes, fn);
    case TensorProto::UINT64: return forEachElementOf<uint64_t>(*bytes, fn);
    case TensorProto::BOOL:
      return forEachElementOf<uint8_t>(*bytes, [&fn](uint8_t byte) { fn(byte != 0); });
    case TensorProto::FLOAT16:
      return forEachElementOf<uint16_t>(*bytes, [&fn](uint16_t bits) { fn(halfToFloat(bits)); });
    case TensorProto::BFLOAT16:
      return forEachElementOf<uint16_t>(*bytes,
                                        [&fn](uint16_t bits) { fn(bfloat16ToFloat(bits)); });
    default: return false;
  }
}

// Only 64-bit integers can be beyond a double's 53-bit mantissa.
template <typename T>
bool fitsDoubleExactly(T element) {
  if constexpr (std::is_integral_v<T> && sizeof(T) == 8) {
    const double widened = static_cast<double>(element);
    // The bound keeps the conversion back defined: 2^63 (2^64) itself is out of range.
    constexpr double kBound = std::is_signed_v<T> ? 0x1p63 : 0x1p64;
    return widened < kBound && static_cast<T>(widened) == element;
  } else {
    return true;
  }
}

template <typename T>
bool equalsExactly(T element, double value) {
  if constexpr (std::is_floating_point_v<T>) {
    return static_cast<double>(element) == value;
  } else {
    // In T's own range and integral, `value` converts exactly; otherwise no T equals it. The
    // upper bound is max + 1, a power of two, exact in double.
    const double lowest = static_cast<double>(std::numeric_limits<T>::lowest());
    const double above_max = static_cast<double>(std::numeric_limits<T>::max()) + 1.0;
    if (!(value >= lowest && value < above_max) || std::trunc(value) != value) return false;
    return static_cast<T>(value) == element;
  }
}

// The element count of a tensor readConstant reads within `max_bytes`; nullopt for one it does
// not read (segmented, of no known size, too large).
absl::StatusOr<std::optional<int64_t>> readableCount(const TensorProto& tensor, int64_t max_bytes) {
  if (tensor.has_segment()) return std::nullopt;
  const absl::StatusOr<int64_t> count = ir::tensorElementCount(tensor);
  if (!count.ok()) return count.status();
  const std::optional<int64_t> bytes = dataBytes(tensor, *count);
  if (!bytes || *bytes > max_bytes) return std::nullopt;
  return *count;
}

absl::Status annotated(const absl::Status& status, absl::string_view where) {
  return absl::Status(status.code(), absl::StrCat(where, ": ", status.message()));
}

// What a ConstantView is made of; readConstant, the views' only maker, turns it into one.
struct ReadTensor {
  std::shared_ptr<const void> owner;
  const TensorProto* proto;
  int64_t count;
};
using ReadResult = absl::StatusOr<std::optional<ReadTensor>>;

// Reads external data into a proto of the view's own; the model's tensor stays as it is.
ReadResult loadedCopy(const TensorProto& proto, const ir::ExternalData& where, int64_t count) {
  ir::Tensor copy(TensorProto(proto), where);
  if (absl::Status loaded = copy.loadExternalData(); !loaded.ok()) return loaded;
  auto owned = std::make_shared<TensorProto>(std::move(copy.mutableProto()));
  const TensorProto* data = owned.get();
  return ReadTensor{std::move(owned), data, count};
}

ReadResult readInitializer(const ir::Value& v, int64_t max_bytes) {
  // Built only for an error: passes read every initializer, and almost every read succeeds.
  const auto where = [&v] { return absl::StrCat("initializer '", v.name(), "'"); };
  const std::shared_ptr<ir::Tensor>& tensor = v.initializer();
  const TensorProto& proto = tensor->proto();
  const absl::StatusOr<std::optional<int64_t>> count = readableCount(proto, max_bytes);
  if (!count.ok()) return annotated(count.status(), where());
  if (!*count) return std::nullopt;
  if (tensor->isExternal()) {
    ReadResult loaded = loadedCopy(proto, *tensor->external(), **count);
    if (!loaded.ok()) {
      return annotated(loaded.status(), absl::StrCat(where(), ": cannot read its external data"));
    }
    return loaded;
  }
  if (proto.data_location() == TensorProto::EXTERNAL) {
    return absl::FailedPreconditionError(
        absl::StrCat(where(), ": its external data was never resolved against a folder"));
  }
  if (absl::Status checked = ir::checkTensorData(proto); !checked.ok()) {
    return annotated(checked, where());
  }
  return ReadTensor{tensor, &proto, **count};
}

// The forms of a Constant node's value, one attribute each, with the kind ONNX defines.
struct ValueForm {
  const char* name;
  AttributeProto::AttributeType kind;
};
constexpr ValueForm kValueForms[] = {
    {"value", AttributeProto::TENSOR},        {"sparse_value", AttributeProto::SPARSE_TENSOR},
    {"value_float", AttributeProto::FLOAT},   {"value_floats", AttributeProto::FLOATS},
    {"value_int", AttributeProto::INT},       {"value_ints", AttributeProto::INTS},
    {"value_string", AttributeProto::STRING}, {"value_strings", AttributeProto::STRINGS},
};

// The one value attribute of a Constant node and the kind it must have; an error when there is
// none or more than one.
absl::StatusOr<std::pair<const ir::Attribute*, AttributeProto::AttributeType>> valueAttribute(
    const ir::Node& node) {
  const ir::Attribute* found = nullptr;
  AttributeProto::AttributeType kind = AttributeProto::UNDEFINED;
  for (const ir::Attribute& attribute : node.attributes()) {
    for (const ValueForm& form : kValueForms) {
      if (attribute.name() != form.name) continue;
      if (found != nullptr) {
        return absl::InvalidArgumentError(absl::StrCat("has two value attributes, '", found->name(),
                                                       "' and '", attribute.name(), "'"));
      }
      found = &attribute;
      kind = form.kind;
    }
  }
  if (found == nullptr) {
    return absl::InvalidArgumentError(
        "has no value attribute (value, sparse_value, value_float(s), value_int(s) or "
        "value_string(s))");
  }
  if (found->kind() != kind) {
    return absl::InvalidArgumentError(absl::StrCat(
        "attribute '", found->name(), "' is ", AttributeProto::AttributeType_Name(found->kind()),
        ", but ONNX defines it as ", AttributeProto::AttributeType_Name(kind)));
  }
  return std::make_pair(found, kind);
}

// The tensor a Constant's value_float(s), value_int(s) or value_string(s) stands for.
TensorProto tensorOfListForm(const ir::Attribute& attribute) {
  TensorProto tensor;
  switch (attribute.kind()) {
    case AttributeProto::FLOAT:
      tensor.set_data_type(TensorProto::FLOAT);
      tensor.add_float_data(attribute.f());
      break;
    case AttributeProto::FLOATS:
      tensor = makeFloatTensor(attribute.floats(), {attribute.floats().size()});
      break;
    case AttributeProto::INT: tensor = makeInt64Scalar(attribute.i()); break;
    case AttributeProto::INTS: tensor = makeInt64Tensor(attribute.ints()); break;
    case AttributeProto::STRING:
      tensor.set_data_type(TensorProto::STRING);
      tensor.add_string_data(attribute.s());
      break;
    default:  // STRINGS: valueAttribute() let no other kind through
      tensor.set_data_type(TensorProto::STRING);
      tensor.add_dims(attribute.proto().strings_size());
      *tensor.mutable_string_data() = attribute.proto().strings();
      break;
  }
  return tensor;
}

// The bytes a list form takes once a tensor, before it is built.
int64_t listFormBytes(const ir::Attribute& attribute) {
  switch (attribute.kind()) {
    case AttributeProto::FLOATS: return int64_t{4} * attribute.floats().size();
    case AttributeProto::INTS: return int64_t{8} * attribute.ints().size();
    case AttributeProto::STRING: return static_cast<int64_t>(attribute.s().size());
    case AttributeProto::STRINGS: {
      int64_t total = 0;
      for (const std::string& element : attribute.proto().strings()) total += element.size();
      return total;
    }
    default: return 8;  // one float or int
  }
}

ReadResult readValueTensor(const ir::Node& node, const TensorProto& proto, int64_t max_bytes) {
  const absl::StatusOr<std::optional<int64_t>> count = readableCount(proto, max_bytes);
  if (!count.ok()) return count.status();
  if (!*count) return std::nullopt;
  if (proto.data_location() != TensorProto::EXTERNAL) {
    if (absl::Status checked = ir::checkTensorData(proto); !checked.ok()) return checked;
    return ReadTensor{nullptr, &proto, **count};
  }
  // The importer checked the location; it is resolved again for the path to read.
  const ir::Model* model = node.graph()->model();
  ir::ExternalDataResolver resolver(model != nullptr ? model->baseDir() : std::string());
  absl::StatusOr<ir::ExternalData> where = resolver.resolve(proto);
  if (!where.ok()) return where.status();
  return loadedCopy(proto, *where, **count);
}

ReadResult readConstantNode(const ir::Node& node, int64_t max_bytes) {
  const auto value = valueAttribute(node);
  if (!value.ok()) return value.status();
  const auto [attribute, kind] = *value;
  switch (kind) {
    case AttributeProto::SPARSE_TENSOR: return std::nullopt;
    case AttributeProto::TENSOR: return readValueTensor(node, attribute->t(), max_bytes);
    default: {
      if (listFormBytes(*attribute) > max_bytes) return std::nullopt;
      auto owned = std::make_shared<TensorProto>(tensorOfListForm(*attribute));
      const TensorProto* data = owned.get();
      const absl::StatusOr<int64_t> count = ir::tensorElementCount(*data);
      return ReadTensor{std::move(owned), data, *count};
    }
  }
}

}  // namespace

absl::flat_hash_set<std::string> initializersBoundByTrainingInfo(const ir::Model& model) {
  absl::flat_hash_set<std::string> names;
  for (const onnx::TrainingInfoProto& info : model.proto().training_info()) {
    for (const auto& binding : info.update_binding()) names.insert(binding.key());
    for (const auto& binding : info.initialization_binding()) names.insert(binding.key());
  }
  return names;
}

bool isConstant(const ir::Value& v) {
  if (v.isInitializer()) return !v.isGraphInput();
  const ir::Node* producer = v.producer();
  return producer != nullptr && producer->is("Constant");
}

absl::StatusOr<std::optional<ConstantView>> readConstant(const ir::Value& v, int64_t max_bytes) {
  ReadResult read = std::nullopt;
  if (v.isInitializer()) {
    if (v.isGraphInput()) return std::nullopt;
    read = readInitializer(v, max_bytes);
  } else {
    const ir::Node* producer = v.producer();
    if (producer == nullptr || !producer->is("Constant")) return std::nullopt;
    read = readConstantNode(*producer, max_bytes);
    if (!read.ok()) {
      return annotated(read.status(),
                       absl::StrCat(ir::describe(*producer), ", the producer of '", v.name(), "'"));
    }
  }
  if (!read.ok()) return read.status();
  if (!*read) return std::nullopt;
  return ConstantView(std::move((*read)->owner), (*read)->proto, (*read)->count);
}

absl::StatusOr<std::optional<double>> readConstantScalar(const ir::Value& v) {
  // One element of the widest type, with room to spare: a scalar never needs more.
  absl::StatusOr<std::optional<ConstantView>> constant = readConstant(v, 64);
  if (!constant.ok()) return constant.status();
  if (!*constant) return std::nullopt;
  const std::optional<std::vector<double>> values = (*constant)->asDoubles();
  if (!values || values->size() != 1) return std::nullopt;
  return values->front();
}

absl::StatusOr<std::optional<std::vector<int64_t>>> readConstantInts(const ir::Value& v) {
  absl::StatusOr<std::optional<ConstantView>> view = readConstant(v);
  if (!view.ok()) return view.status();
  if (!*view || (*view)->rank() > 1 || !isIntegerElemType((*view)->elemType())) return std::nullopt;
  return (*view)->asInts();
}

std::optional<std::vector<int64_t>> ConstantView::asInts() const {
  if (!isIntegerElemType(elemType()) && elemType() != TensorProto::BOOL) return std::nullopt;
  std::vector<int64_t> ints;
  ints.reserve(static_cast<size_t>(num_elements_));
  bool exact = true;
  const bool read = forEachNumber(*proto_, [&](auto element) {
    if constexpr (std::is_same_v<decltype(element), uint64_t>) {
      exact = exact && element <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
    }
    ints.push_back(static_cast<int64_t>(element));
  });
  if (!read || !exact) return std::nullopt;
  return ints;
}

std::optional<std::vector<double>> ConstantView::asDoubles() const {
  std::vector<double> doubles;
  doubles.reserve(static_cast<size_t>(num_elements_));
  bool exact = true;
  const bool read = forEachNumber(*proto_, [&](auto element) {
    exact = exact && fitsDoubleExactly(element);
    doubles.push_back(static_cast<double>(element));
  });
  if (!read || !exact) return std::nullopt;
  return doubles;
}

bool ConstantView::allEqualTo(double value) const {
  if (num_elements_ == 0) return false;
  bool all_equal = true;
  const bool read = forEachNumber(
      *proto_, [&](auto element) { all_equal = all_equal && equalsExactly(element, value); });
  return read && all_equal;
}

}  // namespace onnxopt
