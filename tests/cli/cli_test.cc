// Tests of the onnx-opt command line: the real binary is run in a child process with its stdin,
// stdout and stderr connected to files, and each test checks the exit status, what was printed
// and which files exist afterwards.

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <pty.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cli.h"
#include "tool_run.h"
#include "gtest/gtest.h"
#include "json_reader.h"
#include "onnx/defs/parser.h"
#include "onnxopt/ir/ir.h"
#include "onnxopt/pass/pass.h"
#include "onnxopt/pass/pass_registry.h"
#include "progress.h"
#include "report.h"

namespace {

namespace fs = std::filesystem;
using onnxopt::testing::contains;
using onnxopt::testing::expectCleanFailure;
using onnxopt::testing::join;
using onnxopt::testing::listDir;
using onnxopt::testing::readFile;
using onnxopt::testing::ToolRun;
using onnxopt::testing::writeFile;

const std::string kTool = ONNXOPT_CLI_PATH;
const std::string kSourceDir = ONNXOPT_SOURCE_DIR;
const std::string kExample = kSourceDir + "/examples/legacy_classifier.onnx";
const std::string kDataDir = kSourceDir + "/tests/cli/data";
const std::string kUserGuide = kSourceDir + "/docs/user-guide.md";

// A model with a dead chain (Neg -> Abs -> Add) and an initializer only the dead Add reads.
constexpr const char* kDeadNodesText = R"(
<ir_version: 8, opset_import: ["" : 13]>
dead_nodes (float[2,3] X) => (float[2,3] Y)
<float[3] read_by_dead = {1.0, 2.0, 3.0}>
{
  Y = Relu(X)
  dead1 = Neg(X)
  dead2 = Abs(dead1)
  dead3 = Add(dead2, read_by_dead)
}
)";
// The summary's lines after the first, for the dead-nodes model under -O1 (read_by_dead: 3
// floats of 4 bytes). Times are "T" (see withoutTimes).
const std::string kDeadNodesSummary =
    " 4 -> 1 nodes\n"
    "  op Neg: 1 -> 0\n"
    "  op Abs: 1 -> 0\n"
    "  op Add: 1 -> 0\n"
    "  initializers: 1 -> 0 (12 -> 0 bytes)\n"
    "  time: load T s, optimize T s, save T s\n";

// `text` with every duration ("0.012 s") written "T s", so that summaries compare exactly.
std::string withoutTimes(const std::string& text) {
  return std::regex_replace(text, std::regex(R"([0-9]+\.[0-9]{3} s\b)"), "T s");
}

// Bytes of the initializers' data of a model file whose initializers all hold raw_data (the
// example's do).
int64_t rawInitializerBytes(const std::string& path) {
  onnx::ModelProto proto;
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(proto.ParseFromIstream(&in)) << path;
  int64_t bytes = 0;
  for (const onnx::TensorProto& tensor : proto.graph().initializer()) {
    EXPECT_TRUE(tensor.has_raw_data()) << tensor.name();
    bytes += static_cast<int64_t>(tensor.raw_data().size());
  }
  return bytes;
}

// The summary of the example under -O0, whose input is shown as `input`.
std::string exampleO0Summary(const std::string& input) {
  const std::string bytes = std::to_string(rawInitializerBytes(kExample));
  return "onnx-opt: " + input + ": 11 -> 11 nodes\n" +
         "  initializers: 9 -> 9 (" + bytes + " -> " + bytes + " bytes)\n" +
         "  time: load T s, optimize T s, save T s\n";
}

// Writes a model given in ONNX's text syntax as a binary model file.
void writeModelFromText(const std::string& path, const char* text) {
  onnx::ModelProto proto;
  const onnx::Common::Status parsed = onnx::OnnxParser::Parse(proto, text);
  ASSERT_TRUE(parsed.IsOK()) << parsed.ErrorMessage();
  std::string bytes;
  ASSERT_TRUE(proto.SerializeToString(&bytes));
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(out.good()) << "cannot write " << path;
}

size_t countOf(const std::string& haystack, const std::string& needle) {
  size_t count = 0;
  for (size_t at = haystack.find(needle); at != std::string::npos;
       at = haystack.find(needle, at + needle.size())) {
    ++count;
  }
  return count;
}

// The passes of a pipeline text, without their options: "a{x=1},b" -> {"a", "b"}.
std::vector<std::string> passNames(const std::string& pipeline) {
  std::vector<std::string> names;
  std::string current;
  int depth = 0;
  for (char c : pipeline) {
    if (c == '{') ++depth;
    if (depth == 0 && c != ',' && c != ' ') current += c;
    if (c == '}') --depth;
    if (depth == 0 && c == ',') {
      names.push_back(current);
      current.clear();
    }
  }
  if (!current.empty()) names.push_back(current);
  return names;
}

const std::vector<std::string> kTestFlags = {"--verify-each", "--require-convergence"};

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "onnx-opt-cli-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr) << std::strerror(errno);
    dir_ = pattern;
    out_dir_ = dir_ + "/out";
    io_dir_ = dir_ + "/io";
    fs::create_directory(out_dir_);
    fs::create_directory(io_dir_);
  }
  void TearDown() override {
    std::error_code ignored;
    if (!dir_.empty()) fs::remove_all(dir_, ignored);
  }

  // Runs the tool with `args`; stdin comes from `stdin_path` (or /dev/null), stdout goes to
  // `stdout_path` (or a file whose contents end up in ToolRun::out).
  // Every run verifies the model after each pass and requires every rewrite driver (and
  // --fixed-point) to converge: the flags are put in front of `args`.
  ToolRun runTool(const std::vector<std::string>& args,
                  const std::string& stdin_path = "/dev/null",
                  const std::string& stdout_path = "") {
    std::vector<std::string> all = kTestFlags;
    all.insert(all.end(), args.begin(), args.end());
    return onnxopt::testing::runTool(kTool, all, io_dir_, stdin_path, stdout_path);
  }

  std::string dir_;
  std::string out_dir_;  // where outputs go; tests check it holds nothing unexpected
  std::string io_dir_;   // the child's stdout and stderr
};

// ---------------------------------------------------------------------------------------------
// --help, --version, usage errors

TEST_F(CliTest, HelpPrintsUsageAndExitsZero) {
  for (const char* flag : {"--help", "-h"}) {
    ToolRun r = runTool({flag});
    EXPECT_EQ(r.exit_code, 0) << r.describe();
    EXPECT_TRUE(contains(r.out, "Usage: onnx-opt")) << r.describe();
    for (const char* option :
         {"-o", "--emit=binary|text", "-O0", "-O1", "-O2", "--passes=", "--fixed-point",
          "--list-passes", "--print-pipeline", "--pass-statistics", "--time-passes",
          "--verify-each", "--print-ir-after=", "--print-ir-after-all", "--print-ir-after-change",
          "--debug", "--quiet", "--version"}) {
      EXPECT_TRUE(contains(r.out, option)) << "--help does not mention " << option << "\n"
                                           << r.describe();
    }
    EXPECT_TRUE(r.err.empty()) << r.describe();
  }
}

TEST_F(CliTest, HelpWinsOverOtherArguments) {
  ToolRun r = runTool({kExample, "--help", "-o", out_dir_ + "/x.onnx"});
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_TRUE(contains(r.out, "Usage: onnx-opt")) << r.describe();
  EXPECT_TRUE(listDir(out_dir_).empty()) << "--help must not write an output file";
}

TEST_F(CliTest, VersionPrintsProjectVersion) {
  ToolRun r = runTool({"--version"});
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.out, std::string("onnx-opt version ") + ONNXOPT_VERSION + "\n") << r.describe();
  EXPECT_TRUE(r.err.empty()) << r.describe();
}

struct UsageCase {
  const char* name;
  std::vector<std::string> args;
  const char* expected;  // in the first stderr line
};

void PrintTo(const UsageCase& c, std::ostream* os) { *os << c.name; }

class CliUsageTest : public CliTest, public ::testing::WithParamInterface<UsageCase> {};

TEST_P(CliUsageTest, ExitsTwoWithHint) {
  const UsageCase& c = GetParam();
  std::vector<std::string> args;
  for (const std::string& arg : c.args) {
    args.push_back(arg == "EXAMPLE" ? kExample : arg == "OUT" ? out_dir_ + "/out.onnx" : arg);
  }
  ToolRun r = runTool(args);
  EXPECT_EQ(r.signal, 0) << r.describe();
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_TRUE(r.out.empty()) << r.describe();
  EXPECT_EQ(r.err.rfind("onnx-opt: error: ", 0), 0u) << r.describe();
  EXPECT_TRUE(contains(r.err.substr(0, r.err.find('\n')), c.expected)) << r.describe();
  EXPECT_TRUE(contains(r.err, "onnx-opt --help")) << "no usage hint\n" << r.describe();
  EXPECT_TRUE(listDir(out_dir_).empty()) << "a usage error must not write an output file";
}

INSTANTIATE_TEST_SUITE_P(
    Cli, CliUsageTest,
    ::testing::Values(
        UsageCase{"UnknownLongFlag", {"EXAMPLE", "--frobnicate", "-o", "OUT"},
                  "unknown option '--frobnicate'"},
        UsageCase{"UnknownShortFlag", {"-x", "EXAMPLE", "-o", "OUT"}, "unknown option '-x'"},
        UsageCase{"NoInput", {"-o", "OUT"}, "no input file"},
        UsageCase{"TwoInputs", {"EXAMPLE", "EXAMPLE", "-o", "OUT"}, "expected one input file"},
        UsageCase{"MissingOutputValue", {"EXAMPLE", "-o"}, "-o needs a value"},
        UsageCase{"BadEmitValue", {"EXAMPLE", "--emit=xml", "-o", "OUT"},
                  "unknown --emit value 'xml'"},
        UsageCase{"UnsupportedOptLevel", {"EXAMPLE", "-O3", "-o", "OUT"},
                  "unsupported optimization level '-O3'"},
        UsageCase{"PassesAndOptLevel", {"EXAMPLE", "-O1", "--passes=eliminate-dead-nodes"},
                  "either --passes or -O1"},
        UsageCase{"PassesTwice",
                  {"EXAMPLE", "--passes=eliminate-dead-nodes", "--passes=eliminate-dead-nodes"},
                  "--passes given twice"},
        UsageCase{"MissingPassesValue", {"EXAMPLE", "--passes"}, "--passes needs a value"},
        UsageCase{"UnknownPass", {"EXAMPLE", "--passes=no-such-pass", "-o", "OUT"},
                  "unknown pass 'no-such-pass'"},
        UsageCase{"UnknownPassOption",
                  {"EXAMPLE", "--passes=eliminate-dead-nodes{no-such-option=1}", "-o", "OUT"},
                  "no option 'no-such-option'"},
        UsageCase{"BadPassOptionValue",
                  {"EXAMPLE", "--passes=eliminate-dead-nodes{max-iterations=many}", "-o", "OUT"},
                  "max-iterations"},
        UsageCase{"PipelineSyntax", {"EXAMPLE", "--passes=eliminate-dead-nodes{", "-o", "OUT"},
                  "column"},
        UsageCase{"PrintIrAfterUnknownPass",
                  {"EXAMPLE", "--print-ir-after=no-such-pass", "-o", "OUT"},
                  "unknown pass 'no-such-pass'"},
        UsageCase{"MissingReportValue", {"EXAMPLE", "-o", "OUT", "--report"},
                  "--report needs a value"},
        UsageCase{"ReportToStdout", {"EXAMPLE", "-o", "OUT", "--report=-"},
                  "--report needs a file name"},
        UsageCase{"BooleanFlagWithValue", {"EXAMPLE", "--verify-each=yes", "-o", "OUT"},
                  "unknown option '--verify-each=yes'"}),
    [](const ::testing::TestParamInfo<UsageCase>& info) { return info.param.name; });

// ---------------------------------------------------------------------------------------------
// Successful runs

TEST_F(CliTest, RoundTripGivesTheSameBytes) {
  const std::string out = out_dir_ + "/legacy_classifier.onnx";
  ToolRun r = runTool({kExample, "-O0", "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_TRUE(readFile(out) == readFile(kExample))
      << "-O0 output differs from the input (" << fs::file_size(out) << " vs "
      << fs::file_size(kExample) << " bytes)";
  EXPECT_EQ(listDir(out_dir_), std::vector<std::string>{"legacy_classifier.onnx"})
      << "temporary files left behind";
  // The summary: nodes before and after, no op type changed, initializers, times.
  EXPECT_EQ(withoutTimes(r.err), exampleO0Summary(kExample)) << r.describe();
  EXPECT_TRUE(r.out.empty()) << r.describe();
}

TEST_F(CliTest, RoundTripReplacesAnExistingOutput) {
  const std::string out = out_dir_ + "/existing.onnx";
  writeFile(out, "old contents");
  ToolRun r = runTool({"-O0", "--output=" + out, kExample});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_TRUE(readFile(out) == readFile(kExample)) << "output is not the input's bytes";
  EXPECT_EQ(listDir(out_dir_), std::vector<std::string>{"existing.onnx"});
}

TEST_F(CliTest, OutputFileGetsUsualPermissions) {
  const std::string out = out_dir_ + "/perm.onnx";
  const mode_t old_mask = umask(022);
  ToolRun r = runTool({kExample, "-o", out});
  umask(old_mask);
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  struct stat st;
  ASSERT_EQ(stat(out.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u) << "expected rw-r--r-- (umask 022), got " << std::oct
                                       << (st.st_mode & 0777);
}

// The output is a new file renamed over the old one; it keeps the old one's mode all the same.
TEST_F(CliTest, ReplacedOutputKeepsItsMode) {
  for (const char* emit : {"--emit=binary", "--emit=text"}) {
    for (const mode_t mode : {mode_t{0600}, mode_t{0755}}) {
      SCOPED_TRACE(::testing::Message() << emit << ", mode " << std::oct << mode);
      const std::string out = out_dir_ + "/existing";
      writeFile(out, "old contents");
      ASSERT_EQ(chmod(out.c_str(), mode), 0) << std::strerror(errno);
      ToolRun r = runTool({kExample, emit, "-o", out});
      ASSERT_EQ(r.exit_code, 0) << r.describe();
      struct stat st;
      ASSERT_EQ(stat(out.c_str(), &st), 0);
      EXPECT_EQ(st.st_mode & 0777, mode) << "got " << std::oct << (st.st_mode & 0777);
    }
  }
}

TEST_F(CliTest, QuietPrintsNothing) {
  const std::string out = out_dir_ + "/quiet.onnx";
  ToolRun r = runTool({kExample, "-q", "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_TRUE(r.err.empty()) << r.describe();
  r = runTool({kExample, "--quiet", "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_TRUE(r.err.empty()) << r.describe();
}

TEST_F(CliTest, StdinToStdout) {
  ToolRun r = runTool({"-", "-O0", "-o", "-"}, kExample);
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_TRUE(r.out == readFile(kExample))
      << "stdout is not the input's bytes (" << r.out.size() << " bytes)";
  EXPECT_EQ(withoutTimes(r.err), exampleO0Summary("<stdin>")) << r.describe();
  EXPECT_TRUE(listDir(out_dir_).empty());
}

TEST_F(CliTest, OutputDefaultsToStdout) {
  ToolRun r = runTool({kExample, "-O0", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_TRUE(r.out == readFile(kExample)) << "stdout is not the input's bytes";
}

TEST_F(CliTest, StdinToFile) {
  const std::string out = out_dir_ + "/from_stdin.onnx";
  ToolRun r = runTool({"-", "-O0", "-o", out}, kExample);
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_TRUE(readFile(out) == readFile(kExample)) << "output is not the input's bytes";
}

TEST_F(CliTest, EmitTextToStdout) {
  ToolRun r = runTool({kExample, "-O0", "--emit=text"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  for (const char* s : {"ir_version", "opset_import", "legacy_classifier", "X", "logits",
                        "Transpose", "Expand", "Gemm", "Relu", "fc1.weight_t"}) {
    EXPECT_TRUE(contains(r.out, s)) << "text output lacks '" << s << "'\n" << r.describe();
  }
  EXPECT_EQ(r.out.find('\0'), std::string::npos) << "text output contains NUL bytes";
  EXPECT_EQ(withoutTimes(r.err), exampleO0Summary(kExample)) << r.describe();

  // --emit text (separate value) says the same.
  ToolRun again = runTool({"--emit", "text", kExample, "-O0"});
  ASSERT_EQ(again.exit_code, 0) << again.describe();
  EXPECT_EQ(again.out, r.out);
}

TEST_F(CliTest, EmitTextToFile) {
  const std::string out = out_dir_ + "/model.txt";
  ToolRun to_stdout = runTool({kExample, "--emit=text", "-q"});
  ASSERT_EQ(to_stdout.exit_code, 0) << to_stdout.describe();
  ToolRun r = runTool({kExample, "--emit=text", "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(readFile(out), to_stdout.out) << "file and stdout text differ";
  EXPECT_TRUE(r.out.empty()) << r.describe();
  EXPECT_EQ(listDir(out_dir_), std::vector<std::string>{"model.txt"})
      << "temporary files left behind";
}

TEST_F(CliTest, EmitBinaryIsTheDefault) {
  const std::string out = out_dir_ + "/b.onnx";
  ToolRun r = runTool({kExample, "-O0", "--emit=binary", "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_TRUE(readFile(out) == readFile(kExample));
}

TEST_F(CliTest, InputMayBeItsOwnOutput) {
  const std::string path = out_dir_ + "/same.onnx";
  writeFile(path, readFile(kExample));
  ToolRun r = runTool({path, "-O0", "-o", path});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_TRUE(readFile(path) == readFile(kExample));
}

// Saving to a place that cannot be written fails in one line too.
TEST_F(CliTest, UnwritableOutputFailsCleanly) {
  {
    SCOPED_TRACE("missing folder");
    const std::string out = out_dir_ + "/no/such/folder/out.onnx";
    ToolRun r = runTool({kExample, "-o", out});
    expectCleanFailure(r, {"'" + out_dir_ + "/no/such/folder' does not exist"}, {});
  }
  {
    SCOPED_TRACE("output is a directory");
    fs::create_directory(out_dir_ + "/adir");
    ToolRun r = runTool({kExample, "-o", out_dir_ + "/adir"});
    expectCleanFailure(r, {out_dir_ + "/adir"}, {});
    EXPECT_TRUE(fs::is_directory(out_dir_ + "/adir"));
    EXPECT_TRUE(fs::is_empty(out_dir_ + "/adir"));
  }
  {
    SCOPED_TRACE("text output into a missing folder");
    const std::string out = out_dir_ + "/no/such/folder/out.txt";
    ToolRun r = runTool({kExample, "--emit=text", "-o", out});
    expectCleanFailure(r, {"'" + out_dir_ + "/no/such/folder' does not exist"}, {});
  }
  EXPECT_EQ(listDir(out_dir_), std::vector<std::string>{"adir"});
}

TEST_F(CliTest, EmptyInputIsSaidToBeEmpty) {
  const std::string empty = dir_ + "/empty.onnx";
  writeFile(empty, "");
  expectCleanFailure(runTool({empty, "-o", out_dir_ + "/out.onnx"}),
                     {empty + ": the file is empty"}, {});
  expectCleanFailure(runTool({"-", "-o", out_dir_ + "/out.onnx"}, "/dev/null"),
                     {"<stdin>: the model is empty"}, {});
  EXPECT_TRUE(listDir(out_dir_).empty());
}

TEST_F(CliTest, StdoutWriteErrorFailsCleanly) {
  for (const char* emit : {"--emit=binary", "--emit=text"}) {
    SCOPED_TRACE(emit);
    ToolRun r = runTool({kExample, emit}, "/dev/null", "/dev/full");
    expectCleanFailure(r, {"<stdout>"}, {"cannot write"});
  }
}

// A device as output (think -o /dev/null) is written in place, not replaced by a regular file.
// Uses a private null device made with mknod (root only), never the system's /dev/null.
TEST_F(CliTest, DeviceOutputIsWrittenInPlace) {
  const std::string device = out_dir_ + "/null";
  if (mknod(device.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0) {
    GTEST_SKIP() << "cannot create a device node (needs root): " << std::strerror(errno);
  }
  for (const char* emit : {"--emit=binary", "--emit=text"}) {
    SCOPED_TRACE(emit);
    ToolRun r = runTool({kExample, emit, "-o", device});
    EXPECT_EQ(r.exit_code, 0) << r.describe();
    struct stat st;
    ASSERT_EQ(stat(device.c_str(), &st), 0);
    EXPECT_TRUE(S_ISCHR(st.st_mode)) << device << " is no longer a character device";
  }
  EXPECT_EQ(listDir(out_dir_), std::vector<std::string>{"null"});
}

// The malformed models the user guide shows errors for (tests/reliability holds the catalogue
// of bad inputs; these are kept as examples a user can run).
TEST_F(CliTest, CommittedBadModelsFailCleanly) {
  for (const char* name : {"dangling_input.onnx", "cycle.onnx", "duplicate_value_names.onnx",
                           "unknown_attribute_type.onnx"}) {
    SCOPED_TRACE(name);
    const std::string input = kDataDir + "/" + name;
    expectCleanFailure(runTool({input, "-o", out_dir_ + "/out.onnx"}), {input}, {});
    EXPECT_TRUE(listDir(out_dir_).empty());
  }
}

// The committed bad models must match the script next to them (skipped without Debian's
// python3-onnx, which CI does not need).
TEST_F(CliTest, CommittedBadModelsAreUpToDate) {
  if (std::system("/usr/bin/python3 -c 'import onnx' >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "/usr/bin/python3 with onnx is not available";
  }
  const std::string gen = dir_ + "/gen";
  fs::create_directory(gen);
  const std::string command = "/usr/bin/python3 " + kDataDir + "/make_bad_models.py " + gen +
                              " >/dev/null";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  for (const std::string& name : listDir(gen)) {
    EXPECT_TRUE(readFile(gen + "/" + name) == readFile(kDataDir + "/" + name))
        << "tests/cli/data/" << name << " is stale: rerun tests/cli/data/make_bad_models.py";
  }
  EXPECT_EQ(listDir(gen).size(), 4u);
}

TEST_F(CliTest, CommittedExampleIsUpToDate) {
  if (std::system("/usr/bin/python3 -c 'import onnx' >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "/usr/bin/python3 with onnx is not available";
  }
  const std::string out = dir_ + "/example.onnx";
  const std::string command = "/usr/bin/python3 " + kSourceDir +
                              "/examples/make_legacy_classifier.py " + out + " >/dev/null";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  EXPECT_TRUE(readFile(out) == readFile(kExample))
      << "examples/legacy_classifier.onnx is stale: rerun examples/make_legacy_classifier.py";
}

// ---------------------------------------------------------------------------------------------
// The argument parser, called directly.

// A binary model is not written to a terminal (stdout by default); text is, and -o is not stdout.
TEST(CliTerminal, RefusesToWriteABinaryModelToATerminal) {
  std::istringstream in;
  std::ostringstream out;
  std::ostringstream err;
  onnxopt::cli::Io io{in, out, err};
  io.out_is_terminal = true;
  EXPECT_EQ(onnxopt::cli::main({kExample, "-O0"}, io), 2);
  EXPECT_EQ(err.str(),
            "onnx-opt: error: not writing a binary model to a terminal\n"
            "Use -o <file>, or --emit=text to print it.\n");
  EXPECT_TRUE(out.str().empty());

  std::ostringstream text;
  std::ostringstream text_err;
  onnxopt::cli::Io text_io{in, text, text_err};
  text_io.out_is_terminal = true;
  EXPECT_EQ(onnxopt::cli::main({kExample, "-O0", "-q", "--emit=text"}, text_io), 0) << text_err.str();
  EXPECT_TRUE(contains(text.str(), "Gemm")) << text.str();
}

TEST(CliParseArgs, Defaults) {
  auto options = onnxopt::cli::parseArgs({"model.onnx"});
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->input, "model.onnx");
  EXPECT_EQ(options->output, "-");
  EXPECT_EQ(options->emit, onnxopt::cli::EmitKind::kBinary);
  EXPECT_FALSE(options->opt_level.has_value());
  EXPECT_FALSE(options->passes.has_value());
  EXPECT_EQ(options->pipelineName(), "O1") << "-O1 is the default pipeline";
  EXPECT_FALSE(options->fixed_point);
  EXPECT_FALSE(options->verify_each);
  EXPECT_FALSE(options->quiet);
}

TEST(CliParseArgs, OutputSpellings) {
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"in", "-o", "out"},
                                             {"in", "-oout"},
                                             {"in", "-o=out"},
                                             {"in", "--output", "out"},
                                             {"in", "--output=out"},
                                             {"-o", "out", "in"}}) {
    auto options = onnxopt::cli::parseArgs(args);
    ASSERT_TRUE(options.ok()) << join(args) << ": " << options.status();
    EXPECT_EQ(options->output, "out") << join(args);
    EXPECT_EQ(options->input, "in") << join(args);
  }
}

TEST(CliParseArgs, DashIsAnOperandAndDoubleDashEndsOptions) {
  auto options = onnxopt::cli::parseArgs({"-o", "-", "-"});
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->input, "-");
  EXPECT_EQ(options->output, "-");

  options = onnxopt::cli::parseArgs({"--", "-weird-name.onnx"});
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->input, "-weird-name.onnx");
}

TEST(CliParseArgs, Rejects) {
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {},
           {"in", "--emitter=text"},
           {"in", "--emit="},
           {"in", "--emit"},
           {"in", "-o", ""},
           {"in", "-O"},
           {"in", "-O3"},
           {"in", "-Ofast"},
           {"in", "-O1", "--passes=eliminate-dead-nodes"},
           {"in", "--passes"},
           {"in", "--passes=a", "--passes=b"},
           {"in", "--print-ir-after"},
           {"in", "--print-ir-after="},
           {"in", "--print-ir-after=a,,b"},
           {"in", "--verify-each=yes"},
           {"in", "--quiet=yes"},
           {"--pass-statistics"},
       }) {
    EXPECT_FALSE(onnxopt::cli::parseArgs(args).ok()) << "accepted: " << join(args);
  }
}

TEST(CliParseArgs, PipelineAndInstrumentationFlags) {
  auto options = onnxopt::cli::parseArgs(
      {"in", "--passes", "eliminate-dead-nodes{max-iterations=3}", "--fixed-point",
       "--pass-statistics", "--time-passes", "--verify-each", "--require-convergence",
       "--print-ir-after=a,b", "--print-ir-after", "c", "--print-ir-after-all",
       "--print-ir-after-change", "--debug"});
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->passes, "eliminate-dead-nodes{max-iterations=3}");
  EXPECT_FALSE(options->opt_level.has_value());
  EXPECT_TRUE(options->fixed_point);
  EXPECT_TRUE(options->pass_statistics);
  EXPECT_TRUE(options->time_passes);
  EXPECT_TRUE(options->verify_each);
  EXPECT_TRUE(options->require_convergence);
  EXPECT_EQ(options->print_ir_after, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_TRUE(options->print_ir_after_all);
  EXPECT_TRUE(options->print_ir_after_change);
  EXPECT_TRUE(options->debug);

  for (const char* level : {"0", "1", "2"}) {
    options = onnxopt::cli::parseArgs({"in", std::string("-O") + level});
    ASSERT_TRUE(options.ok()) << options.status();
    EXPECT_EQ(options->pipelineName(), std::string("O") + level);
  }
  // The empty pipeline is a pipeline.
  options = onnxopt::cli::parseArgs({"in", "--passes="});
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->passes, "");
  // --list-passes and --print-pipeline need no input.
  EXPECT_TRUE(onnxopt::cli::parseArgs({"--list-passes"}).ok());
  EXPECT_TRUE(onnxopt::cli::parseArgs({"--print-pipeline", "-O2"}).ok());
}

// ---------------------------------------------------------------------------------------------
// Pipelines: --list-passes, --print-pipeline, -O<level>, --passes, --fixed-point

const onnxopt::PassRegistry& registry() { return onnxopt::PassRegistry::global(); }

std::string namedPipeline(const std::string& name) {
  absl::StatusOr<std::string> pipeline = registry().namedPipeline(name);
  EXPECT_TRUE(pipeline.ok()) << pipeline.status();
  return pipeline.ok() ? *pipeline : "";
}

class CliPipelineTest : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    dead_ = dir_ + "/dead_nodes.onnx";
    writeModelFromText(dead_, kDeadNodesText);
  }
  std::string dead_;  // the model of kDeadNodesText
};

TEST_F(CliPipelineTest, ListPassesNamesEveryPassWithItsOptions) {
  ToolRun r = runTool({"--list-passes"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_TRUE(r.err.empty()) << r.describe();
  EXPECT_TRUE(contains(r.out, "\n  eliminate-dead-nodes\n")) << r.describe();
  ASSERT_FALSE(registry().passes().empty());
  for (const onnxopt::PassInfo* info : registry().passes()) {
    EXPECT_TRUE(contains(r.out, "  " + info->name + "\n")) << info->name << "\n" << r.describe();
    EXPECT_TRUE(contains(r.out, info->summary)) << info->name << "\n" << r.describe();
    absl::StatusOr<std::unique_ptr<onnxopt::Pass>> pass = registry().createPass(info->name);
    ASSERT_TRUE(pass.ok()) << pass.status();
    for (const onnxopt::PassOptionBase* option : (*pass)->options()) {
      const std::string line = "option " + option->name() + " (" + option->typeName() +
                               ", default " + option->defaultText() + "): " +
                               option->description();
      EXPECT_TRUE(contains(r.out, line)) << "missing '" << line << "'\n" << r.describe();
    }
  }
  for (const onnxopt::NamedPipeline& pipeline : registry().namedPipelines()) {
    EXPECT_TRUE(contains(r.out, "-" + pipeline.name + "  " + pipeline.summary)) << r.describe();
  }
  // Needs no input, even with a terminal-hostile default output.
  EXPECT_TRUE(listDir(out_dir_).empty());
}

// The options every rewrite-driver pass takes are described once, and each such pass names them.
TEST_F(CliPipelineTest, ListPassesDescribesTheDriverOptionsOnce) {
  ToolRun r = runTool({"--list-passes"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  auto count = [&r](const std::string& text) {
    size_t n = 0;
    for (size_t at = r.out.find(text); at != std::string::npos; at = r.out.find(text, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("option max-iterations (int, default 10)"), 1u) << r.describe();
  EXPECT_EQ(count("option confirm-fixed-point (bool, default false)"), 1u) << r.describe();
  // A pass's entry: its name line and the indented lines under it.
  auto entry = [&r](const std::string& pass) {
    const size_t start = r.out.find("\n  " + pass + "\n");
    if (start == std::string::npos) return std::string();
    size_t end = start + 1;
    do {
      end = r.out.find('\n', end + 1);
    } while (end != std::string::npos && r.out.compare(end + 1, 3, "   ") == 0);
    return r.out.substr(start + 1, end - start);
  };
  EXPECT_TRUE(contains(entry("eliminate-identity"),
                       "      driver options: max-iterations, confirm-fixed-point\n"))
      << r.describe();
  // A pass that is not a pattern pass has no driver options.
  const std::string cse = entry("eliminate-common-subexpressions");
  ASSERT_FALSE(cse.empty()) << r.describe();
  EXPECT_FALSE(contains(cse, "driver options")) << cse;
}

TEST_F(CliPipelineTest, PrintPipelineOfTheDefaultIsO1) {
  const std::string o1 = namedPipeline("O1");
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"--print-pipeline"},
                                             {"-O1", "--print-pipeline"},
                                             {kExample, "--print-pipeline", "-o",
                                              out_dir_ + "/x.onnx"}}) {
    ToolRun r = runTool(args);
    ASSERT_EQ(r.exit_code, 0) << r.describe();
    EXPECT_EQ(r.out, o1 + "\n") << r.describe();
    EXPECT_TRUE(r.err.empty()) << r.describe();
  }
  EXPECT_TRUE(listDir(out_dir_).empty()) << "--print-pipeline must not write a model";

  for (const char* level : {"O0", "O2"}) {
    ToolRun r = runTool({std::string("-") + level, "--print-pipeline"});
    ASSERT_EQ(r.exit_code, 0) << r.describe();
    EXPECT_EQ(r.out, namedPipeline(level) + "\n") << r.describe();
  }
  // The expansion parses back to itself.
  ToolRun again = runTool({"--passes=" + o1, "--print-pipeline"});
  ASSERT_EQ(again.exit_code, 0) << again.describe();
  EXPECT_EQ(again.out, o1 + "\n") << again.describe();
}

TEST_F(CliPipelineTest, PrintPipelineGivesPassesWithOptionsBack) {
  const std::string pipeline = "eliminate-dead-nodes{max-iterations=3},eliminate-dead-nodes";
  ToolRun r = runTool({"--passes=" + pipeline, "--print-pipeline"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.out, pipeline + "\n") << r.describe();

  // Spaces are allowed, and the printed form parses back to the same text.
  r = runTool({"--passes", " eliminate-dead-nodes { max-iterations = 3 } , eliminate-dead-nodes ",
               "--print-pipeline"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.out, pipeline + "\n") << r.describe();

  r = runTool({"--passes=", "--print-pipeline"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.out, "\n") << r.describe();
}

TEST_F(CliPipelineTest, UnknownPassListsTheValidOnes) {
  const std::string out = out_dir_ + "/out.onnx";
  ToolRun r = runTool({dead_, "--passes=eliminate-dead-nodes,no-such-pass", "-o", out});
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_TRUE(contains(r.err, "unknown pass 'no-such-pass'")) << r.describe();
  for (const onnxopt::PassInfo* info : registry().passes()) {
    EXPECT_TRUE(contains(r.err, info->name)) << "does not list " << info->name << "\n"
                                             << r.describe();
  }
  EXPECT_TRUE(contains(r.err, "onnx-opt --list-passes")) << r.describe();
  EXPECT_FALSE(fs::exists(out));
}

TEST_F(CliPipelineTest, UnknownOptionListsTheValidOnes) {
  const std::string out = out_dir_ + "/out.onnx";
  ToolRun r = runTool({dead_, "--passes=eliminate-dead-nodes{max-iteration=3}", "-o", out});
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_TRUE(contains(r.err, "no option 'max-iteration'")) << r.describe();
  EXPECT_TRUE(contains(r.err, "valid options: max-iterations")) << r.describe();
  EXPECT_FALSE(fs::exists(out));
}

TEST_F(CliPipelineTest, EliminateDeadNodesWithStatistics) {
  const std::string out = out_dir_ + "/out.onnx";
  ToolRun r = runTool({dead_, "-o", out, "--passes=eliminate-dead-nodes", "--pass-statistics",
                       "--verify-each"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_TRUE(contains(r.err, "Pass statistics (1 round)\n")) << r.describe();
  // pass, visited, matched, rewritten, removed (3 nodes), init-removed (1), time-ms
  EXPECT_TRUE(std::regex_search(
      r.err, std::regex(R"(\n  pass +visited +matched +rewritten +removed +init-removed +time-ms\n)")))
      << r.describe();
  EXPECT_TRUE(std::regex_search(
      r.err, std::regex(R"(\n  eliminate-dead-nodes +[0-9]+ +0 +0 +3 +1 +[0-9.]+\n)")))
      << r.describe();
  EXPECT_TRUE(contains(withoutTimes(r.err), "onnx-opt: " + dead_ + ":" + kDeadNodesSummary))
      << r.describe();

  // The output holds only the live node, and no initializer.
  ToolRun text = runTool({out, "-O0", "--emit=text", "-q"});
  ASSERT_EQ(text.exit_code, 0) << text.describe();
  EXPECT_TRUE(contains(text.out, "Y = Relu(X)")) << text.describe();
  for (const char* gone : {"Neg", "Abs", "Add", "read_by_dead"}) {
    EXPECT_FALSE(contains(text.out, gone)) << gone << " survived\n" << text.describe();
  }
}

TEST_F(CliPipelineTest, DefaultPipelineIsO1) {
  const std::string out = out_dir_ + "/out.onnx";
  ToolRun r = runTool({dead_, "-o", out, "--pass-statistics"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_TRUE(contains(withoutTimes(r.err), kDeadNodesSummary))
      << "dead nodes not removed by default\n" << r.describe();
  // One statistics row per pass of -O1, which ran to a fixed point: the second round changes
  // nothing.
  for (const std::string& pass : passNames(namedPipeline("O1"))) {
    EXPECT_TRUE(contains(r.err, "\n  " + pass + " ")) << pass << " did not run\n"
                                                      << r.describe();
  }
  EXPECT_TRUE(contains(r.err, "Pass statistics (2 rounds)")) << r.describe();

  ToolRun o1 = runTool({dead_, "-O1", "-o", out_dir_ + "/o1.onnx"});
  ASSERT_EQ(o1.exit_code, 0) << o1.describe();
  EXPECT_TRUE(readFile(out) == readFile(out_dir_ + "/o1.onnx")) << "default and -O1 differ";

  // -O0 keeps everything.
  ToolRun o0 = runTool({dead_, "-O0", "-o", out_dir_ + "/o0.onnx"});
  ASSERT_EQ(o0.exit_code, 0) << o0.describe();
  EXPECT_EQ(withoutTimes(o0.err),
            "onnx-opt: " + dead_ + ": 4 -> 4 nodes\n  initializers: 1 -> 1 (12 -> 12 bytes)\n"
            "  time: load T s, optimize T s, save T s\n")
      << o0.describe();
  EXPECT_TRUE(readFile(out_dir_ + "/o0.onnx") == readFile(dead_));
}

TEST_F(CliPipelineTest, FixedPointRepeatsThePipeline) {
  ToolRun once = runTool({dead_, "-o", out_dir_ + "/a.onnx", "--passes=eliminate-dead-nodes",
                          "--pass-statistics"});
  ASSERT_EQ(once.exit_code, 0) << once.describe();
  EXPECT_TRUE(contains(once.err, "Pass statistics (1 round)")) << once.describe();

  ToolRun fixed = runTool({dead_, "-o", out_dir_ + "/b.onnx", "--passes=eliminate-dead-nodes",
                           "--fixed-point", "--pass-statistics"});
  ASSERT_EQ(fixed.exit_code, 0) << fixed.describe();
  EXPECT_TRUE(contains(fixed.err, "Pass statistics (2 rounds)")) << fixed.describe();
  EXPECT_FALSE(contains(fixed.err, "warning")) << fixed.describe();
}

// A named pipeline given as --passes runs as the -O flag does (and as the library's "-O1"):
// to a fixed point, with the same result.
TEST_F(CliPipelineTest, NamedPipelineAsPassesRunsToAFixedPoint) {
  ToolRun flag = runTool({dead_, "-O1", "-o", out_dir_ + "/flag.onnx", "--pass-statistics"});
  ASSERT_EQ(flag.exit_code, 0) << flag.describe();
  ToolRun text = runTool({dead_, "--passes=-O1", "-o", out_dir_ + "/text.onnx",
                          "--pass-statistics"});
  ASSERT_EQ(text.exit_code, 0) << text.describe();
  EXPECT_TRUE(contains(text.err, "Pass statistics (2 rounds)")) << text.describe();
  EXPECT_TRUE(readFile(out_dir_ + "/flag.onnx") == readFile(out_dir_ + "/text.onnx"));
}

TEST_F(CliPipelineTest, ExampleUnderO1) {
  const std::string out = out_dir_ + "/example.onnx";
  ToolRun r = runTool({kExample, "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  // The Transposes and Expands are gone; so are the Expands' shape initializers.
  EXPECT_EQ(withoutTimes(r.err), "onnx-opt: " + kExample + ": 11 -> 5 nodes\n" +
                                     "  op Transpose: 3 -> 0\n" + "  op Expand: 3 -> 0\n" +
                                     "  initializers: 9 -> 6 (" +
                                     std::to_string(rawInitializerBytes(kExample)) + " -> " +
                                     std::to_string(rawInitializerBytes(out)) + " bytes)\n" +
                                     "  time: load T s, optimize T s, save T s\n")
      << r.describe();
  EXPECT_EQ(listDir(out_dir_), std::vector<std::string>{"example.onnx"});
}

TEST_F(CliPipelineTest, TimePasses) {
  ToolRun r = runTool({dead_, "-o", out_dir_ + "/out.onnx", "--time-passes", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_TRUE(contains(r.err, "Pass execution timing (2 rounds)\n")) << r.describe();
  for (const std::string& pass : passNames(namedPipeline("O1"))) {
    EXPECT_TRUE(std::regex_search(r.err, std::regex("\n +[0-9.]+ +[0-9.]+%  " + pass + "\n")))
        << pass << "\n" << r.describe();
  }
  EXPECT_TRUE(std::regex_search(r.err, std::regex(R"(\n +[0-9.]+ +100\.0%  total\n)")))
      << r.describe();
  EXPECT_FALSE(contains(r.err, "Pass statistics")) << r.describe();
}

TEST_F(CliPipelineTest, PrintIrAfterAll) {
  ToolRun r = runTool({dead_, "-o", out_dir_ + "/out.onnx", "-q", "--print-ir-after-all",
                       "--passes=eliminate-dead-nodes{max-iterations=3},eliminate-dead-nodes"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  const std::string first = "# IR after pass 'eliminate-dead-nodes{max-iterations=3}' (round 1)\n";
  const std::string second = "# IR after pass 'eliminate-dead-nodes' (round 1)\n";
  ASSERT_EQ(countOf(r.err, first), 1u) << r.describe();
  ASSERT_EQ(countOf(r.err, second), 1u) << r.describe();
  EXPECT_LT(r.err.find(first), r.err.find(second)) << r.describe();
  // Each header is followed by the whole model, already without the dead nodes.
  EXPECT_EQ(countOf(r.err, "dead_nodes (float[2,3] X) => (float[2,3] Y)"), 2u) << r.describe();
  EXPECT_EQ(countOf(r.err, "Y = Relu(X)"), 2u) << r.describe();
  EXPECT_FALSE(contains(r.err, "Neg")) << r.describe();
  EXPECT_TRUE(r.out.empty()) << "IR printing goes to stderr";

  // -O1: one printout per pass that ran: every pass in round 1; in round 2 those the model
  // changed after (the first, at least: eliminate-dead-nodes removed the dead nodes).
  ToolRun o1 = runTool({dead_, "-o", out_dir_ + "/o1.onnx", "-q", "--print-ir-after-all"});
  ASSERT_EQ(o1.exit_code, 0) << o1.describe();
  const std::vector<std::string> o1_passes = passNames(namedPipeline("O1"));
  for (const std::string& pass : o1_passes) {
    EXPECT_EQ(countOf(o1.err, "# IR after pass '" + pass + "' (round 1)\n"), 1u)
        << pass << "\n" << o1.describe();
  }
  EXPECT_TRUE(contains(o1.err, "# IR after pass '" + o1_passes.front() + "' (round 2)\n"))
      << o1.describe();
  EXPECT_FALSE(contains(o1.err, "# IR after pass '" + o1_passes.back() + "' (round 2)\n"))
      << o1.describe();
}

TEST_F(CliPipelineTest, PrintIrAfterNamedPassesOrChanges) {
  const std::string pipeline = "--passes=eliminate-dead-nodes,eliminate-dead-nodes";
  // After a named pass: every run of it.
  ToolRun named = runTool({dead_, "-o", out_dir_ + "/a.onnx", "-q", pipeline,
                           "--print-ir-after=eliminate-dead-nodes"});
  ASSERT_EQ(named.exit_code, 0) << named.describe();
  EXPECT_EQ(countOf(named.err, "# IR after pass "), 2u) << named.describe();

  // After a change: only the first run changed the model.
  ToolRun changed = runTool({dead_, "-o", out_dir_ + "/b.onnx", "-q", pipeline,
                             "--print-ir-after-change"});
  ASSERT_EQ(changed.exit_code, 0) << changed.describe();
  EXPECT_EQ(countOf(changed.err, "# IR after pass 'eliminate-dead-nodes' (round 1)\n"), 1u)
      << changed.describe();
  EXPECT_EQ(countOf(changed.err, "# IR after pass "), 1u) << changed.describe();

  // Named passes of -O1 only: no other pass prints.
  ToolRun o1 = runTool({dead_, "-o", out_dir_ + "/c.onnx", "-q",
                        "--print-ir-after=eliminate-dead-nodes"});
  ASSERT_EQ(o1.exit_code, 0) << o1.describe();
  EXPECT_EQ(countOf(o1.err, "# IR after pass "),
            countOf(o1.err, "# IR after pass 'eliminate-dead-nodes' "))
      << o1.describe();
  EXPECT_GE(countOf(o1.err, "# IR after pass 'eliminate-dead-nodes' "), 1u) << o1.describe();
}

TEST_F(CliPipelineTest, DebugSaysWhatThePassesDid) {
  ToolRun r = runTool({dead_, "-o", out_dir_ + "/out.onnx", "-q", "--debug",
                       "--passes=eliminate-dead-nodes"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_GE(countOf(r.err, "onnx-opt: debug: "), 3u) << "one line per erased node\n"
                                                     << r.describe();
  for (const char* op : {"Neg", "Abs", "Add"}) {
    EXPECT_TRUE(contains(r.err, op)) << r.describe();
  }
  ToolRun quiet = runTool({dead_, "-o", out_dir_ + "/out.onnx", "-q",
                           "--passes=eliminate-dead-nodes"});
  EXPECT_TRUE(quiet.err.empty()) << quiet.describe();
}

// The fusing patterns compose their reasons lazily; --debug still gets them whole.
TEST_F(CliPipelineTest, DebugSaysWhyTheFusingPatternsDeclined) {
  const std::string model = dir_ + "/declines.onnx";
  writeModelFromText(model, R"(
<ir_version: 8, opset_import: ["" : 13]>
declines (float[2,3,4] X, float[4,5] W, float[5] b, float[5,5] G) => (float[2,3,5] Y, float[5,5] Z) {
  p = MatMul(X, W)
  Y = Add(p, b)
  Z = Gemm(G, G)
}
)");
  ToolRun r = runTool({model, "-o", out_dir_ + "/out.onnx", "-q", "--debug",
                       "--passes=fuse-matmul-add-gemm,fuse-transpose-gemm"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_TRUE(contains(r.err, "with MatMul '") && contains(r.err, "' as operand 0: A has rank 3"))
      << r.describe();
  // A Gemm none of whose operands is a Transpose is not a near miss: --debug says nothing of it.
  EXPECT_FALSE(contains(r.err, "fold-transpose-into-gemm-operand")) << r.describe();
}

// An option value the pass cannot run with is a bad command line: refused with the pipeline,
// before the input (which does not exist here) is read, and the output is left alone.
TEST_F(CliPipelineTest, RefusedPassOptionValueIsAUsageError) {
  const std::string out = out_dir_ + "/existing.onnx";
  writeFile(out, "keep me");
  const std::string missing = dir_ + "/no-such-model.onnx";
  ToolRun r = runTool({missing, "-o", out, "--passes=eliminate-dead-nodes{max-iterations=0}"});
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  const std::string first_line = r.err.substr(0, r.err.find('\n'));
  EXPECT_EQ(first_line.rfind("onnx-opt: error: ", 0), 0u) << r.describe();
  EXPECT_TRUE(contains(first_line, "option 'max-iterations'")) << r.describe();
  EXPECT_EQ(countOf(first_line, "pass 'eliminate-dead-nodes'"), 1u) << r.describe();
  EXPECT_FALSE(contains(r.err, missing)) << "the input was read first\n" << r.describe();
  EXPECT_TRUE(contains(r.err, "onnx-opt --list-passes")) << r.describe();
  EXPECT_EQ(readFile(out), "keep me");
  EXPECT_EQ(listDir(out_dir_), std::vector<std::string>{"existing.onnx"});
}

// ---------------------------------------------------------------------------------------------
// In-process runs with out-of-tree passes (cli::main with a registry of the test's own).

// Fails on the first Relu, naming it; changes nothing before.
class FailOnReluPass final : public onnxopt::Pass {
 public:
  FailOnReluPass() : Pass("fail-on-relu") {}
  absl::StatusOr<bool> run(onnxopt::ir::Model& model, onnxopt::PassContext&) override {
    for (onnxopt::ir::Node& node : model.graph()) {
      if (node.opType() == "Relu") {
        return absl::FailedPreconditionError("node 'the_relu' (Relu): cannot handle this node");
      }
    }
    return false;
  }
};

// Claims a change every time: --fixed-point never converges.
class AlwaysChangesPass final : public onnxopt::Pass {
 public:
  AlwaysChangesPass() : Pass("always-changes") {}
  absl::StatusOr<bool> run(onnxopt::ir::Model&, onnxopt::PassContext&) override { return true; }
};

// Moves the last node of the main graph to the front: its operands are then read before they
// are defined.
class BreaksOrderPass final : public onnxopt::Pass {
 public:
  BreaksOrderPass() : Pass("breaks-order") {}
  absl::StatusOr<bool> run(onnxopt::ir::Model& model, onnxopt::PassContext&) override {
    onnxopt::ir::Graph& graph = model.graph();
    graph.moveNodeBefore(graph.lastNode(), graph.firstNode());
    return true;
  }
};

class CliInProcessTest : public CliPipelineTest {
 protected:
  void SetUp() override {
    CliPipelineTest::SetUp();
    registry_ = onnxopt::PassRegistry::withBuiltinPasses();
    ASSERT_TRUE(registry_
                    .registerPass({"fail-on-relu", "Fails on the first Relu",
                                   [] { return std::make_unique<FailOnReluPass>(); }})
                    .ok());
    ASSERT_TRUE(registry_
                    .registerPass({"always-changes", "Says it changed the model, every time",
                                   [] { return std::make_unique<AlwaysChangesPass>(); }})
                    .ok());
    ASSERT_TRUE(registry_
                    .registerPass({"breaks-order", "Breaks the topological order",
                                   [] { return std::make_unique<BreaksOrderPass>(); }})
                    .ok());
  }

  struct Result {
    int exit_code;
    std::string out;
    std::string err;
  };
  Result runInProcess(std::vector<std::string> args, bool with_test_flags = true) {
    if (with_test_flags) args.insert(args.begin(), kTestFlags.begin(), kTestFlags.end());
    std::istringstream in;
    std::ostringstream out;
    std::ostringstream err;
    onnxopt::cli::Io io{in, out, err};
    const int code = onnxopt::cli::main(args, io, registry_);
    return {code, out.str(), err.str()};
  }

  onnxopt::PassRegistry registry_;
};

TEST_F(CliInProcessTest, FailingPassWritesNoOutput) {
  const std::string out = out_dir_ + "/existing.onnx";
  writeFile(out, "keep me");
  Result r = runInProcess({dead_, "-o", out, "--passes=eliminate-dead-nodes,fail-on-relu"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.err.rfind("onnx-opt: error: " + dead_ + ": pass 'fail-on-relu': ", 0), 0u) << r.err;
  EXPECT_TRUE(contains(r.err, "node 'the_relu' (Relu)")) << r.err;
  EXPECT_EQ(readFile(out), "keep me") << "a failed pass changed the existing output";
  EXPECT_EQ(listDir(out_dir_), std::vector<std::string>{"existing.onnx"});

  const std::string fresh = out_dir_ + "/new.onnx";
  r = runInProcess({dead_, "-o", fresh, "--passes=fail-on-relu", "--emit=text"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_FALSE(fs::exists(fresh));
  // To stdout: nothing either.
  r = runInProcess({dead_, "--passes=fail-on-relu", "--emit=text"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

// Without --verify-each, a model a pass broke is still verified before it is saved.
TEST_F(CliInProcessTest, ModelIsVerifiedBeforeItIsSaved) {
  const std::string out = out_dir_ + "/existing.onnx";
  writeFile(out, "keep me");
  Result r = runInProcess({dead_, "-o", out, "--passes=breaks-order"}, /*with_test_flags=*/false);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.err.rfind("onnx-opt: error: " + dead_ +
                            ": the model is invalid after the pipeline: node ",
                        0),
            0u)
      << r.err;
  EXPECT_EQ(readFile(out), "keep me");
  EXPECT_EQ(listDir(out_dir_), std::vector<std::string>{"existing.onnx"});
}

TEST_F(CliInProcessTest, OutOfTreePassesAreListedAndParsed) {
  Result list = runInProcess({"--list-passes"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_TRUE(contains(list.out, "  fail-on-relu\n      Fails on the first Relu\n")) << list.out;
  Result print = runInProcess({"--passes=always-changes,eliminate-dead-nodes", "--print-pipeline"});
  ASSERT_EQ(print.exit_code, 0) << print.err;
  EXPECT_EQ(print.out, "always-changes,eliminate-dead-nodes\n");
  Result known = runInProcess({dead_, "--passes=always-changes", "-o", out_dir_ + "/a.onnx"});
  EXPECT_EQ(known.exit_code, 0) << known.err;
  // The global registry, which main() uses by default, does not know them.
  std::istringstream in;
  std::ostringstream out;
  std::ostringstream err;
  onnxopt::cli::Io io{in, out, err};
  EXPECT_EQ(onnxopt::cli::main({dead_, "--passes=always-changes"}, io), 2) << err.str();
  EXPECT_TRUE(contains(err.str(), "unknown pass 'always-changes'")) << err.str();
}

TEST_F(CliInProcessTest, FixedPointCapIsReported) {
  // Without --require-convergence: a warning, and the model is written.
  const std::string out = out_dir_ + "/out.onnx";
  std::istringstream in;
  std::ostringstream stdout_text;
  std::ostringstream err;
  onnxopt::cli::Io io{in, stdout_text, err};
  const int code = onnxopt::cli::main(
      {dead_, "-o", out, "--passes=always-changes", "--fixed-point", "--pass-statistics"}, io,
      registry_);
  EXPECT_EQ(code, 0) << err.str();
  EXPECT_TRUE(contains(err.str(), "onnx-opt: warning: " + dead_ + ": ")) << err.str();
  EXPECT_TRUE(contains(err.str(), "after 64 rounds (--fixed-point cap)")) << err.str();
  EXPECT_TRUE(contains(err.str(), "Pass statistics (64 rounds)")) << err.str();
  EXPECT_TRUE(fs::exists(out));

  // With it: an error, nothing written.
  const std::string strict = out_dir_ + "/strict.onnx";
  Result r = runInProcess({dead_, "-o", strict, "--passes=always-changes", "--fixed-point"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "--fixed-point cap")) << r.err;
  EXPECT_FALSE(fs::exists(strict));
}

// README.md opens with its title, then the two commands that set up, build and test.
TEST(Readme, OpensWithTheTitleThenTheCommands) {
  const std::string readme = readFile(kSourceDir + "/README.md");
  const std::string opening =
      "# onnx-opt\n\n```sh\nbash scripts/demo.sh\nbash scripts/test.sh\n```\n";
  EXPECT_EQ(readme.substr(0, opening.size()), opening);
}

// ---------------------------------------------------------------------------------------------
// --help and docs/user-guide.md name the same flags.

// Flags in backticks in the option tables of the user guide's CLI reference: "`--emit=text`"
// gives "--emit", "`-o <file>`" gives "-o".
std::vector<std::string> flagsInUserGuide() {
  std::ifstream in(kUserGuide);
  EXPECT_TRUE(in.good()) << "cannot read " << kUserGuide;
  std::vector<std::string> flags;
  const std::regex flag(R"(`(--?[A-Za-z0-9][A-Za-z0-9-]*))");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("| `-", 0) != 0) continue;  // option rows start with a flag
    const std::string first_cell = line.substr(0, line.find(" |", 2));
    for (std::sregex_iterator it(first_cell.begin(), first_cell.end(), flag), end; it != end;
         ++it) {
      flags.push_back((*it)[1]);
    }
  }
  return flags;
}

// Flags at the start of the option lines of --help: "  -o, --output <file>   ..." gives "-o"
// and "--output".
std::vector<std::string> flagsInHelp(const std::string& help) {
  std::vector<std::string> flags;
  const std::regex flag(R"((^|[ ,|\[])(--?[A-Za-z0-9][A-Za-z0-9-]*))");
  std::istringstream in(help);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("  -", 0) != 0) continue;
    const std::string first_column = line.substr(0, line.find("   ", 2));
    for (std::sregex_iterator it(first_column.begin(), first_column.end(), flag), end; it != end;
         ++it) {
      flags.push_back((*it)[2]);
    }
  }
  return flags;
}

TEST_F(CliTest, HelpAndUserGuideNameTheSameFlags) {
  ToolRun r = runTool({"--help"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  const std::vector<std::string> documented = flagsInUserGuide();
  const std::vector<std::string> helped = flagsInHelp(r.out);
  ASSERT_GE(documented.size(), 20u) << "the option tables of docs/user-guide.md were not found: "
                                    << join(documented);
  for (const std::string& flag : documented) {
    EXPECT_NE(std::find(helped.begin(), helped.end(), flag), helped.end())
        << "docs/user-guide.md documents " << flag << ", --help does not list it\n"
        << "--help lists: " << join(helped);
  }
  for (const std::string& flag : helped) {
    EXPECT_NE(std::find(documented.begin(), documented.end(), flag), documented.end())
        << "--help lists " << flag << ", docs/user-guide.md does not document it\n"
        << "documented: " << join(documented);
  }
  // Every flag the parser accepts is in both (parse each; a value where one is needed).
  for (const std::string& flag : helped) {
    std::vector<std::string> args = {"in", flag};
    if (flag == "-o" || flag == "--output" || flag == "--passes" || flag == "--print-ir-after" ||
        flag == "--emit" || flag == "--report") {
      args.push_back(flag == "--emit" ? "text" : "x");
    }
    if (flag == "--input-shape" || flag == "--dim") args.push_back("x=1");
    if (flag == "--fold-max-size") args.push_back("1024");
    if (flag == "--skip") args.push_back("eliminate-dead-nodes");
    if (flag == "--input-format") args.push_back("text");
    if (flag == "--target") args.push_back("ort");
    if (flag == "--target-opset") args.push_back("17");
    EXPECT_TRUE(onnxopt::cli::parseArgs(args).ok()) << "--help lists " << flag
                                                    << ", which does not parse";
  }
}

// ---------------------------------------------------------------------------------------------
// --report=FILE.json (docs/report-schema.md)

const std::string kReportSchema = kSourceDir + "/docs/report-schema.md";

onnxopt::testing::JsonValue readJson(const std::string& path) {
  std::string error;
  std::optional<onnxopt::testing::JsonValue> value =
      onnxopt::testing::JsonReader::parse(readFile(path), &error);
  EXPECT_TRUE(value.has_value()) << path << " is not valid JSON: " << error;
  return value.value_or(onnxopt::testing::JsonValue());
}

// Every field of a report as a path: "model.before.nodes", "passes[].pass"; the keys of an
// op-type histogram are "<op type>".
void collectFields(const onnxopt::testing::JsonValue& value, const std::string& path,
                   std::set<std::string>* fields) {
  using Kind = onnxopt::testing::JsonValue::Kind;
  if (value.kind == Kind::kObject) {
    const bool histogram = path.size() >= 8 && path.compare(path.size() - 8, 8, "op_types") == 0;
    for (const auto& [key, member] : value.object) {
      const std::string name = histogram ? "<op type>" : key;
      const std::string field = path.empty() ? name : path + "." + name;
      fields->insert(field);
      collectFields(member, field, fields);
    }
  } else if (value.kind == Kind::kArray) {
    for (const auto& element : value.array) collectFields(element, path + "[]", fields);
  }
}

// The fields docs/report-schema.md documents: the first cell of each table row, in backticks.
std::set<std::string> fieldsInSchemaDoc() {
  std::ifstream in(kReportSchema);
  EXPECT_TRUE(in.good()) << "cannot read " << kReportSchema;
  std::set<std::string> fields;
  const std::regex row(R"(^\| `([^`]+)` \|)");
  std::string line;
  std::smatch match;
  while (std::getline(in, line)) {
    if (std::regex_search(line, match, row)) fields.insert(match[1]);
  }
  return fields;
}

// The --pass-statistics row of `pass`: visited, matched, rewritten, removed, init-removed.
std::vector<int64_t> statisticsRow(const std::string& err, const std::string& pass) {
  std::smatch match;
  const std::regex row("\n  " + pass + " +([0-9]+) +([0-9]+) +([0-9]+) +([0-9]+) +([0-9]+) ");
  if (!std::regex_search(err, match, row)) {
    ADD_FAILURE() << "no statistics row for " << pass << " in\n" << err;
    return {};
  }
  std::vector<int64_t> values;
  for (int i = 1; i <= 5; ++i) values.push_back(std::stoll(match[i]));
  return values;
}

TEST_F(CliTest, ReportDescribesTheRunOfTheExample) {
  const std::string out = out_dir_ + "/example.onnx";
  const std::string report = out_dir_ + "/report.json";
  ToolRun r = runTool({kExample, "-o", out, "--report=" + report, "--pass-statistics"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(listDir(out_dir_), (std::vector<std::string>{"example.onnx", "report.json"}))
      << "temporary files left behind";
  const onnxopt::testing::JsonValue json = readJson(report);

  EXPECT_EQ(json["schema_version"].integer(), onnxopt::cli::kReportSchemaVersion);
  EXPECT_EQ(json["tool"].string, "onnx-opt");
  EXPECT_EQ(json["tool_version"].string, ONNXOPT_VERSION);
  EXPECT_EQ(json["input"].string, kExample);
  EXPECT_EQ(json["output"].string, out);
  EXPECT_EQ(json["emit"].string, "binary");
  EXPECT_EQ(json["pipeline"].string, namedPipeline("O1"));
  EXPECT_TRUE(json["fixed_point"].boolean);
  EXPECT_EQ(json["rounds"].integer(), 2);
  EXPECT_TRUE(json["reached_fixed_point"].boolean);
  EXPECT_TRUE(json["changed"].boolean);

  const auto& before = json["model"]["before"];
  const auto& after = json["model"]["after"];
  EXPECT_EQ(before["nodes"].integer(), 11);
  EXPECT_EQ(after["nodes"].integer(), 5);
  const std::vector<std::pair<std::string, int64_t>> before_ops = {
      {"Transpose", 3}, {"Expand", 3}, {"Gemm", 3}, {"Relu", 2}};
  const std::vector<std::pair<std::string, int64_t>> after_ops = {{"Gemm", 3}, {"Relu", 2}};
  for (const auto& [histogram, expected] :
       {std::make_pair(&before["op_types"], before_ops),
        std::make_pair(&after["op_types"], after_ops)}) {
    ASSERT_EQ(histogram->object.size(), expected.size()) << readFile(report);
    for (size_t i = 0; i < expected.size(); ++i) {
      EXPECT_EQ(histogram->object[i].first, expected[i].first);
      EXPECT_EQ(histogram->object[i].second.integer(), expected[i].second);
    }
  }
  EXPECT_EQ(before["initializers"].integer(), 9);
  EXPECT_EQ(after["initializers"].integer(), 6);
  EXPECT_EQ(before["initializer_bytes"].integer(), rawInitializerBytes(kExample));
  EXPECT_EQ(after["initializer_bytes"].integer(), rawInitializerBytes(out));
  EXPECT_EQ(before["inputs"].integer(), 1);
  EXPECT_EQ(after["inputs"].integer(), 1);
  EXPECT_EQ(before["initializer_inputs"].integer(), 0);
  EXPECT_EQ(after["initializer_inputs"].integer(), 0);
  EXPECT_EQ(before["file_bytes"].integer(), static_cast<int64_t>(fs::file_size(kExample)));
  EXPECT_EQ(after["file_bytes"].integer(), static_cast<int64_t>(fs::file_size(out)));

  // One entry per pass of the pipeline, with the numbers --pass-statistics printed.
  const std::vector<std::string> passes = passNames(namedPipeline("O1"));
  ASSERT_EQ(json["passes"].array.size(), passes.size()) << readFile(report);
  double pass_seconds = 0;
  for (size_t i = 0; i < passes.size(); ++i) {
    const auto& pass = json["passes"].array[i];
    EXPECT_EQ(pass["pass"].string, passes[i]);
    // Round 2 reruns only the passes the model changed after: the later ones changed nothing,
    // and the model they would see is the one they left.
    if (i == 0) EXPECT_EQ(pass["runs"].integer(), 2);
    EXPECT_GE(pass["runs"].integer(), 1) << passes[i];
    EXPECT_LE(pass["runs"].integer(), 2) << passes[i];
    EXPECT_EQ(statisticsRow(r.err, passes[i]),
              (std::vector<int64_t>{pass["nodes_visited"].integer(),
                                    pass["nodes_matched"].integer(),
                                    pass["nodes_rewritten"].integer(),
                                    pass["nodes_removed"].integer(),
                                    pass["initializers_removed"].integer()}))
        << passes[i];
    EXPECT_GE(pass["seconds"].real(), 0);
    pass_seconds += pass["seconds"].real();
  }
  const auto passNamed = [&json](const std::string& name) -> const auto& {
    for (const auto& pass : json["passes"].array) {
      if (pass["pass"].string == name) return pass;
    }
    return json["no such pass"];
  };
  // The fusions run before fold-constants: the Gemms read the weights as they are (transB),
  // so no weight is copied and nothing is left to fold.
  EXPECT_TRUE(passNamed("fuse-transpose-gemm")["changed"].boolean);
  EXPECT_TRUE(passNamed("eliminate-nop-expand")["changed"].boolean);
  EXPECT_FALSE(passNamed("fold-constants")["changed"].boolean);

  const auto& seconds = json["seconds"];
  for (const char* stage : {"load", "optimize", "save"}) EXPECT_GE(seconds[stage].real(), 0);
  EXPECT_LE(pass_seconds, seconds["optimize"].real() + 1e-5);
  EXPECT_NEAR(seconds["total"].real(),
              seconds["load"].real() + seconds["optimize"].real() + seconds["save"].real(), 3e-6);
  EXPECT_EQ(json["warnings"].kind, onnxopt::testing::JsonValue::Kind::kArray);
  EXPECT_TRUE(json["warnings"].array.empty());
}

// docs/report-schema.md documents exactly the fields a report has: a field added to the
// report without its documentation, or documented but gone, fails here.
// Weights listed as graph inputs: the summary and the report say why -O1 leaves them, and, once
// eliminate-initializer-inputs has made them constants, how the inputs changed.
TEST_F(CliPipelineTest, SummaryNamesInitializerInputs) {
  const std::string model = dir_ + "/weights_as_inputs.onnx";
  writeModelFromText(model, R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[2] X, float[2] W, float[2] B) => (float[2] Y) <float[2] W = {1, 2}, float[2] B = {3, 4}> {
  n = Neg(W)
  a = Add(X, n)
  Y = Add(a, B)
}
)");
  ToolRun o1 = runTool({model, "-o", out_dir_ + "/o1.onnx"});
  ASSERT_EQ(o1.exit_code, 0) << o1.describe();
  EXPECT_EQ(withoutTimes(o1.err),
            "onnx-opt: " + model + ": 3 -> 3 nodes\n"
            "  initializers: 2 -> 2 (16 -> 16 bytes)\n"
            "  initializer inputs: 2 (a caller may feed them, so they are not folded; see "
            "eliminate-initializer-inputs)\n"
            "  time: load T s, optimize T s, save T s\n")
      << o1.describe();

  const std::string report = out_dir_ + "/report.json";
  ToolRun constants = runTool({model, "-o", out_dir_ + "/constants.onnx",
                               "--passes=eliminate-initializer-inputs,-O1", "--fixed-point",
                               "--report", report});
  ASSERT_EQ(constants.exit_code, 0) << constants.describe();
  EXPECT_EQ(withoutTimes(constants.err),
            "onnx-opt: warning: " + model + ": eliminate-initializer-inputs: removed 2 graph "
            "inputs that initializers define: callers no longer feed them\n"
            "onnx-opt: " + model + ": 3 -> 2 nodes\n"
            "  op Neg: 1 -> 0\n"
            "  inputs: 3 -> 1\n"
            "  initializers: 2 -> 2 (16 -> 16 bytes)\n"
            "  time: load T s, optimize T s, save T s\n")
      << constants.describe();
  const onnxopt::testing::JsonValue json = readJson(report);
  EXPECT_EQ(json["model"]["before"]["inputs"].integer(), 3);
  EXPECT_EQ(json["model"]["before"]["initializer_inputs"].integer(), 2);
  EXPECT_EQ(json["model"]["after"]["inputs"].integer(), 1);
  EXPECT_EQ(json["model"]["after"]["initializer_inputs"].integer(), 0);
}

TEST_F(CliTest, ReportSchemaDocumentsEveryField) {
  const std::string report = out_dir_ + "/report.json";
  ToolRun r = runTool({kExample, "-o", out_dir_ + "/out.onnx", "--report", report, "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  std::set<std::string> fields;
  collectFields(readJson(report), "", &fields);
  const std::set<std::string> documented = fieldsInSchemaDoc();
  ASSERT_GE(documented.size(), 20u) << "no field table found in " << kReportSchema;
  for (const std::string& field : fields) {
    EXPECT_TRUE(documented.count(field)) << "the report has '" << field << "', "
                                         << kReportSchema << " does not document it";
  }
  for (const std::string& field : documented) {
    EXPECT_TRUE(fields.count(field)) << kReportSchema << " documents '" << field
                                     << "', the report has no such field";
  }
}

TEST_F(CliTest, ReportOfStdinToStdoutAndOddNames) {
  // A file name with a quote, a backslash, a tab and non-ASCII letters: the report stays valid
  // JSON and gives the name back.
  const std::string odd = io_dir_ + "/we\"ird\\ \tna\xC3\xA9me.onnx";
  fs::copy_file(kExample, odd);
  const std::string report = out_dir_ + "/report.json";
  ToolRun r = runTool({odd, "-O0", "-o", out_dir_ + "/out.onnx", "--report=" + report, "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(readJson(report)["input"].string, odd);

  r = runTool({"-", "-O0", "--report=" + report, "-q"}, kExample);
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_TRUE(r.out == readFile(kExample)) << "stdout must hold the model, and only it";
  const onnxopt::testing::JsonValue json = readJson(report);
  EXPECT_EQ(json["input"].string, "-");
  EXPECT_EQ(json["output"].string, "-");
  EXPECT_EQ(json["model"]["before"]["file_bytes"].integer(),
            static_cast<int64_t>(fs::file_size(kExample)));
  EXPECT_EQ(json["model"]["after"]["file_bytes"].integer(), static_cast<int64_t>(r.out.size()));
  EXPECT_FALSE(json["changed"].boolean);
  EXPECT_EQ(json["rounds"].integer(), 1);
  EXPECT_TRUE(json["passes"].array.empty());

  // A device has no size to report, nor has a FIFO.
  const std::string fifo = io_dir_ + "/model.fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
  const std::string bytes = readFile(kExample);
  const pid_t writer = fork();
  ASSERT_GE(writer, 0) << std::strerror(errno);
  if (writer == 0) {
    const int fd = open(fifo.c_str(), O_WRONLY);
    const bool written =
        fd >= 0 && write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size());
    _exit(written ? 0 : 1);
  }
  r = runTool({fifo, "-O0", "-o", "/dev/null", "--report=" + report, "-q"});
  if (r.exit_code != 0) kill(writer, SIGKILL);  // it may still wait for a reader
  int status = 0;
  waitpid(writer, &status, 0);
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  const onnxopt::testing::JsonValue fifo_json = readJson(report);
  EXPECT_EQ(fifo_json["model"]["before"]["file_bytes"].kind,
            onnxopt::testing::JsonValue::Kind::kNull);
  EXPECT_EQ(fifo_json["model"]["after"]["file_bytes"].kind,
            onnxopt::testing::JsonValue::Kind::kNull);
}

TEST_F(CliTest, FailedRunWritesNoReport) {
  const std::string report = out_dir_ + "/report.json";
  writeFile(report, "previous report");
  ToolRun r = runTool({kDataDir + "/cycle.onnx", "-o", out_dir_ + "/out.onnx",
                       "--report=" + report});
  expectCleanFailure(r, {"cycle.onnx"}, {"cycle"});
  EXPECT_EQ(readFile(report), "previous report");
  EXPECT_EQ(listDir(out_dir_), std::vector<std::string>{"report.json"});
}

// The report's path and the output's are checked before the model is read (cycle.onnx would
// fail to load): no model is written when the report could not be.
TEST_F(CliTest, UnwritableReportFailsNamingItBeforeLoading) {
  const std::string out = out_dir_ + "/out.onnx";
  const std::string report = dir_ + "/no-such-dir/report.json";
  ToolRun r = runTool({kDataDir + "/cycle.onnx", "-o", out, "--report=" + report});
  expectCleanFailure(r, {report, "report", "'" + dir_ + "/no-such-dir' does not exist"}, {});
  EXPECT_FALSE(contains(r.err, "cycle")) << r.describe();
  EXPECT_FALSE(fs::exists(out));
  fs::create_directory(out_dir_ + "/adir");
  r = runTool({kDataDir + "/cycle.onnx", "-o", out, "--report=" + out_dir_ + "/adir"});
  expectCleanFailure(r, {out_dir_ + "/adir", "is a folder"}, {});
}

TEST_F(CliTest, UnwritableOutputFailsBeforeLoading) {
  const std::string out = out_dir_ + "/no/such/folder/out.onnx";
  ToolRun r = runTool({kDataDir + "/cycle.onnx", "-o", out});
  expectCleanFailure(r, {"'" + out_dir_ + "/no/such/folder' does not exist"}, {});
  EXPECT_FALSE(contains(r.err, "cycle")) << r.describe();
  writeFile(out_dir_ + "/plain", "x");
  r = runTool({kDataDir + "/cycle.onnx", "-o", out_dir_ + "/plain/out.onnx"});
  expectCleanFailure(r, {"'" + out_dir_ + "/plain' is not a folder"}, {});
}

// ---------------------------------------------------------------------------------------------
// The progress line: drawn on stderr only when it is a terminal. These tests give the real
// binary a pseudo-terminal (or a pipe) as stderr and read back what it wrote there.

struct StderrRun {
  int exit_code = -1;
  std::string err;  // every byte written to stderr
};

// Runs the tool (with kTestFlags) with stdin from `stdin_path`, stdout to `stdout_path`, and
// stderr a pseudo-terminal 100 columns wide in raw mode (no '\n' -> "\r\n" translation) when
// `terminal`, else a pipe. `interval` sets ONNX_OPT_PROGRESS_INTERVAL (nullptr: unset).
StderrRun runWithStderr(bool terminal, const std::vector<std::string>& args,
                        const char* interval, const std::string& stdin_path = "/dev/null",
                        const std::string& stdout_path = "/dev/null") {
  StderrRun result;
  int reader = -1;
  int writer = -1;
  if (terminal) {
    struct termios raw;
    cfmakeraw(&raw);
    struct winsize size = {};
    size.ws_row = 24;
    size.ws_col = 100;
    if (openpty(&reader, &writer, nullptr, &raw, &size) != 0) {
      ADD_FAILURE() << "openpty: " << std::strerror(errno);
      return result;
    }
  } else {
    int fds[2];
    if (pipe(fds) != 0) {
      ADD_FAILURE() << "pipe: " << std::strerror(errno);
      return result;
    }
    reader = fds[0];
    writer = fds[1];
  }
  std::vector<std::string> all = kTestFlags;
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv = {const_cast<char*>(kTool.c_str())};
  for (std::string& arg : all) argv.push_back(arg.data());
  argv.push_back(nullptr);

  const pid_t pid = fork();
  if (pid < 0) {
    ADD_FAILURE() << "fork: " << std::strerror(errno);
    return result;
  }
  if (pid == 0) {
    if (interval == nullptr) {
      unsetenv("ONNX_OPT_PROGRESS_INTERVAL");
    } else {
      setenv("ONNX_OPT_PROGRESS_INTERVAL", interval, 1);
    }
    const int in = open(stdin_path.c_str(), O_RDONLY);
    const int out = open(stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in < 0 || out < 0) _exit(126);
    dup2(in, 0);
    dup2(out, 1);
    dup2(writer, 2);
    close(reader);
    close(writer);
    execv(kTool.c_str(), argv.data());
    _exit(127);
  }
  close(writer);
  char buffer[4096];
  while (true) {
    const ssize_t n = read(reader, buffer, sizeof buffer);
    if (n > 0) {
      result.err.append(buffer, static_cast<size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;  // EOF, or EIO: a pseudo-terminal whose other side is closed
    }
  }
  close(reader);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  return result;
}

// The progress lines drawn: the texts after each '\r' up to the next one, without the blank
// ones that erase the line.
std::vector<std::string> progressLines(const std::string& err) {
  std::vector<std::string> lines;
  size_t at = err.find('\r');
  while (at != std::string::npos) {
    const size_t next = err.find('\r', at + 1);
    std::string text = err.substr(at + 1, next == std::string::npos ? next : next - at - 1);
    if (next != std::string::npos && text.find_first_not_of(' ') != std::string::npos) {
      lines.push_back(text.substr(0, text.find_last_not_of(' ') + 1));
    }
    at = next;
  }
  return lines;
}

TEST_F(CliTest, ProgressLineOnATerminal) {
  const std::string out = out_dir_ + "/out.onnx";
  StderrRun r = runWithStderr(true, {kExample, "-o", out}, "0");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> lines = progressLines(r.err);
  ASSERT_FALSE(lines.empty()) << "no progress line on a terminal:\n" << r.err;
  const std::regex bytes_line(
      R"((loading|saving): [0-9.]+ (B|KiB) of [0-9.]+ KiB \([0-9]+%\)(, [0-9.]+ MiB/s)?)");
  const std::regex pass_line(
      R"(optimizing: round [12], (pass [0-9]+/[0-9]+ [a-z-]+|done), [0-9]+ nodes visited(, [0-9]+ nodes/s)?)");
  bool loading = false, optimizing = false, saving = false;
  for (const std::string& line : lines) {
    EXPECT_LT(line.size(), 100u) << "longer than the terminal is wide: " << line;
    EXPECT_EQ(line.find('\n'), std::string::npos) << line;
    const bool known = std::regex_match(line, bytes_line) || std::regex_match(line, pass_line);
    EXPECT_TRUE(known) << "unexpected progress line '" << line << "'";
    loading |= line.rfind("loading: ", 0) == 0;
    optimizing |= std::regex_match(
        line, std::regex("optimizing: round 1, pass 1/[0-9]+ legalize-subgraph-outputs.*"));
    saving |= line.rfind("saving: ", 0) == 0;
  }
  EXPECT_TRUE(loading && optimizing && saving) << r.err;
  EXPECT_TRUE(contains(r.err, "\roptimizing: round 2, done, ")) << r.err;
  // Loading ends at the file's size.
  const std::string size = onnxopt::cli::formatBytes(static_cast<int64_t>(fs::file_size(kExample)));
  EXPECT_TRUE(contains(r.err, "\rloading: " + size + " of " + size + " (100%)")) << r.err;
  // The line is erased before the summary, which is as it is without a terminal.
  const size_t summary = r.err.find("onnx-opt: ");
  ASSERT_NE(summary, std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\r', summary), std::string::npos) << r.err;
  const size_t erase = r.err.rfind('\r', summary - 2);
  ASSERT_NE(erase, std::string::npos);
  EXPECT_EQ(r.err.find_first_not_of(' ', erase + 1), summary - 1) << "not erased: " << r.err;
  EXPECT_EQ(withoutTimes(r.err.substr(summary)),
            withoutTimes(runTool({kExample, "-o", out_dir_ + "/again.onnx"}).err));
}

TEST_F(CliTest, ProgressLineKeepsStdoutClean) {
  const std::string model_out = io_dir_ + "/model.onnx";
  StderrRun r = runWithStderr(true, {"-", "-O0", "-o", "-"}, "0", kExample, model_out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(readFile(model_out) == readFile(kExample)) << "stdout is not the model's bytes";
  EXPECT_TRUE(contains(r.err, "\rreading <stdin>: ")) << r.err;
  EXPECT_TRUE(contains(r.err, "\rloading: ")) << r.err;
  EXPECT_TRUE(contains(r.err, "\rsaving: ")) << r.err;
}

TEST_F(CliTest, NoProgressLineWhenQuickQuietOrNotATerminal) {
  const std::vector<std::string> args = {kExample, "-o", out_dir_ + "/out.onnx"};
  // The example takes far less than a minute: nothing is drawn.
  StderrRun quick = runWithStderr(true, args, "60");
  EXPECT_EQ(quick.exit_code, 0) << quick.err;
  EXPECT_EQ(quick.err.find('\r'), std::string::npos) << quick.err;
  // Not with --quiet, nor when --debug writes to stderr while the passes run.
  StderrRun quiet = runWithStderr(true, {kExample, "-o", out_dir_ + "/out.onnx", "-q"}, "0");
  EXPECT_EQ(quiet.exit_code, 0);
  EXPECT_EQ(quiet.err, "");
  StderrRun debug = runWithStderr(true, {kExample, "-o", out_dir_ + "/out.onnx", "--debug"}, "0");
  EXPECT_EQ(debug.exit_code, 0) << debug.err;
  EXPECT_TRUE(contains(debug.err, "onnx-opt: debug: ")) << debug.err;
  EXPECT_EQ(debug.err.find('\r'), std::string::npos) << debug.err;
  // Never when stderr is not a terminal (a pipe here, a file in every other test).
  StderrRun piped = runWithStderr(false, args, "0");
  EXPECT_EQ(piped.exit_code, 0) << piped.err;
  EXPECT_EQ(piped.err.find('\r'), std::string::npos) << piped.err;
  EXPECT_TRUE(contains(piped.err, "onnx-opt: " + kExample + ": 11 -> 5 nodes\n")) << piped.err;
}

TEST_F(CliTest, BadProgressIntervalIsAUsageError) {
  StderrRun r = runWithStderr(false, {kExample, "-o", out_dir_ + "/out.onnx"}, "soon");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err, "onnx-opt: error: ONNX_OPT_PROGRESS_INTERVAL must be a number of seconds "
                   "(>= 0), not 'soon'\n");
  EXPECT_TRUE(listDir(out_dir_).empty());
}


// --input-shape and --dim (docs/user-guide.md).

// A dynamic batch N in the inputs, an output and value_info, an unnamed dim, and the shape of a
// value computed from the input: once N and the unnamed dim are fixed, fold-shapes folds it.
constexpr const char* kDynamicBatchText = R"(
<ir_version: 8, opset_import: ["" : 13]>
dynamic_batch (float[N,?,4] X, float[N] B) => (float[N,12] Y, int64[3] S)
<float[N,3,4] R>
{
  R = Relu(X)
  S = Shape(R)
  Y = Reshape(R, target)
  target = Constant<value = int64[2] {-1, 12}>()
}
)";

class CliInputShapeTest : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    model_ = dir_ + "/dynamic_batch.onnx";
    writeModelFromText(model_, kDynamicBatchText);
  }
  // The text of the model `args` make, run with -O0.
  ToolRun textOf(std::vector<std::string> args) {
    args.insert(args.begin(), {model_, "-O0", "--emit=text"});
    return runTool(args);
  }
  std::string model_;
};

TEST_F(CliInputShapeTest, InputShapeFixesTheSymbolEverywhereAndTheUnnamedDimInItsInput) {
  ToolRun r = textOf({"--input-shape", "X=2,3,4"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_TRUE(contains(r.out, "(float[2,3,4] X, float[2] B) => (float[2,12] Y, int64[3] S)"))
      << r.describe();
  EXPECT_TRUE(contains(r.out, "float[2,3,4] R")) << "value_info follows\n" << r.describe();
  EXPECT_TRUE(contains(r.err, "\n  fixed dims: N=2 (4 declarations), X[1]=3\n")) << r.describe();
}

TEST_F(CliInputShapeTest, DimFixesASymbol) {
  ToolRun r = textOf({"--dim=N=5"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_TRUE(contains(r.out, "(float[5,?,4] X, float[5] B) => (float[5,12] Y, int64[3] S)"))
      << r.describe();
  EXPECT_TRUE(contains(r.err, "\n  fixed dims: N=5 (4 declarations)\n")) << r.describe();
}

TEST_F(CliInputShapeTest, FixedDimsLetShapesFold) {
  ToolRun dynamic = runTool({model_, "--passes=fold-shapes", "--emit=text", "--debug"});
  ASSERT_EQ(dynamic.exit_code, 0) << dynamic.describe();
  EXPECT_TRUE(contains(dynamic.out, "S = Shape(R)")) << dynamic.describe();
  ToolRun fixed = runTool({model_, "--passes=fold-shapes", "--emit=text", "--input-shape=X=1,3,4",
                           "--report=" + out_dir_ + "/report.json"});
  ASSERT_EQ(fixed.exit_code, 0) << fixed.describe();
  EXPECT_TRUE(contains(fixed.out, "int64[3] S = {1, 3, 4}"))
      << fixed.describe();
  const onnxopt::testing::JsonValue json = readJson(out_dir_ + "/report.json");
  const auto& dims = json["fixed_dims"].array;
  ASSERT_EQ(dims.size(), 2u);
  EXPECT_EQ(dims[0]["symbol"].string, "N");
  EXPECT_EQ(dims[0]["input"].string, "X");
  EXPECT_EQ(dims[0]["index"].integer(), 0);
  EXPECT_EQ(dims[0]["value"].integer(), 1);
  EXPECT_EQ(dims[0]["declarations"].integer(), 4);
  EXPECT_EQ(dims[1]["symbol"].string, "");
  EXPECT_EQ(dims[1]["index"].integer(), 1);
  EXPECT_EQ(dims[1]["value"].integer(), 3);
}

TEST_F(CliInputShapeTest, ShapesTheModelDoesNotFitAreUsageErrors) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--input-shape=Z=1"}, "--input-shape: the model has no input 'Z' (inputs: X, B)"},
      {{"--input-shape=X=1,3"}, "--input-shape: input 'X' has rank 3, but 2 dims were given"},
      {{"--input-shape=X=1,3,5"}, "--input-shape: input 'X' dim 2 is 4 in the model, not 5"},
      {{"--input-shape=X=1,3,4", "--input-shape=X=1,3,4"},
       "--input-shape: input 'X' is given twice"},
      {{"--input-shape=X=1,3,4", "--input-shape=B=2"},
       "--input-shape B (input 'B' dim 0 ('N')) makes dim 'N' 2, but --input-shape X (input 'X' "
       "dim 0 ('N')) makes it 1"},
      {{"--input-shape=X=1,3,4", "--dim=N=2"},
       "--dim N=2 makes dim 'N' 2, but --input-shape X (input 'X' dim 0 ('N')) makes it 1"},
      {{"--dim=M=2"}, "--dim: no dim of the model is named 'M'"},
  };
  for (const auto& [flags, message] : cases) {
    std::vector<std::string> args = {model_, "-o", out_dir_ + "/out.onnx"};
    args.insert(args.end(), flags.begin(), flags.end());
    ToolRun r = runTool(args);
    EXPECT_EQ(r.exit_code, 2) << r.describe();
    EXPECT_EQ(r.err, "onnx-opt: error: " + model_ + ": " + message + "\n") << r.describe();
    EXPECT_TRUE(listDir(out_dir_).empty()) << r.describe();
  }
}

TEST_F(CliInputShapeTest, MalformedFlagsAreUsageErrorsBeforeLoading) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--input-shape=X", "--input-shape 'X': expected NAME=D0,D1,... (NAME= for a scalar)"},
      {"--input-shape==1", "--input-shape '=1': the input name is empty"},
      {"--input-shape=X=1,a,4", "--input-shape 'X=1,a,4': 'a' is not an integer"},
      {"--input-shape=X=1,0,4", "--input-shape 'X=1,0,4': a dim must be positive, not 0"},
      {"--dim=N=-1", "--dim 'N=-1': a dim must be positive, not -1"},
      {"--dim=N", "--dim 'N': expected SYMBOL=V"},
  };
  for (const auto& [flag, message] : cases) {
    ToolRun r = runTool({dir_ + "/missing.onnx", flag});
    EXPECT_EQ(r.exit_code, 2) << r.describe();
    EXPECT_TRUE(contains(r.err, "onnx-opt: error: " + message + "\n")) << r.describe();
  }
}

// --fold-max-size sets fold-constants' size guard: a 64-byte ConstantOfShape folds at 64 and
// stays at 63, and --debug says why.
TEST_F(CliPipelineTest, FoldMaxSizeSetsTheSizeGuardAndDebugSaysWhy) {
  const std::string model = dir_ + "/ones.onnx";
  writeModelFromText(model, R"(
<ir_version: 8, opset_import: ["" : 13]>
ones (float[16] X) => (float[16] Y)
<int64[1] shape = {16}>
{
  ones = ConstantOfShape<value = float[1] {1.0}>(shape)
  Y = Add(X, ones)
}
)");
  ToolRun kept = runTool({model, "-o", out_dir_ + "/kept.onnx", "--emit=text", "-q", "--debug",
                          "--fold-max-size=63"});
  ASSERT_EQ(kept.exit_code, 0) << kept.describe();
  EXPECT_TRUE(contains(readFile(out_dir_ + "/kept.onnx"), "ConstantOfShape")) << kept.describe();
  EXPECT_TRUE(contains(kept.err, "[fold-constants] node with output 'ones' (ConstantOfShape)") &&
              contains(kept.err, "63 bytes"))
      << kept.describe();
  ToolRun folded = runTool({model, "-o", out_dir_ + "/folded.onnx", "--emit=text", "-q",
                            "--fold-max-size=64"});
  ASSERT_EQ(folded.exit_code, 0) << folded.describe();
  EXPECT_FALSE(contains(readFile(out_dir_ + "/folded.onnx"), "ConstantOfShape"))
      << folded.describe();
}

// Bad inputs in a constant subgraph: the fold declines, --debug names the node and the reason.
TEST_F(CliPipelineTest, DebugSaysWhyAFoldDeclined) {
  const std::string model = dir_ + "/bad_folds.onnx";
  writeModelFromText(model, R"(
<ir_version: 8, opset_import: ["" : 13]>
bad_folds (int64[2] X, float Z) => (int64[2] Y, float G)
<int64[2] a = {6, 4}, int64[2] b = {3, 0}, float[3] f = {1.0, 2.0, 3.0}, int64 index = {3}>
{
  q = Div(a, b)
  Y = Add(X, q)
  g = Gather<axis = 0>(f, index)
  G = Add(Z, g)
}
)");
  ToolRun r = runTool({model, "-o", out_dir_ + "/out.onnx", "--emit=text", "-q", "--debug",
                       "--passes=fold-constants"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_TRUE(contains(r.err, "[fold-constants] node with output 'q' (Div): no match: ") &&
              contains(r.err, "(Div): no match: integer division by zero")) << r.describe();
  EXPECT_TRUE(contains(r.err, "[fold-constants] node with output 'g' (Gather): no match: ") &&
              contains(r.err, "out of range")) << r.describe();
  const std::string text = readFile(out_dir_ + "/out.onnx");
  EXPECT_TRUE(contains(text, "Div(") && contains(text, "Gather<")) << text;
}

TEST_F(CliPipelineTest, FoldMaxSizeNeedsAFoldConstantsPassAndABytesCount) {
  ToolRun none = runTool({dir_ + "/missing.onnx", "--passes=eliminate-dead-nodes",
                          "--fold-max-size=10"});
  EXPECT_EQ(none.exit_code, 2) << none.describe();
  EXPECT_TRUE(contains(none.err, "--fold-max-size: the pipeline has no fold-constants pass"))
      << none.describe();
  ToolRun negative = runTool({dir_ + "/missing.onnx", "--fold-max-size=-1"});
  EXPECT_EQ(negative.exit_code, 2) << negative.describe();
  EXPECT_TRUE(contains(negative.err, "--fold-max-size=-1: ")) << negative.describe();
}

}  // namespace
