#include "onnxopt/rewrite/schema.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/container/node_hash_map.h"
#include "absl/strings/str_cat.h"
#include "onnx/defs/data_type_utils.h"
#include "onnx/defs/schema.h"
#include "onnxopt/ir/describe.h"
#include "onnxopt/ir/type.h"

namespace onnxopt {

using onnx::AttributeProto;

namespace {

// The newest default-domain opset libonnx (ONNX 1.12) has schemas for.
constexpr int64_t kNewestLibonnxOpset = 17;

// The default-domain operators that got a new version (or first appeared) in each opset after
// kNewestLibonnxOpset, as ONNX's onnx/defs/operator_sets.h (OpSet_Onnx_ver18 .. ver23) lists them.
struct OpsetChanges {
  int64_t opset;
  std::vector<const char*> ops;
  // Every new version here only widens the op's type constraints (opset 22: bfloat16 for all
  // relevant ops, onnx/onnx#6099), so the version before it still says what the op does.
  bool types_only = false;
};

const std::vector<OpsetChanges>& changesAfterLibonnx() {
  static const auto* changes = new std::vector<OpsetChanges>{
      {18,
       {"Pad",
        "CenterCropPad",
        "Resize",
        "Mish",
        "OptionalGetElement",
        "OptionalHasElement",
        "Split",
        "Col2Im",
        "ScatterND",
        "ScatterElements",
        "ReduceSumSquare",
        "ReduceLogSum",
        "ReduceLogSumExp",
        "ReduceL1",
        "ReduceL2",
        "ReduceMax",
        "ReduceMin",
        "ReduceMean",
        "ReduceProd",
        "BitwiseAnd",
        "BitwiseOr",
        "BitwiseXor",
        "BitwiseNot",
        "GroupNormalization",
        "LpPool"}},
      {19,
       {"Equal", "AveragePool", "Cast", "CastLike", "Constant", "DeformConv", "DequantizeLinear",
        "Identity", "If", "Loop", "Pad", "QuantizeLinear", "Resize", "Reshape", "Scan", "Shape",
        "Size"}},
      {20,
       {"AffineGrid", "ConstantOfShape", "DFT", "Gelu", "GridSample", "ImageDecoder", "IsInf",
        "IsNaN", "ReduceMax", "ReduceMin", "RegexFullMatch", "StringConcat", "StringSplit"}},
      {21,
       {"Cast",
        "CastLike",
        "Constant",
        "ConstantOfShape",
        "DequantizeLinear",
        "Flatten",
        "GroupNormalization",
        "Identity",
        "If",
        "Loop",
        "Pad",
        "QLinearMatMul",
        "QuantizeLinear",
        "Reshape",
        "Scan",
        "Shape",
        "Size",
        "Squeeze",
        "Transpose",
        "Unsqueeze"}},
      {22,
       {"EyeLike",
        "RandomUniform",
        "RandomNormal",
        "RandomUniformLike",
        "RandomNormalLike",
        "Multinomial",
        "Bernoulli",
        "ThresholdedRelu",
        "Selu",
        "Elu",
        "Mish",
        "HardSigmoid",
        "HardSwish",
        "Softsign",
        "Softplus",
        "Sin",
        "Cos",
        "Tan",
        "Asin",
        "Acos",
        "Atan",
        "Sinh",
        "Cosh",
        "Asinh",
        "Acosh",
        "Atanh",
        "Round",
        "Det",
        "NegativeLogLikelihoodLoss",
        "AveragePool",
        "MaxPool",
        "MaxUnpool",
        "LpPool",
        "MaxRoiPool",
        "Conv",
        "ConvTranspose",
        "DeformConv",
        "GlobalAveragePool",
        "GlobalMaxPool",
        "GlobalLpPool",
        "InstanceNormalization",
        "LpNormalization",
        "Dropout",
        "RoiAlign",
        "RNN",
        "GRU",
        "LSTM",
        "GridSample"},
       /*types_only=*/true},
      {23,
       {"Attention",
        "Cast",
        "CastLike",
        "Constant",
        "ConstantOfShape",
        "DequantizeLinear",
        "Flatten",
        "Identity",
        "If",
        "Loop",
        "Pad",
        "QuantizeLinear",
        "Reshape",
        "RMSNormalization",
        "RotaryEmbedding",
        "Scan",
        "Shape",
        "Size",
        "Squeeze",
        "Transpose",
        "Unsqueeze"}},
  };
  return *changes;
}

// The newest version of a default-domain op at `opset` (after kNewestLibonnxOpset, up to
// kNewestKnownOpset) among those libonnx does not know; nullopt when its opset-17 schema holds.
// With `beyond_types`, only versions that changed more than the op's types count: nullopt when
// its opset-17 schema still says what it does, if not every type it takes.
std::optional<int64_t> versionBeyondLibonnx(const std::string& op_type, int64_t opset,
                                            bool beyond_types = false) {
  static const auto* versions = [] {
    auto* by_op = new absl::flat_hash_map<std::string, std::vector<const OpsetChanges*>>;
    for (const OpsetChanges& changes : changesAfterLibonnx()) {
      for (const char* op : changes.ops) (*by_op)[op].push_back(&changes);
    }
    return by_op;
  }();
  const auto found = versions->find(op_type);
  if (found == versions->end()) return std::nullopt;
  std::optional<int64_t> newest;
  for (const OpsetChanges* changes : found->second) {
    if (changes->opset <= opset && !(beyond_types && changes->types_only)) newest = changes->opset;
  }
  return newest;
}

// The newest opset of `domain` libonnx has schemas for; nullopt for a domain it does not know.
std::optional<int64_t> newestLibonnxVersion(const std::string& domain) {
  const auto& ranges = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
  const auto found = ranges.find(domain);
  if (found == ranges.end()) return std::nullopt;
  return found->second.second;
}

const std::string& kindName(AttributeProto::AttributeType kind) {
  return AttributeProto::AttributeType_Name(kind);
}

absl::Status wrongKind(const ir::Node& node, const ir::Attribute& attribute,
                       AttributeProto::AttributeType defined) {
  return absl::InvalidArgumentError(
      absl::StrCat(ir::describe(node), ": attribute '", attribute.name(), "' is ",
                   kindName(attribute.kind()), ", but ONNX defines it as ", kindName(defined)));
}

absl::Status missingRequired(const ir::Node& node, absl::string_view name,
                             AttributeProto::AttributeType defined) {
  return absl::InvalidArgumentError(absl::StrCat(ir::describe(node), ": required attribute '", name,
                                                 "' (", kindName(defined), ") is missing"));
}

}  // namespace

std::optional<int64_t> opsetOf(const ir::Node& node) {
  const ir::Graph* graph = node.graph();
  if (graph == nullptr || graph->model() == nullptr) return std::nullopt;
  return graph->model()->opsetVersion(node.op().domain());
}

namespace {

const onnx::OpSchema* lookUpSchema(const ir::OpName& op, int64_t opset) {
  const std::string& domain = op.domain();
  int64_t lookup = opset;
  if (domain.empty()) {
    if (opset > kNewestKnownOpset ||
        versionBeyondLibonnx(op.opType(), opset, /*beyond_types=*/true)) {
      return nullptr;
    }
    lookup = std::min(opset, kNewestLibonnxOpset);
  } else {
    const std::optional<int64_t> newest = newestLibonnxVersion(domain);
    if (!newest || opset > *newest) return nullptr;
  }
  return onnx::OpSchemaRegistry::Schema(op.opType(), static_cast<int>(lookup), domain);
}

// What the attribute policy needs of a schema's attribute, looked up without building a string.
struct AttributeDefinition {
  std::string name;
  AttributeProto::AttributeType kind;
  bool required;
};

struct KnownSchema {
  const onnx::OpSchema* schema = nullptr;
  std::vector<AttributeDefinition> attributes;

  const AttributeDefinition* attribute(absl::string_view name) const {
    for (const AttributeDefinition& definition : attributes) {
      if (definition.name == name) return &definition;
    }
    return nullptr;
  }
};

// Patterns ask for the same few schemas at every node, and the registry's lookup by name costs
// more than the rest of a match. OpNames are interned for the process: the key stays valid.
const KnownSchema& knownSchemaOf(const ir::Node& node, int64_t opset) {
  thread_local absl::node_hash_map<std::pair<const ir::OpName*, int64_t>, KnownSchema> known;
  auto [entry, inserted] = known.try_emplace({&node.op(), opset});
  if (inserted) {
    KnownSchema& found = entry->second;
    found.schema = lookUpSchema(node.op(), opset);
    if (found.schema != nullptr) {
      for (const auto& [name, attribute] : found.schema->attributes()) {
        found.attributes.push_back({name, attribute.type, attribute.required});
      }
    }
  }
  return entry->second;
}

const KnownSchema* knownSchemaOf(const ir::Node& node) {
  const std::optional<int64_t> opset = opsetOf(node);
  return opset ? &knownSchemaOf(node, *opset) : nullptr;
}

// The node's attribute `name`, read as `asked`, under the policy of the header; null when absent
// and not required.
absl::StatusOr<const ir::Attribute*> checkedAttribute(const ir::Node& node, absl::string_view name,
                                                      AttributeProto::AttributeType asked) {
  AttributeProto::AttributeType defined = asked;
  bool required = false;
  if (const KnownSchema* known = knownSchemaOf(node)) {
    if (const AttributeDefinition* definition = known->attribute(name)) {
      defined = definition->kind;
      required = definition->required;
    }
  }
  if (defined != asked) {
    return absl::InternalError(absl::StrCat(ir::describe(node), ": attribute '", name, "' read as ",
                                            kindName(asked), ", but ONNX defines it as ",
                                            kindName(defined)));
  }
  const ir::Attribute* attribute = node.attr(name);
  if (attribute == nullptr) {
    if (required) return missingRequired(node, name, defined);
    return nullptr;
  }
  if (attribute->kind() != defined) return wrongKind(node, *attribute, defined);
  return attribute;
}

// getX (nullopt when absent) for the kind `kind`, the value read by `read`.
template <typename T, typename Read>
absl::StatusOr<std::optional<T>> readOptional(const ir::Node& node, absl::string_view name,
                                              AttributeProto::AttributeType kind, Read read) {
  const absl::StatusOr<const ir::Attribute*> attribute = checkedAttribute(node, name, kind);
  if (!attribute.ok()) return attribute.status();
  if (*attribute == nullptr) return std::nullopt;
  return read(**attribute);
}

}  // namespace

const onnx::OpSchema* schemaOf(const ir::Node& node) {
  const KnownSchema* known = knownSchemaOf(node);
  return known ? known->schema : nullptr;
}

std::optional<int64_t> sinceVersionOf(const ir::Node& node) {
  const std::optional<int64_t> opset = opsetOf(node);
  if (opset && node.op().domain().empty() && *opset <= kNewestKnownOpset) {
    if (std::optional<int64_t> version = versionBeyondLibonnx(node.opType(), *opset)) {
      return version;
    }
  }
  const onnx::OpSchema* schema = schemaOf(node);
  if (schema == nullptr) return std::nullopt;
  return schema->SinceVersion();
}

bool elemTypeAllowed(const ir::Node& node, absl::string_view type_param, int32_t elem_type) {
  const onnx::OpSchema* schema = schemaOf(node);
  if (schema == nullptr) return false;
  const std::string type = absl::StrCat("tensor(", ir::elemTypeName(elem_type), ")");
  for (const onnx::OpSchema::TypeConstraintParam& constraint : schema->typeConstraintParams()) {
    if (constraint.type_param_str != type_param) continue;
    const std::vector<std::string>& allowed = constraint.allowed_type_strs;
    return std::find(allowed.begin(), allowed.end(), type) != allowed.end();
  }
  return false;
}

int32_t elemTypeFromSchema(const ir::Node& node, size_t output_index,
                           absl::FunctionRef<int32_t(size_t)> input_elem) {
  if (!node.op().domain().empty()) return 0;
  for (const ir::Attribute& attribute : node.attributes()) {
    if (!attribute.graphs().empty()) return 0;
  }
  const onnx::OpSchema* schema = schemaOf(node);
  if (schema == nullptr) return 0;
  using Formal = onnx::OpSchema::FormalParameter;
  // The formal parameter of actual position `index`: a variadic last one covers the rest.
  auto formalAt = [](const std::vector<Formal>& formals, size_t index) -> const Formal* {
    if (formals.empty()) return nullptr;
    if (index < formals.size()) return &formals[index];
    const Formal& last = formals.back();
    return last.GetOption() == onnx::OpSchema::Variadic ? &last : nullptr;
  };
  const Formal* output = formalAt(schema->outputs(), output_index);
  if (output == nullptr) return 0;
  if (output->GetTypes().size() == 1) {
    const onnx::TypeProto type = onnx::Utils::DataTypeUtils::ToTypeProto(*output->GetTypes().begin());
    return type.has_tensor_type() ? type.tensor_type().elem_type() : 0;
  }
  if (output->GetOption() == onnx::OpSchema::Variadic && !output->GetIsHomogeneous()) return 0;
  for (size_t i = 0; i < node.numInputs(); ++i) {
    const Formal* input = formalAt(schema->inputs(), i);
    if (input == nullptr || input->GetTypeStr() != output->GetTypeStr() ||
        (input->GetOption() == onnx::OpSchema::Variadic && !input->GetIsHomogeneous())) {
      continue;
    }
    if (const int32_t elem = input_elem(i)) return elem;
  }
  return 0;
}

namespace {

// An optional attribute's value, or `default_value` when it is absent.
template <typename T, typename Default>
absl::StatusOr<T> orDefault(absl::StatusOr<std::optional<T>> value, Default&& default_value) {
  if (!value.ok()) return value.status();
  if (!*value) return T(std::forward<Default>(default_value));
  return **std::move(value);
}

}  // namespace

absl::StatusOr<std::optional<int64_t>> getInt(const ir::Node& node, absl::string_view name) {
  return readOptional<int64_t>(node, name, AttributeProto::INT,
                               [](const ir::Attribute& attribute) { return attribute.i(); });
}

absl::StatusOr<int64_t> getIntOr(const ir::Node& node, absl::string_view name,
                                 int64_t default_value) {
  return orDefault(getInt(node, name), default_value);
}

absl::StatusOr<std::optional<float>> getFloat(const ir::Node& node, absl::string_view name) {
  return readOptional<float>(node, name, AttributeProto::FLOAT,
                             [](const ir::Attribute& attribute) { return attribute.f(); });
}

absl::StatusOr<float> getFloatOr(const ir::Node& node, absl::string_view name,
                                 float default_value) {
  return orDefault(getFloat(node, name), default_value);
}

absl::StatusOr<std::optional<std::string>> getString(const ir::Node& node, absl::string_view name) {
  return readOptional<std::string>(node, name, AttributeProto::STRING,
                                   [](const ir::Attribute& attribute) { return attribute.s(); });
}

absl::StatusOr<std::string> getStringOr(const ir::Node& node, absl::string_view name,
                                        absl::string_view default_value) {
  return orDefault(getString(node, name), default_value);
}

absl::StatusOr<std::optional<std::vector<int64_t>>> getInts(const ir::Node& node,
                                                            absl::string_view name) {
  return readOptional<std::vector<int64_t>>(
      node, name, AttributeProto::INTS, [](const ir::Attribute& attribute) {
        return std::vector<int64_t>(attribute.ints().begin(), attribute.ints().end());
      });
}

absl::StatusOr<std::optional<std::vector<float>>> getFloats(const ir::Node& node,
                                                            absl::string_view name) {
  return readOptional<std::vector<float>>(
      node, name, AttributeProto::FLOATS, [](const ir::Attribute& attribute) {
        return std::vector<float>(attribute.floats().begin(), attribute.floats().end());
      });
}

absl::StatusOr<const onnx::TensorProto*> getTensor(const ir::Node& node, absl::string_view name) {
  const absl::StatusOr<const ir::Attribute*> attribute =
      checkedAttribute(node, name, AttributeProto::TENSOR);
  if (!attribute.ok()) return attribute.status();
  return *attribute == nullptr ? nullptr : &(*attribute)->t();
}

absl::Status checkAttributes(const ir::Node& node) {
  const KnownSchema* known = knownSchemaOf(node);
  if (known == nullptr || known->schema == nullptr) return absl::OkStatus();
  for (const ir::Attribute& attribute : node.attributes()) {
    const AttributeDefinition* definition = known->attribute(attribute.name());
    if (definition != nullptr && attribute.kind() != definition->kind) {
      return wrongKind(node, attribute, definition->kind);
    }
  }
  for (const AttributeDefinition& definition : known->attributes) {
    if (definition.required && node.attr(definition.name) == nullptr) {
      return missingRequired(node, definition.name, definition.kind);
    }
  }
  return absl::OkStatus();
}

}  // namespace onnxopt
