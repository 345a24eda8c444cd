#pragma once

// The onnx-opt command line: options, their parser, and the driver that loads, (later) runs a
// pass pipeline, verifies and saves. main.cc is a thin wrapper so tests can call these directly.

#include <iosfwd>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace onnxopt::cli {

// Process exit codes.
inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 1;  // the model could not be loaded, verified or saved
inline constexpr int kExitUsage = 2;  // bad command line

enum class EmitKind { kBinary, kText };

struct Options {
  std::string input;         // "-" reads stdin
  std::string output = "-";  // "-" writes stdout
  EmitKind emit = EmitKind::kBinary;
  int opt_level = 0;         // -O<n>; only 0 (no passes) exists so far
  bool quiet = false;
  bool help = false;
  bool version = false;
  // Later: passes pipeline, --pass-statistics, --verify-each, --print-ir-after-all, ...
};

// Parses argv[1..]. A usage error comes back as InvalidArgument with a one-line message.
absl::StatusOr<Options> parseArgs(const std::vector<std::string>& args);

std::string helpText();
std::string versionText();

struct Io {
  std::istream& in;
  std::ostream& out;
  std::ostream& err;
  bool out_is_terminal = false;  // refuse to write a binary model to a terminal
};

// Runs the tool on already-parsed options (not --help/--version). Returns an exit code; on
// failure exactly one line `onnx-opt: error: ...` has been written to io.err and the output file,
// if any, was neither created nor changed.
int run(const Options& options, Io& io);

// The whole tool: parses `args` (without argv[0]) and runs it.
int main(const std::vector<std::string>& args, Io& io);

}  // namespace onnxopt::cli
