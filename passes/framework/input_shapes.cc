#include "onnxopt/pass/input_shapes.h"

#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace onnxopt {
namespace {

absl::Status usage(absl::string_view flag, absl::string_view text, absl::string_view problem) {
  return absl::InvalidArgumentError(absl::StrCat(flag, " '", text, "': ", problem));
}

absl::StatusOr<int64_t> parsePositive(absl::string_view flag, absl::string_view text,
                                      absl::string_view number) {
  int64_t value = 0;
  if (!absl::SimpleAtoi(number, &value)) {
    return usage(flag, text, absl::StrCat("'", number, "' is not an integer"));
  }
  if (value <= 0) return usage(flag, text, absl::StrCat("a dim must be positive, not ", value));
  return value;
}

// "input 'X' dim 0 ('batch')": how errors name a dim.
std::string dimName(const std::string& input, int64_t index, const std::string& symbol) {
  std::string name = absl::StrCat("input '", input, "' dim ", index);
  if (!symbol.empty()) absl::StrAppend(&name, " ('", symbol, "')");
  return name;
}

// Where a symbol's size came from, for an error about a second, different one.
struct Binding {
  int64_t value;
  std::string source;  // "--dim batch=2", "--input-shape X (input 'X' dim 0)"
  size_t fixed_index;  // its entry in the result
};

// The shapes a declared type holds: a tensor's, a sparse tensor's, and those of the elements of
// a sequence, an optional or a map's values, where a symbol names a dim just as in a tensor.
void collectShapes(onnx::TypeProto& type, std::vector<onnx::TensorShapeProto*>& shapes) {
  switch (type.value_case()) {
    case onnx::TypeProto::kTensorType:
      if (type.tensor_type().has_shape()) shapes.push_back(type.mutable_tensor_type()->mutable_shape());
      break;
    case onnx::TypeProto::kSparseTensorType:
      if (type.sparse_tensor_type().has_shape()) {
        shapes.push_back(type.mutable_sparse_tensor_type()->mutable_shape());
      }
      break;
    case onnx::TypeProto::kSequenceType:
      if (type.sequence_type().has_elem_type()) {
        collectShapes(*type.mutable_sequence_type()->mutable_elem_type(), shapes);
      }
      break;
    case onnx::TypeProto::kOptionalType:
      if (type.optional_type().has_elem_type()) {
        collectShapes(*type.mutable_optional_type()->mutable_elem_type(), shapes);
      }
      break;
    case onnx::TypeProto::kMapType:
      if (type.map_type().has_value_type()) {
        collectShapes(*type.mutable_map_type()->mutable_value_type(), shapes);
      }
      break;
    default:
      break;
  }
}

}  // namespace

absl::StatusOr<InputShape> parseInputShape(absl::string_view text) {
  constexpr absl::string_view kFlag = "--input-shape";
  const size_t equals = text.rfind('=');
  if (equals == absl::string_view::npos) {
    return usage(kFlag, text, "expected NAME=D0,D1,... (NAME= for a scalar)");
  }
  InputShape shape;
  shape.input = std::string(text.substr(0, equals));
  if (shape.input.empty()) return usage(kFlag, text, "the input name is empty");
  const absl::string_view dims = text.substr(equals + 1);
  if (dims.empty()) return shape;
  for (absl::string_view dim : absl::StrSplit(dims, ',')) {
    absl::StatusOr<int64_t> value = parsePositive(kFlag, text, dim);
    if (!value.ok()) return value.status();
    shape.dims.push_back(*value);
  }
  return shape;
}

absl::StatusOr<DimValue> parseDimValue(absl::string_view text) {
  constexpr absl::string_view kFlag = "--dim";
  const size_t equals = text.rfind('=');
  if (equals == absl::string_view::npos) return usage(kFlag, text, "expected SYMBOL=V");
  DimValue dim;
  dim.symbol = std::string(text.substr(0, equals));
  if (dim.symbol.empty()) return usage(kFlag, text, "the symbol is empty");
  absl::StatusOr<int64_t> value = parsePositive(kFlag, text, text.substr(equals + 1));
  if (!value.ok()) return value.status();
  dim.value = *value;
  return dim;
}

absl::StatusOr<std::vector<FixedDim>> fixDims(ir::Model& model,
                                              absl::Span<const InputShape> shapes,
                                              absl::Span<const DimValue> dims) {
  std::vector<FixedDim> fixed;
  if (shapes.empty() && dims.empty()) return fixed;

  // Every declaration of every graph, each a place a symbol may be named.
  std::vector<onnx::ValueInfoProto*> declarations;
  ir::forEachGraph(model.graph(), [&](ir::Graph& graph) {
    std::vector<onnx::ValueInfoProto*> own = graph.mutableDeclarations();
    declarations.insert(declarations.end(), own.begin(), own.end());
  });

  absl::flat_hash_map<std::string, Binding> bindings;
  auto bind = [&](const std::string& symbol, int64_t value, std::string source,
                  FixedDim entry) -> absl::Status {
    auto [it, inserted] = bindings.try_emplace(symbol, Binding{value, source, fixed.size()});
    if (inserted) {
      fixed.push_back(std::move(entry));
      return absl::OkStatus();
    }
    if (it->second.value == value) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat(
        source, " makes dim '", symbol, "' ", value, ", but ", it->second.source, " makes it ",
        it->second.value));
  };

  // Dims without a name are fixed in their input's declaration only.
  std::vector<std::pair<onnx::TensorShapeProto_Dimension*, int64_t>> unnamed;
  // Inputs declared without a shape get one.
  std::vector<std::pair<onnx::TypeProto_Tensor*, const InputShape*>> unshaped;
  absl::flat_hash_set<std::string> seen_inputs;
  for (const InputShape& shape : shapes) {
    if (!seen_inputs.insert(shape.input).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("--input-shape: input '", shape.input, "' is given twice"));
    }
    for (size_t i = 0; i < shape.dims.size(); ++i) {
      if (shape.dims[i] <= 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("--input-shape: ", dimName(shape.input, static_cast<int64_t>(i), ""),
                         " must be positive, not ", shape.dims[i]));
      }
    }
    ir::Value* input = nullptr;
    std::vector<std::string> names;
    for (ir::Value* candidate : model.graph().inputs()) {
      if (candidate->isInitializer()) continue;
      names.push_back(candidate->name());
      if (candidate->name() == shape.input) input = candidate;
    }
    if (input == nullptr) {
      const ir::Value* other = model.graph().findValue(shape.input);
      if (other != nullptr && other->isInitializer()) {
        return absl::InvalidArgumentError(absl::StrCat("--input-shape: input '", shape.input,
                                                       "' is an initializer: its dims are fixed"));
      }
      return absl::InvalidArgumentError(
          absl::StrCat("--input-shape: the model has no input '", shape.input, "' (inputs: ",
                       names.empty() ? "none" : absl::StrJoin(names, ", "), ")"));
    }
    onnx::ValueInfoProto* declaration = nullptr;
    for (onnx::ValueInfoProto* candidate : declarations) {
      if (candidate == input->inputInfo()) declaration = candidate;
    }
    if (declaration == nullptr || !declaration->type().has_tensor_type()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--input-shape: input '", shape.input, "' is not declared as a tensor"));
    }
    onnx::TypeProto_Tensor* tensor = declaration->mutable_type()->mutable_tensor_type();
    const std::string source = absl::StrCat("--input-shape ", shape.input);
    if (!tensor->has_shape()) {
      unshaped.emplace_back(tensor, &shape);
      for (size_t i = 0; i < shape.dims.size(); ++i) {
        fixed.push_back({"", shape.input, static_cast<int64_t>(i), shape.dims[i], 1});
      }
      continue;
    }
    const int rank = tensor->shape().dim_size();
    if (static_cast<size_t>(rank) != shape.dims.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--input-shape: input '", shape.input, "' has rank ", rank, ", but ",
                       shape.dims.size(), " dims were given"));
    }
    for (int i = 0; i < rank; ++i) {
      onnx::TensorShapeProto_Dimension* dim = tensor->mutable_shape()->mutable_dim(i);
      const int64_t value = shape.dims[i];
      if (dim->has_dim_value()) {
        if (dim->dim_value() == value) continue;
        return absl::InvalidArgumentError(
            absl::StrCat("--input-shape: ", dimName(shape.input, i, ""), " is ", dim->dim_value(),
                         " in the model, not ", value));
      }
      if (dim->has_dim_param() && !dim->dim_param().empty()) {
        absl::Status bound =
            bind(dim->dim_param(), value,
                 absl::StrCat(source, " (", dimName(shape.input, i, dim->dim_param()), ")"),
                 {dim->dim_param(), shape.input, i, value, 0});
        if (!bound.ok()) return bound;
        continue;
      }
      unnamed.emplace_back(dim, value);
      fixed.push_back({"", shape.input, i, value, 1});
    }
  }

  // One entry per declaration, so that a symbol counts once per declaration that names it.
  std::vector<std::vector<onnx::TensorShapeProto*>> declared_shapes(declarations.size());
  absl::flat_hash_set<std::string> named;
  for (size_t i = 0; i < declarations.size(); ++i) {
    if (!declarations[i]->has_type()) continue;
    collectShapes(*declarations[i]->mutable_type(), declared_shapes[i]);
    for (const onnx::TensorShapeProto* shape : declared_shapes[i]) {
      for (const auto& dim : shape->dim()) {
        if (dim.has_dim_param() && !dim.dim_param().empty()) named.insert(dim.dim_param());
      }
    }
  }
  for (const DimValue& dim : dims) {
    if (dim.value <= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("--dim: '", dim.symbol, "' must be positive, not ", dim.value));
    }
    if (!named.contains(dim.symbol)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--dim: no dim of the model is named '", dim.symbol, "'"));
    }
    absl::Status bound =
        bind(dim.symbol, dim.value, absl::StrCat("--dim ", dim.symbol, "=", dim.value),
             {dim.symbol, "", 0, dim.value, 0});
    if (!bound.ok()) return bound;
  }

  // Everything holds: change the model.
  for (auto& [dim, value] : unnamed) dim->set_dim_value(value);
  for (auto& [tensor, shape] : unshaped) {
    for (int64_t value : shape->dims) tensor->mutable_shape()->add_dim()->set_dim_value(value);
  }
  for (const std::vector<onnx::TensorShapeProto*>& shapes_of_declaration : declared_shapes) {
    absl::flat_hash_set<size_t> counted;
    for (onnx::TensorShapeProto* shape : shapes_of_declaration) {
      for (onnx::TensorShapeProto_Dimension& dim : *shape->mutable_dim()) {
        if (!dim.has_dim_param()) continue;
        auto binding = bindings.find(dim.dim_param());
        if (binding == bindings.end()) continue;
        if (counted.insert(binding->second.fixed_index).second) {
          ++fixed[binding->second.fixed_index].declarations;
        }
        dim.set_dim_value(binding->second.value);
      }
    }
  }
  return fixed;
}

std::string formatFixedDims(absl::Span<const FixedDim> fixed) {
  std::vector<std::string> parts;
  for (const FixedDim& dim : fixed) {
    if (dim.symbol.empty()) {
      parts.push_back(absl::StrCat(dim.input, "[", dim.index, "]=", dim.value));
    } else {
      parts.push_back(absl::StrCat(dim.symbol, "=", dim.value, " (", dim.declarations,
                                   dim.declarations == 1 ? " declaration)" : " declarations)"));
    }
  }
  return absl::StrJoin(parts, ", ");
}

}  // namespace onnxopt
