// onnx-opt's text reader against its printer, over every model we have: ONNX's backend test
// corpus and the committed torch exports (names like "0.weight", "/0/Gemm_output_0"). Each
// model printed in full must read back to the same proto (tensor storage and default-valued
// scalar fields aside: proto_normalize.h), and the model read back must print to the same text.

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "onnx/onnx_pb.h"
#include "onnxopt/ir/printer.h"
#include "onnxopt/ir/text_reader.h"
#include "proto_normalize.h"

namespace onnxopt::ir {
namespace {

// Every *.onnx under `root` (model.onnx files of the corpus, the torch exports).
std::vector<std::string> modelPaths(const std::string& root) {
  std::vector<std::string> paths;
  if (!std::filesystem::is_directory(root)) return paths;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    if (entry.is_regular_file() && entry.path().extension() == ".onnx") {
      paths.push_back(entry.path().string());
    }
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

std::string serializedNormalized(onnx::ModelProto model) {
  onnxopt::ir::testing::normalize(model);
  std::string bytes;
  google::protobuf::io::StringOutputStream stream(&bytes);
  google::protobuf::io::CodedOutputStream coded(&stream);
  coded.SetSerializationDeterministic(true);
  model.SerializeToCodedStream(&coded);
  coded.Trim();
  return bytes;
}

// Empty when the model survives print -> read -> print; otherwise what went wrong.
std::string roundTripFailure(const onnx::ModelProto& model) {
  PrintOptions full;
  full.max_initializer_elements = std::numeric_limits<int64_t>::max();
  const std::string text = printModel(model, full);
  absl::StatusOr<onnx::ModelProto> read = readModelText(text);
  if (!read.ok()) {
    return absl::StrCat("read error: ", read.status().message(), "\n--- text:\n",
                        text.substr(0, 3000));
  }
  // Compared as bytes, so that floats are compared bit for bit (NaN payloads, -0.0).
  if (serializedNormalized(*read) != serializedNormalized(model)) {
    onnx::ModelProto expected = model;
    onnx::ModelProto actual = *read;
    onnxopt::ir::testing::normalize(expected);
    onnxopt::ir::testing::normalize(actual);
    std::string differences;
    google::protobuf::util::MessageDifferencer differencer;
    differencer.ReportDifferencesToString(&differences);
    differencer.Compare(expected, actual);
    if (differences.size() > 3000) differences.resize(3000);
    return absl::StrCat("the model read back differs:\n", differences);
  }
  const std::string reprinted = printModel(*read, full);
  if (reprinted != text) return "the model read back prints differently";
  return "";
}

void expectEveryModelRoundTrips(const std::vector<std::string>& paths) {
  int failures = 0;
  for (const std::string& path : paths) {
    onnx::ModelProto model;
    std::ifstream file(path, std::ios::binary);
    ASSERT_TRUE(model.ParseFromIstream(&file)) << path;
    const std::string failure = roundTripFailure(model);
    EXPECT_EQ(failure, "") << path;
    // One failure explains most; a hundred copies of it hide the others.
    if (!failure.empty() && ++failures == 5) return;
  }
}

TEST(TextReaderRoundTripTest, EveryBackendCorpusModel) {
  const std::vector<std::string> paths = modelPaths(ONNXOPT_TESTDATA_DIR);
  ASSERT_GT(paths.size(), 1000u) << "install Debian's libonnx-testdata";
  expectEveryModelRoundTrips(paths);
}

TEST(TextReaderRoundTripTest, EveryCommittedTestModel) {
  const std::vector<std::string> paths = modelPaths(ONNXOPT_SOURCE_DIR "/tests/data");
  const auto is_torch_export = [](const std::string& path) {
    return absl::StrContains(path, "/torch/");
  };
  ASSERT_GT(std::count_if(paths.begin(), paths.end(), is_torch_export), 100);
  expectEveryModelRoundTrips(paths);
}

// The real torch exports are made at test time (tests/realexports); the folder holding them
// is given in ONNXOPT_REALEXPORTS_DIR when they are there.
TEST(TextReaderRoundTripTest, RealExportsWhenGiven) {
  const char* dir = std::getenv("ONNXOPT_REALEXPORTS_DIR");
  if (dir == nullptr) GTEST_SKIP() << "ONNXOPT_REALEXPORTS_DIR not set";
  const std::vector<std::string> paths = modelPaths(dir);
  ASSERT_FALSE(paths.empty()) << "no .onnx under " << dir;
  expectEveryModelRoundTrips(paths);
}

}  // namespace
}  // namespace onnxopt::ir
