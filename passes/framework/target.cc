#include "onnxopt/pass/target.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "onnxopt/rewrite/constant.h"
#include "onnxopt/rewrite/tensor_util.h"

namespace onnxopt {
namespace {

std::vector<Target> targetsOfPassesDef() {
  std::vector<Target> targets;
#define ONNXOPT_TARGET(name, base, passes, summary) \
  targets.push_back(Target{name, base, passes, summary});
#include "../passes.def"
  return targets;
}

// The INT64 elements of an initializer, or nullopt when its data cannot be read.
std::optional<std::vector<int64_t>> int64Elements(const ir::Value& value) {
  const ir::Tensor& tensor = *value.initializer();
  if (!tensor.isExternal()) {
    std::string scratch;
    const std::optional<absl::string_view> bytes = elementBytes(tensor.proto(), &scratch);
    if (!bytes.has_value()) return std::nullopt;
    std::vector<int64_t> elements(bytes->size() / sizeof(int64_t));
    if (!elements.empty()) std::memcpy(elements.data(), bytes->data(), elements.size() * 8);
    return elements;
  }
  // External data is read by the constant reader (initializers a caller cannot override).
  absl::StatusOr<std::optional<ConstantView>> constant =
      readConstant(value, std::numeric_limits<int64_t>::max());
  if (!constant.ok() || !constant->has_value()) return std::nullopt;
  return (*constant)->asInts();
}

void noteDouble(const std::string& name, TensorRtFindings& findings) {
  if (std::find(findings.double_tensors.begin(), findings.double_tensors.end(), name) ==
      findings.double_tensors.end()) {
    findings.double_tensors.push_back(name);
  }
}

}  // namespace

const std::vector<Target>& builtinTargets() {
  static const std::vector<Target>* targets = new std::vector<Target>(targetsOfPassesDef());
  return *targets;
}

absl::StatusOr<Target> findTarget(absl::string_view name) {
  std::vector<std::string> names;
  for (const Target& target : builtinTargets()) {
    if (target.name == name) return target;
    names.push_back(target.name);
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown target '", name, "'; valid targets: ",
                                                 absl::StrJoin(names, ", ")));
}

absl::StatusOr<std::string> targetPipeline(const Target& target, const PassRegistry& registry) {
  absl::StatusOr<std::string> base = registry.namedPipeline(target.base);
  if (!base.ok()) return base.status();
  if (base->empty()) return target.passes;
  if (target.passes.empty()) return base;
  return absl::StrCat(*base, ",", target.passes);
}

TensorRtFindings checkTensorRt(ir::Model& model) {
  TensorRtFindings findings;
  for (const ir::Value* input : model.graph().inputs()) {
    if (input->isInitializer()) continue;  // a weight a caller may override, not an activation
    const ir::Type type = input->type();
    if (!type.shape().has_value()) {
      findings.dynamic_dims.push_back({input->name(), -1, ""});
      continue;
    }
    for (size_t i = 0; i < type.shape()->size(); ++i) {
      const ir::Dim& dim = (*type.shape())[i];
      if (dim.isKnown()) continue;
      findings.dynamic_dims.push_back(
          {input->name(), static_cast<int64_t>(i), dim.isSymbolic() ? dim.symbol() : ""});
    }
  }
  // Inputs, outputs and value_info, as declared.
  for (const onnx::ValueInfoProto* declaration : model.graph().mutableDeclarations()) {
    if (declaration->type().tensor_type().elem_type() == onnx::TensorProto::DOUBLE) {
      noteDouble(declaration->name(), findings);
    }
  }

  ir::forEachGraph(model.graph(), [&findings](ir::Graph& graph) {
    for (const ir::Node& node : graph) {
      const std::string& domain = node.op().domain();
      if (domain.empty() || domain == "ai.onnx") continue;
      const std::string op = absl::StrCat(domain, ".", node.opType());
      auto it = std::find_if(findings.non_onnx_ops.begin(), findings.non_onnx_ops.end(),
                             [&op](const auto& entry) { return entry.first == op; });
      if (it == findings.non_onnx_ops.end()) {
        findings.non_onnx_ops.emplace_back(op, 1);
      } else {
        ++it->second;
      }
    }
    for (const ir::Value* value : graph.initializers()) {
      if (!value->isInitializer()) continue;
      const int32_t elem_type = value->initializer()->proto().data_type();
      if (elem_type == onnx::TensorProto::DOUBLE) noteDouble(value->name(), findings);
      if (elem_type != onnx::TensorProto::INT64) continue;
      ++findings.int64_initializers;
      const std::optional<std::vector<int64_t>> elements = int64Elements(*value);
      if (!elements.has_value()) {
        findings.int64_unread.push_back(value->name());
        continue;
      }
      auto outside = std::find_if(elements->begin(), elements->end(), [](int64_t v) {
        return v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max();
      });
      if (outside != elements->end()) findings.int64_overflows.push_back({value->name(), *outside});
    }
  });
  return findings;
}

std::optional<TensorRtFindings> checkForTarget(absl::string_view target, ir::Model& model) {
  if (target == "tensorrt") return checkTensorRt(model);
  return std::nullopt;
}

}  // namespace onnxopt
