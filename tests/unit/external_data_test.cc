// ExternalDataResolver (ir/external_data.h): the folder and each data file are resolved once per
// load, and what is wrong with a file is still reported for each tensor that points at it.

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "ir/external_data.h"

namespace onnxopt::ir {
namespace {

namespace fs = std::filesystem;

onnx::TensorProto externalFloats(const std::string& name, const std::string& location) {
  onnx::TensorProto tensor;
  tensor.set_name(name);
  tensor.set_data_type(onnx::TensorProto::FLOAT);
  tensor.add_dims(3);
  tensor.add_dims(4);
  tensor.set_data_location(onnx::TensorProto::EXTERNAL);
  auto* entry = tensor.add_external_data();
  entry->set_key("location");
  entry->set_value(location);
  return tensor;
}

class ExternalDataResolverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "onnxopt_external_XXXXXX").string();
    dir_ = mkdtemp(pattern.data());
    std::ofstream(dir_ / "w.bin", std::ios::binary) << std::string(48, '\x01');
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(ExternalDataResolverTest, ResolvesEachDataFileOnce) {
  ExternalDataResolver resolver(dir_.string());
  absl::StatusOr<ExternalData> first = resolver.resolve(externalFloats("W1", "w.bin"));
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->path, fs::canonical(dir_ / "w.bin").string());
  EXPECT_EQ(first->length, 48);

  // Gone from the disk, it is not looked up again: the second tensor gets what the first got.
  fs::remove(dir_ / "w.bin");
  absl::StatusOr<ExternalData> second = resolver.resolve(externalFloats("W2", "w.bin"));
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(second->path, first->path);

  EXPECT_FALSE(ExternalDataResolver(dir_.string()).resolve(externalFloats("W3", "w.bin")).ok())
      << "a new load looks again";
}

TEST_F(ExternalDataResolverTest, EachTensorOfABadFileIsNamed) {
  ExternalDataResolver resolver(dir_.string());
  for (const std::string name : {"A", "B"}) {
    absl::StatusOr<ExternalData> resolved = resolver.resolve(externalFloats(name, "gone.bin"));
    ASSERT_FALSE(resolved.ok());
    EXPECT_EQ(resolved.status().message(),
              "tensor '" + name + "': external data file 'gone.bin' not found next to the model");
  }
}

}  // namespace
}  // namespace onnxopt::ir
