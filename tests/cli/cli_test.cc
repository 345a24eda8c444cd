// Tests of the onnx-opt command line: the real binary is run in a child process with its stdin,
// stdout and stderr connected to files, and each test checks the exit status, what was printed
// and which files exist afterwards.

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "cli.h"
#include "gtest/gtest.h"

namespace {

namespace fs = std::filesystem;

const std::string kTool = ONNXOPT_CLI_PATH;
const std::string kSourceDir = ONNXOPT_SOURCE_DIR;
const std::string kExample = kSourceDir + "/examples/legacy_classifier.onnx";
const std::string kDataDir = kSourceDir + "/tests/cli/data";
const std::string kSummary = "11 nodes (Transpose 3, Expand 3, Gemm 3, Relu 2) -> 11 nodes";

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot read " << path;
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void writeFile(const std::string& path, const std::string& contents) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
  ASSERT_TRUE(out.good()) << "cannot write " << path;
}

std::vector<std::string> listDir(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string join(const std::vector<std::string>& parts, const char* separator = " ") {
  std::string s;
  for (const std::string& part : parts) {
    if (!s.empty()) s += separator;
    s += part;
  }
  return s;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// One run of the tool.
struct ToolRun {
  std::string command;  // for messages
  int exit_code = -1;   // -1 if it did not exit normally
  int signal = 0;       // the signal that killed it, if any
  std::string out;
  std::string err;

  std::string describe() const {
    std::ostringstream s;
    s << "command: " << command << "\n";
    if (signal != 0) {
      s << "killed by signal " << signal << " (" << strsignal(signal) << ")\n";
    } else {
      s << "exit code: " << exit_code << "\n";
    }
    s << "stderr: <<<" << err << ">>>\n";
    s << "stdout: " << out.size() << " bytes";
    if (out.size() < 2000 && std::all_of(out.begin(), out.end(), [](unsigned char c) {
          return std::isprint(c) || std::isspace(c);
        })) {
      s << ": <<<" << out << ">>>";
    }
    return s.str();
  }
};

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
  ToolRun runTool(const std::vector<std::string>& args,
                  const std::string& stdin_path = "/dev/null",
                  const std::string& stdout_path = "") {
    ToolRun result;
    result.command = "onnx-opt " + join(args);
    if (stdin_path != "/dev/null") result.command += " < " + stdin_path;
    if (!stdout_path.empty()) result.command += " > " + stdout_path;
    const std::string out_path = stdout_path.empty() ? io_dir_ + "/stdout" : stdout_path;
    const std::string err_path = io_dir_ + "/stderr";
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(kTool.c_str()));
    for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);

    const pid_t pid = fork();
    if (pid < 0) {
      ADD_FAILURE() << "fork: " << std::strerror(errno);
      return result;
    }
    if (pid == 0) {
      const int in = open(stdin_path.c_str(), O_RDONLY);
      const int out = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      const int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (in < 0 || out < 0 || err < 0) _exit(126);
      dup2(in, 0);
      dup2(out, 1);
      dup2(err, 2);
      execv(kTool.c_str(), argv.data());
      _exit(127);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
      if (errno != EINTR) {
        ADD_FAILURE() << "waitpid: " << std::strerror(errno);
        return result;
      }
    }
    if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
    if (stdout_path.empty()) result.out = readFile(out_path);
    result.err = readFile(err_path);
    return result;
  }

  // Checks that `r` is a clean failure: exit code 1, no crash, nothing on stdout, and exactly
  // one line `onnx-opt: error: ...` on stderr that contains every string of `all_of` and, when
  // `any_of` is not empty, at least one of those (case-insensitively).
  void expectCleanFailure(const ToolRun& r, const std::vector<std::string>& all_of,
                          const std::vector<std::string>& any_of) {
    EXPECT_EQ(r.signal, 0) << "the tool crashed\n" << r.describe();
    EXPECT_EQ(r.exit_code, 1) << r.describe();
    EXPECT_TRUE(r.out.empty()) << "expected nothing on stdout\n" << r.describe();
    EXPECT_EQ(r.err.rfind("onnx-opt: error: ", 0), 0u)
        << "stderr must start with 'onnx-opt: error: '\n" << r.describe();
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1)
        << "stderr must be exactly one line\n" << r.describe();
    EXPECT_TRUE(!r.err.empty() && r.err.back() == '\n') << r.describe();
    for (const std::string& s : all_of) {
      EXPECT_TRUE(contains(r.err, s)) << "the message should name '" << s << "'\n" << r.describe();
    }
    if (!any_of.empty()) {
      const std::string err = lower(r.err);
      EXPECT_TRUE(std::any_of(any_of.begin(), any_of.end(),
                              [&](const std::string& s) { return contains(err, lower(s)); }))
          << "the message should say what is wrong (one of: " << join(any_of, ", ") << ")\n"
          << r.describe();
    }
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
    for (const char* option : {"-o", "--emit=binary|text", "-O0", "--quiet", "--version"}) {
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
                  "unsupported optimization level '-O3'"}),
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
  // One summary line: input, node counts before and after, time.
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.describe();
  EXPECT_EQ(r.err.rfind("onnx-opt: " + kExample + ": " + kSummary + ", ", 0), 0u)
      << r.describe();
  EXPECT_TRUE(contains(r.err, " s\n")) << r.describe();
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
  EXPECT_EQ(r.err.rfind("onnx-opt: <stdin>: " + kSummary, 0), 0u) << r.describe();
  EXPECT_TRUE(listDir(out_dir_).empty());
}

TEST_F(CliTest, OutputDefaultsToStdout) {
  ToolRun r = runTool({kExample, "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_TRUE(r.out == readFile(kExample)) << "stdout is not the input's bytes";
}

TEST_F(CliTest, StdinToFile) {
  const std::string out = out_dir_ + "/from_stdin.onnx";
  ToolRun r = runTool({"-", "-o", out}, kExample);
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_TRUE(readFile(out) == readFile(kExample)) << "output is not the input's bytes";
}

TEST_F(CliTest, EmitTextToStdout) {
  ToolRun r = runTool({kExample, "--emit=text"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  for (const char* s : {"ir_version", "opset_import", "legacy_classifier", "X", "logits",
                        "Transpose", "Expand", "Gemm", "Relu", "fc1.weight_t"}) {
    EXPECT_TRUE(contains(r.out, s)) << "text output lacks '" << s << "'\n" << r.describe();
  }
  EXPECT_EQ(r.out.find('\0'), std::string::npos) << "text output contains NUL bytes";
  EXPECT_EQ(r.err.rfind("onnx-opt: " + kExample + ": " + kSummary, 0), 0u) << r.describe();

  // --emit text (separate value) says the same.
  ToolRun again = runTool({"--emit", "text", kExample});
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
  ToolRun r = runTool({kExample, "--emit=binary", "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_TRUE(readFile(out) == readFile(kExample));
}

TEST_F(CliTest, InputMayBeItsOwnOutput) {
  const std::string path = out_dir_ + "/same.onnx";
  writeFile(path, readFile(kExample));
  ToolRun r = runTool({path, "-o", path});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_TRUE(readFile(path) == readFile(kExample));
}

// ---------------------------------------------------------------------------------------------
// Bad inputs: exit 1, one line naming the problem, no output written or changed.

struct BadInputCase {
  const char* name;
  // Input path relative to the test's scratch folder (made by makeInput) or to tests/cli/data.
  std::string input;
  std::vector<std::string> all_of;  // strings the message must contain ("@" = the input path)
  std::vector<std::string> any_of;  // it must contain one of these (case-insensitive)
  bool via_stdin_too;               // also feed the bytes on stdin
};

void PrintTo(const BadInputCase& c, std::ostream* os) { *os << c.name; }

std::string randomBytes() {
  std::mt19937 rng(12345);  // std::mt19937 is the same sequence everywhere
  std::string bytes(4096, '\0');
  for (char& c : bytes) c = static_cast<char>(rng() & 0xff);
  return bytes;
}

const std::vector<std::string> kParseWords = {"pars", "protobuf", "corrupt", "truncat",
                                              "invalid", "malformed", "not an onnx", "decode"};

class CliBadInputTest : public CliTest, public ::testing::WithParamInterface<BadInputCase> {
 protected:
  // Makes the input file of a case that is built at test time; returns its path.
  std::string makeInput(const BadInputCase& c) {
    const std::string scratch = dir_ + "/in";
    fs::create_directories(scratch);
    const std::string name = c.input;
    if (name == "DIR") return scratch;  // a directory
    if (name.rfind("data/", 0) == 0) return kDataDir + name.substr(4);
    const std::string path = scratch + "/" + name;
    if (name == "does_not_exist.onnx") return path;
    if (name == "empty.onnx") writeFile(path, "");
    if (name == "random.onnx") writeFile(path, randomBytes());
    if (name == "truncated.onnx") {
      const std::string model = readFile(kExample);
      writeFile(path, model.substr(0, model.size() / 2));
    }
    return path;
  }
};

TEST_P(CliBadInputTest, FailsCleanly) {
  const BadInputCase& c = GetParam();
  const std::string input = makeInput(c);
  std::vector<std::string> all_of;
  for (const std::string& s : c.all_of) all_of.push_back(s == "@" ? input : s);

  {
    SCOPED_TRACE("output to a new file");
    const std::string out = out_dir_ + "/new.onnx";
    ToolRun r = runTool({input, "-O0", "-o", out});
    expectCleanFailure(r, all_of, c.any_of);
    EXPECT_FALSE(fs::exists(out)) << "a failed run created " << out;
  }
  {
    SCOPED_TRACE("output to an existing file");
    const std::string out = out_dir_ + "/existing.onnx";
    writeFile(out, "keep me");
    ToolRun r = runTool({input, "-o", out});
    expectCleanFailure(r, all_of, c.any_of);
    EXPECT_EQ(readFile(out), "keep me") << "a failed run changed the existing output";
    EXPECT_EQ(listDir(out_dir_), std::vector<std::string>{"existing.onnx"})
        << "a failed run left files behind: " << join(listDir(out_dir_));
  }
  {
    SCOPED_TRACE("text output to an existing file");
    const std::string out = out_dir_ + "/existing.onnx";
    ToolRun r = runTool({input, "--emit=text", "-o", out});
    expectCleanFailure(r, all_of, c.any_of);
    EXPECT_EQ(readFile(out), "keep me") << "a failed run changed the existing output";
    EXPECT_EQ(listDir(out_dir_), std::vector<std::string>{"existing.onnx"});
  }
  if (c.via_stdin_too) {
    SCOPED_TRACE("input on stdin, output on stdout");
    std::vector<std::string> stdin_all_of;
    for (const std::string& s : c.all_of) stdin_all_of.push_back(s == "@" ? "<stdin>" : s);
    ToolRun r = runTool({"-", "-o", "-"}, input);
    expectCleanFailure(r, stdin_all_of, c.any_of);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cli, CliBadInputTest,
    ::testing::Values(
        BadInputCase{"NonexistentFile", "does_not_exist.onnx", {"@"},
                     {"no such file", "does not exist", "not found", "cannot open"}, false},
        BadInputCase{"Directory", "DIR", {"@"}, {"directory", "folder"}, false},
        BadInputCase{"EmptyFile", "empty.onnx", {"@"}, {"empty", "no graph"}, true},
        BadInputCase{"RandomBytes", "random.onnx", {"@"}, kParseWords, true},
        BadInputCase{"TruncatedModel", "truncated.onnx", {"@"}, kParseWords, true},
        BadInputCase{"DanglingInput", "data/dangling_input.onnx", {"@", "ghost"},
                     {"undefined", "not defined", "unknown", "dangling", "no producer",
                      "missing", "never defined", "does not exist"},
                     true},
        BadInputCase{"Cycle", "data/cycle.onnx", {"@"},
                     {"cycle_a", "cycle_b"},  // names a node of the cycle
                     true},
        BadInputCase{"DuplicateValueNames", "data/duplicate_value_names.onnx", {"@", "dup"},
                     {"duplicate", "more than once", "twice", "already", "unique",
                      "redefin"},
                     true},
        BadInputCase{"UnknownAttributeType", "data/unknown_attribute_type.onnx",
                     {"@", "weird_attr"}, {"type"}, true}),
    [](const ::testing::TestParamInfo<BadInputCase>& info) { return info.param.name; });

// Saving to a place that cannot be written fails in one line too.
TEST_F(CliTest, UnwritableOutputFailsCleanly) {
  {
    SCOPED_TRACE("missing folder");
    const std::string out = out_dir_ + "/no/such/folder/out.onnx";
    ToolRun r = runTool({kExample, "-o", out});
    expectCleanFailure(r, {out_dir_ + "/no/such/folder"}, {});
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
    expectCleanFailure(r, {out_dir_ + "/no/such/folder"}, {});
  }
  EXPECT_EQ(listDir(out_dir_), std::vector<std::string>{"adir"});
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

TEST(CliParseArgs, Defaults) {
  auto options = onnxopt::cli::parseArgs({"model.onnx"});
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->input, "model.onnx");
  EXPECT_EQ(options->output, "-");
  EXPECT_EQ(options->emit, onnxopt::cli::EmitKind::kBinary);
  EXPECT_EQ(options->opt_level, 0);
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
           {"in", "-O1"},
           {"in", "--quiet=yes"},
       }) {
    EXPECT_FALSE(onnxopt::cli::parseArgs(args).ok()) << "accepted: " << join(args);
  }
}

}  // namespace
