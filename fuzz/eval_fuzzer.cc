// (d) bytes -> a small constant subgraph -> fold-shapes, fold-constants -> verify -> save -> load,
// then (one input in four) -O1 the same way. The bytes are not a model: they are decoded into one (GraphDecoder), so
// that every input is a model the importer takes and nearly every mutation reaches the
// evaluator. The model holds a few initializers and Constants of random element type, dims and
// contents (empty tensors with absurd dims, shape and index tensors holding absurd values), graph
// inputs of declared, symbolic and unknown dims (for fold-shapes), and a chain of the operators
// the evaluator implements with random inputs and attributes. Invariants: the passes succeed or
// fail with an error, never crash or allocate past their size guard (the CTest run and the long
// runs pass -malloc_limit_mb), the model verifies afterwards, and a model they changed saves
// and loads back to a model that verifies.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "fuzz_check.h"
#include "onnx/onnx_pb.h"
#include "onnxopt/ir/serialization.h"
#include "onnxopt/ir/verifier.h"
#include "onnxopt/onnxopt.h"

namespace {

using onnx::AttributeProto;
using onnx::TensorProto;

// Reads choices from the fuzz input; past its end every choice is 0, so a short input is a
// small model rather than a rejected one.
class ByteReader {
 public:
  ByteReader(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  uint8_t byte() { return at_ < size_ ? data_[at_++] : 0; }
  bool flag() { return (byte() & 1) != 0; }
  // A value in [0, n), n > 0.
  size_t below(size_t n) { return byte() % n; }
  template <typename T>
  const T& pick(absl::Span<const T> choices) {
    return choices[below(choices.size())];
  }
  // Raw bytes for one element of `size` bytes.
  void fill(char* out, size_t size) {
    for (size_t i = 0; i < size; ++i) out[i] = static_cast<char>(byte());
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t at_ = 0;
};

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();

// Integers worth trying as contents, axes and attributes: small ones (axes, indices, sizes),
// the edges of int32 and int64, and sizes whose products overflow.
constexpr int64_t kInterestingInts[] = {
    0, 1, 2, 3, 4, -1, -2, -3, 5, 7, 8, 16, 255, 256, 65535, 1 << 20,
    int64_t{1} << 31, (int64_t{1} << 31) - 1, -(int64_t{1} << 31), int64_t{1} << 32,
    int64_t{1} << 40, 1000000000000000000, kInt64Max, kInt64Min, kInt64Max - 1, kInt64Min + 1,
};
constexpr double kInterestingFloats[] = {
    0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 3.0, -2.5, 1e-45, 1e-310, 65504.0, 65520.0, 3.4e38, 1e39,
    2147483648.0, 9.3e18, -9.3e18, std::numeric_limits<double>::infinity(),
    -std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN(),
};
// The element types a tensor may have: all the evaluator computes on, and two it does not.
constexpr int32_t kElemTypes[] = {
    TensorProto::FLOAT,  TensorProto::DOUBLE, TensorProto::FLOAT16, TensorProto::BFLOAT16,
    TensorProto::INT8,   TensorProto::INT16,  TensorProto::INT32,   TensorProto::INT64,
    TensorProto::UINT8,  TensorProto::UINT16, TensorProto::UINT32,  TensorProto::UINT64,
    TensorProto::BOOL,   TensorProto::STRING, TensorProto::INT64,   TensorProto::INT64,
    TensorProto::FLOAT,  TensorProto::INT32,  TensorProto::COMPLEX64, TensorProto::FLOAT,
};
constexpr int64_t kOpsets[] = {7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23};
// Elements a decoded tensor holds at most: the model stays small, as the fuzzer's inputs are.
constexpr int64_t kMaxElements = 64;

enum class Kind { kInt, kInts, kFloat, kElemType, kTensor };
struct AttributeSpec {
  const char* name;
  Kind kind;
};
// An operator of the evaluator, with the input counts and attributes its versions take
// (the versions differ: Squeeze's axes are an attribute before 13, an input from 13).
struct OpSpec {
  const char* op_type;
  int min_inputs;
  int max_inputs;
  std::vector<AttributeSpec> attributes;
  int max_outputs = 1;
};

const std::vector<OpSpec>& opSpecs() {
  static const auto* const specs = new std::vector<OpSpec>{
      {"Identity", 1, 1, {}},
      {"Cast", 1, 1, {{"to", Kind::kElemType}}},
      {"CastLike", 2, 2, {}},
      {"Shape", 1, 1, {{"start", Kind::kInt}, {"end", Kind::kInt}}},
      {"Size", 1, 1, {}},
      {"Reshape", 2, 2, {{"allowzero", Kind::kInt}}},
      {"Flatten", 1, 1, {{"axis", Kind::kInt}}},
      {"Squeeze", 1, 2, {{"axes", Kind::kInts}}},
      {"Unsqueeze", 1, 2, {{"axes", Kind::kInts}}},
      {"Concat", 1, 3, {{"axis", Kind::kInt}}},
      {"Split", 1, 2, {{"axis", Kind::kInt}, {"split", Kind::kInts}, {"num_outputs", Kind::kInt}}, 3},
      {"Slice", 1, 5, {{"starts", Kind::kInts}, {"ends", Kind::kInts}, {"axes", Kind::kInts}}},
      {"Gather", 2, 2, {{"axis", Kind::kInt}}},
      {"GatherElements", 2, 2, {{"axis", Kind::kInt}}},
      {"ScatterND", 3, 3, {}},
      {"Transpose", 1, 1, {{"perm", Kind::kInts}}},
      {"Expand", 2, 2, {}},
      {"Tile", 2, 2, {}},
      {"ConstantOfShape", 1, 1, {{"value", Kind::kTensor}}},
      {"Range", 3, 3, {}},
      {"Where", 3, 3, {}},
      {"Equal", 2, 2, {}},
      {"Less", 2, 2, {}},
      {"Greater", 2, 2, {}},
      {"LessOrEqual", 2, 2, {}},
      {"GreaterOrEqual", 2, 2, {}},
      {"Not", 1, 1, {}},
      {"And", 2, 2, {{"broadcast", Kind::kInt}, {"axis", Kind::kInt}}},
      {"Or", 2, 2, {{"broadcast", Kind::kInt}, {"axis", Kind::kInt}}},
      {"Add", 2, 2, {{"broadcast", Kind::kInt}, {"axis", Kind::kInt}}},
      {"Sub", 2, 2, {{"broadcast", Kind::kInt}, {"axis", Kind::kInt}}},
      {"Mul", 2, 2, {{"broadcast", Kind::kInt}, {"axis", Kind::kInt}}},
      {"Div", 2, 2, {{"broadcast", Kind::kInt}, {"axis", Kind::kInt}}},
      {"Mod", 2, 2, {{"fmod", Kind::kInt}}},
      {"Pow", 2, 2, {{"broadcast", Kind::kInt}, {"axis", Kind::kInt}}},
      {"Min", 1, 3, {}},
      {"Max", 1, 3, {}},
      {"Neg", 1, 1, {}},
      {"Abs", 1, 1, {}},
      {"Sqrt", 1, 1, {}},
      {"Reciprocal", 1, 1, {}},
      {"Exp", 1, 1, {}},
      {"Log", 1, 1, {}},
      {"Floor", 1, 1, {}},
      {"Ceil", 1, 1, {}},
      {"Round", 1, 1, {}},
      {"Relu", 1, 1, {}},
      {"Sigmoid", 1, 1, {}},
      {"Tanh", 1, 1, {}},
      {"Erf", 1, 1, {}},
      {"Sign", 1, 1, {}},
      {"IsNaN", 1, 1, {}},
      {"Clip", 1, 3, {{"min", Kind::kFloat}, {"max", Kind::kFloat}}},
      {"ReduceSum", 1, 2, {{"axes", Kind::kInts}, {"keepdims", Kind::kInt}, {"noop_with_empty_axes", Kind::kInt}}},
      {"ReduceMean", 1, 2, {{"axes", Kind::kInts}, {"keepdims", Kind::kInt}, {"noop_with_empty_axes", Kind::kInt}}},
      {"ReduceProd", 1, 2, {{"axes", Kind::kInts}, {"keepdims", Kind::kInt}, {"noop_with_empty_axes", Kind::kInt}}},
      {"ReduceMin", 1, 2, {{"axes", Kind::kInts}, {"keepdims", Kind::kInt}, {"noop_with_empty_axes", Kind::kInt}}},
      {"ReduceMax", 1, 2, {{"axes", Kind::kInts}, {"keepdims", Kind::kInt}, {"noop_with_empty_axes", Kind::kInt}}},
      {"NonZero", 1, 1, {}},
  };
  return *specs;
}

class GraphDecoder {
 public:
  explicit GraphDecoder(ByteReader& in) : in_(in) {}

  onnx::ModelProto decode() {
    onnx::ModelProto model;
    // IR version 3 wants every initializer to be a graph input: fold-constants declines it.
    model.set_ir_version(in_.below(16) == 0 ? 3 : 8);
    model.add_opset_import()->set_version(in_.pick<int64_t>(kOpsets));
    graph_ = model.mutable_graph();
    graph_->set_name("eval_fuzz");
    for (size_t i = 0, n = in_.below(3); i < n; ++i) addGraphInput(i);
    for (size_t i = 0, n = 1 + in_.below(4); i < n; ++i) addConstant(i);
    for (size_t i = 0, n = 1 + in_.below(6); i < n; ++i) addNode(i);
    // The last node's outputs, and sometimes an earlier value, are the graph's outputs.
    for (const std::string& name : last_outputs_) addGraphOutput(name);
    if (in_.flag()) addGraphOutput(values_[in_.below(values_.size())]);
    return model;
  }

 private:
  std::vector<int64_t> decodeDims(bool declared) {
    std::vector<int64_t> dims(in_.below(5));
    int64_t elements = 1;
    for (int64_t& dim : dims) {
      const uint8_t choice = in_.byte();
      // Mostly small; sometimes 0 (an empty tensor, whose other dims may then be absurd).
      dim = choice < 200 ? 1 + choice % 4 : choice < 230 ? 0 : in_.pick<int64_t>(kInterestingInts);
      if (dim < 0) dim = 1 - dim % 1000;  // a dim of a tensor is never negative
      if (dim == 0) elements = 0;
    }
    if (declared || elements == 0) return dims;
    // Data for at most kMaxElements: shrink dims from the last until it fits (2^4 always does).
    const auto elementCount = [&dims] {
      int64_t product = 1;
      for (int64_t dim : dims) product = std::min(product * std::min(dim, kMaxElements + 1), kMaxElements + 1);
      return product;
    };
    for (size_t i = dims.size(); i-- > 0 && elementCount() > kMaxElements;) dims[i] = 1 + dims[i] % 2;
    return dims;
  }

  void fillElement(int32_t elem_type, std::string& raw) {
    const size_t at = raw.size();
    switch (elem_type) {
      case TensorProto::FLOAT: {
        const float value = static_cast<float>(in_.pick<double>(kInterestingFloats));
        raw.append(reinterpret_cast<const char*>(&value), sizeof value);
        return;
      }
      case TensorProto::DOUBLE: {
        const double value = in_.pick<double>(kInterestingFloats);
        raw.append(reinterpret_cast<const char*>(&value), sizeof value);
        return;
      }
      case TensorProto::INT64:
      case TensorProto::INT32:
      case TensorProto::UINT64: {
        const int64_t value = in_.pick<int64_t>(kInterestingInts);
        raw.append(reinterpret_cast<const char*>(&value), elem_type == TensorProto::INT32 ? 4 : 8);
        return;
      }
      case TensorProto::BOOL:
        raw.push_back(static_cast<char>(in_.byte() & 1));
        return;
      default: {
        // Raw bits for the other types: every float16/bfloat16 pattern, NaNs included.
        const size_t size = elem_type == TensorProto::INT8 || elem_type == TensorProto::UINT8 ? 1
                            : elem_type == TensorProto::COMPLEX64                             ? 8
                            : elem_type == TensorProto::UINT32                                ? 4
                                                                                              : 2;
        raw.resize(at + size);
        in_.fill(&raw[at], size);
      }
    }
  }

  TensorProto decodeTensor(const std::string& name) {
    TensorProto tensor;
    tensor.set_name(name);
    const int32_t elem_type = in_.pick<int32_t>(kElemTypes);
    tensor.set_data_type(elem_type);
    // Index and shape tensors are mostly 1-D int64.
    const std::vector<int64_t> dims =
        elem_type == TensorProto::INT64 && in_.flag() ? std::vector<int64_t>{1 + static_cast<int64_t>(in_.below(4))}
                                                      : decodeDims(false);
    // decodeDims bounds the product unless a dim is 0, when the others may be absurd.
    const bool empty = std::find(dims.begin(), dims.end(), 0) != dims.end();
    int64_t count = 1;
    for (int64_t dim : dims) {
      tensor.add_dims(dim);
      if (!empty) count *= dim;
    }
    if (empty) count = 0;
    std::string raw;
    for (int64_t i = 0; i < count; ++i) {
      if (elem_type == TensorProto::STRING) {
        tensor.add_string_data(std::string(in_.below(3), static_cast<char>('a' + in_.below(3))));
      } else {
        fillElement(elem_type, raw);
      }
    }
    if (elem_type != TensorProto::STRING) tensor.set_raw_data(raw);
    return tensor;
  }

  void setType(onnx::TypeProto& type, bool with_shape) {
    onnx::TypeProto::Tensor* tensor = type.mutable_tensor_type();
    tensor->set_elem_type(in_.pick<int32_t>(kElemTypes));
    if (!with_shape) return;
    onnx::TensorShapeProto* shape = tensor->mutable_shape();
    for (int64_t dim : decodeDims(true)) {
      onnx::TensorShapeProto::Dimension* d = shape->add_dim();
      switch (in_.below(4)) {
        case 0: d->set_dim_param(in_.flag() ? "N" : "B"); break;
        case 1: break;  // unknown
        default: d->set_dim_value(dim);
      }
    }
  }

  void addGraphInput(size_t i) {
    onnx::ValueInfoProto* input = graph_->add_input();
    input->set_name(absl::StrCat("x", i));
    setType(*input->mutable_type(), in_.below(4) != 0);
    values_.push_back(input->name());
  }

  // An initializer, or a Constant node that lift-constants turns into one under -O1.
  void addConstant(size_t i) {
    const std::string name = absl::StrCat("c", i);
    TensorProto tensor = decodeTensor(name);
    if (in_.below(4) == 0) {
      onnx::NodeProto* node = graph_->add_node();
      node->set_op_type("Constant");
      node->add_output(name);
      tensor.clear_name();
      AttributeProto* value = node->add_attribute();
      value->set_name("value");
      value->set_type(AttributeProto::TENSOR);
      *value->mutable_t() = std::move(tensor);
    } else {
      *graph_->add_initializer() = std::move(tensor);
    }
    values_.push_back(name);
  }

  void addAttribute(onnx::NodeProto& node, const AttributeSpec& spec) {
    AttributeProto* attribute = node.add_attribute();
    attribute->set_name(spec.name);
    switch (spec.kind) {
      case Kind::kInt:
        attribute->set_type(AttributeProto::INT);
        attribute->set_i(in_.pick<int64_t>(kInterestingInts));
        return;
      case Kind::kInts:
        attribute->set_type(AttributeProto::INTS);
        for (size_t i = 0, n = in_.below(5); i < n; ++i) attribute->add_ints(in_.pick<int64_t>(kInterestingInts));
        return;
      case Kind::kFloat:
        attribute->set_type(AttributeProto::FLOAT);
        attribute->set_f(static_cast<float>(in_.pick<double>(kInterestingFloats)));
        return;
      case Kind::kElemType:
        attribute->set_type(AttributeProto::INT);
        attribute->set_i(in_.below(8) == 0 ? in_.byte() : in_.pick<int32_t>(kElemTypes));
        return;
      case Kind::kTensor:
        attribute->set_type(AttributeProto::TENSOR);
        *attribute->mutable_t() = decodeTensor("");
        return;
    }
  }

  void addNode(size_t i) {
    const OpSpec& spec = in_.pick<OpSpec>(opSpecs());
    onnx::NodeProto* node = graph_->add_node();
    node->set_op_type(spec.op_type);
    node->set_name(absl::StrCat("n", i));
    const int inputs = spec.min_inputs + static_cast<int>(in_.below(spec.max_inputs - spec.min_inputs + 1));
    for (int k = 0; k < inputs; ++k) {
      // Optional inputs past the first may be omitted ("").
      const bool omitted = k >= spec.min_inputs && in_.below(4) == 0;
      // Mostly the newest values, so that the nodes form a chain.
      const size_t back = in_.below(4) == 0 ? in_.below(values_.size()) : in_.below(std::min<size_t>(2, values_.size()));
      node->add_input(omitted ? "" : values_[values_.size() - 1 - back]);
    }
    for (const AttributeSpec& attribute : spec.attributes) {
      if (in_.below(3) == 0) addAttribute(*node, attribute);
    }
    last_outputs_.clear();
    for (size_t k = 0, n = 1 + in_.below(spec.max_outputs); k < n; ++k) {
      node->add_output(absl::StrCat("n", i, "_", k));
      last_outputs_.push_back(node->output(k));
    }
    // Declared types of intermediate values, right or wrong: folding must respect them.
    if (in_.below(4) == 0) {
      onnx::ValueInfoProto* info = graph_->add_value_info();
      info->set_name(node->output(0));
      setType(*info->mutable_type(), in_.flag());
    }
    values_.insert(values_.end(), last_outputs_.begin(), last_outputs_.end());
  }

  void addGraphOutput(const std::string& name) {
    for (const onnx::ValueInfoProto& output : graph_->output()) {
      if (output.name() == name) return;
    }
    onnx::ValueInfoProto* output = graph_->add_output();
    output->set_name(name);
  }

  ByteReader& in_;
  onnx::GraphProto* graph_ = nullptr;
  std::vector<std::string> values_;  // every value a node may read, oldest first
  std::vector<std::string> last_outputs_;
};

// The invariants after a pipeline: the model verifies, and if the pipeline changed it, it saves
// and loads back to a model that verifies.
void checkAfter(const onnxopt::ir::Model& model, const std::string& before, const char* pipeline) {
  using namespace onnxopt;
  fuzz::check(ir::verify(model), absl::StrCat("the model verifies after ", pipeline));
  const std::string saved =
      fuzz::checked(ir::saveModelToBytes(model), absl::StrCat("the model saves after ", pipeline));
  if (saved == before) return;
  std::unique_ptr<ir::Model> reloaded = fuzz::checked(
      ir::loadModelFromBytes(saved, fuzz::loadOptions()),
      absl::StrCat("the model ", pipeline, " changed loads back"));
  fuzz::check(ir::verify(*reloaded), absl::StrCat("the model ", pipeline, " changed verifies after loading"));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace onnxopt;
  ByteReader in(data, size);
  // Mostly off: most decoded models have a node the check refuses, and with it on nothing folds.
  const bool check_nodes = in.below(4) == 0;
  // -O1 costs three times what the folds do, and optimize_fuzzer runs it on every input: here it
  // runs on one input in four, so that a long run is mostly the evaluator.
  const bool run_o1 = in.below(4) == 0;
  onnx::ModelProto proto = GraphDecoder(in).decode();
  absl::StatusOr<std::unique_ptr<ir::Model>> imported = ir::importModel(std::move(proto), fuzz::loadOptions());
  // A decoded model may still be one the importer refuses (a Constant of an element type it
  // rejects, ...): refusing it breaks nothing.
  if (!imported.ok() || !ir::verify(**imported).ok()) return 0;
  ir::Model& model = **imported;

  OptimizeOptions options;
  // With the node checks on, a malformed node refuses the model; with them off (--no-check) the
  // passes must leave it alone and fold the rest.
  options.check = check_nodes;
  std::string before = fuzz::checked(ir::saveModelToBytes(model), "a decoded model saves");
  // The status is not checked: a pass may refuse a model. The model must stay valid regardless.
  (void)optimizeModel(model, "fold-shapes,fold-constants", options);
  checkAfter(model, before, "by fold-shapes,fold-constants");

  if (!run_o1) return 0;
  before = fuzz::checked(ir::saveModelToBytes(model), "a folded model saves");
  options.fixed_point = true;  // as the CLI runs -O1
  (void)optimizeModel(model, "-O1", options);
  checkAfter(model, before, "by -O1");
  return 0;
}
