#include "cli.h"

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <chrono>
#include <iterator>
#include <limits>
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
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/strings/ascii.h"
#include "absl/strings/strip.h"
#include "absl/strings/string_view.h"
#include "onnxopt/ir/ir.h"
#include "onnxopt/ir/printer.h"
#include "onnxopt/ir/serialization.h"
#include "onnxopt/ir/text_reader.h"
#include "onnxopt/ir/verifier.h"
#include "onnxopt/onnxopt.h"
#include "onnxopt/pass/pass.h"
#include "onnxopt/pass/pass_manager.h"
#include "onnxopt/pass/opset_upgrade.h"
#include "onnxopt/pass/pass_registry.h"
#include "onnxopt/pass/target.h"
#include "onnxopt/rewrite/pattern_pass.h"
#include "progress.h"
#include "report.h"

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
    {"--list-pipelines", &Options::list_pipelines},
    {"--list-passes", &Options::list_passes},
    {"--no-check", &Options::no_check},
};

absl::Status usageError(std::string message) {
  return absl::InvalidArgumentError(std::move(message));
}

// ---------------------------------------------------------------------------------------------
// Running.

int fail(Io& io, absl::string_view subject, absl::string_view message) {
  io.err << kTool << ": error: " << formatErrorLine(subject, message) << "\n";
  io.err.flush();
  return kExitError;
}

// A bad pipeline (unknown pass or option, bad value): a usage error, exit 2.
int usageFailure(Io& io, absl::string_view message) {
  io.err << kTool << ": error: " << formatErrorLine("", message) << "\n"
         << "Try '" << kTool << " --list-passes' for the passes and their options, or '" << kTool
         << " --help'.\n";
  io.err.flush();
  return kExitUsage;
}

std::string displayName(const std::string& path, bool output) {
  if (path == "-") return output ? "<stdout>" : "<stdin>";
  return path;
}

// Bytes of the file at `path` if it is a regular file.
std::optional<int64_t> regularFileSize(const std::string& path) {
  struct stat info;
  if (stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) return std::nullopt;
  return static_cast<int64_t>(info.st_size);
}

// Forwards byte counts to the progress line, if there is one.
ir::ByteProgress byteProgress(ProgressLine* progress) {
  if (progress == nullptr) return nullptr;
  return [progress](int64_t done, int64_t total) { progress->bytes(done, total); };
}

// Reads the input; `*bytes_read` is the size of what was parsed (the model file, or stdin),
// unknown for a FIFO.
bool readsText(const Options& options) {
  if (options.input_format == InputFormat::kAuto) {
    return options.input != "-" && absl::EndsWith(options.input, ".onnxtxt");
  }
  return options.input_format == InputFormat::kText;
}

absl::StatusOr<std::unique_ptr<ir::Model>> load(const Options& options, Io& io,
                                                ProgressLine* progress,
                                                std::optional<int64_t>* bytes_read) {
  ir::LoadOptions load_options;
  load_options.progress = byteProgress(progress);
  const bool text = readsText(options);
  if (options.input != "-") {
    if (progress) progress->beginStage("loading");
    auto model = text ? ir::loadModelFromTextFile(options.input, load_options)
                      : ir::loadModelFromFile(options.input, load_options);
    if (model.ok()) *bytes_read = regularFileSize(options.input);
    return model;
  }
  if (progress) progress->beginStage("reading <stdin>");
  std::string bytes;
  constexpr size_t kChunk = size_t{1} << 20;
  while (io.in) {
    const size_t old_size = bytes.size();
    bytes.resize(old_size + kChunk);
    io.in.read(bytes.data() + old_size, static_cast<std::streamsize>(kChunk));
    bytes.resize(old_size + static_cast<size_t>(io.in.gcount()));
    if (progress) progress->bytes(static_cast<int64_t>(bytes.size()), -1);
  }
  if (io.in.bad()) return absl::DataLossError("cannot read standard input");
  *bytes_read = static_cast<int64_t>(bytes.size());
  if (progress) progress->beginStage("loading");
  if (text) {
    absl::StatusOr<onnx::ModelProto> proto = ir::readModelText(bytes);
    if (!proto.ok()) return proto.status();
    return ir::importModel(*std::move(proto), load_options);
  }
  return ir::loadModelFromBytes(bytes, load_options);
}

bool emitsText(const Options& options) {
  return options.emit == EmitKind::kText || options.emit == EmitKind::kTextFull;
}

std::string printText(const ir::Model& model, const Options& options) {
  ir::PrintOptions print_options;
  if (options.emit == EmitKind::kTextFull) {
    print_options.max_initializer_elements = std::numeric_limits<int64_t>::max();
  }
  return ir::printModel(model, print_options);
}

absl::Status writeStream(std::ostream& out, absl::string_view bytes, ProgressLine* progress) {
  constexpr size_t kChunk = size_t{1} << 20;
  const int64_t total = static_cast<int64_t>(bytes.size());
  for (size_t at = 0; at < bytes.size() && out; at += kChunk) {
    const size_t size = std::min(kChunk, bytes.size() - at);
    out.write(bytes.data() + at, static_cast<std::streamsize>(size));
    if (progress) progress->bytes(static_cast<int64_t>(at + size), total);
  }
  out.flush();
  if (!out) return absl::DataLossError("cannot write to standard output");
  return absl::OkStatus();
}

// Writes the output; `*bytes_written` is its size, if known (not for devices and FIFOs).
absl::Status save(const ir::Model& model, const Options& options, Io& io, ProgressLine* progress,
                  std::optional<int64_t>* bytes_written) {
  if (progress) progress->beginStage("saving");
  if (options.output != "-") {
    absl::Status status;
    if (emitsText(options)) {
      status = ir::writeFileAtomically(options.output, printText(model, options));
    } else {
      ir::SaveOptions save_options;
      save_options.progress = byteProgress(progress);
      status = ir::saveModelToFile(model, options.output, save_options);
    }
    if (status.ok()) *bytes_written = regularFileSize(options.output);
    return status;
  }
  std::string bytes;
  if (emitsText(options)) {
    bytes = printText(model, options);
  } else {
    absl::StatusOr<std::string> serialized = ir::saveModelToBytes(model);
    if (!serialized.ok()) return serialized.status();
    bytes = *std::move(serialized);
  }
  *bytes_written = static_cast<int64_t>(bytes.size());
  return writeStream(io.out, bytes, progress);
}

void appendOption(const PassOptionBase& option, std::string* text) {
  absl::StrAppend(text, "      option ", option.name(), " (", option.typeName(), ", default ",
                  option.defaultText(), "): ", option.description(), "\n");
}

// Appends the options every pass that runs the rewrite driver takes, from the first such pass,
// and returns their names (none when no pass runs the driver).
std::vector<std::string> appendDriverOptions(const PassRegistry& registry, std::string* text) {
  for (const PassInfo* info : registry.passes()) {
    absl::StatusOr<std::unique_ptr<Pass>> pass = registry.createPass(info->name);
    const auto* pattern_pass = pass.ok() ? dynamic_cast<const PatternPass*>(pass->get()) : nullptr;
    if (pattern_pass == nullptr) continue;
    std::vector<std::string> names;
    absl::StrAppend(text, "\nOptions of every pass that runs the rewrite driver (its \"driver "
                          "options\" below):\n");
    for (const PassOptionBase* option : pattern_pass->options()) {
      if (!pattern_pass->isDriverOption(*option)) continue;
      names.push_back(option->name());
      appendOption(*option, text);
    }
    return names;
  }
  return {};
}

// One pass of --list-passes: its name, summary and options, the driver's by name only.
void appendPass(const PassRegistry& registry, const PassInfo& info,
                const std::vector<std::string>& driver_options, std::string* text) {
  absl::StrAppend(text, "  ", info.name, "\n      ", info.summary, "\n");
  absl::StatusOr<std::unique_ptr<Pass>> pass = registry.createPass(info.name);
  if (!pass.ok()) {
    absl::StrAppend(text, "      (cannot create it: ", pass.status().message(), ")\n");
    return;
  }
  const auto* pattern_pass = dynamic_cast<const PatternPass*>(pass->get());
  for (const PassOptionBase* option : (*pass)->options()) {
    if (pattern_pass == nullptr || !pattern_pass->isDriverOption(*option)) {
      appendOption(*option, text);
    }
  }
  if (pattern_pass != nullptr) {
    absl::StrAppend(text, "      driver options: ", absl::StrJoin(driver_options, ", "), "\n");
  }
}

// --list-passes: the options every rewrite-driver pass takes, then the passes by group
// (passes.def's order; passes of no group last), each with its summary and options, then the
// named pipelines.
std::string listPasses(const PassRegistry& registry) {
  std::string text = "Passes (--passes=NAME{OPTION=VALUE,...},NAME,...):\n";
  const std::vector<std::string> driver_options = appendDriverOptions(registry, &text);
  const std::vector<const PassInfo*> passes = registry.passes();
  const auto appendGroup = [&](const PassGroup* group, absl::string_view heading) {
    bool any = false;
    for (const PassInfo* info : passes) {
      if (registry.groupOf(info->name) != group) continue;
      if (!any) absl::StrAppend(&text, "\n", heading, "\n");
      any = true;
      appendPass(registry, *info, driver_options, &text);
    }
  };
  for (const PassGroup& group : registry.groups()) {
    std::vector<std::string> patterns;
    for (const std::string& prefix : group.prefixes) patterns.push_back(prefix + "*");
    appendGroup(&group, absl::StrCat(group.title, " (", absl::StrJoin(patterns, ", "), "):"));
  }
  appendGroup(nullptr, "Other passes:");
  absl::StrAppend(&text, "\nNamed pipelines (run to a fixed point):\n");
  for (const NamedPipeline& pipeline : registry.namedPipelines()) {
    absl::StrAppend(&text, "  -", pipeline.name, "  ", pipeline.summary, "\n      ",
                    pipeline.pipeline.empty() ? "(no passes)" : pipeline.pipeline, "\n");
  }
  return text;
}

// --list-pipelines: the named pipelines and the targets, each with the passes it runs.
std::string listPipelines(const PassRegistry& registry) {
  std::string text = "Named pipelines (-O<level>, run to a fixed point):\n";
  for (const NamedPipeline& pipeline : registry.namedPipelines()) {
    absl::StrAppend(&text, "  -", pipeline.name, "  ", pipeline.summary, "\n      ",
                    pipeline.pipeline.empty() ? "(no passes)" : pipeline.pipeline, "\n");
  }
  absl::StrAppend(&text, "\nTargets (--target=NAME, run to a fixed point; the first is the default):\n");
  for (const Target& target : builtinTargets()) {
    absl::StatusOr<std::string> pipeline = targetPipeline(target, registry);
    absl::StrAppend(&text, "  ", target.name, "  ", target.summary, "\n      ",
                    pipeline.ok() ? (pipeline->empty() ? "(no passes)" : *pipeline)
                                  : absl::StrCat("(", pipeline.status().message(), ")"),
                    "\n");
  }
  return text;
}

// The pass manager the options ask for; an error is a usage error.
absl::StatusOr<std::unique_ptr<PassManager>> buildPassManager(const Options& options, Io& io,
                                                              const PassRegistry& registry,
                                                              ProgressLine* progress) {
  PassManagerOptions pm_options;
  if (progress) {
    pm_options.progress = [progress](const PipelineProgress& at) {
      progress->pass(at.round, at.position, at.passes, at.pass, at.nodes_visited);
    };
  }
  pm_options.verify_each = options.verify_each;
  pm_options.skip_malformed_nodes = options.no_check;
  pm_options.require_convergence = options.require_convergence;
  // Named pipelines are meant to be run to a fixed point (-O1: "to a fixed point"), however
  // they are asked for: `--passes=-O1` is `-O1`, as the library's optimize(model, "-O1") is.
  pm_options.fixed_point =
      options.fixed_point || !options.passes.has_value() || isNamedPipeline(*options.passes);
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
  } else if (options.target.has_value()) {
    absl::StatusOr<Target> target = findTarget(*options.target);
    if (!target.ok()) return target.status();
    absl::StatusOr<std::string> text = targetPipeline(*target, registry);
    if (!text.ok()) return text.status();
    pipeline = *std::move(text);
  } else {
    absl::StatusOr<std::string> named = registry.namedPipeline(options.pipelineName());
    if (!named.ok()) return named.status();
    pipeline = *std::move(named);
  }
  if (!options.skip.empty()) {
    absl::StatusOr<std::string> kept = skipPasses(pipeline, options.skip, registry);
    if (!kept.ok()) return kept.status();
    pipeline = *std::move(kept);
  }
  auto manager = std::make_unique<PassManager>(std::move(pm_options));
  if (absl::Status status = manager->addPipeline(pipeline, registry); !status.ok()) {
    return status;
  }
  if (options.fold_max_size.has_value()) {
    bool applied = false;
    for (const std::unique_ptr<Pass>& pass : manager->passes()) {
      if (pass->name() != "fold-constants") continue;
      if (absl::Status status = pass->setOption("max-size", *options.fold_max_size); !status.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("--fold-max-size=", *options.fold_max_size, ": ", status.message()));
      }
      applied = true;
    }
    if (!applied) {
      return absl::InvalidArgumentError(
          "--fold-max-size: the pipeline has no fold-constants pass to apply it to");
    }
  }
  return manager;
}

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The progress line is for a person watching a terminal, and only when nothing else is being
// written to it while the tool works.
bool wantsProgress(const Options& options, const Io& io) {
  return io.err_is_terminal && !options.quiet && !options.debug && !options.print_ir_after_all &&
         !options.print_ir_after_change && options.print_ir_after.empty();
}

int runUnguarded(const Options& options, Io& io, const PassRegistry& registry) {
  if (options.list_passes) {
    io.out << listPasses(registry);
    io.out.flush();
    return io.out ? kExitOk : kExitError;
  }
  if (options.list_pipelines) {
    io.out << listPipelines(registry);
    io.out.flush();
    return io.out ? kExitOk : kExitError;
  }
  std::unique_ptr<ProgressLine> progress;
  if (wantsProgress(options, io)) {
    progress = std::make_unique<ProgressLine>(io.err, io.progress_interval, io.err_columns);
  }
  absl::StatusOr<std::unique_ptr<PassManager>> manager =
      buildPassManager(options, io, registry, progress.get());
  if (!manager.ok()) return usageFailure(io, manager.status().message());
  if (options.print_pipeline) {
    io.out << (*manager)->pipelineText() << "\n";
    io.out.flush();
    return io.out ? kExitOk : kExitError;
  }

  const std::string input = displayName(options.input, /*output=*/false);
  const std::string output = displayName(options.output, /*output=*/true);
  RunRecord record;
  record.input = options.input;
  record.output = options.output;
  record.emit = emitsText(options) ? "text" : "binary";
  record.pipeline = (*manager)->pipelineText();
  record.fixed_point = (*manager)->options().fixed_point;
  record.target = options.target.value_or("");
  record.target_opset = options.target_opset;

  // Found out now, not after minutes of loading and optimizing a large model.
  if (options.output != "-") {
    if (absl::Status status = ir::checkWritable(options.output); !status.ok()) {
      return fail(io, output, status.message());
    }
  }
  if (!options.report.empty()) {
    if (absl::Status status = ir::checkWritable(options.report); !status.ok()) {
      return fail(io, options.report, absl::StrCat("cannot write the report: ", status.message()));
    }
  }

  auto start = std::chrono::steady_clock::now();
  absl::StatusOr<std::unique_ptr<ir::Model>> loaded =
      load(options, io, progress.get(), &record.input_bytes);
  if (progress) progress->clear();
  if (!loaded.ok()) return fail(io, input, loaded.status().message());
  if (absl::Status status = ir::verify(**loaded); !status.ok()) {
    return fail(io, input, absl::StrCat("invalid model: ", status.message()));
  }
  record.opset_before = (*loaded)->opsetVersion("");
  if (options.target_opset.has_value()) {
    absl::Status upgraded = upgradeOpset(*loaded, *options.target_opset);
    if (upgraded.code() == absl::StatusCode::kInvalidArgument) {
      io.err << kTool << ": error: " << formatErrorLine(input, upgraded.message()) << "\n";
      io.err.flush();
      return kExitUsage;
    }
    if (!upgraded.ok()) return fail(io, input, upgraded.message());
    // The converter's output is checked like a loaded model before any pass sees it.
    if (absl::Status status = ir::verify(**loaded); !status.ok()) {
      return fail(io, input, absl::StrCat("the opset upgrade gave an invalid model: ",
                                          status.message()));
    }
  }
  ir::Model& model = **loaded;
  if (!options.no_check) {
    if (absl::Status status = checkModelNodes(model); !status.ok()) {
      return fail(io, input, status.message());
    }
  }
  absl::StatusOr<std::vector<FixedDim>> fixed = fixDims(model, options.input_shapes, options.dims);
  if (!fixed.ok()) {
    io.err << kTool << ": error: " << formatErrorLine(input, fixed.status().message()) << "\n";
    io.err.flush();
    return kExitUsage;
  }
  record.fixed_dims = *std::move(fixed);
  record.load_seconds = secondsSince(start);
  record.before = ModelCensus::of(model);

  // A failing pass stops here: nothing is saved (the model would be only partly optimized).
  start = std::chrono::steady_clock::now();
  if (progress) progress->beginStage("optimizing");
  absl::StatusOr<PipelineReport> report = (*manager)->run(model);
  if (progress) progress->clear();
  if (!report.ok()) return fail(io, input, report.status().message());
  record.optimize_seconds = secondsSince(start);
  for (const std::string& warning : report->warnings) {
    io.err << kTool << ": warning: " << formatErrorLine(input, warning) << "\n";
  }
  io.err.flush();
  record.after = ModelCensus::of(model);
  record.opset_after = model.opsetVersion("");
  if (options.target.has_value()) record.tensorrt = checkForTarget(*options.target, model);

  start = std::chrono::steady_clock::now();
  absl::Status saved = save(model, options, io, progress.get(), &record.output_bytes);
  if (progress) progress->clear();
  if (!saved.ok()) return fail(io, output, saved.message());
  record.save_seconds = secondsSince(start);
  record.pipeline_report = *std::move(report);

  if (!options.report.empty()) {
    absl::Status written =
        ir::writeFileAtomically(options.report, formatJsonReport(record, ONNXOPT_VERSION));
    if (!written.ok()) {
      return fail(io, options.report,
                  absl::StrCat("cannot write the report (the model was written to ", output,
                               "): ", written.message()));
    }
  }
  if (options.pass_statistics) io.err << formatPassStatistics(record.pipeline_report);
  if (options.time_passes) io.err << formatPassTimings(record.pipeline_report);
  if (!options.quiet) io.err << formatSummary(record, input);
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
      } else if (value == "text-full") {
        options.emit = EmitKind::kTextFull;
      } else {
        return usageError(absl::StrCat("unknown --emit value '", value,
                                       "' (expected 'binary', 'text' or 'text-full')"));
      }
      continue;
    }
    matched = reader.valueOption(arg, "--input-format", &value);
    if (!matched.ok()) return matched.status();
    if (*matched) {
      if (value == "binary") {
        options.input_format = InputFormat::kBinary;
      } else if (value == "text") {
        options.input_format = InputFormat::kText;
      } else {
        return usageError(absl::StrCat("unknown --input-format value '", value,
                                       "' (expected 'binary' or 'text')"));
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
    matched = reader.valueOption(arg, "--skip", &value);
    if (!matched.ok()) return matched.status();
    if (*matched) {
      for (absl::string_view name : absl::StrSplit(value, ',')) {
        name = absl::StripAsciiWhitespace(name);
        if (name.empty()) return usageError("--skip needs pass names");
        options.skip.emplace_back(name);
      }
      continue;
    }
    matched = reader.valueOption(arg, "--target-opset", &value);
    if (!matched.ok()) return matched.status();
    if (*matched) {
      int64_t opset = 0;
      if (!absl::SimpleAtoi(value, &opset)) {
        return usageError(absl::StrCat("--target-opset needs an opset number, not '", value, "'"));
      }
      if (absl::Status status = checkTargetOpset(opset); !status.ok()) return status;
      options.target_opset = opset;
      continue;
    }
    matched = reader.valueOption(arg, "--target", &value);
    if (!matched.ok()) return matched.status();
    if (*matched) {
      if (options.target.has_value()) return usageError("--target given twice");
      if (absl::StatusOr<Target> target = findTarget(value); !target.ok()) return target.status();
      options.target = value;
      continue;
    }
    matched = reader.valueOption(arg, "--fold-max-size", &value);
    if (!matched.ok()) return matched.status();
    if (*matched) {
      options.fold_max_size = value;
      continue;
    }
    matched = reader.valueOption(arg, "--report", &value);
    if (!matched.ok()) return matched.status();
    if (*matched) {
      if (value.empty() || value == "-") {
        return usageError("option --report needs a file name (stdout carries the model)");
      }
      options.report = value;
      continue;
    }
    matched = reader.valueOption(arg, "--input-shape", &value);
    if (!matched.ok()) return matched.status();
    if (*matched) {
      absl::StatusOr<InputShape> shape = parseInputShape(value);
      if (!shape.ok()) return shape.status();
      options.input_shapes.push_back(*std::move(shape));
      continue;
    }
    matched = reader.valueOption(arg, "--dim", &value);
    if (!matched.ok()) return matched.status();
    if (*matched) {
      absl::StatusOr<DimValue> dim = parseDimValue(value);
      if (!dim.ok()) return dim.status();
      options.dims.push_back(*std::move(dim));
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
  if (options.target.has_value() && (options.passes.has_value() || options.opt_level.has_value())) {
    return usageError(absl::StrCat("give either --target=", *options.target, " or ",
                                   options.passes.has_value() ? "--passes"
                                                              : "-O" + *options.opt_level,
                                   ", not both (a target is a pipeline)"));
  }
  if (options.help || options.version || options.list_passes || options.list_pipelines ||
      options.print_pipeline) {
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
       onnx-opt --list-passes | --list-pipelines
       onnx-opt [-O<level> | --passes=<pipeline>] --print-pipeline

  <input> is an ONNX model file, or '-' to read one from stdin. A file ending in
  .onnxtxt is read as text (what --emit=text-full writes), any other as the protobuf.

Options:
  -o, --output <file>   Where to write the result; '-' (the default) is stdout. Files are
                        written atomically: a failed run leaves an existing file untouched.
  --emit=binary|text|text-full
                        Output format: the ONNX protobuf (default), or the ONNX text syntax
                        (docs/ir.md); text summarizes initializers of more than 64 values as
                        {...}, which cannot be read back; text-full prints every value.
  --input-format=binary|text
                        Read the input as the protobuf or as the text syntax, whatever its
                        name (default: text for *.onnxtxt, else binary; stdin is binary).
  --report=<file>       Also write a JSON report of the run (passes, op counts before and
                        after, sizes, times; see docs/report-schema.md), atomically.
  -q, --quiet           Print neither the summary nor the progress line to stderr.
  --fold-max-size=<bytes>
                        The size guard of fold-constants (its max-size option, default
                        1048576): a folded result larger than the constants it frees is kept
                        only up to this many bytes.
  --input-shape NAME=D0,D1,...
                        Fix the dims of graph input NAME before optimizing (repeatable;
                        NAME= for a scalar). A symbolic dim given a size is fixed everywhere
                        the model names it. Dims must be positive and match the model's
                        rank and fixed dims (else exit 2).
  --dim SYMBOL=V        Fix the symbolic dim SYMBOL to V in every input, output and
                        value_info declaration of every graph (repeatable).
  --no-check            Do not refuse a model whose nodes violate their operators' schemas
                        at its opset (wrong attribute kind, missing required attribute,
                        wrong number of inputs, Cast to no type, Transpose perm or axis out
                        of range), which onnx-opt checks after loading (exit 1) as ONNX
                        Runtime would; the passes leave such nodes as they are.
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
  --skip=<pass>[,<pass>...]
                        Leave these passes out of the pipeline (repeatable), e.g. -O1
                        --skip=fuse-transpose-gemm. A pass the pipeline does not run is an
                        error (exit 2).
  --fixed-point         Repeat the whole pipeline until a round changes nothing (at most 64
                        rounds; a warning says when the cap was hit). -O<level> implies it.
  --target=generic|ort|tensorrt
                        Run the pipeline made for a kind of runtime instead (see
                        --list-pipelines and docs/targets.md; not together with -O<level> or
                        --passes): generic is -O1; ort adds the fusions into standard ops;
                        tensorrt adds shape cleanups and reports on stderr (and in --report)
                        the input dims that stay dynamic, INT64 initializers, ops outside the
                        ONNX domain and DOUBLE tensors.
  --target-opset=<N>    Raise the model's opset to N (at most 17) with ONNX's version
                        converter before optimizing, so that fusions into newer ops
                        (LayerNormalization, opset 17) can apply. N below the model's opset
                        is a usage error (exit 2); an op the converter cannot convert fails
                        (exit 1, naming the node). Without it the opset never changes.
  --list-pipelines      Print the named pipelines and the targets with the passes each runs;
                        exit.
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

On success a short summary goes to stderr: nodes before -> after, the op types whose count
changed, initializers and their bytes before -> after, the time to load, optimize and save.
While it works, a progress line is drawn on stderr if stderr is a terminal (never otherwise),
redrawn at most every ONNX_OPT_PROGRESS_INTERVAL seconds (default 0.25).

Exit status: 0 on success; 1 if the model cannot be loaded, verified, optimized or saved (one
line 'onnx-opt: error: ...' on stderr; no output is written); 2 for a bad command line,
including an unknown pass or pass option, or an --input-shape or --dim the model does not fit.
)";
}

absl::StatusOr<double> progressInterval(const char* env_value) {
  constexpr double kDefault = 0.25;
  if (env_value == nullptr) return kDefault;
  double seconds;
  if (!absl::SimpleAtod(env_value, &seconds) || !(seconds >= 0) || std::isinf(seconds)) {
    return absl::InvalidArgumentError(
        absl::StrCat("ONNX_OPT_PROGRESS_INTERVAL must be a number of seconds (>= 0), not '",
                     env_value, "'"));
  }
  return seconds;
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
