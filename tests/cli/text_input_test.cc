// onnx-opt reads the text it writes: a *.onnxtxt input or --input-format=text, from a file or
// stdin; --emit=text-full prints what reads back; a summarised initializer or a syntax error is
// a one-line error naming where.

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tool_run.h"

namespace {

namespace fs = std::filesystem;
using onnxopt::testing::contains;
using onnxopt::testing::expectCleanFailure;
using onnxopt::testing::readFile;
using onnxopt::testing::ToolRun;
using onnxopt::testing::writeFile;

const std::string kTool = ONNXOPT_CLI_PATH;
// A torch export: names such as "net.0.weight" and "/net/net.0/Gemm_output_0", initializers
// of more than 64 values.
const std::string kTorchModel =
    std::string(ONNXOPT_SOURCE_DIR) + "/tests/data/torch/mlp_op13_dynbatch.onnx";

class CliTextInputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "onnx-opt-text-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr) << std::strerror(errno);
    dir_ = pattern;
    fs::create_directory(dir_ + "/io");
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }

  ToolRun run(std::vector<std::string> args, const std::string& stdin_path = "/dev/null") {
    args.insert(args.begin(), "--verify-each");
    return onnxopt::testing::runTool(kTool, args, dir_ + "/io", stdin_path);
  }

  // The torch model printed in full to `path`.
  void printFull(const std::string& path) {
    ToolRun r = run({kTorchModel, "-O0", "-q", "--emit=text-full", "-o", path});
    ASSERT_EQ(r.exit_code, 0) << r.describe();
  }

  std::string dir_;
};

TEST_F(CliTextInputTest, OnnxtxtInputReadsBackWhatTextFullPrinted) {
  const std::string text = dir_ + "/mlp.onnxtxt";
  printFull(text);
  const std::string printed = readFile(text);
  ASSERT_TRUE(contains(printed, "\"net.0.weight\"")) << printed.substr(0, 2000);
  ASSERT_FALSE(contains(printed, "{...}")) << "text-full summarised a tensor";

  ToolRun again = run({text, "-O0", "-q", "--emit=text-full"});
  ASSERT_EQ(again.exit_code, 0) << again.describe();
  EXPECT_EQ(again.out, printed);

  // Through the binary form as well, and optimized: the text is a model like any other.
  const std::string binary = dir_ + "/mlp.onnx";
  ToolRun to_binary = run({text, "-O0", "-q", "-o", binary});
  ASSERT_EQ(to_binary.exit_code, 0) << to_binary.describe();
  ToolRun from_binary = run({binary, "-O0", "-q", "--emit=text-full"});
  ASSERT_EQ(from_binary.exit_code, 0) << from_binary.describe();
  EXPECT_EQ(from_binary.out, printed);
  ToolRun optimized = run({text, "-O1", "-q", "--emit=text-full"});
  ASSERT_EQ(optimized.exit_code, 0) << optimized.describe();
  ToolRun optimized_binary = run({kTorchModel, "-O1", "-q", "--emit=text-full"});
  EXPECT_EQ(optimized.out, optimized_binary.out);
}

TEST_F(CliTextInputTest, InputFormatOverridesTheFileName) {
  const std::string text = dir_ + "/mlp.onnxtxt";
  printFull(text);
  const std::string renamed = dir_ + "/mlp.txt";
  fs::copy_file(text, renamed);

  // By its name, a .txt file is a protobuf, which this is not.
  ToolRun as_binary = run({renamed, "-O0", "-q", "--emit=text-full"});
  expectCleanFailure(as_binary, {renamed, "not a valid ONNX model"}, {});
  ToolRun as_text = run({renamed, "--input-format=text", "-O0", "-q", "--emit=text-full"});
  ASSERT_EQ(as_text.exit_code, 0) << as_text.describe();
  EXPECT_EQ(as_text.out, readFile(text));

  // And a protobuf is read as one whatever its name.
  const std::string binary_named_text = dir_ + "/binary.onnxtxt";
  fs::copy_file(kTorchModel, binary_named_text);
  ToolRun binary = run({binary_named_text, "--input-format", "binary", "-O0", "-q",
                        "--emit=text-full"});
  ASSERT_EQ(binary.exit_code, 0) << binary.describe();
  EXPECT_EQ(binary.out, readFile(text));
  ToolRun misread = run({binary_named_text, "-O0", "-q"});
  expectCleanFailure(misread, {binary_named_text, "line 1, column 1: "}, {});

  // stdin is a protobuf unless told otherwise.
  ToolRun stdin_text = run({"-", "--input-format=text", "-O0", "-q", "--emit=text-full"}, text);
  ASSERT_EQ(stdin_text.exit_code, 0) << stdin_text.describe();
  EXPECT_EQ(stdin_text.out, readFile(text));
  ToolRun stdin_default = run({"-", "-O0", "-q", "--emit=text-full"}, text);
  expectCleanFailure(stdin_default, {"<stdin>", "not a valid ONNX model"}, {});
}

TEST_F(CliTextInputTest, SummarisedInitializerIsAnErrorSayingToPrintTextFull) {
  const std::string text = dir_ + "/summary.onnxtxt";
  ToolRun print = run({kTorchModel, "-O0", "-q", "--emit=text", "-o", text});
  ASSERT_EQ(print.exit_code, 0) << print.describe();
  ASSERT_TRUE(contains(readFile(text), "{...}"));
  ToolRun r = run({text, "-O0", "-q"});
  expectCleanFailure(r, {text, "line ", "were left out", "without full initializers",
                         "--emit=text-full"},
                     {});
}

TEST_F(CliTextInputTest, SyntaxErrorNamesItsLineAndColumn) {
  const std::string text = dir_ + "/bad.onnxtxt";
  writeFile(text, R"(<ir_version: 8, opset_import: ["" : 13]>
bad (float[2] X) => (float[2] Y) {
  Y = Relu<alpha = >(X)
}
)");
  ToolRun r = run({text, "-O0", "-q"});
  expectCleanFailure(r, {text + ": line 3, column 20: expected an attribute value, found '>'"},
                     {});
}

TEST_F(CliTextInputTest, UnknownFormatsAreUsageErrors) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{kTorchModel, "--input-format=json"},
        std::vector<std::string>{kTorchModel, "--emit=text-summary"}}) {
    ToolRun r = run(args);
    EXPECT_EQ(r.exit_code, 2) << r.describe();
    EXPECT_TRUE(contains(r.err, "unknown --")) << r.describe();
  }
}

}  // namespace
