// Weights that passes create in a model that keeps its weights as external data are saved as
// external data too (issue 18): a folded Transpose of an external weight goes to the output's
// data file, a folded tensor under SaveOptions::external_data_threshold stays inline, and a
// model that had no external data stays all inline. The outputs, computed with the evaluator
// node by node, are the same before and after.

#include <stdlib.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "onnxopt/eval/evaluator.h"
#include "onnxopt/ir/serialization.h"
#include "onnxopt/onnxopt.h"

namespace onnxopt {
namespace {

namespace fs = std::filesystem;

constexpr int64_t kRows = 16, kCols = 32;  // W: 2 KiB of floats, over the 1 KiB threshold
constexpr int64_t kBiasOffset = 4096;      // B's bytes in the data file

std::string floatBytes(const std::vector<float>& values) {
  std::string bytes(values.size() * sizeof(float), '\0');
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

std::string weightBytes() {
  std::vector<float> values(kRows * kCols);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i) * 0.25f - 3.0f;
  return floatBytes(values);
}

std::string biasBytes() {
  const std::vector<int32_t> values = {-2, 0, 7, 100000};
  std::string bytes(values.size() * sizeof(int32_t), '\0');
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

void addTensorInput(onnx::GraphProto* graph, const std::string& name, std::vector<int64_t> dims) {
  onnx::ValueInfoProto* input = graph->add_input();
  input->set_name(name);
  auto* type = input->mutable_type()->mutable_tensor_type();
  type->set_elem_type(onnx::TensorProto::FLOAT);
  for (int64_t dim : dims) type->mutable_shape()->add_dim()->set_dim_value(dim);
}

onnx::NodeProto* addNode(onnx::GraphProto* graph, const std::string& op,
                         std::vector<std::string> inputs, const std::string& output) {
  onnx::NodeProto* node = graph->add_node();
  node->set_op_type(op);
  node->set_name(output + "_node");
  for (const std::string& input : inputs) node->add_input(input);
  node->add_output(output);
  return node;
}

// Y = X + Transpose(W), Z = X2 + Cast(B to float): both weights fold, W^T of 2 KiB, B's cast of
// 16 bytes. `external` puts W and B in "weights.bin" (W at 0, B at 4096), else inline.
onnx::ModelProto foldableModel(bool external) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(13);
  onnx::GraphProto* graph = model.mutable_graph();
  graph->set_name("foldable_weights");
  addTensorInput(graph, "X", {kCols, kRows});
  addTensorInput(graph, "X2", {4});
  auto add_weight = [&](const std::string& name, int32_t type, std::vector<int64_t> dims,
                        std::string bytes, int64_t offset) {
    onnx::TensorProto* tensor = graph->add_initializer();
    tensor->set_name(name);
    tensor->set_data_type(type);
    for (int64_t dim : dims) tensor->add_dims(dim);
    if (!external) {
      tensor->set_raw_data(std::move(bytes));
      return;
    }
    tensor->set_data_location(onnx::TensorProto::EXTERNAL);
    auto add_entry = [tensor](const std::string& key, const std::string& value) {
      auto* entry = tensor->add_external_data();
      entry->set_key(key);
      entry->set_value(value);
    };
    add_entry("location", "weights.bin");
    add_entry("offset", std::to_string(offset));
    add_entry("length", std::to_string(bytes.size()));
  };
  add_weight("W", onnx::TensorProto::FLOAT, {kRows, kCols}, weightBytes(), 0);
  add_weight("B", onnx::TensorProto::INT32, {4}, biasBytes(), kBiasOffset);
  addNode(graph, "Transpose", {"W"}, "Wt");
  addNode(graph, "Add", {"X", "Wt"}, "Y");
  onnx::AttributeProto* to = addNode(graph, "Cast", {"B"}, "Bf")->add_attribute();
  to->set_name("to");
  to->set_type(onnx::AttributeProto::INT);
  to->set_i(onnx::TensorProto::FLOAT);
  addNode(graph, "Add", {"X2", "Bf"}, "Z");
  graph->add_output()->set_name("Y");
  graph->add_output()->set_name("Z");
  return model;
}

onnx::TensorProto floatTensor(std::vector<int64_t> dims, const std::vector<float>& values) {
  onnx::TensorProto tensor;
  tensor.set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t dim : dims) tensor.add_dims(dim);
  tensor.set_raw_data(floatBytes(values));
  return tensor;
}

// The graph outputs' bytes for fixed X and X2, each node run by the evaluator in model order.
std::vector<std::string> runWithEvaluator(const std::string& path) {
  absl::StatusOr<std::unique_ptr<ir::Model>> model =
      ir::loadModelFromFile(path, {.load_external_data = true});
  EXPECT_TRUE(model.ok()) << model.status();
  if (!model.ok()) return {};
  std::vector<float> x(kCols * kRows);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 7) - 1.5f;
  std::map<std::string, onnx::TensorProto> values = {
      {"X", floatTensor({kCols, kRows}, x)}, {"X2", floatTensor({4}, {0.5f, -1.0f, 2.0f, 8.0f})}};
  const ir::Graph& graph = (*model)->graph();
  for (const ir::Value* initializer : graph.initializers()) {
    values[initializer->name()] = initializer->initializer()->proto();
  }
  for (const ir::Node& node : graph) {
    std::vector<const onnx::TensorProto*> inputs;
    for (const ir::Value* input : node.inputs()) inputs.push_back(&values.at(input->name()));
    absl::StatusOr<std::vector<onnx::TensorProto>> outputs = eval::evaluate(node, inputs);
    EXPECT_TRUE(outputs.ok()) << outputs.status();
    if (!outputs.ok()) return {};
    for (size_t i = 0; i < outputs->size(); ++i) values[node.output(i)->name()] = (*outputs)[i];
  }
  std::vector<std::string> results;
  for (const ir::Value* output : graph.outputs()) results.push_back(values.at(output->name()).raw_data());
  return results;
}

onnx::ModelProto readProto(const fs::path& path) {
  onnx::ModelProto proto;
  std::ifstream file(path, std::ios::binary);
  EXPECT_TRUE(proto.ParseFromIstream(&file)) << path;
  return proto;
}

const onnx::TensorProto* initializerOfDims(const onnx::ModelProto& model,
                                           std::vector<int64_t> dims) {
  for (const onnx::TensorProto& tensor : model.graph().initializer()) {
    if (std::vector<int64_t>(tensor.dims().begin(), tensor.dims().end()) == dims) return &tensor;
  }
  return nullptr;
}

std::string externalEntry(const onnx::TensorProto& tensor, const std::string& key) {
  for (const auto& entry : tensor.external_data()) {
    if (entry.key() == key) return entry.value();
  }
  return "";
}

class FoldedExternalDataTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "onnxopt_folded_external_XXXXXX").string();
    dir_ = mkdtemp(pattern.data());
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Writes the model (and, if external, weights.bin), optimizes it with -O1 into out.onnx and
  // returns out.onnx as a proto, after checking that both weights were folded and that the
  // outputs did not change.
  onnx::ModelProto optimizeFoldable(bool external, const OptimizeOptions& options = {}) {
    if (external) {
      std::string data = weightBytes();
      data.resize(kBiasOffset, '\0');
      data += biasBytes();
      std::ofstream(dir_ / "weights.bin", std::ios::binary) << data;
    }
    std::ofstream input(dir_ / "model.onnx", std::ios::binary);
    EXPECT_TRUE(foldableModel(external).SerializeToOstream(&input));
    input.close();
    const absl::Status optimized =
        optimizeFile((dir_ / "model.onnx").string(), (dir_ / "out.onnx").string(), "-O1", options);
    EXPECT_TRUE(optimized.ok()) << optimized;
    onnx::ModelProto out = readProto(dir_ / "out.onnx");
    for (const onnx::NodeProto& node : out.graph().node()) {
      EXPECT_EQ(node.op_type(), "Add") << "every Transpose and Cast is folded";
    }
    const std::vector<std::string> before = runWithEvaluator((dir_ / "model.onnx").string());
    const std::vector<std::string> after = runWithEvaluator((dir_ / "out.onnx").string());
    EXPECT_EQ(before.size(), 2u);
    EXPECT_EQ(after, before);
    return out;
  }

  fs::path dir_;
};

TEST_F(FoldedExternalDataTest, FoldedWeightOfAnExternalModelIsWrittenAsExternalData) {
  const onnx::ModelProto out = optimizeFoldable(/*external=*/true);
  const onnx::TensorProto* transposed = initializerOfDims(out, {kCols, kRows});
  ASSERT_NE(transposed, nullptr);
  EXPECT_EQ(transposed->data_location(), onnx::TensorProto::EXTERNAL);
  EXPECT_FALSE(transposed->has_raw_data());
  EXPECT_EQ(externalEntry(*transposed, "location"), "out.onnx.data");
  EXPECT_EQ(externalEntry(*transposed, "length"), std::to_string(kRows * kCols * 4));
  const std::string offset = externalEntry(*transposed, "offset");
  ASSERT_FALSE(offset.empty());
  EXPECT_EQ(std::stoll(offset) % 4096, 0);

  const onnx::TensorProto* cast = initializerOfDims(out, {4});
  ASSERT_NE(cast, nullptr);
  EXPECT_NE(cast->data_location(), onnx::TensorProto::EXTERNAL) << "16 bytes stay inline";
  EXPECT_EQ(cast->raw_data().size(), 16u);
}

TEST_F(FoldedExternalDataTest, ThresholdKeepsSmallerFoldedWeightsInline) {
  OptimizeOptions options;
  options.save.external_data_threshold = kRows * kCols * 4 + 1;
  const onnx::ModelProto out = optimizeFoldable(/*external=*/true, options);
  const onnx::TensorProto* transposed = initializerOfDims(out, {kCols, kRows});
  ASSERT_NE(transposed, nullptr);
  EXPECT_NE(transposed->data_location(), onnx::TensorProto::EXTERNAL);
  EXPECT_FALSE(fs::exists(dir_ / "out.onnx.data"));
}

TEST_F(FoldedExternalDataTest, ModelWithoutExternalDataStaysInline) {
  const onnx::ModelProto out = optimizeFoldable(/*external=*/false);
  ASSERT_EQ(out.graph().initializer_size(), 2);
  for (const onnx::TensorProto& tensor : out.graph().initializer()) {
    EXPECT_NE(tensor.data_location(), onnx::TensorProto::EXTERNAL) << tensor.name();
    EXPECT_TRUE(tensor.has_raw_data()) << tensor.name();
  }
  EXPECT_FALSE(fs::exists(dir_ / "out.onnx.data"));
}

}  // namespace
}  // namespace onnxopt
