// The one-call API (include/onnxopt/onnxopt.h): load, run a PassManager, save.

#include "onnxopt/onnxopt.h"

#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"

namespace onnxopt {
namespace {

const PassRegistry& registryOf(const OptimizeOptions& options) {
  return options.registry ? *options.registry : PassRegistry::global();
}

ir::LoadOptions loadOptionsOf(const OptimizeOptions& options) {
  ir::LoadOptions load;
  load.external_data_dir = options.external_data_dir;
  return load;
}

absl::Status verifyInput(const ir::Model& model, const OptimizeOptions& options) {
  absl::Status status = ir::verify(model);
  if (!status.ok()) {
    return absl::Status(status.code(), absl::StrCat("invalid model: ", status.message()));
  }
  return options.check ? checkModelNodes(model) : absl::OkStatus();
}

absl::Status upgradeIfAsked(std::unique_ptr<ir::Model>& model, const OptimizeOptions& options) {
  if (!options.target_opset.has_value()) return absl::OkStatus();
  if (absl::Status status = upgradeOpset(model, *options.target_opset); !status.ok()) {
    return status;
  }
  absl::Status status = ir::verify(*model);
  if (status.ok()) return status;
  return absl::Status(status.code(),
                      absl::StrCat("the opset upgrade gave an invalid model: ", status.message()));
}

}  // namespace

std::string formatErrorLine(absl::string_view subject, absl::string_view message) {
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

bool isNamedPipeline(absl::string_view pipeline) { return absl::StartsWith(pipeline, "-"); }

absl::StatusOr<std::string> expandPipeline(const std::string& pipeline,
                                           const PassRegistry& registry) {
  if (!isNamedPipeline(pipeline)) return pipeline;
  absl::StatusOr<std::string> named = registry.namedPipeline(absl::string_view(pipeline).substr(1));
  if (named.ok()) return named;
  std::vector<std::string> names;
  for (const NamedPipeline& entry : registry.namedPipelines()) {
    names.push_back(absl::StrCat("-", entry.name));
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown named pipeline '", pipeline, "'; valid ones: ",
                   names.empty() ? "(none)" : absl::StrJoin(names, ", "),
                   ", or pipeline text such as 'eliminate-dead-nodes'"));
}

absl::StatusOr<std::string> skipPasses(absl::string_view pipeline,
                                       const std::vector<std::string>& skip,
                                       const PassRegistry& registry) {
  absl::StatusOr<std::vector<std::unique_ptr<Pass>>> passes = registry.parsePipeline(pipeline);
  if (!passes.ok()) return passes.status();
  for (const std::string& name : skip) {
    if (registry.lookup(name) == nullptr) {
      std::vector<std::string> names;
      for (const PassInfo* info : registry.passes()) names.push_back(info->name);
      return absl::InvalidArgumentError(
          absl::StrCat("--skip: unknown pass '", name, "'; valid passes: ",
                       names.empty() ? "(none)" : absl::StrJoin(names, ", ")));
    }
    const bool runs = std::any_of(passes->begin(), passes->end(),
                                  [&name](const std::unique_ptr<Pass>& p) { return p->name() == name; });
    if (!runs) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--skip: pass '", name, "' is not in the pipeline '", pipeline, "'"));
    }
  }
  std::vector<std::string> kept;
  for (const std::unique_ptr<Pass>& pass : *passes) {
    if (std::find(skip.begin(), skip.end(), pass->name()) == skip.end()) {
      kept.push_back(pass->pipelineText());
    }
  }
  return absl::StrJoin(kept, ",");
}

namespace {

// The pipeline text optimize() runs: `pipeline`'s, or options.target's, which builds on its base
// pipeline: `pipeline` must then be that base ("-O1", the default).
absl::StatusOr<std::string> pipelineTextOf(const std::string& pipeline,
                                           const OptimizeOptions& options,
                                           const PassRegistry& registry) {
  if (!options.target.has_value()) return expandPipeline(pipeline, registry);
  absl::StatusOr<Target> target = findTarget(*options.target);
  if (!target.ok()) return target.status();
  const std::string base = absl::StrCat("-", target->base);
  if (pipeline != base) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the target '", target->name, "' is a pipeline of its own (", base,
        " and more): it does not run with the pipeline '", pipeline, "'"));
  }
  return targetPipeline(*target, registry);
}

}  // namespace

absl::StatusOr<PassManager> makePassManager(const std::string& pipeline,
                                            const OptimizeOptions& options) {
  const PassRegistry& registry = registryOf(options);
  absl::StatusOr<std::string> text = pipelineTextOf(pipeline, options, registry);
  if (!text.ok()) return text.status();
  if (!options.skip.empty()) {
    text = skipPasses(*text, options.skip, registry);
    if (!text.ok()) return text.status();
  }
  PassManagerOptions manager_options;
  manager_options.verify_each = options.verify_each;
  // Named pipelines are meant to run to a fixed point ("-O1": "to a fixed point"), as onnx-opt
  // and the Python module run them.
  manager_options.fixed_point = options.fixed_point || isNamedPipeline(pipeline);
  manager_options.max_fixed_point_rounds = options.max_fixed_point_rounds;
  manager_options.require_convergence = options.require_convergence;
  manager_options.verify_fixed_point = options.verify_fixed_point;
  manager_options.revisit_touched_only = options.revisit_touched_only;
  manager_options.debug_sink = options.debug_sink;
  manager_options.progress = options.progress;
  manager_options.skip_malformed_nodes = !options.check;
  PassManager manager(std::move(manager_options));
  if (absl::Status status = manager.addPipeline(*text, registry); !status.ok()) return status;
  return manager;
}

namespace {

absl::Status runManager(PassManager& manager, ir::Model& model, const OptimizeOptions& options) {
  absl::StatusOr<std::vector<FixedDim>> fixed =
      fixDims(model, options.input_shapes, options.dims);
  if (!fixed.ok()) return fixed.status();
  if (options.fixed_dims) *options.fixed_dims = *std::move(fixed);
  absl::StatusOr<PipelineReport> report = manager.run(model);
  if (!report.ok()) return report.status();
  if (options.report == nullptr) return absl::OkStatus();
  *options.report = *std::move(report);
  if (options.target.has_value()) {
    options.report->tensorrt = checkForTarget(*options.target, model);
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status optimizeModel(ir::Model& model, const std::string& pipeline,
                           const OptimizeOptions& options) {
  absl::StatusOr<PassManager> manager = makePassManager(pipeline, options);
  if (!manager.ok()) return manager.status();
  if (options.target_opset.has_value()) {
    return absl::InvalidArgumentError(
        "target_opset: optimizeModel() cannot replace its model; call upgradeOpset() first, "
        "or use optimize(), optimizeFile() or optimizeBytes()");
  }
  if (options.check) {
    if (absl::Status status = checkModelNodes(model); !status.ok()) return status;
  }
  return runManager(*manager, model, options);
}

absl::Status optimize(onnx::ModelProto& model, const std::string& pipeline,
                      const OptimizeOptions& options) {
  // The pipeline first: a bad one leaves the caller's model alone.
  absl::StatusOr<PassManager> manager = makePassManager(pipeline, options);
  if (!manager.ok()) return manager.status();
  // On the proto, before the import takes it: a model the converter refuses is left as it came.
  if (options.target_opset.has_value()) {
    if (absl::Status status = upgradeOpset(model, *options.target_opset); !status.ok()) {
      return status;
    }
  }

  absl::StatusOr<std::unique_ptr<ir::Model>> loaded =
      ir::importModel(std::move(model), loadOptionsOf(options));
  if (!loaded.ok()) return loaded.status();
  // Whatever happens now, the caller gets the model back: optimized, or (when a pass failed)
  // valid and equivalent to the input, or (when it fails verification) as it came.
  absl::Status status = verifyInput(**loaded, options);
  if (status.ok()) status = runManager(*manager, **loaded, options);
  absl::StatusOr<onnx::ModelProto> exported = ir::exportModel(*std::move(loaded));
  if (!exported.ok()) return exported.status();
  model.Swap(&*exported);
  return status;
}

absl::Status optimizeFile(const std::string& input_path, const std::string& output_path,
                          const std::string& pipeline, const OptimizeOptions& options) {
  absl::StatusOr<PassManager> manager = makePassManager(pipeline, options);
  if (!manager.ok()) return manager.status();
  absl::StatusOr<std::unique_ptr<ir::Model>> loaded = ir::loadModelFromFile(input_path);
  if (!loaded.ok()) return loaded.status();
  if (absl::Status status = verifyInput(**loaded, options); !status.ok()) {
    return absl::Status(status.code(), absl::StrCat(input_path, ": ", status.message()));
  }
  if (absl::Status status = upgradeIfAsked(*loaded, options); !status.ok()) {
    return absl::Status(status.code(), absl::StrCat(input_path, ": ", status.message()));
  }
  if (absl::Status status = runManager(*manager, **loaded, options); !status.ok()) {
    return absl::Status(status.code(), absl::StrCat(input_path, ": ", status.message()));
  }
  return ir::saveModelToFile(**loaded, output_path, options.save);
}

absl::StatusOr<std::string> optimizeBytes(std::string_view bytes, const std::string& pipeline,
                                          const OptimizeOptions& options) {
  absl::StatusOr<PassManager> manager = makePassManager(pipeline, options);
  if (!manager.ok()) return manager.status();
  absl::StatusOr<std::unique_ptr<ir::Model>> loaded = ir::loadModelFromBytes(
      absl::string_view(bytes.data(), bytes.size()), loadOptionsOf(options));
  if (!loaded.ok()) return loaded.status();
  if (absl::Status status = verifyInput(**loaded, options); !status.ok()) return status;
  if (absl::Status status = upgradeIfAsked(*loaded, options); !status.ok()) return status;
  if (absl::Status status = runManager(*manager, **loaded, options); !status.ok()) return status;
  return ir::saveModelToBytes(**loaded);
}

}  // namespace onnxopt
