// onnxopt._onnxopt: the native half of the Python module (docs/python-api.md). It works on
// serialized models and file paths; onnxopt/__init__.py converts onnx.ModelProto to and from
// bytes and gives the functions their Python signatures.
//
// A run is what `onnx-opt` does, step by step, with its error lines: the pipeline is parsed
// first (an error names nothing), then the model is loaded, verified and optimized (errors name
// the input file), then saved (errors name the output file). The GIL is released for all of it.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <climits>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/string_view.h"
#include "onnxopt/onnxopt.h"

namespace py = pybind11;

namespace onnxopt::python {
namespace {

// Text from C++ (names in a model may be any bytes) as a Python str.
py::str text(absl::string_view bytes) {
  return py::reinterpret_steal<py::str>(
      PyUnicode_DecodeUTF8(bytes.data(), static_cast<Py_ssize_t>(bytes.size()), "replace"));
}

// The library's messages are the command line's, and one names a flag; a Python caller knows
// the keyword argument instead.
std::string inPythonTerms(absl::string_view message) {
  return absl::StrReplaceAll(message,
                             {{"(--fixed-point cap)", "(the max_fixed_point_rounds cap)"},
                              {"--skip", "skip"},
                              {"--input-shape", "input_shapes"},
                              {"--dim", "dims"},
                              {"--target-opset", "target_opset"}});
}

// Raises onnxopt.OptimizeError(message) with the status code's name in `code`.
[[noreturn]] void raise(const py::object& error_type, const absl::Status& status) {
  py::object error = error_type(text(inPythonTerms(status.message())));
  error.attr("code") = absl::StatusCodeToString(status.code());
  PyErr_SetObject(error_type.ptr(), error.ptr());
  throw py::error_already_set();
}

absl::Status about(absl::string_view subject, const absl::Status& status) {
  return absl::Status(status.code(), formatErrorLine(subject, status.message()));
}

// Forwards --debug lines to a Python callable, taking the GIL for each. An exception the callable
// raises ends the forwarding; it is raised again once the run is over.
class DebugForwarder {
 public:
  explicit DebugForwarder(py::object callback) : callback_(std::move(callback)) {}

  PassContext::DebugSink sink() {
    if (callback_.is_none()) return nullptr;
    return [this](absl::string_view line) { forward(line); };
  }

  // Called with the GIL held.
  void rethrowIfFailed() {
    if (error_) throw py::error_already_set(std::move(*error_));
  }

 private:
  void forward(absl::string_view line) {
    py::gil_scoped_acquire gil;
    if (error_) return;
    try {
      callback_(text(line));
    } catch (py::error_already_set& e) {
      error_ = std::make_unique<py::error_already_set>(std::move(e));
    }
  }

  py::object callback_;
  std::unique_ptr<py::error_already_set> error_;
};

struct Request {
  std::string input_path;   // "": the model is `input_bytes`
  std::string output_path;  // "": the result comes back as bytes
  std::string pipeline;
  OptimizeOptions options;
};

// Load, verify, run, and save when there is an output path: the onnx-opt command line's steps
// and error lines. On success `*model` is the optimized model.
absl::Status run(const Request& request, absl::string_view input_bytes, PipelineReport* report,
                 std::vector<FixedDim>* fixed_dims, std::unique_ptr<ir::Model>* model) {
  absl::StatusOr<PassManager> manager = makePassManager(request.pipeline, request.options);
  if (!manager.ok()) return about("", manager.status());
  if (request.options.target_opset.has_value()) {
    if (absl::Status status = checkTargetOpset(*request.options.target_opset); !status.ok()) {
      return about("", status);
    }
  }

  const std::string& input = request.input_path;
  ir::LoadOptions load;
  load.external_data_dir = request.options.external_data_dir;
  // A model handed back to Python carries its weights: it refers to no file.
  load.load_external_data = request.output_path.empty();
  absl::StatusOr<std::unique_ptr<ir::Model>> loaded =
      input.empty() ? ir::loadModelFromBytes(input_bytes, load) : ir::loadModelFromFile(input, load);
  if (!loaded.ok()) return about(input, loaded.status());
  if (absl::Status status = ir::verify(**loaded); !status.ok()) {
    return about(input, absl::Status(status.code(), absl::StrCat("invalid model: ", status.message())));
  }
  if (request.options.target_opset.has_value()) {
    if (absl::Status status = upgradeOpset(*loaded, *request.options.target_opset); !status.ok()) {
      return about(input, status);
    }
    if (absl::Status status = ir::verify(**loaded); !status.ok()) {
      return about(input, absl::Status(status.code(), absl::StrCat("the opset upgrade gave an invalid model: ",
                                                                   status.message())));
    }
  }
  if (request.options.check) {
    if (absl::Status status = checkModelNodes(**loaded); !status.ok()) return about(input, status);
  }
  absl::StatusOr<std::vector<FixedDim>> fixed =
      fixDims(**loaded, request.options.input_shapes, request.options.dims);
  if (!fixed.ok()) return about(input, fixed.status());
  *fixed_dims = *std::move(fixed);
  absl::StatusOr<PipelineReport> ran = manager->run(**loaded);
  if (!ran.ok()) return about(input, ran.status());
  *report = *std::move(ran);
  if (request.options.target.has_value()) {
    report->tensorrt = checkForTarget(*request.options.target, **loaded);
  }
  if (!request.output_path.empty()) {
    absl::Status saved = ir::saveModelToFile(**loaded, request.output_path, request.options.save);
    if (!saved.ok()) return about(request.output_path, saved);
  }
  *model = *std::move(loaded);
  return absl::OkStatus();
}

// Serializes `model` straight into a new Python bytes object (one copy of the weights). Called
// without the GIL; takes it to allocate.
absl::StatusOr<py::object> toBytes(std::unique_ptr<ir::Model> model) {
  absl::StatusOr<onnx::ModelProto> proto = ir::exportModel(std::move(model));  // moves weights
  if (!proto.ok()) return proto.status();
  const size_t size = proto->ByteSizeLong();
  if (size > static_cast<size_t>(INT_MAX)) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "the optimized model serializes to ", size,
        " bytes, over protobuf's 2 GiB limit; pass output= to write it to a file with its "
        "weights as external data"));
  }
  py::object bytes;
  {
    py::gil_scoped_acquire gil;
    bytes = py::reinterpret_steal<py::object>(
        PyBytes_FromStringAndSize(nullptr, static_cast<Py_ssize_t>(size)));
    if (!bytes) throw py::error_already_set();
  }
  // The sizes were cached by ByteSizeLong; nobody else sees the new bytes object yet.
  proto->SerializeWithCachedSizesToArray(
      reinterpret_cast<uint8_t*>(PyBytes_AS_STRING(bytes.ptr())));
  return bytes;
}

// (dynamic_dims [(input, index, symbol)], int64_initializers, int64_outside_int32 [(name,
// value)], int64_unread [name], non_onnx_ops {op: nodes}, double_tensors [name]): the fields of
// the --report file's "tensorrt" object, in its order.
py::tuple tensorRtTuple(const TensorRtFindings& findings) {
  py::list dynamic_dims;
  for (const TensorRtFindings::DynamicDim& dim : findings.dynamic_dims) {
    dynamic_dims.append(py::make_tuple(text(dim.input), dim.index, text(dim.symbol)));
  }
  py::list overflows;
  for (const TensorRtFindings::Int64Overflow& overflow : findings.int64_overflows) {
    overflows.append(py::make_tuple(text(overflow.name), overflow.value));
  }
  py::list unread;
  for (const std::string& name : findings.int64_unread) unread.append(text(name));
  py::dict ops;
  for (const auto& [op, count] : findings.non_onnx_ops) ops[text(op)] = count;
  py::list doubles;
  for (const std::string& name : findings.double_tensors) doubles.append(text(name));
  return py::make_tuple(dynamic_dims, findings.int64_initializers, overflows, unread, ops,
                        doubles);
}

// -> (optimized model bytes, or None when written to output_path; the report; the warnings as
// onnx-opt prints them after "onnx-opt: warning: "; the dims fixed; tensorRtTuple() of the
// target's findings, or None).
py::tuple optimize(const py::object& error_type, std::optional<std::string> input_path,
                   std::optional<py::buffer> input_bytes, std::optional<std::string> output_path,
                   std::string pipeline, std::string base_dir, bool verify_each, bool fixed_point,
                   int64_t max_fixed_point_rounds, bool require_convergence, py::object debug,
                   std::string external_data_file,
                   std::vector<std::pair<std::string, std::vector<int64_t>>> input_shapes,
                   std::vector<std::pair<std::string, int64_t>> dims,
                   std::vector<std::string> skip, bool check,
                   std::optional<int64_t> target_opset, std::optional<std::string> target) {
  if (input_path.has_value() == input_bytes.has_value()) {
    throw py::value_error("give exactly one of input_path and input_bytes");
  }
  Request request;
  request.input_path = input_path.value_or("");
  request.output_path = output_path.value_or("");
  request.pipeline = std::move(pipeline);
  request.options.verify_each = verify_each;
  request.options.fixed_point = fixed_point;
  request.options.max_fixed_point_rounds = max_fixed_point_rounds;
  request.options.require_convergence = require_convergence;
  request.options.external_data_dir = std::move(base_dir);
  request.options.save.external_data_file = std::move(external_data_file);
  for (auto& [name, shape] : input_shapes) {
    request.options.input_shapes.push_back({std::move(name), std::move(shape)});
  }
  for (auto& [symbol, value] : dims) request.options.dims.push_back({std::move(symbol), value});
  request.options.skip = std::move(skip);
  request.options.check = check;
  request.options.target_opset = target_opset;
  request.options.target = std::move(target);
  DebugForwarder forwarder(std::move(debug));
  request.options.debug_sink = forwarder.sink();

  // Held (and released) with the GIL: the buffer of a bytes-like input, read in place.
  std::optional<py::buffer_info> buffer;
  absl::string_view bytes;
  if (input_bytes.has_value()) {
    buffer = input_bytes->request();
    if (buffer->ndim != 1 || buffer->itemsize != 1 || buffer->strides[0] != 1) {
      throw py::type_error("the model bytes must be a contiguous bytes-like object");
    }
    bytes = absl::string_view(static_cast<const char*>(buffer->ptr),
                              static_cast<size_t>(buffer->size));
  }

  PipelineReport report;
  std::vector<FixedDim> fixed_dims;
  absl::Status status;
  py::object result;  // null until the model's bytes are in it; None when written to a file
  {
    py::gil_scoped_release no_gil;
    std::unique_ptr<ir::Model> model;
    status = run(request, bytes, &report, &fixed_dims, &model);
    if (status.ok() && request.output_path.empty()) {
      absl::StatusOr<py::object> serialized = toBytes(std::move(model));
      if (serialized.ok()) {
        std::swap(result, *serialized);  // pointers only: no reference count changes
      } else {
        status = about("", serialized.status());
      }
    }
  }
  forwarder.rethrowIfFailed();
  if (!status.ok()) raise(error_type, status);

  py::list warnings;
  for (const std::string& warning : report.warnings) {
    warnings.append(text(inPythonTerms(formatErrorLine(request.input_path, warning))));
  }
  if (!result) result = py::none();
  py::list fixed;
  for (const FixedDim& dim : fixed_dims) {
    fixed.append(py::make_tuple(text(dim.symbol), text(dim.input), dim.index, dim.value,
                                dim.declarations));
  }
  py::object tensorrt = py::none();
  if (report.tensorrt.has_value()) tensorrt = tensorRtTuple(*report.tensorrt);
  return py::make_tuple(result, report, warnings, fixed, tensorrt);
}

// [(name, summary, [(option, type, default, description), ...], group), ...] sorted by name;
// group is the PassGroup's name, "" for a pass of none.
py::list listPasses() {
  const PassRegistry& registry = PassRegistry::global();
  py::list passes;
  for (const PassInfo* info : registry.passes()) {
    py::list options;
    absl::StatusOr<std::unique_ptr<Pass>> pass = registry.createPass(info->name);
    if (pass.ok()) {
      for (const PassOptionBase* option : (*pass)->options()) {
        options.append(py::make_tuple(option->name(), option->typeName(), option->defaultText(),
                                      option->description()));
      }
    }
    const PassGroup* group = registry.groupOf(info->name);
    passes.append(py::make_tuple(info->name, info->summary, options,
                                 group ? group->name : std::string()));
  }
  return passes;
}

// [("-O1", pipeline text, summary), ...]
py::list listPipelines() {
  py::list pipelines;
  for (const NamedPipeline& pipeline : PassRegistry::global().namedPipelines()) {
    pipelines.append(py::make_tuple("-" + pipeline.name, pipeline.pipeline, pipeline.summary));
  }
  return pipelines;
}

// [("generic", pipeline text, summary), ...], in passes.def's order.
py::list listTargets() {
  py::list targets;
  for (const Target& target : builtinTargets()) {
    absl::StatusOr<std::string> pipeline = targetPipeline(target);
    if (!pipeline.ok()) throw std::runtime_error(std::string(pipeline.status().message()));
    targets.append(py::make_tuple(target.name, *pipeline, target.summary));
  }
  return targets;
}

}  // namespace
}  // namespace onnxopt::python

PYBIND11_MODULE(_onnxopt, m) {
  using namespace onnxopt;
  m.doc() = "onnx-opt's native module; use the onnxopt package instead.";
  m.attr("__version__") = ONNXOPT_VERSION;

  py::class_<PassStatistics>(m, "PassStatistics")
      .def_readonly("nodes_visited", &PassStatistics::nodes_visited)
      .def_readonly("nodes_matched", &PassStatistics::nodes_matched)
      .def_readonly("nodes_rewritten", &PassStatistics::nodes_rewritten)
      .def_readonly("nodes_removed", &PassStatistics::nodes_removed)
      .def_readonly("initializers_removed", &PassStatistics::initializers_removed)
      .def("__repr__", [](const PassStatistics& s) {
        return absl::StrCat("PassStatistics(nodes_visited=", s.nodes_visited,
                            ", nodes_matched=", s.nodes_matched, ", nodes_rewritten=",
                            s.nodes_rewritten, ", nodes_removed=", s.nodes_removed,
                            ", initializers_removed=", s.initializers_removed, ")");
      });

  py::class_<PassRun>(m, "PassRun")
      .def_readonly("pass_text", &PassRun::pass)
      .def_readonly("position", &PassRun::position)
      .def_readonly("round", &PassRun::round)
      .def_readonly("changed", &PassRun::changed)
      .def_readonly("statistics", &PassRun::statistics)
      .def_readonly("seconds", &PassRun::seconds)
      .def_readonly("warnings", &PassRun::warnings)
      .def("__repr__", [](const PassRun& run) {
        return absl::StrCat("PassRun(pass_text='", run.pass, "', round=", run.round,
                            ", changed=", run.changed ? "True" : "False", ")");
      });

  // dynamic_attr: the Python side adds `fixed_dims`, which is not the pipeline's.
  py::class_<PipelineReport>(m, "Report", py::dynamic_attr())
      .def_readonly("runs", &PipelineReport::runs)
      .def_readonly("rounds", &PipelineReport::rounds)
      .def_readonly("changed", &PipelineReport::changed)
      .def_readonly("reached_fixed_point", &PipelineReport::reached_fixed_point)
      .def_readonly("warnings", &PipelineReport::warnings)
      .def("format_statistics", &formatPassStatistics,
           "The table `onnx-opt --pass-statistics` prints.")
      .def("format_timings", &formatPassTimings, "The table `onnx-opt --time-passes` prints.")
      .def("__repr__", [](const PipelineReport& report) {
        return absl::StrCat("Report(runs=<", report.runs.size(), ">, rounds=", report.rounds,
                            ", changed=", report.changed ? "True" : "False", ")");
      });

  py::object error_type = py::reinterpret_steal<py::object>(PyErr_NewExceptionWithDoc(
      "onnxopt.OptimizeError",
      "onnx-opt failed. str(error) is the line onnx-opt prints after 'onnx-opt: error: '; "
      "error.code names the absl status code (INVALID_ARGUMENT, NOT_FOUND, ...).",
      PyExc_ValueError, nullptr));
  m.attr("OptimizeError") = error_type;

  m.def(
      "optimize",
      [error_type](std::optional<std::string> input_path, std::optional<py::buffer> input_bytes,
                   std::optional<std::string> output_path, std::string pipeline,
                   std::string base_dir, bool verify_each, bool fixed_point,
                   int64_t max_fixed_point_rounds, bool require_convergence, py::object debug,
                   std::string external_data_file,
                   std::vector<std::pair<std::string, std::vector<int64_t>>> input_shapes,
                   std::vector<std::pair<std::string, int64_t>> dims,
                   std::vector<std::string> skip, bool check,
                   std::optional<int64_t> target_opset, std::optional<std::string> target) {
        return python::optimize(error_type, std::move(input_path), std::move(input_bytes),
                                std::move(output_path), std::move(pipeline), std::move(base_dir),
                                verify_each, fixed_point, max_fixed_point_rounds,
                                require_convergence, std::move(debug),
                                std::move(external_data_file), std::move(input_shapes),
                                std::move(dims), std::move(skip), check, target_opset,
                                std::move(target));
      },
      py::kw_only(), py::arg("input_path"), py::arg("input_bytes"), py::arg("output_path"),
      py::arg("pipeline"), py::arg("base_dir"), py::arg("verify_each"), py::arg("fixed_point"),
      py::arg("max_fixed_point_rounds"), py::arg("require_convergence"), py::arg("debug"),
      py::arg("external_data_file"), py::arg("input_shapes"), py::arg("dims"), py::arg("skip"),
      py::arg("check"), py::arg("target_opset"), py::arg("target"));
  m.def("list_passes", &python::listPasses);
  m.def("list_pipelines", &python::listPipelines);
  m.def("list_targets", &python::listTargets);
}
