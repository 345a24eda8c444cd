// An empty pipeline gives back the same bytes: every model.onnx of Debian's libonnx-testdata is
// loaded into the IR, verified, and saved again.

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "google/protobuf/util/message_differencer.h"
#include "onnxopt/ir/serialization.h"
#include "onnxopt/ir/verifier.h"

namespace onnxopt::ir {
namespace {

std::vector<std::filesystem::path> corpusModels() {
  std::vector<std::filesystem::path> models;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(ONNXOPT_TESTDATA_DIR)) {
    if (entry.is_regular_file() && entry.path().filename() == "model.onnx") {
      models.push_back(entry.path());
    }
  }
  std::sort(models.begin(), models.end());
  return models;
}

std::string readFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

TEST(CorpusRoundTrip, EveryModelSavesToTheSameBytes) {
  const std::vector<std::filesystem::path> models = corpusModels();
  ASSERT_EQ(models.size(), 1072u) << "libonnx-testdata should hold 1,072 models";
  int identical = 0;
  for (const auto& path : models) {
    SCOPED_TRACE(path.string());
    const std::string input = readFile(path);
    LoadOptions options;
    options.external_data_dir = path.parent_path().string();
    auto model = loadModelFromBytes(input, options);
    ASSERT_TRUE(model.ok()) << model.status();
    ASSERT_TRUE(verify(**model).ok()) << verify(**model);
    auto output = saveModelToBytes(**model);
    ASSERT_TRUE(output.ok()) << output.status();
    if (*output == input) {
      ++identical;
      continue;
    }
    // Bytes can only differ where the input is not canonically serialized; then the protos must
    // still be equal field by field.
    onnx::ModelProto before, after;
    ASSERT_TRUE(before.ParseFromString(input));
    ASSERT_TRUE(after.ParseFromString(*output));
    std::string difference;
    google::protobuf::util::MessageDifferencer differencer;
    differencer.ReportDifferencesToString(&difference);
    EXPECT_TRUE(differencer.Compare(before, after)) << difference;
    std::string canonical;
    before.SerializeToString(&canonical);
    EXPECT_NE(canonical, input) << "the input is canonical, so the bytes should have matched";
  }
  // Debian's corpus is canonically serialized (parse + serialize reproduces every file).
  EXPECT_EQ(identical, 1072);
}

TEST(CorpusRoundTrip, FromFileToFile) {
  const std::filesystem::path output_dir =
      std::filesystem::temp_directory_path() / "onnxopt_roundtrip_files";
  std::filesystem::create_directories(output_dir);
  for (const auto& path : corpusModels()) {
    SCOPED_TRACE(path.string());
    auto model = loadModelFromFile(path.string());
    ASSERT_TRUE(model.ok()) << model.status();
    const std::string output = (output_dir / "model.onnx").string();
    ASSERT_TRUE(saveModelToFile(**model, output).ok());
    ASSERT_EQ(readFile(output), readFile(path));
  }
  std::filesystem::remove_all(output_dir);
}

}  // namespace
}  // namespace onnxopt::ir
