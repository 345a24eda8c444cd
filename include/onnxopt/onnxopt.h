#pragma once

// onnx-opt's C++ API in one include.
//
// The common case is one call:
//
//   onnx::ModelProto model = ...;
//   absl::Status status = onnxopt::optimize(model, "-O1");
//
// or optimizeFile() / optimizeBytes(). The rest of the API is re-exported here too: load a model
// into the IR (onnxopt/ir/serialization.h), build a PassManager from pipeline text or Pass objects
// (onnxopt/pass/pass_manager.h), run it, save; write passes (onnxopt/pass/pass.h,
// onnxopt/rewrite/*.h) and register them with PassRegistry::global().registerPass() so that
// pipelines can name them. See docs/cpp-api.md.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "onnx/onnx_pb.h"
#include "onnxopt/export.h"
#include "onnxopt/pass/pass_manager.h"
#include "onnxopt/ir/attribute.h"
#include "onnxopt/ir/ir.h"
#include "onnxopt/ir/name_table.h"
#include "onnxopt/ir/printer.h"
#include "onnxopt/ir/serialization.h"
#include "onnxopt/ir/tensor.h"
#include "onnxopt/ir/type.h"
#include "onnxopt/ir/verifier.h"
#include "onnxopt/pass/input_shapes.h"
#include "onnxopt/pass/opset_upgrade.h"
#include "onnxopt/pass/pass.h"
#include "onnxopt/pass/pass_manager.h"
#include "onnxopt/pass/pass_registry.h"
#include "onnxopt/pass/target.h"
#include "onnxopt/rewrite/greedy_driver.h"
#include "onnxopt/rewrite/node_check.h"
#include "onnxopt/rewrite/pattern.h"
#include "onnxopt/rewrite/pattern_pass.h"
#include "onnxopt/rewrite/rewriter.h"
#include "onnxopt/rewrite/shape_oracle.h"

namespace onnxopt {

struct OptimizeOptions {
  // Run ir::verify after every pass (the tests' setting); a failure names the pass.
  bool verify_each = false;
  // Repeat the whole pipeline until a round changes nothing, at most max_fixed_point_rounds
  // rounds; hitting the cap is a warning in the report (an error with require_convergence).
  // Named pipelines ("-O1", "-O2") always run so, as onnx-opt runs them; this asks it of
  // pipeline text too.
  bool fixed_point = false;
  int64_t max_fixed_point_rounds = kDefaultMaxFixedPointRounds;
  // Fail when a rewrite driver or the fixed-point loop does not converge.
  bool require_convergence = false;
  // Tests: after each rewrite driver converges, offer every node once more; a rewrite then fails
  // the run, naming the pass, the pattern and the node (production would have missed it).
  bool verify_fixed_point = false;
  // Tests: a later round offers a pattern pass only the nodes touched since its fixed point,
  // however many (PassManagerOptions::revisit_touched_only), so that a touch a rewrite forgot
  // shows on small graphs too.
  bool revisit_touched_only = false;

  // If set, receives the pipeline's report: one PassRun per pass run (statistics: nodes visited,
  // matched, rewritten, removed, initializers removed; time), the rounds, the warnings.
  // formatPassStatistics(*report) prints it as `onnx-opt --pass-statistics` does. Filled when the
  // pipeline ran to the end, even if saving then failed.
  PipelineReport* report = nullptr;

  // --debug: why patterns did not match and which rewrites applied, one line per call.
  PassContext::DebugSink debug_sink;

  // If set, told where the pipeline is (pass, round, nodes visited) before each pass and as
  // rewrite drivers go; see PipelineProgress. Byte progress of loading and saving is in
  // ir::LoadOptions / ir::SaveOptions (`save.progress` here, for optimizeFile()).
  PipelineProgressSink progress;

  // Where pipelines find passes by name; null means PassRegistry::global() (the built-in passes
  // plus the ones registered at run time).
  const PassRegistry* registry = nullptr;

  // optimize() and optimizeBytes(): the folder that relative external-data locations resolve
  // against ("" if the model has no external data). optimizeFile() uses the input file's folder.
  std::string external_data_dir;

  // optimizeFile(): how the output is written (external data for models over 2 GiB).
  ir::SaveOptions save;

  // Dims to fix before the pipeline runs (--input-shape, --dim; onnxopt/pass/input_shapes.h):
  // a graph input's dims, a symbolic dim in every declaration. A problem with them (an input the
  // model does not have, a wrong rank, a dim the model fixes to another size) is an
  // InvalidArgument naming the input or symbol, and the model is not changed. If set,
  // `fixed_dims` receives what was fixed.
  std::vector<InputShape> input_shapes;
  std::vector<DimValue> dims;
  std::vector<FixedDim>* fixed_dims = nullptr;

  // If set, the model's default-domain opset is raised to this (at most kMaxTargetOpset, 17)
  // with ONNX's version converter after loading, before the dims are fixed and the pipeline
  // runs (onnx-opt --target-opset; upgradeOpset() in onnxopt/pass/opset_upgrade.h). Errors: an
  // opset above 17 or below the model's is an InvalidArgument, an op the converter cannot
  // convert an Unimplemented naming the node; the model is not changed. optimize() converts the
  // proto before importing it; optimizeModel(), which cannot replace its model, refuses it.
  std::optional<int64_t> target_opset;

  // If set, the pipeline of this target (onnx-opt --target; builtinTargets() in
  // onnxopt/pass/target.h, docs/targets.md): "generic" (-O1), "ort" (-O1 and the fusions into
  // standard ops) or "tensorrt" (as ort, and a report), run to a fixed point. The `pipeline`
  // argument must then be the target's base, "-O1" (the default): another is an
  // InvalidArgument, as onnx-opt refuses --target with -O2 or --passes; so is an unknown target,
  // listing the valid ones. With "tensorrt", `report->tensorrt` receives what TensorRT is known
  // to reject or emulate in the optimized model (dynamic input dims, INT64 weights outside
  // int32, ops outside the ONNX domain, DOUBLE tensors).
  std::optional<std::string> target;

  // Passes to leave out of the pipeline (onnx-opt --skip): every run of each is removed. A name
  // that is no registered pass, or a pass the pipeline does not run, is an InvalidArgument naming
  // it, before any model is read.
  std::vector<std::string> skip;

  // Check every node against its operator's schema at the model's opset when the model is
  // loaded (checkModelNodes: attribute kinds, required attributes, input and output counts,
  // Transpose perm, axis ranges): a node ONNX Runtime would refuse is an InvalidArgument naming
  // the node, its op and what is wrong, and nothing is optimized. false (onnx-opt --no-check)
  // optimizes such a model anyway: the passes leave every node that fails the check as it is.
  bool check = true;
};

// Optimizes `model` in place. `pipeline` is a named pipeline ("-O0", "-O1", "-O2") or pipeline
// text ("eliminate-dead-nodes,fuse-transpose-gemm{max-iterations=3}"; "" runs nothing).
//
// The model is loaded into the IR and saved back without copying weights. Errors:
//  - a pipeline that does not parse (InvalidArgument, naming the column and the valid passes or
//    options): `model` is untouched;
//  - a model that the IR cannot import (InvalidArgument, naming the node or value): the import
//    has taken the proto's contents, so `model` is left unspecified (a caller that needs the
//    original on this error keeps a copy);
//  - a model that imports but fails ir::verify, or (with options.check) checkModelNodes, naming
//    the node or value: `model` is given back as it came;
//  - a failing pass (the status names the pass and the node): `model` holds a valid model
//    equivalent to the input, possibly partly optimized.
ONNXOPT_API absl::Status optimize(onnx::ModelProto& model, const std::string& pipeline = "-O1",
                      const OptimizeOptions& options = {});

// Loads `input_path`, optimizes it and saves the result to `output_path` (which may equal
// `input_path`), atomically: on any error nothing is written. External data of the input
// resolves against its folder; the output's goes next to it.
ONNXOPT_API absl::Status optimizeFile(const std::string& input_path, const std::string& output_path,
                          const std::string& pipeline = "-O1",
                          const OptimizeOptions& options = {});

// Optimizes a serialized model and returns the serialized result. "-O0" (or "") returns the same
// bytes for any model the IR round-trips losslessly.
ONNXOPT_API absl::StatusOr<std::string> optimizeBytes(std::string_view bytes,
                                          const std::string& pipeline = "-O1",
                                          const OptimizeOptions& options = {});

// The PassManager optimize() runs: `pipeline` (named or text; options.target's pipeline when
// set) parsed with the options' registry, without the options' skipped passes, and the options'
// verification, fixed point, convergence and debug settings. For callers that want to add
// passes of their own before running it.
ONNXOPT_API absl::StatusOr<PassManager> makePassManager(const std::string& pipeline = "-O1",
                                            const OptimizeOptions& options = {});

// Runs `pipeline` on an IR model: what the three calls above do between load and save.
// Fills options.report if set.
ONNXOPT_API absl::Status optimizeModel(ir::Model& model, const std::string& pipeline = "-O1",
                           const OptimizeOptions& options = {});

// Whether `pipeline` asks for a named pipeline ("-O1"): such a pipeline runs to a fixed point,
// in the library and on the command line alike.
ONNXOPT_API bool isNamedPipeline(absl::string_view pipeline);

// Pipeline text of `pipeline`: the named pipeline's passes for "-O1", the text itself otherwise.
// The error lists the named pipelines.
ONNXOPT_API absl::StatusOr<std::string> expandPipeline(const std::string& pipeline,
                                           const PassRegistry& registry = PassRegistry::global());

// Pipeline text of `pipeline` (pipeline text; a named pipeline is expandPipeline's business)
// without the passes named in `skip`, each pass that stays printed with its options. Errors, as
// for OptimizeOptions::skip, name the pass.
ONNXOPT_API absl::StatusOr<std::string> skipPasses(
    absl::string_view pipeline, const std::vector<std::string>& skip,
    const PassRegistry& registry = PassRegistry::global());

// An error as one line, the way `onnx-opt` prints it after "onnx-opt: error: " (and the Python
// module's exceptions carry it): line breaks become "; ", and `subject` (the file the error is
// about; "" for none) goes in front, "<subject>: <message>", unless the message names it already.
ONNXOPT_API std::string formatErrorLine(absl::string_view subject, absl::string_view message);

}  // namespace onnxopt
