// The generator of the kernel-vs-ONNX-Runtime test: for every registered case it evaluates the
// node with eval::evaluate and writes, under OUT_DIR/<case name>/, a one-node model whose inputs
// are graph inputs and the backend-test-data layout (test_data_set_0/input_<i>.pb, output_<i>.pb)
// with the evaluator's outputs as the expected ones, plus OUT_DIR/cases.tsv (name, match). A case
// the evaluator declines is an error of the table: cases are for kernels that compute.
//
// onnxruntime-node cannot pass bfloat16 tensors, so a bfloat16 input is fed as float (its values
// are exact in bfloat16) through a Cast to bfloat16, and a bfloat16 output leaves through a Cast
// to float; both casts are exact.
//
// usage: eval_kernel_cases OUT_DIR [NAME_SUBSTRING]

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernel_cases.h"
#include "onnxopt/eval/evaluator.h"
#include "onnxopt/ir/serialization.h"
#include "onnxopt/ir/type.h"
#include "onnxopt/rewrite/tensor_util.h"

namespace onnxopt::kernel_cases {
namespace {

using onnx::TensorProto;

std::vector<AddCasesFn>& families() {
  static std::vector<AddCasesFn> list;
  return list;
}

int64_t irVersionFor(int64_t opset) {
  if (opset >= 23) return 11;
  if (opset >= 21) return 10;
  if (opset >= 18) return 9;
  return 8;
}

template <typename T>
void appendRaw(std::string* raw, T value) {
  raw->append(reinterpret_cast<const char*>(&value), sizeof(value));
}

// A bfloat16 tensor widened to float (exactly); other tensors as they are.
TensorProto forOrt(const TensorProto& tensor) {
  if (tensor.data_type() != TensorProto::BFLOAT16) return tensor;
  std::string scratch;
  const auto bytes = elementBytes(tensor, &scratch);
  std::string raw;
  for (size_t i = 0; bytes && i + 1 < bytes->size(); i += 2) {
    uint16_t bits;
    std::memcpy(&bits, bytes->data() + i, 2);
    appendRaw(&raw, bfloat16ToFloat(bits));
  }
  TensorProto out = makeTensor(TensorProto::FLOAT, std::vector<int64_t>(tensor.dims().begin(), tensor.dims().end()), raw);
  out.set_name(tensor.name());
  return out;
}

void setValueInfo(onnx::ValueInfoProto* info, const std::string& name, int32_t elem_type,
                  const google::protobuf::RepeatedField<int64_t>& dims) {
  info->set_name(name);
  auto* tensor_type = info->mutable_type()->mutable_tensor_type();
  tensor_type->set_elem_type(elem_type);
  auto* shape = tensor_type->mutable_shape();
  for (const int64_t dim : dims) shape->add_dim()->set_dim_value(dim);
}

void addCast(onnx::GraphProto* graph, const std::string& from, const std::string& to,
             int32_t elem_type) {
  onnx::NodeProto* cast = graph->add_node();
  cast->set_op_type("Cast");
  cast->add_input(from);
  cast->add_output(to);
  *cast->add_attribute() = attrInt("to", elem_type);
}

// The case's node alone, its inputs graph inputs of their own types: what the evaluator sees.
onnx::ModelProto oneNodeModel(const KernelCase& c) {
  onnx::ModelProto model;
  model.set_ir_version(irVersionFor(c.opset));
  auto* opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(c.opset);
  onnx::GraphProto* graph = model.mutable_graph();
  graph->set_name(c.name);
  onnx::NodeProto* node = graph->add_node();
  node->set_name("op");
  node->set_op_type(c.op_type);
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    if (!c.inputs[i]) {
      node->add_input("");
      continue;
    }
    const std::string name = absl::StrCat("x", i);
    node->add_input(name);
    setValueInfo(graph->add_input(), name, c.inputs[i]->data_type(), c.inputs[i]->dims());
  }
  for (const onnx::AttributeProto& attribute : c.attributes) *node->add_attribute() = attribute;
  for (int j = 0; j < c.num_outputs; ++j) node->add_output(absl::StrCat("y", j));
  return model;
}

// The model ONNX Runtime runs: the one-node model with bfloat16 crossings through Casts.
onnx::ModelProto ortModel(const KernelCase& c, const std::vector<TensorProto>& outputs) {
  onnx::ModelProto model = oneNodeModel(c);
  onnx::GraphProto* graph = model.mutable_graph();
  const onnx::NodeProto op = graph->node(0);
  const auto inputs = graph->input();
  graph->clear_node();
  graph->clear_input();
  for (const onnx::ValueInfoProto& input : inputs) {
    onnx::ValueInfoProto* fed = graph->add_input();
    *fed = input;
    if (input.type().tensor_type().elem_type() == TensorProto::BFLOAT16) {
      fed->set_name(input.name() + "_float");
      fed->mutable_type()->mutable_tensor_type()->set_elem_type(TensorProto::FLOAT);
      addCast(graph, fed->name(), input.name(), TensorProto::BFLOAT16);
    }
  }
  *graph->add_node() = op;
  for (size_t j = 0; j < outputs.size(); ++j) {
    const std::string name = absl::StrCat("y", j);
    if (outputs[j].data_type() == TensorProto::BFLOAT16) {
      addCast(graph, name, name + "_float", TensorProto::FLOAT);
      setValueInfo(graph->add_output(), name + "_float", TensorProto::FLOAT, outputs[j].dims());
    } else {
      setValueInfo(graph->add_output(), name, outputs[j].data_type(), outputs[j].dims());
    }
  }
  return model;
}

bool writeProto(const std::filesystem::path& path, const google::protobuf::MessageLite& message) {
  std::ofstream out(path, std::ios::binary);
  return message.SerializeToOstream(&out) && out.good();
}

// Writes the case; false (with a message) when the evaluator declines it or a file fails.
bool generate(const KernelCase& c, const std::filesystem::path& dir, std::ostream& manifest) {
  absl::StatusOr<std::unique_ptr<ir::Model>> model = ir::importModel(oneNodeModel(c));
  if (!model.ok()) {
    std::cerr << c.name << ": the case's model does not import: " << model.status() << "\n";
    return false;
  }
  std::vector<const TensorProto*> inputs;
  for (const auto& input : c.inputs) inputs.push_back(input ? &*input : nullptr);
  absl::StatusOr<std::vector<TensorProto>> outputs =
      eval::evaluate(*(*model)->graph().firstNode(), inputs);
  if (!outputs.ok()) {
    std::cerr << c.name << ": the evaluator declines: " << outputs.status() << "\n";
    return false;
  }
  const std::filesystem::path case_dir = dir / c.name;
  const std::filesystem::path data_dir = case_dir / "test_data_set_0";
  std::filesystem::create_directories(data_dir);
  bool ok = writeProto(case_dir / "model.onnx", ortModel(c, *outputs));
  int fed = 0;
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    if (!c.inputs[i]) continue;
    TensorProto tensor = forOrt(*c.inputs[i]);
    tensor.set_name(absl::StrCat("x", i, c.inputs[i]->data_type() == TensorProto::BFLOAT16 ? "_float" : ""));
    ok = ok && writeProto(data_dir / absl::StrCat("input_", fed++, ".pb"), tensor);
  }
  for (size_t j = 0; j < outputs->size(); ++j) {
    ok = ok && writeProto(data_dir / absl::StrCat("output_", j, ".pb"), forOrt((*outputs)[j]));
  }
  if (!ok) {
    std::cerr << c.name << ": cannot write " << case_dir << "\n";
    return false;
  }
  manifest << c.name << "\t" << (c.match == Match::kExact ? "exact" : "ulp4") << "\n";
  return true;
}

}  // namespace

CaseFamily::CaseFamily(const char*, AddCasesFn add) { families().push_back(add); }

const std::vector<int32_t> kFloatTypes = {TensorProto::FLOAT, TensorProto::DOUBLE, TensorProto::FLOAT16,
                                          TensorProto::BFLOAT16};
const std::vector<int32_t> kIntegerTypes = {TensorProto::INT8,  TensorProto::INT16,  TensorProto::INT32,
                                            TensorProto::INT64, TensorProto::UINT8,  TensorProto::UINT16,
                                            TensorProto::UINT32, TensorProto::UINT64};
const std::vector<int32_t> kNumericTypes = [] {
  std::vector<int32_t> types = kFloatTypes;
  types.insert(types.end(), kIntegerTypes.begin(), kIntegerTypes.end());
  return types;
}();
const std::vector<int32_t> kAllFixedTypes = [] {
  std::vector<int32_t> types = kNumericTypes;
  types.push_back(TensorProto::BOOL);
  return types;
}();
const std::vector<int32_t> kAllTypes = [] {
  std::vector<int32_t> types = kAllFixedTypes;
  types.push_back(TensorProto::STRING);
  return types;
}();

std::string typeName(int32_t elem_type) { return ir::elemTypeName(elem_type); }

std::string dimsName(const std::vector<int64_t>& dims) {
  return dims.empty() ? "scalar" : absl::StrJoin(dims, "x");
}

TensorProto randomTensor(int32_t elem_type, const std::vector<int64_t>& dims, std::mt19937_64& rng,
                         Range range) {
  int64_t count = 1;
  for (const int64_t dim : dims) count *= dim;
  if (elem_type == TensorProto::STRING) {
    TensorProto tensor;
    tensor.set_data_type(TensorProto::STRING);
    for (const int64_t dim : dims) tensor.add_dims(dim);
    for (int64_t k = 0; k < count; ++k) tensor.add_string_data(absl::StrCat("s", rng() % 10));
    return tensor;
  }
  std::uniform_real_distribution<double> real(range.low, range.high);
  auto integer = [&](double low, double high) {
    const int64_t lo = static_cast<int64_t>(std::ceil(std::max(range.low, low)));
    const int64_t hi = static_cast<int64_t>(std::floor(std::min(range.high, high)));
    return std::uniform_int_distribution<int64_t>(lo, std::max(lo, hi))(rng);
  };
  std::string raw;
  for (int64_t k = 0; k < count; ++k) {
    switch (elem_type) {
      case TensorProto::FLOAT: appendRaw(&raw, static_cast<float>(real(rng))); break;
      case TensorProto::DOUBLE: appendRaw(&raw, real(rng)); break;
      case TensorProto::FLOAT16: appendRaw(&raw, floatToHalf(static_cast<float>(real(rng)))); break;
      case TensorProto::BFLOAT16: appendRaw(&raw, floatToBfloat16(static_cast<float>(real(rng)))); break;
      case TensorProto::INT8: appendRaw(&raw, static_cast<int8_t>(integer(-128, 127))); break;
      case TensorProto::INT16: appendRaw(&raw, static_cast<int16_t>(integer(-32768, 32767))); break;
      case TensorProto::INT32: appendRaw(&raw, static_cast<int32_t>(integer(-2147483648.0, 2147483647.0))); break;
      case TensorProto::INT64: appendRaw(&raw, integer(-9e18, 9e18)); break;
      case TensorProto::UINT8: appendRaw(&raw, static_cast<uint8_t>(integer(0, 255))); break;
      case TensorProto::UINT16: appendRaw(&raw, static_cast<uint16_t>(integer(0, 65535))); break;
      case TensorProto::UINT32: appendRaw(&raw, static_cast<uint32_t>(integer(0, 4294967295.0))); break;
      case TensorProto::UINT64: appendRaw(&raw, static_cast<uint64_t>(integer(0, 9e18))); break;
      case TensorProto::BOOL: appendRaw(&raw, static_cast<uint8_t>(rng() & 1)); break;
      default: std::cerr << "randomTensor: element type " << elem_type << "\n"; std::abort();
    }
  }
  return makeTensor(elem_type, dims, std::move(raw));
}

TensorProto int64Tensor(const std::vector<int64_t>& dims, const std::vector<int64_t>& values) {
  std::string raw(values.size() * sizeof(int64_t), '\0');
  std::memcpy(raw.data(), values.data(), raw.size());
  return makeTensor(TensorProto::INT64, dims, std::move(raw));
}

TensorProto int32Tensor(const std::vector<int64_t>& dims, const std::vector<int32_t>& values) {
  std::string raw(values.size() * sizeof(int32_t), '\0');
  std::memcpy(raw.data(), values.data(), raw.size());
  return makeTensor(TensorProto::INT32, dims, std::move(raw));
}

TensorProto int64s(const std::vector<int64_t>& values) {
  return int64Tensor({static_cast<int64_t>(values.size())}, values);
}

onnx::AttributeProto attrInt(const std::string& name, int64_t value) {
  onnx::AttributeProto attribute;
  attribute.set_name(name);
  attribute.set_type(onnx::AttributeProto::INT);
  attribute.set_i(value);
  return attribute;
}

onnx::AttributeProto attrInts(const std::string& name, const std::vector<int64_t>& values) {
  onnx::AttributeProto attribute;
  attribute.set_name(name);
  attribute.set_type(onnx::AttributeProto::INTS);
  for (const int64_t value : values) attribute.add_ints(value);
  return attribute;
}

onnx::AttributeProto attrFloat(const std::string& name, float value) {
  onnx::AttributeProto attribute;
  attribute.set_name(name);
  attribute.set_type(onnx::AttributeProto::FLOAT);
  attribute.set_f(value);
  return attribute;
}

onnx::AttributeProto attrTensor(const std::string& name, const TensorProto& value) {
  onnx::AttributeProto attribute;
  attribute.set_name(name);
  attribute.set_type(onnx::AttributeProto::TENSOR);
  *attribute.mutable_t() = value;
  return attribute;
}

}  // namespace onnxopt::kernel_cases

int main(int argc, char** argv) {
  using namespace onnxopt::kernel_cases;
  if (argc < 2 || argc > 3) {
    std::cerr << "usage: eval_kernel_cases OUT_DIR [NAME_SUBSTRING]\n";
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  const std::string filter = argc == 3 ? argv[2] : "";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  CaseList cases;
  for (const AddCasesFn add : families()) add(cases);
  std::ofstream manifest(dir / "cases.tsv");
  std::set<std::string> names;
  int failed = 0;
  int written = 0;
  for (const KernelCase& c : cases) {
    if (!names.insert(c.name).second) {
      std::cerr << c.name << ": two cases of this name\n";
      ++failed;
      continue;
    }
    if (c.name.find(filter) == std::string::npos) continue;
    if (generate(c, dir, manifest)) {
      ++written;
    } else {
      ++failed;
    }
  }
  std::cout << written << " cases written to " << dir.string() << ", " << failed << " failed\n";
  return failed == 0 ? 0 : 1;
}
