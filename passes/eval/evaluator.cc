// The evaluator's core: tensors in and out of TensorProto, the kernel context, broadcasting, and
// the kernel table that evaluate() and hasKernel() look nodes up in.

#include "onnxopt/eval/evaluator.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "onnx/defs/schema.h"
#include "onnxopt/ir/describe.h"
#include "onnxopt/ir/op_name.h"
#include "onnxopt/ir/tensor.h"
#include "onnxopt/ir/type.h"
#include "onnxopt/rewrite/schema.h"
#include "onnxopt/rewrite/tensor_util.h"
#include "kernel.h"

namespace onnxopt::eval {
namespace {

using onnx::TensorProto;

bool isComputedType(int32_t elem_type) {
  return elem_type == TensorProto::STRING || elementSize(elem_type) > 0;
}

// Every kernel entry, the three tables' in turn.
template <typename Fn>
void forEachKernel(Fn&& fn) {
  for (const auto kernels : {movementKernels(), elementwiseKernels(), reductionKernels()}) {
    for (const KernelEntry& entry : kernels) fn(entry);
  }
}

// Kernels by operator, each operator's entries in order of min_version. Keyed by the interned
// OpName, so a lookup neither hashes a string nor needs a separate domain check.
class KernelTable {
 public:
  KernelTable() {
    forEachKernel([this](const KernelEntry& entry) {
      by_op_[&ir::OpName::of(entry.op_type)].push_back(entry);
    });
    for (auto& [op, entries] : by_op_) {
      std::sort(entries.begin(), entries.end(), [](const KernelEntry& a, const KernelEntry& b) {
        return a.min_version < b.min_version;
      });
    }
  }

  const KernelEntry* find(const ir::OpName& op, int64_t since_version) const {
    const auto it = by_op_.find(&op);
    if (it == by_op_.end()) return nullptr;
    for (const KernelEntry& entry : it->second) {
      if (entry.min_version <= since_version && since_version <= entry.max_version) return &entry;
    }
    return nullptr;
  }

 private:
  absl::flat_hash_map<const ir::OpName*, std::vector<KernelEntry>> by_op_;
};

const KernelTable& kernelTable() {
  static const KernelTable* const table = new KernelTable();
  return *table;
}

// The node's kernel, or why there is none.
absl::StatusOr<std::pair<const KernelEntry*, int64_t>> findKernel(const ir::Node& node) {
  if (!node.op().domain().empty()) {
    return absl::UnimplementedError(
        absl::StrCat(ir::describe(node), ": the evaluator has no kernels outside the default domain"));
  }
  const std::optional<int64_t> since_version = sinceVersionOf(node);
  if (!since_version) {
    return absl::UnimplementedError(absl::StrCat(
        ir::describe(node), ": the operator version of its opset is not known"));
  }
  const KernelEntry* entry = kernelTable().find(node.op(), *since_version);
  if (entry == nullptr) {
    return absl::UnimplementedError(absl::StrCat(ir::describe(node), ": no kernel for ",
                                                 node.opType(), " version ", *since_version));
  }
  return std::make_pair(entry, *since_version);
}

absl::Status badInput(const ir::Node& node, size_t index, const absl::Status& status) {
  return absl::Status(status.code(), absl::StrCat(ir::describe(node), ": input ", index, ": ",
                                                  status.message()));
}

}  // namespace

int64_t product(absl::Span<const int64_t> dims) {
  int64_t count = 1;
  for (const int64_t dim : dims) count *= dim;
  return count;
}

std::string dimsText(absl::Span<const int64_t> dims) {
  return absl::StrCat("[", absl::StrJoin(dims, ","), "]");
}

absl::Status checkElemType(const KernelContext& ctx, absl::string_view param, int32_t elem_type,
                           TypesAfterLibonnx after_libonnx) {
  const ir::Node& node = ctx.node();
  bool allowed = false;
  // A version that only widened the types (opset 22) is read by the schema before it, whose
  // types are not all it takes.
  const onnx::OpSchema* schema = schemaOf(node);
  if (schema != nullptr && schema->SinceVersion() == ctx.sinceVersion()) {
    allowed = elemTypeAllowed(node, param, elem_type);
  } else if (after_libonnx == kEveryTypeAfterLibonnx) {
    allowed = true;
  } else if (const auto types = after_libonnx(node.opType(), ctx.sinceVersion(), param)) {
    allowed = std::find(types->begin(), types->end(), elem_type) != types->end();
  } else {
    return ctx.unimplemented(absl::StrCat("the element types of ", node.opType(), " version ",
                                          ctx.sinceVersion(), " are not known"));
  }
  if (allowed) return absl::OkStatus();
  return ctx.invalid(absl::StrCat(node.opType(), " version ", ctx.sinceVersion(), " does not take ",
                                  ir::elemTypeName(elem_type), " for ", param));
}

int64_t elementSize(int32_t elem_type) {
  const bool computed = isFloatingElemType(elem_type) || isIntegerElemType(elem_type) ||
                        elem_type == TensorProto::BOOL;
  return computed ? ir::elemTypeSize(elem_type) : 0;
}

// Whether the product of the nonzero dims fits int64 (it bounds every stride and block count).
template <typename Dims>
bool nonzeroDimsFit(const Dims& dims) {
  int64_t product = 1;
  for (const int64_t dim : dims) {
    if (dim <= 0) continue;
    if (product > std::numeric_limits<int64_t>::max() / dim) return false;
    product *= dim;
  }
  return true;
}

absl::StatusOr<EvalTensor> fromProto(const TensorProto& proto) {
  const std::string name = proto.name().empty() ? "tensor" : absl::StrCat("tensor '", proto.name(), "'");
  if (!isComputedType(proto.data_type())) {
    return absl::UnimplementedError(absl::StrCat(name, ": the evaluator does not compute on ",
                                                 ir::elemTypeName(proto.data_type())));
  }
  if (proto.data_location() == TensorProto::EXTERNAL || proto.has_segment()) {
    return absl::UnimplementedError(
        absl::StrCat(name, ": external or segmented data is not read by the evaluator"));
  }
  if (absl::Status status = ir::checkTensorData(proto); !status.ok()) {
    return absl::InvalidArgumentError(status.message());
  }
  if (!nonzeroDimsFit(proto.dims())) {
    // Kernels index with products of dims (strides, block counts): the evaluator computes only
    // on tensors whose every such product fits int64.
    return absl::UnimplementedError(absl::StrCat(
        name, ": an empty tensor whose other dims ", dimsText(proto.dims()),
        " multiply past int64 is not computed on"));
  }
  EvalTensor tensor;
  tensor.elem_type = proto.data_type();
  tensor.dims.assign(proto.dims().begin(), proto.dims().end());
  if (proto.data_type() == TensorProto::STRING) {
    tensor.strings.assign(proto.string_data().begin(), proto.string_data().end());
    return tensor;
  }
  std::string scratch;
  const std::optional<absl::string_view> bytes = elementBytes(proto, &scratch);
  if (!bytes) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": its data does not match its dims ", dimsText(tensor.dims)));
  }
  tensor.bytes.assign(bytes->data(), bytes->size());
  if (tensor.elem_type == TensorProto::BOOL) {
    // Any nonzero byte is true; kernels rely on bools being exactly 0 or 1.
    for (char& byte : tensor.bytes) byte = byte != 0 ? 1 : 0;
  }
  return tensor;
}

TensorProto toProto(const EvalTensor& tensor) {
  TensorProto proto;
  proto.set_data_type(tensor.elem_type);
  for (const int64_t dim : tensor.dims) proto.add_dims(dim);
  if (tensor.elem_type == TensorProto::STRING) {
    for (const std::string& s : tensor.strings) proto.add_string_data(s);
  } else {
    proto.set_raw_data(tensor.bytes);
  }
  return proto;
}

absl::StatusOr<const EvalTensor*> KernelContext::requiredInput(size_t i) const {
  const EvalTensor* tensor = input(i);
  if (tensor == nullptr) return invalid(absl::StrCat("input ", i, " is missing"));
  return tensor;
}

Outputs singleOutput(absl::StatusOr<EvalTensor> output) {
  if (!output.ok()) return output.status();
  std::vector<EvalTensor> outputs;
  outputs.push_back(*std::move(output));
  return outputs;
}

absl::StatusOr<int64_t> KernelContext::outputElements(int32_t elem_type,
                                                      absl::Span<const int64_t> dims) const {
  // Strings are judged by their std::string objects, the least they take.
  const int64_t element_bytes =
      elem_type == TensorProto::STRING ? static_cast<int64_t>(sizeof(std::string)) : elementSize(elem_type);
  if (element_bytes == 0) {
    return unimplemented(absl::StrCat("no ", ir::elemTypeName(elem_type), " tensors"));
  }
  for (const int64_t dim : dims) {
    if (dim < 0) return invalid(absl::StrCat("output dims ", dimsText(dims), " have a negative dim"));
  }
  if (absl::c_linear_search(dims, 0)) {
    // An empty tensor whose other dims multiply past int64 has dims no TensorProto may hold
    // (ir::checkTensorData), and the kernels' strides would overflow on it.
    if (!nonzeroDimsFit(dims)) {
      return invalid(absl::StrCat("the product of output dims ", dimsText(dims), " overflows int64"));
    }
    return 0;
  }
  int64_t count = 1;
  for (const int64_t dim : dims) {
    if (count > limits_.max_output_bytes / element_bytes / dim) {
      return absl::ResourceExhaustedError(absl::StrCat(
          ir::describe(node_), ": an output of ", ir::elemTypeName(elem_type), dimsText(dims),
          " exceeds the evaluator's limit of ", limits_.max_output_bytes,
          " bytes"));
    }
    count *= dim;
  }
  return count;
}

absl::StatusOr<EvalTensor> KernelContext::allocate(int32_t elem_type,
                                                   absl::Span<const int64_t> dims) const {
  absl::StatusOr<int64_t> count = outputElements(elem_type, dims);
  if (!count.ok()) return count.status();
  EvalTensor tensor;
  tensor.elem_type = elem_type;
  tensor.dims.assign(dims.begin(), dims.end());
  if (elem_type == TensorProto::STRING) {
    tensor.strings.resize(*count);
  } else {
    tensor.bytes.resize(*count * elementSize(elem_type));
  }
  return tensor;
}

absl::Status KernelContext::unimplemented(absl::string_view why) const {
  return absl::UnimplementedError(absl::StrCat(ir::describe(node_), ": ", why));
}

absl::Status KernelContext::invalid(absl::string_view why) const {
  return absl::InvalidArgumentError(absl::StrCat(ir::describe(node_), ": ", why));
}

absl::StatusOr<std::vector<int64_t>> broadcastDims(const KernelContext& ctx,
                                                   absl::Span<const std::vector<int64_t>> shapes) {
  size_t rank = 0;
  for (const std::vector<int64_t>& shape : shapes) rank = std::max(rank, shape.size());
  std::vector<int64_t> out(rank, 1);
  for (const std::vector<int64_t>& shape : shapes) {
    const size_t offset = rank - shape.size();
    for (size_t i = 0; i < shape.size(); ++i) {
      int64_t& dim = out[offset + i];
      if (shape[i] == dim || shape[i] == 1) continue;
      if (dim != 1) {
        return ctx.invalid(absl::StrCat("dims ", dim, " and ", shape[i], " do not broadcast (shapes ",
                                        absl::StrJoin(shapes, ", ", [](std::string* s, const auto& v) {
                                          absl::StrAppend(s, dimsText(v));
                                        }),
                                        ")"));
      }
      dim = shape[i];
    }
  }
  return out;
}

std::vector<int64_t> broadcastStrides(absl::Span<const int64_t> in_dims,
                                      absl::Span<const int64_t> out_dims) {
  const size_t offset = out_dims.size() - in_dims.size();
  std::vector<int64_t> strides(out_dims.size(), 0);
  int64_t stride = 1;
  for (size_t i = in_dims.size(); i-- > 0;) {
    if (in_dims[i] != 1) strides[offset + i] = stride;
    stride *= in_dims[i];
  }
  return strides;
}

std::vector<int64_t> broadcastIndex(absl::Span<const int64_t> in_dims,
                                    absl::Span<const int64_t> out_dims) {
  const size_t rank = out_dims.size();
  const std::vector<int64_t> strides = broadcastStrides(in_dims, out_dims);
  const int64_t count = product(out_dims);
  std::vector<int64_t> index(static_cast<size_t>(count));
  std::vector<int64_t> counter(rank, 0);
  int64_t at = 0;
  for (int64_t k = 0; k < count; ++k) {
    index[k] = at;
    for (size_t axis = rank; axis-- > 0;) {
      at += strides[axis];
      if (++counter[axis] < out_dims[axis]) break;
      at -= strides[axis] * out_dims[axis];
      counter[axis] = 0;
    }
  }
  return index;
}

absl::StatusOr<int64_t> normalizeAxis(const KernelContext& ctx, int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank) {
    return ctx.invalid(absl::StrCat("axis ", axis, " is out of range for rank ", rank));
  }
  return axis < 0 ? axis + rank : axis;
}

absl::StatusOr<std::vector<int64_t>> readInts(const KernelContext& ctx, const EvalTensor& t) {
  const int64_t count = t.numElements();
  if (t.elem_type == TensorProto::INT64) {
    return std::vector<int64_t>(t.data<int64_t>(), t.data<int64_t>() + count);
  }
  if (t.elem_type == TensorProto::INT32) {
    return std::vector<int64_t>(t.data<int32_t>(), t.data<int32_t>() + count);
  }
  return ctx.invalid(absl::StrCat("expected an int32 or int64 tensor, got ", ir::elemTypeName(t.elem_type)));
}

bool hasKernel(const ir::Node& node) { return findKernel(node).ok(); }

std::vector<std::string> kernelOpTypes() {
  std::vector<std::string> op_types;
  forEachKernel([&](const KernelEntry& entry) { op_types.emplace_back(entry.op_type); });
  std::sort(op_types.begin(), op_types.end());
  op_types.erase(std::unique(op_types.begin(), op_types.end()), op_types.end());
  return op_types;
}

absl::StatusOr<std::vector<TensorProto>> evaluate(const ir::Node& node,
                                                  absl::Span<const TensorProto* const> inputs,
                                                  const EvalLimits& limits) {
  const auto kernel = findKernel(node);
  if (!kernel.ok()) return kernel.status();
  if (inputs.size() != node.inputs().size()) {
    return absl::InvalidArgumentError(absl::StrCat(ir::describe(node), ": ", inputs.size(),
                                                   " inputs given for its ", node.inputs().size()));
  }
  std::vector<EvalTensor> tensors(inputs.size());
  std::vector<const EvalTensor*> pointers(inputs.size(), nullptr);
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i] == nullptr) continue;
    absl::StatusOr<EvalTensor> tensor = fromProto(*inputs[i]);
    if (!tensor.ok()) return badInput(node, i, tensor.status());
    tensors[i] = *std::move(tensor);
    pointers[i] = &tensors[i];
  }
  const KernelContext ctx(node, kernel->second, pointers, limits);
  absl::StatusOr<std::vector<EvalTensor>> outputs = kernel->first->fn(ctx);
  if (!outputs.ok()) return outputs.status();
  if (outputs->size() != node.outputs().size()) {
    return absl::InternalError(absl::StrCat(ir::describe(node), ": its kernel gave ", outputs->size(),
                                            " outputs for the node's ", node.outputs().size()));
  }
  std::vector<TensorProto> protos;
  protos.reserve(outputs->size());
  for (const EvalTensor& output : *outputs) protos.push_back(toProto(output));
  return protos;
}

}  // namespace onnxopt::eval
