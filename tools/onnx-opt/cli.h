#pragma once

// The onnx-opt command line: options, their parser, and the driver that loads, runs a pass
// pipeline, verifies and saves. main.cc is a thin wrapper so tests can call these directly,
// in-process, with a registry of their own (out-of-tree passes).

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "onnxopt/pass/input_shapes.h"
#include "onnxopt/pass/pass_registry.h"

namespace onnxopt::cli {

// Process exit codes.
inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 1;  // the model could not be loaded, optimized, verified or saved
inline constexpr int kExitUsage = 2;  // bad command line (unknown option, pass or pass option)

// kText summarises large initializers ("{...}", which cannot be read back); kTextFull prints
// every value.
enum class EmitKind { kBinary, kText, kTextFull };
// How the input is read: kAuto is text for a file ending in ".onnxtxt", binary otherwise
// (stdin included).
enum class InputFormat { kAuto, kBinary, kText };

struct Options {
  std::string input;         // "-" reads stdin
  std::string output = "-";  // "-" writes stdout
  EmitKind emit = EmitKind::kBinary;
  InputFormat input_format = InputFormat::kAuto;  // --input-format=binary|text

  // The pipeline: `--passes=TEXT`, or a named pipeline `-O<level>` ("O<level>" in the registry).
  // Neither given: -O1. Both given is a usage error.
  std::optional<std::string> passes;
  std::optional<std::string> opt_level;  // "0", "1", "2" (as written after -O)
  // --target=NAME: the pipeline of a target of passes.def (docs/targets.md); not together
  // with --passes or -O<level> (a usage error). Run to a fixed point, as named pipelines are.
  std::optional<std::string> target;
  // --target-opset=N: raise the model's default-domain opset to N (at most 17) with ONNX's
  // version converter after loading, before the pipeline. Never changed without it.
  std::optional<int64_t> target_opset;
  // Repeat the whole pipeline until a round changes nothing (with a cap). Named pipelines imply
  // it; --fixed-point asks for it with --passes.
  bool fixed_point = false;
  // --skip=PASS[,PASS...] (repeatable): passes removed from the pipeline, every run of each.
  // A name that is no pass, or a pass the pipeline does not run, is a usage error.
  std::vector<std::string> skip;
  // --fold-max-size=BYTES: the max-size option of every fold-constants in the pipeline.
  std::optional<std::string> fold_max_size;

  // Dims fixed after loading, before the pipeline: --input-shape NAME=D0,D1,... and --dim
  // SYMBOL=V (repeatable). A dim that does not fit the model is a usage error.
  std::vector<InputShape> input_shapes;
  std::vector<DimValue> dims;

  // --no-check: do not check the nodes against their operators' schemas after loading
  // (checkModelNodes); the passes then leave the nodes that fail the check as they are.
  bool no_check = false;

  // Instrumentation; everything goes to stderr.
  bool pass_statistics = false;
  bool time_passes = false;
  bool verify_each = false;
  bool require_convergence = false;
  std::vector<std::string> print_ir_after;  // pass names
  bool print_ir_after_all = false;
  bool print_ir_after_change = false;
  bool debug = false;

  // Print and exit 0, without reading a model.
  bool print_pipeline = false;
  bool list_passes = false;
  bool list_pipelines = false;

  // --report=FILE: the JSON report (docs/report-schema.md), written atomically after the model.
  std::string report;

  bool quiet = false;  // no summary, no progress line
  bool help = false;
  bool version = false;

  // The named pipeline the options select when --passes is not given ("O1" by default).
  std::string pipelineName() const { return "O" + opt_level.value_or("1"); }
};

// Parses argv[1..]. A usage error comes back as InvalidArgument with a one-line message. Pass
// names and options are checked later, by run(), against the registry it is given.
absl::StatusOr<Options> parseArgs(const std::vector<std::string>& args);

// The progress line's interval in seconds from ONNX_OPT_PROGRESS_INTERVAL's value (null: the
// default, 0.25); a value that is not a number of seconds >= 0 is an error.
absl::StatusOr<double> progressInterval(const char* env_value);

std::string helpText();
std::string versionText();

struct Io {
  std::istream& in;
  std::ostream& out;
  std::ostream& err;
  bool out_is_terminal = false;  // refuse to write a binary model to a terminal
  // A progress line is drawn on `err` only when it is a terminal (and not --quiet, --debug or
  // --print-ir-*): `err_columns` wide (0: unknown), redrawn at most every
  // `progress_interval` seconds.
  bool err_is_terminal = false;
  int err_columns = 0;
  double progress_interval = 0.25;
};

// Runs the tool on already-parsed options (not --help/--version), with the passes of `registry`.
// Returns an exit code. On failure (1) exactly one line `onnx-opt: error: ...` has been written to
// io.err after whatever instrumentation was asked for, and the output file, if any, was neither
// created nor changed; a bad pipeline (2) also prints a hint to --help.
int run(const Options& options, Io& io, const PassRegistry& registry = PassRegistry::global());

// The whole tool: parses `args` (without argv[0]) and runs it.
int main(const std::vector<std::string>& args, Io& io,
         const PassRegistry& registry = PassRegistry::global());

}  // namespace onnxopt::cli
