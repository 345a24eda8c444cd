// eliminate-duplicate-initializers on weights kept as external data: weights of one shape are
// told apart by the ends of their bytes, read from the data file alone (a model of many equal-
// shaped layers is not read whole to find none equal), and weights equal at both ends are
// compared whole before they merge. Tensor::readExternalBytes is what reads the ends.

#include <stdlib.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "onnxopt/ir/serialization.h"
#include "onnxopt/pass/pass_manager.h"

namespace onnxopt {
namespace {

namespace fs = std::filesystem;

constexpr int64_t kRows = 512, kCols = 512;  // 1 MiB of floats per weight
constexpr int64_t kWeightBytes = kRows * kCols * 4;

// A weight's bytes: floats from `seed`, with byte `changed_at` (if any) flipped.
std::string weightBytes(int seed, int64_t changed_at = -1) {
  std::vector<float> values(kRows * kCols);
  for (size_t i = 0; i < values.size(); ++i) {
    values[i] = static_cast<float>((i * 7 + static_cast<size_t>(seed) * 13) % 101) - 50.0f;
  }
  std::string bytes(values.size() * sizeof(float), '\0');
  std::memcpy(bytes.data(), values.data(), bytes.size());
  if (changed_at >= 0) bytes[changed_at] = static_cast<char>(bytes[changed_at] ^ 0x5a);
  return bytes;
}

// Bytes this process has read through read(2) and its kin so far (Linux's /proc/self/io).
int64_t bytesReadSoFar() {
  std::ifstream io("/proc/self/io");
  std::string line;
  while (std::getline(io, line)) {
    std::vector<std::string> parts = absl::StrSplit(line, ": ");
    int64_t value = 0;
    if (parts.size() == 2 && parts[0] == "rchar" && absl::SimpleAtoi(parts[1], &value)) return value;
  }
  return -1;
}

class DuplicateExternalWeightsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "onnxopt_duplicate_external_XXXXXX").string();
    dir_ = mkdtemp(pattern.data());
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Writes a model whose weights (name -> bytes, [kRows, kCols] floats each) live one after the
  // other in weights.bin, each read by its own MatMul of X, and loads it.
  std::unique_ptr<ir::Model> load(const std::map<std::string, std::string>& weights) {
    onnx::ModelProto model;
    model.set_ir_version(8);
    model.add_opset_import()->set_version(17);
    onnx::GraphProto* graph = model.mutable_graph();
    graph->set_name("external_weights");
    onnx::ValueInfoProto* input = graph->add_input();
    input->set_name("X");
    auto* type = input->mutable_type()->mutable_tensor_type();
    type->set_elem_type(onnx::TensorProto::FLOAT);
    type->mutable_shape()->add_dim()->set_dim_value(1);
    type->mutable_shape()->add_dim()->set_dim_value(kRows);
    std::string data;
    for (const auto& [name, bytes] : weights) {
      onnx::TensorProto* tensor = graph->add_initializer();
      tensor->set_name(name);
      tensor->set_data_type(onnx::TensorProto::FLOAT);
      tensor->add_dims(kRows);
      tensor->add_dims(kCols);
      tensor->set_data_location(onnx::TensorProto::EXTERNAL);
      const std::map<std::string, std::string> entries = {
          {"location", "weights.bin"},
          {"offset", std::to_string(data.size())},
          {"length", std::to_string(bytes.size())}};
      for (const auto& [key, value] : entries) {
        auto* entry = tensor->add_external_data();
        entry->set_key(key);
        entry->set_value(value);
      }
      data += bytes;
      onnx::NodeProto* node = graph->add_node();
      node->set_op_type("MatMul");
      node->add_input("X");
      node->add_input(name);
      node->add_output(name + "_product");
      graph->add_output()->set_name(name + "_product");
    }
    std::ofstream(dir_ / "weights.bin", std::ios::binary) << data;
    std::ofstream(dir_ / "model.onnx", std::ios::binary) << model.SerializeAsString();
    absl::StatusOr<std::unique_ptr<ir::Model>> loaded =
        ir::loadModelFromFile((dir_ / "model.onnx").string());
    EXPECT_TRUE(loaded.ok()) << loaded.status();
    return loaded.ok() ? *std::move(loaded) : nullptr;
  }

  static void runPass(ir::Model& model) {
    PassManager manager;
    ASSERT_TRUE(manager.addPipeline("eliminate-duplicate-initializers").ok());
    const absl::StatusOr<PipelineReport> report = manager.run(model);
    ASSERT_TRUE(report.ok()) << report.status();
  }

  // The initializer each MatMul reads, by the MatMul's output.
  static std::map<std::string, std::string> weightRead(const ir::Model& model) {
    std::map<std::string, std::string> read;
    for (const ir::Node& node : model.graph()) read[node.output(0)->name()] = node.input(1)->name();
    return read;
  }

  fs::path dir_;
};

TEST_F(DuplicateExternalWeightsTest, WeightsOfOneShapeAreToldApartWithoutReadingThemWhole) {
  std::unique_ptr<ir::Model> model =
      load({{"A", weightBytes(1)}, {"B", weightBytes(2)}, {"C", weightBytes(3)}});
  ASSERT_NE(model, nullptr);
  const int64_t before = bytesReadSoFar();
  ASSERT_GE(before, 0) << "no /proc/self/io";
  runPass(*model);
  const int64_t read = bytesReadSoFar() - before;
  EXPECT_LT(read, kWeightBytes / 4) << "three weights of " << kWeightBytes << " bytes";
  EXPECT_EQ(model->graph().initializers().size(), 3u);
}

TEST_F(DuplicateExternalWeightsTest, WeightsEqualAtBothEndsAreComparedWhole) {
  // B equals A; C differs from A only in its middle byte, so only a whole comparison tells them
  // apart.
  std::unique_ptr<ir::Model> model = load(
      {{"A", weightBytes(1)}, {"B", weightBytes(1)}, {"C", weightBytes(1, kWeightBytes / 2)}});
  ASSERT_NE(model, nullptr);
  runPass(*model);
  const std::map<std::string, std::string> expected = {
      {"A_product", "A"}, {"B_product", "A"}, {"C_product", "C"}};
  EXPECT_EQ(weightRead(*model), expected);
  EXPECT_EQ(model->graph().initializers().size(), 2u);
}

TEST_F(DuplicateExternalWeightsTest, ReadExternalBytesReadsARangeAndLeavesTheTensorExternal) {
  const std::string bytes = weightBytes(4);
  std::unique_ptr<ir::Model> model = load({{"A", weightBytes(1)}, {"B", bytes}});
  ASSERT_NE(model, nullptr);
  const ir::Tensor& b = *model->graph().initializers()[1]->initializer();
  ASSERT_EQ(b.proto().name(), "B");

  absl::StatusOr<std::string> tail = b.readExternalBytes(kWeightBytes - 64, 64);
  ASSERT_TRUE(tail.ok()) << tail.status();
  EXPECT_EQ(*tail, bytes.substr(kWeightBytes - 64));
  EXPECT_TRUE(b.isExternal());
  EXPECT_FALSE(b.proto().has_raw_data());

  absl::StatusOr<std::string> past = b.readExternalBytes(kWeightBytes - 63, 64);
  EXPECT_EQ(past.status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_NE(past.status().message().find("tensor 'B'"), std::string::npos) << past.status();
  EXPECT_EQ(b.readExternalBytes(-1, 4).status().code(), absl::StatusCode::kOutOfRange);

  ir::Tensor inline_tensor(onnx::TensorProto(b.proto()));
  EXPECT_EQ(inline_tensor.readExternalBytes(0, 4).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace onnxopt
