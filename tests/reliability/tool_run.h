#pragma once

// Runs the real onnx-opt binary in a child process and checks how it ended: shared by the tests
// of the command line (tests/cli) and of bad inputs (tests/reliability).

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace onnxopt::testing {

inline std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot read " << path;
  std::ostringstream bytes;  // in one piece: the models here are up to tens of MB
  bytes << in.rdbuf();
  return bytes.str();
}

inline void writeFile(const std::string& path, const std::string& contents) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
  ASSERT_TRUE(out.good()) << "cannot write " << path;
}

// The names in `dir`, sorted.
inline std::vector<std::string> listDir(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

inline std::string join(const std::vector<std::string>& parts, const char* separator = " ") {
  std::string s;
  for (const std::string& part : parts) {
    if (!s.empty()) s += separator;
    s += part;
  }
  return s;
}

inline std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

inline bool contains(const std::string& haystack, const std::string& needle) {
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

// Starts `tool` with `args` (argv[1..]); stdin from `stdin_path`, stdout and stderr to files.
// Returns the child's pid, or -1 (with a test failure) if it cannot be started.
inline pid_t startTool(const std::string& tool, const std::vector<std::string>& args,
                       const std::string& stdin_path, const std::string& stdout_path,
                       const std::string& stderr_path) {
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(tool.c_str()));
  for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) {
    ADD_FAILURE() << "fork: " << std::strerror(errno);
    return -1;
  }
  if (pid == 0) {
    const int in = open(stdin_path.c_str(), O_RDONLY);
    const int out = open(stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = open(stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in < 0 || out < 0 || err < 0) _exit(126);
    dup2(in, 0);
    dup2(out, 1);
    dup2(err, 2);
    execv(tool.c_str(), argv.data());
    _exit(127);
  }
  return pid;
}

// Waits for the child `pid` and records how it ended in `run`.
inline void waitForTool(pid_t pid, ToolRun* run) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      ADD_FAILURE() << "waitpid: " << std::strerror(errno);
      return;
    }
  }
  if (WIFEXITED(status)) run->exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) run->signal = WTERMSIG(status);
}

// Runs `tool` with `args` to the end. stdout goes to `stdout_path` (or, when empty, to a file in
// `io_dir` whose contents end up in ToolRun::out); stderr ends up in ToolRun::err.
inline ToolRun runTool(const std::string& tool, const std::vector<std::string>& args,
                       const std::string& io_dir, const std::string& stdin_path = "/dev/null",
                       const std::string& stdout_path = "") {
  ToolRun result;
  result.command = "onnx-opt " + join(args);
  if (stdin_path != "/dev/null") result.command += " < " + stdin_path;
  if (!stdout_path.empty()) result.command += " > " + stdout_path;
  const std::string out_path = stdout_path.empty() ? io_dir + "/stdout" : stdout_path;
  const std::string err_path = io_dir + "/stderr";
  const pid_t pid = startTool(tool, args, stdin_path, out_path, err_path);
  if (pid < 0) return result;
  waitForTool(pid, &result);
  if (stdout_path.empty()) result.out = readFile(out_path);
  result.err = readFile(err_path);
  return result;
}

// Checks that `r` is a clean failure: exit code 1, no crash, nothing on stdout, and exactly one
// line `onnx-opt: error: ...` on stderr that contains every string of `all_of` and, when `any_of`
// is not empty, at least one of those (case-insensitively).
inline void expectCleanFailure(const ToolRun& r, const std::vector<std::string>& all_of,
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

}  // namespace onnxopt::testing
