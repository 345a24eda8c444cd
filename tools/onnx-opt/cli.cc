#include "cli.h"

#include <algorithm>
#include <chrono>
#include <iterator>
#include <exception>
#include <istream>
#include <memory>
#include <new>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/ascii.h"
#include "absl/strings/strip.h"
#include "absl/strings/string_view.h"
#include "onnxopt/ir/ir.h"
#include "onnxopt/ir/printer.h"
#include "onnxopt/ir/serialization.h"
#include "onnxopt/ir/verifier.h"
#include "onnxopt/pass/pass.h"
#include "onnxopt/pass/pass_manager.h"
#include "onnxopt/pass/pass_registry.h"

#ifndef ONNXOPT_VERSION
#define ONNXOPT_VERSION "unknown"
#endif

namespace onnxopt::cli {
namespace {

constexpr absl::string_view kTool = "onnx-opt";

// ---------------------------------------------------------------------------------------------
// Argument parsing. Options are `--name=value`, `--name value`, `-x value` or `-xvalue`; `--`
// ends the options; a lone `-` is an operand (stdin / stdout).

class ArgReader {
 public:
  explicit ArgReader(const std::vector<std::string>& args) : args_(args) {}

  bool done() const { return pos_ >= args_.size(); }
  const std::string& next() { return args_[pos_++]; }

  // If `arg` is the option `name` (long form `--name[=v]`, or short `-n[v]` when `name` is a
  // single dash and letter), stores its value (from `=`, the rest of a short option, or the
  // next argument) and returns true. A missing value is an error.
  absl::StatusOr<bool> valueOption(const std::string& arg, absl::string_view name,
                                   std::string* value) {
    absl::string_view a = arg;
    if (!absl::StartsWith(a, name)) return false;
    absl::string_view rest = a.substr(name.size());
    bool is_short = name.size() == 2 && name[0] == '-' && name[1] != '-';
    if (rest.empty()) {
      if (done()) {
        return absl::InvalidArgumentError(absl::StrCat("option ", name, " needs a value"));
      }
      *value = next();
      return true;
    }
    if (absl::ConsumePrefix(&rest, "=") || is_short) {
      *value = std::string(rest);
      return true;
    }
    return false;  // e.g. `--emitter` is not `--emit`
  }

 private:
  const std::vector<std::string>& args_;
  size_t pos_ = 0;
};

// Options without a value that set a bool.
struct Flag {
  const char* name;
  bool Options::*member;
};
constexpr Flag kFlags[] = {
    {"--fixed-point", &Options::fixed_point},
    {"--pass-statistics", &Options::pass_statistics},
    {"--time-passes", &Options::time_passes},
    {"--verify-each", &Options::verify_each},
    {"--require-convergence", &Options::require_convergence},
    {"--print-ir-after-all", &Options::print_ir_after_all},
    {"--print-ir-after-change", &Options::print_ir_after_change},
    {"--debug", &Options::debug},
    {"--print-pipeline", &Options::print_pipeline},
    {"--list-passes", &Options::list_passes},
};

absl::Status usageError(std::string message) {
  return absl::InvalidArgumentError(std::move(message));
}

// ---------------------------------------------------------------------------------------------
// Running.

// "<message>" if it already names `subject` (a file), else "<subject>: <message>"; one line.
std::string describe(absl::string_view subject, absl::string_view message) {
  std::string line(message);
  line = absl::StrReplaceAll(line, {{"\r\n", "; "}, {"\n", "; "}, {"\r", " "}});
  while (!line.empty() && (line.back() == ' ' || line.back() == ';')) line.pop_back();
  if (line.empty()) line = "unknown error";
  // Names the subject already: "<subject>: ...", "... <subject>: ...", "... '<subject>' ...".
  const bool named = absl::StartsWith(line, absl::StrCat(subject, ":")) ||
                     absl::StrContains(line, absl::StrCat(" ", subject, ":")) ||
                     absl::StrContains(line, absl::StrCat("'", subject, "'")) ||
                     absl::StrContains(line, absl::StrCat("\"", subject, "\""));
  if (subject.empty() || named) return line;
  return absl::StrCat(subject, ": ", line);
}

int fail(Io& io, absl::string_view subject, absl::string_view message) {
  io.err << kTool << ": error: " << describe(subject, message) << "\n";
  io.err.flush();
  return kExitError;
}

// A bad pipeline (unknown pass or option, bad value): a usage error, exit 2.
int usageFailure(Io& io, absl::string_view message) {
  io.err << kTool << ": error: " << describe("", message) << "\n"
         << "Try '" << kTool << " --list-passes' for the passes and their options, or '" << kTool
         << " --help'.\n";
  io.err.flush();
  return kExitUsage;
}

std::string displayName(const std::string& path, bool output) {
  if (path == "-") return output ? "<stdout>" : "<stdin>";
  return path;
}

// Node counts over every graph of the model, op types in order of first appearance.
struct NodeCounts {
  size_t total = 0;
  std::vector<std::pair<std::string, size_t>> by_op;

  static NodeCounts of(ir::Model& model) {
    NodeCounts counts;
    ir::forEachGraph(model.graph(), [&](ir::Graph& graph) {
      for (ir::Node& node : graph) {
        ++counts.total;
        std::string op = node.domain().empty() || node.domain() == "ai.onnx"
                             ? node.opType()
                             : absl::StrCat(node.domain(), ".", node.opType());
        auto it = counts.by_op.begin();
        while (it != counts.by_op.end() && it->first != op) ++it;
        if (it == counts.by_op.end()) {
          counts.by_op.emplace_back(std::move(op), 1);
        } else {
          ++it->second;
        }
      }
    });
    return counts;
  }

  std::string str() const {
    std::string s = absl::StrCat(total, total == 1 ? " node" : " nodes");
    if (!by_op.empty()) {
      absl::StrAppend(&s, " (",
                      absl::StrJoin(by_op, ", ",
                                    [](std::string* out, const auto& entry) {
                                      absl::StrAppend(out, entry.first, " ", entry.second);
                                    }),
                      ")");
    }
    return s;
  }
};

absl::StatusOr<std::unique_ptr<ir::Model>> load(const Options& options, Io& io) {
  if (options.input != "-") return ir::loadModelFromFile(options.input);
  std::string bytes;
  constexpr size_t kChunk = size_t{1} << 20;
  while (io.in) {
    const size_t old_size = bytes.size();
    bytes.resize(old_size + kChunk);
    io.in.read(bytes.data() + old_size, static_cast<std::streamsize>(kChunk));
    bytes.resize(old_size + static_cast<size_t>(io.in.gcount()));
  }
  if (io.in.bad()) return absl::DataLossError("cannot read standard input");
  return ir::loadModelFromBytes(bytes);
}

absl::Status writeStream(std::ostream& out, absl::string_view bytes) {
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.flush();
  if (!out) return absl::DataLossError("cannot write to standard output");
  return absl::OkStatus();
}

absl::Status save(const ir::Model& model, const Options& options, Io& io) {
  if (options.output != "-") {
    if (options.emit == EmitKind::kText) {
      return ir::writeFileAtomically(options.output, ir::printModel(model));
    }
    return ir::saveModelToFile(model, options.output);
  }
  if (options.emit == EmitKind::kText) return writeStream(io.out, ir::printModel(model));
  absl::StatusOr<std::string> serialized = ir::saveModelToBytes(model);
  if (!serialized.ok()) return serialized.status();
  return writeStream(io.out, *serialized);
}

// --list-passes: every pass with its summary and options, then the named pipelines.
std::string listPasses(const PassRegistry& registry) {
  std::string text = "Passes (--passes=NAME{OPTION=VALUE,...},NAME,...):\n";
  for (const PassInfo* info : registry.passes()) {
    absl::StrAppend(&text, "  ", info->name, "\n      ", info->summary, "\n");
    absl::StatusOr<std::unique_ptr<Pass>> pass = registry.createPass(info->name);
    if (!pass.ok()) {
      absl::StrAppend(&text, "      (cannot create it: ", pass.status().message(), ")\n");
      continue;
    }
    for (const PassOptionBase* option : (*pass)->options()) {
      absl::StrAppend(&text, "      option ", option->name(), " (", option->typeName(),
                      ", default ", option->defaultText(), "): ", option->description(), "\n");
    }
  }
  absl::StrAppend(&text, "\nNamed pipelines (run to a fixed point):\n");
  for (const NamedPipeline& pipeline : registry.namedPipelines()) {
    absl::StrAppend(&text, "  -", pipeline.name, "  ", pipeline.summary, "\n      ",
                    pipeline.pipeline.empty() ? "(no passes)" : pipeline.pipeline, "\n");
  }
  return text;
}

// The pass manager the options ask for; an error is a usage error.
absl::StatusOr<std::unique_ptr<PassManager>> buildPassManager(const Options& options, Io& io,
                                                              const PassRegistry& registry) {
  PassManagerOptions pm_options;
  pm_options.verify_each = options.verify_each;
  pm_options.require_convergence = options.require_convergence;
  // Named pipelines are meant to be run to a fixed point (-O1: "to a fixed point").
  pm_options.fixed_point = options.fixed_point || !options.passes.has_value();
  if (options.debug) {
    std::ostream* err = &io.err;
    pm_options.debug_sink = [err](absl::string_view line) {
      *err << kTool << ": debug: " << line << "\n";
    };
  }
  for (const std::string& name : options.print_ir_after) {
    if (registry.lookup(name) == nullptr) {
      std::vector<std::string> names;
      for (const PassInfo* info : registry.passes()) names.push_back(info->name);
      return absl::InvalidArgumentError(
          absl::StrCat("--print-ir-after: unknown pass '", name, "'; valid passes: ",
                       names.empty() ? "(none)" : absl::StrJoin(names, ", ")));
    }
  }
  IrPrintingOptions& printing = pm_options.print_ir;
  printing.after_all = options.print_ir_after_all;
  printing.after_change = options.print_ir_after_change;
  printing.after_passes = options.print_ir_after;
  if (printing.after_all || printing.after_change || !printing.after_passes.empty()) {
    std::ostream* err = &io.err;
    printing.print = [err](const Pass& pass, int64_t round, const ir::Model& model) {
      *err << "# IR after pass '" << pass.pipelineText() << "' (round " << round << ")\n"
           << ir::printModel(model);
      err->flush();
    };
  }

  std::string pipeline;
  if (options.passes.has_value()) {
    pipeline = *options.passes;
  } else {
    absl::StatusOr<std::string> named = registry.namedPipeline(options.pipelineName());
    if (!named.ok()) return named.status();
    pipeline = *std::move(named);
  }
  auto manager = std::make_unique<PassManager>(std::move(pm_options));
  if (absl::Status status = manager->addPipeline(pipeline, registry); !status.ok()) {
    return status;
  }
  return manager;
}

int runUnguarded(const Options& options, Io& io, const PassRegistry& registry) {
  if (options.list_passes) {
    io.out << listPasses(registry);
    io.out.flush();
    return io.out ? kExitOk : kExitError;
  }
  absl::StatusOr<std::unique_ptr<PassManager>> manager = buildPassManager(options, io, registry);
  if (!manager.ok()) return usageFailure(io, manager.status().message());
  if (options.print_pipeline) {
    io.out << (*manager)->pipelineText() << "\n";
    io.out.flush();
    return io.out ? kExitOk : kExitError;
  }

  const std::string input = displayName(options.input, /*output=*/false);
  const std::string output = displayName(options.output, /*output=*/true);
  const auto start = std::chrono::steady_clock::now();

  absl::StatusOr<std::unique_ptr<ir::Model>> loaded = load(options, io);
  if (!loaded.ok()) return fail(io, input, loaded.status().message());
  ir::Model& model = **loaded;
  if (absl::Status status = ir::verify(model); !status.ok()) {
    return fail(io, input, absl::StrCat("invalid model: ", status.message()));
  }
  const NodeCounts before = NodeCounts::of(model);

  // A failing pass stops here: nothing is saved (the model would be only partly optimized).
  absl::StatusOr<PipelineReport> report = (*manager)->run(model);
  if (!report.ok()) return fail(io, input, report.status().message());
  for (const std::string& warning : report->warnings) {
    io.err << kTool << ": warning: " << describe(input, warning) << "\n";
  }
  io.err.flush();

  const NodeCounts after = NodeCounts::of(model);
  if (absl::Status status = save(model, options, io); !status.ok()) {
    return fail(io, output, status.message());
  }

  if (options.pass_statistics) io.err << formatPassStatistics(*report);
  if (options.time_passes) io.err << formatPassTimings(*report);
  if (!options.quiet) {
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::string after_text = after.by_op == before.by_op
                                 ? absl::StrCat(after.total, after.total == 1 ? " node" : " nodes")
                                 : after.str();
    io.err << absl::StrFormat("%s: %s: %s -> %s, %.2f s\n", kTool, input, before.str(),
                              after_text, seconds);
  }
  io.err.flush();
  return kExitOk;
}

}  // namespace

absl::StatusOr<Options> parseArgs(const std::vector<std::string>& args) {
  Options options;
  std::vector<std::string> operands;
  ArgReader reader(args);
  bool options_ended = false;
  while (!reader.done()) {
    const std::string& arg = reader.next();
    if (options_ended || arg == "-" || arg.empty() || arg[0] != '-') {
      operands.push_back(arg);
      continue;
    }
    if (arg == "--") {
      options_ended = true;
      continue;
    }
    if (arg == "-h" || arg == "--help") {
      options.help = true;
      continue;
    }
    if (arg == "--version") {
      options.version = true;
      continue;
    }
    if (arg == "-q" || arg == "--quiet") {
      options.quiet = true;
      continue;
    }
    if (absl::StartsWith(arg, "-O")) {
      const std::string level = arg.substr(2);
      if (!PassRegistry::global().namedPipeline(absl::StrCat("O", level)).ok()) {
        std::vector<std::string> known;
        for (const NamedPipeline& pipeline : PassRegistry::global().namedPipelines()) {
          if (absl::StartsWith(pipeline.name, "O")) known.push_back("-" + pipeline.name);
        }
        return usageError(absl::StrCat("unsupported optimization level '", arg, "' (known: ",
                                       absl::StrJoin(known, ", "), ")"));
      }
      options.opt_level = level;
      continue;
    }
    if (const auto flag = std::find_if(std::begin(kFlags), std::end(kFlags),
                                       [&arg](const Flag& f) { return arg == f.name; });
        flag != std::end(kFlags)) {
      options.*(flag->member) = true;
      continue;
    }
    std::string value;
    absl::StatusOr<bool> matched = reader.valueOption(arg, "-o", &value);
    if (matched.ok() && !*matched) matched = reader.valueOption(arg, "--output", &value);
    if (!matched.ok()) return matched.status();
    if (*matched) {
      if (value.empty()) return usageError("option -o needs a file name ('-' for stdout)");
      options.output = value;
      continue;
    }
    matched = reader.valueOption(arg, "--emit", &value);
    if (!matched.ok()) return matched.status();
    if (*matched) {
      if (value == "binary") {
        options.emit = EmitKind::kBinary;
      } else if (value == "text") {
        options.emit = EmitKind::kText;
      } else {
        return usageError(
            absl::StrCat("unknown --emit value '", value, "' (expected 'binary' or 'text')"));
      }
      continue;
    }
    matched = reader.valueOption(arg, "--passes", &value);
    if (!matched.ok()) return matched.status();
    if (*matched) {
      if (options.passes.has_value()) return usageError("--passes given twice");
      options.passes = value;
      continue;
    }
    matched = reader.valueOption(arg, "--print-ir-after", &value);
    if (!matched.ok()) return matched.status();
    if (*matched) {
      for (absl::string_view name : absl::StrSplit(value, ',')) {
        name = absl::StripAsciiWhitespace(name);
        if (name.empty()) return usageError("--print-ir-after needs pass names");
        options.print_ir_after.emplace_back(name);
      }
      continue;
    }
    return usageError(absl::StrCat("unknown option '", arg, "'"));
  }
  if (options.passes.has_value() && options.opt_level.has_value()) {
    return usageError(absl::StrCat("give either --passes or -O", *options.opt_level, ", not both"));
  }
  if (options.help || options.version || options.list_passes || options.print_pipeline) {
    return options;
  }
  if (operands.empty()) return usageError("no input file given (use '-' to read stdin)");
  if (operands.size() > 1) {
    return usageError(absl::StrCat("expected one input file, got '", operands[0], "' and '",
                                   operands[1], "'"));
  }
  options.input = operands[0];
  return options;
}

std::string helpText() {
  return R"(onnx-opt: optimizes ONNX models.

Usage: onnx-opt [options] <input> [-o <output>]
       onnx-opt --list-passes
       onnx-opt [-O<level> | --passes=<pipeline>] --print-pipeline

  <input> is an ONNX model file, or '-' to read one from stdin.

Options:
  -o, --output <file>   Where to write the result; '-' (the default) is stdout. Files are
                        written atomically: a failed run leaves an existing file untouched.
  --emit=binary|text    Output format: the ONNX protobuf (default), or the ONNX text syntax
                        (onnx::OnnxParser's; large initializers are summarized).
  -q, --quiet           Do not print the one-line summary to stderr.
  -h, --help            Print this help and exit.
  --version             Print the version and exit.
  --                    Ends the options (for an input whose name starts with '-').

Pipeline (the default is -O1):
  -O0                   Run no passes: load, verify, save. An unchanged model is saved with
                        the same bytes it was loaded from.
  -O1                   The cleanups (see --list-passes), to a fixed point.
  -O2                   -O1 plus more, to a fixed point.
  --passes=<pipeline>   Run these passes in order instead, e.g.
                        --passes=fuse-transpose-gemm,eliminate-dead-nodes{max-iterations=3}
                        (not together with -O<level>).
  --fixed-point         Repeat the whole pipeline until a round changes nothing (at most 10
                        rounds; a warning says when the cap was hit). -O<level> implies it.
  --list-passes         Print every pass with its summary and options, and the -O pipelines;
                        exit.
  --print-pipeline      Print the pipeline text the options select and exit (no input read).

Instrumentation (on stderr):
  --pass-statistics     Per pass: nodes visited, matched, rewritten, removed, time.
  --time-passes         Time per pass and its share of the total.
  --verify-each         Verify the model after every pass; a failure names the pass.
  --require-convergence
                        Fail (exit 1) when a rewrite driver or --fixed-point hits its
                        iteration cap (tests use it).
  --print-ir-after=<pass>[,<pass>...]
                        Print the model after each run of these passes (repeatable).
  --print-ir-after-all  Print the model after every pass.
  --print-ir-after-change
                        Print the model only after passes that changed it (all passes, or
                        those of --print-ir-after).
  --debug               Say why patterns did not match and which rewrites were applied.

Exit status: 0 on success; 1 if the model cannot be loaded, verified, optimized or saved (one
line 'onnx-opt: error: ...' on stderr; no output is written); 2 for a bad command line,
including an unknown pass or pass option.
)";
}

std::string versionText() { return absl::StrCat(kTool, " version ", ONNXOPT_VERSION, "\n"); }

int run(const Options& options, Io& io, const PassRegistry& registry) {
  const std::string input = displayName(options.input, /*output=*/false);
  try {
    return runUnguarded(options, io, registry);
  } catch (const std::bad_alloc&) {
    return fail(io, input, "out of memory");
  } catch (const std::exception& e) {
    return fail(io, input, absl::StrCat("internal error: ", e.what()));
  } catch (...) {
    return fail(io, input, "internal error: unknown exception");
  }
}

int main(const std::vector<std::string>& args, Io& io, const PassRegistry& registry) {
  absl::StatusOr<Options> options = parseArgs(args);
  if (!options.ok()) {
    io.err << kTool << ": error: " << options.status().message() << "\n"
           << "Try '" << kTool << " --help' for more information.\n";
    io.err.flush();
    return kExitUsage;
  }
  if (options->help) {
    io.out << helpText();
    io.out.flush();
    return io.out ? kExitOk : kExitError;
  }
  if (options->version) {
    io.out << versionText();
    io.out.flush();
    return io.out ? kExitOk : kExitError;
  }
  if (options->output == "-" && options->emit == EmitKind::kBinary && io.out_is_terminal &&
      !options->list_passes && !options->print_pipeline) {
    io.err << kTool << ": error: not writing a binary model to a terminal\n"
           << "Use -o <file>, or --emit=text to print it.\n";
    io.err.flush();
    return kExitUsage;
  }
  return run(*options, io, registry);
}

}  // namespace onnxopt::cli
