// The optimizing half of the differential test (see tests/differential/README.md): one process
// optimizes a whole batch of models with what `onnx-opt --verify-each --require-convergence`
// runs (onnxopt::optimizeBytes, to a fixed point), and says per model and pass which passes
// fired and which rewrite patterns fired and declined, so that a generator that stops producing
// what a pass rewrites cannot pass silently.
//
//   diff_driver [--pipeline -O1|-O2|target=NAME|PIPELINE_TEXT | --each-pass] [--target-opset N]
//               OUT_DIR MODEL.onnx...
//
// A model may carry dims to fix before optimizing (`--dim`): MODEL.onnx@N=3,B=2; those its
// declarations do not name are left out. An entry *=V also fixes (`--input-shape`) every main-graph
// input with a dim declared without a name, that dim to V and its others to what they are.
// --pipeline (default -O1) runs one pipeline per model and writes OUT_DIR/<basename of MODEL>.
// --each-pass runs every registered pass alone on each model, and writes
// OUT_DIR/<pass>/<basename> only where the pass changed the model (an unchanged model needs no
// comparison). One line per run on stdout, flushed before the next starts (a crash then points
// at the model and pass without a line):
//   {"model":"<path>","pipeline":"<pipeline or pass>","ok":true,"out":"<path>"|null,
//    "fired":{"<pass>":n,...},"patterns":{"<pass>/<pattern>":n,...},
//    "declined":{"<pass>/<pattern>":n,...}}
//   {"model":"<path>","pipeline":"...","ok":false,"error":"<status message>"}
//   {"model":"<path>","done":true}   after the model's last run
// "fired" has every pass the run ran (0 if it rewrote nothing): a pass fired when it rewrote a
// node, or removed an initializer or (eliminate-dead-nodes) a node. The rewrite driver's own
// removal of what a rewrite left unread is no firing. A pattern "declined" when it did not
// match a node that is a candidate and said why (--debug's "no match" lines); nodes that are no
// candidate at all are not counted.
// --target-opset N raises each model below opset N to N first (`--target-opset`), counted as
// pass "target-opset" in "fired"; where ONNX 1.12's converter refuses a model (docs/targets.md:
// its adapters are the limit), the model runs without it and "target-opset" fired 0 times.
// Exit status: 0 when every run succeeded, 1 when one failed, 2 on a bad command line.

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "onnxopt/ir/serialization.h"
#include "onnxopt/onnxopt.h"

namespace {

std::string jsonString(absl::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string jsonCounts(const std::map<std::string, int>& counts) {
  std::string out = "{";
  for (const auto& [name, count] : counts) {
    if (out.size() > 1) out += ",";
    out += jsonString(name) + ":" + std::to_string(count);
  }
  return out + "}";
}

// Whether a pattern's reason for not matching says only that the node is not a candidate at
// all (nothing the pattern rewrites is next to it), rather than that a guard declined.
bool isNotACandidate(absl::string_view reason) {
  for (const absl::string_view whole :
       {"no broadcast operand is an Expand's output", "the input is not the output of a Gemm",
        "no operand is a MatMul"}) {
    if (reason == whole) return true;
  }
  // fold-transpose-into-gemm-operand: "A is not the output of a Transpose; B is not ..."
  for (const absl::string_view part : absl::StrSplit(reason, "; ")) {
    if (!absl::EndsWith(part, " is not the output of a Transpose")) return false;
  }
  return true;
}

// The pass name of a pipeline entry: "fuse-matmul-add-gemm{allow-reshape=true}" ->
// "fuse-matmul-add-gemm".
std::string passName(absl::string_view entry) {
  return std::string(entry.substr(0, entry.find('{')));
}

// What one optimization run tells: the pass running now (from the progress sink) owns the
// debug lines that come, "[<pattern>] rewrote <node>" and "[<pattern>] <node>: no match: ...".
struct RunCounts {
  std::string pass;
  std::map<std::string, int> patterns;
  std::map<std::string, int> declined;

  void countDebugLine(absl::string_view line) {
    if (!absl::StartsWith(line, "[")) return;
    const size_t close = line.find(']');
    if (close == absl::string_view::npos) return;
    const std::string key = absl::StrCat(pass, "/", line.substr(1, close - 1));
    if (absl::StartsWith(line.substr(close + 1), " rewrote ")) {
      ++patterns[key];
      return;
    }
    const size_t no_match = line.find(": no match: ", close);
    if (no_match != absl::string_view::npos &&
        !isNotACandidate(line.substr(no_match + sizeof(": no match: ") - 1))) {
      ++declined[key];
    }
  }
};

bool firedIn(const onnxopt::PassRun& run) {
  const onnxopt::PassStatistics& s = run.statistics;
  if (passName(run.pass) == "eliminate-dead-nodes") return s.nodes_removed + s.initializers_removed > 0;
  return s.nodes_rewritten + s.initializers_removed > 0;
}

struct Pipeline {
  std::string label;     // as the JSON lines and file names say it
  std::string pipeline;  // for optimizeBytes
  std::optional<std::string> target;
};

// "-O1", "-O2": named pipelines; "target=ort": the target's pipeline; anything else: pipeline text.
Pipeline parsePipeline(const std::string& text) {
  if (absl::StartsWith(text, "target=")) return {text, "-O1", text.substr(sizeof("target=") - 1)};
  return {text, text, std::nullopt};
}

absl::StatusOr<std::string> readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError("cannot read " + path);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

// Whether `status` is `--target-opset` refusing a model: an op ONNX 1.12's converter cannot
// convert, or one of its adapters failing (a Softmax whose input's rank nobody knows).
bool isConverterRefusal(const absl::Status& status) {
  return status.code() == absl::StatusCode::kUnimplemented ||
         absl::StrContains(status.message(), "ONNX's version converter failed");
}

// The model's default-domain opset, if it imports one.
std::optional<int64_t> defaultOpset(const std::string& bytes) {
  onnx::ModelProto model;
  if (!model.ParseFromString(bytes)) return std::nullopt;
  for (const onnx::OperatorSetIdProto& opset : model.opset_import()) {
    if (opset.domain().empty() || opset.domain() == "ai.onnx") return opset.version();
  }
  return std::nullopt;
}

// Optimizes `bytes` (read from `input`) with `pipeline`, writes the result to `output` (when the
// run changed the model, or always with `write_unchanged`), and prints the run's line. Returns
// whether the run succeeded.
bool runOne(const std::string& input, const std::string& bytes, const Pipeline& pipeline,
            const std::vector<onnxopt::DimValue>& dims,
            const std::vector<onnxopt::InputShape>& input_shapes, std::optional<int64_t> target_opset,
            const std::string& output, bool write_unchanged) {
  RunCounts counts;
  onnxopt::OptimizeOptions options;
  options.dims = dims;
  options.input_shapes = input_shapes;
  options.target_opset = target_opset;
  options.verify_each = true;
  options.fixed_point = true;  // what -O1 implies on the command line, asked of pass text too
  options.require_convergence = true;
  options.verify_fixed_point = true;
  options.revisit_touched_only = true;
  options.target = pipeline.target;
  options.progress = [&](const onnxopt::PipelineProgress& at) { counts.pass = passName(at.pass); };
  options.debug_sink = [&](absl::string_view line) { counts.countDebugLine(line); };
  onnxopt::PipelineReport report;
  options.report = &report;
  const std::string head = "{\"model\":" + jsonString(input) +
                           ",\"pipeline\":" + jsonString(pipeline.label);
  absl::StatusOr<std::string> optimized = onnxopt::optimizeBytes(bytes, pipeline.pipeline, options);
  bool raise_refused = false;
  if (target_opset && !optimized.ok() && isConverterRefusal(optimized.status())) {
    raise_refused = true;
    counts = RunCounts();
    report = onnxopt::PipelineReport();
    options.target_opset.reset();
    optimized = onnxopt::optimizeBytes(bytes, pipeline.pipeline, options);
  }
  if (optimized.ok() && (report.changed || write_unchanged)) {
    std::ofstream out(output, std::ios::binary);
    out << *optimized;
    if (!out.flush()) optimized = absl::InternalError("cannot write " + output);
  }
  if (!optimized.ok()) {
    std::cout << head << ",\"ok\":false,\"error\":"
              << jsonString(optimized.status().message()) << "}" << std::endl;
    return false;
  }
  std::map<std::string, int> fired;
  for (const onnxopt::PassRun& run : report.runs) fired[passName(run.pass)] += firedIn(run) ? 1 : 0;
  if (target_opset) fired["target-opset"] = raise_refused ? 0 : 1;
  std::cout << head << ",\"ok\":true,\"out\":"
            << (report.changed || write_unchanged ? jsonString(output) : "null")
            << ",\"fired\":" << jsonCounts(fired) << ",\"patterns\":" << jsonCounts(counts.patterns)
            << ",\"declined\":" << jsonCounts(counts.declined) << "}" << std::endl;
  return true;
}

// The dims of `wanted` that some declaration of the model names: the generator sizes symbols it
// computes with, which an input may declare without a name.
std::vector<onnxopt::DimValue> namedDims(const std::string& bytes,
                                         const std::vector<onnxopt::DimValue>& wanted) {
  if (wanted.empty()) return {};
  absl::StatusOr<std::unique_ptr<onnxopt::ir::Model>> model = onnxopt::ir::loadModelFromBytes(bytes);
  if (!model.ok()) return wanted;  // optimizeBytes says what is wrong with it
  std::set<std::string> named;
  onnxopt::ir::forEachGraph((*model)->graph(), [&](onnxopt::ir::Graph& graph) {
    for (const onnx::ValueInfoProto* declaration : graph.mutableDeclarations()) {
      for (const onnx::TensorShapeProto::Dimension& dim :
           declaration->type().tensor_type().shape().dim()) {
        if (dim.has_dim_param()) named.insert(dim.dim_param());
      }
    }
  });
  std::vector<onnxopt::DimValue> dims;
  for (const onnxopt::DimValue& dim : wanted) {
    if (named.count(dim.symbol) != 0) dims.push_back(dim);
  }
  return dims;
}

// The --input-shape of every main-graph input that declares a dim without a name: that dim
// `unnamed`, a symbol the size `dims` gives it, a fixed dim its size. An input naming a symbol
// `dims` does not size is left out.
std::vector<onnxopt::InputShape> unnamedDimShapes(const std::string& bytes,
                                                  const std::vector<onnxopt::DimValue>& dims,
                                                  std::optional<int64_t> unnamed) {
  if (!unnamed) return {};
  onnx::ModelProto model;
  if (!model.ParseFromString(bytes)) return {};  // optimizeBytes says what is wrong with it
  std::vector<onnxopt::InputShape> shapes;
  for (const onnx::ValueInfoProto& input : model.graph().input()) {
    const onnx::TypeProto& type = input.type();
    if (!type.has_tensor_type() || !type.tensor_type().has_shape()) continue;
    onnxopt::InputShape shape{input.name(), {}};
    bool has_unnamed = false, complete = true;
    for (const onnx::TensorShapeProto::Dimension& dim : type.tensor_type().shape().dim()) {
      if (dim.has_dim_value()) {
        shape.dims.push_back(dim.dim_value());
      } else if (dim.has_dim_param()) {
        auto sized = std::find_if(dims.begin(), dims.end(), [&](const onnxopt::DimValue& d) {
          return d.symbol == dim.dim_param();
        });
        complete = complete && sized != dims.end();
        if (sized != dims.end()) shape.dims.push_back(sized->value);
      } else {
        has_unnamed = true;
        shape.dims.push_back(*unnamed);
      }
    }
    if (has_unnamed && complete) shapes.push_back(std::move(shape));
  }
  return shapes;
}

int usage() {
  std::cerr << "usage: diff_driver [--pipeline -O1|-O2|target=NAME|TEXT | --each-pass] "
               "[--target-opset N] OUT_DIR MODEL.onnx[@SYMBOL=V,...]...\n";
  return 2;
}

struct ModelArgument {
  std::string path;
  std::vector<onnxopt::DimValue> dims;
  std::optional<int64_t> unnamed_dims;  // *=V
};

// "MODEL.onnx@N=3,B=2" -> the path and the dims to fix.
absl::StatusOr<ModelArgument> parseModelArgument(const std::string& text) {
  const size_t at = text.rfind('@');
  if (at == std::string::npos) return ModelArgument{text, {}};
  ModelArgument model{text.substr(0, at), {}, std::nullopt};
  for (absl::string_view dim : absl::StrSplit(text.substr(at + 1), ',', absl::SkipEmpty())) {
    absl::StatusOr<onnxopt::DimValue> value = onnxopt::parseDimValue(dim);
    if (!value.ok()) return value.status();
    if (value->symbol == "*") {
      model.unnamed_dims = value->value;
    } else {
      model.dims.push_back(*value);
    }
  }
  return model;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  std::vector<Pipeline> pipelines = {parsePipeline("-O1")};
  bool each_pass = false;
  int64_t target_opset = 0;  // none
  size_t next = 0;
  for (; next < args.size() && absl::StartsWith(args[next], "--"); ++next) {
    if (args[next] == "--each-pass") {
      each_pass = true;
    } else if (args[next] == "--pipeline" && next + 1 < args.size()) {
      pipelines = {parsePipeline(args[++next])};
    } else if (args[next] == "--target-opset" && next + 1 < args.size() &&
               absl::SimpleAtoi(args[next + 1], &target_opset)) {
      ++next;
    } else {
      return usage();
    }
  }
  if (args.size() - next < 2) return usage();
  const std::string out_dir = args[next];
  if (each_pass) {
    pipelines.clear();
    for (const onnxopt::PassInfo* pass : onnxopt::PassRegistry::global().passes()) {
      pipelines.push_back({pass->name, pass->name, std::nullopt});
      std::filesystem::create_directories(out_dir + "/" + pass->name);
    }
  }
  int failed = 0;
  for (size_t i = next + 1; i < args.size(); ++i) {
    const absl::StatusOr<ModelArgument> model = parseModelArgument(args[i]);
    if (!model.ok()) {
      std::cerr << "diff_driver: " << args[i] << ": " << model.status().message() << "\n";
      return usage();
    }
    const std::string& input = model->path;
    const std::string base = input.substr(input.find_last_of('/') + 1);
    const absl::StatusOr<std::string> bytes = readFile(input);
    // What depends on the model alone: worked out once for all its pipelines (--each-pass runs
    // every pass).
    std::vector<onnxopt::DimValue> dims;
    std::vector<onnxopt::InputShape> input_shapes;
    std::optional<int64_t> raise_to;
    if (bytes.ok()) {
      dims = namedDims(*bytes, model->dims);
      input_shapes = unnamedDimShapes(*bytes, model->dims, model->unnamed_dims);
      const std::optional<int64_t> opset = defaultOpset(*bytes);
      if (opset && *opset < target_opset) raise_to = target_opset;
    }
    for (const Pipeline& pipeline : pipelines) {
      bool ok = false;
      if (bytes.ok()) {
        const std::string output =
            each_pass ? out_dir + "/" + pipeline.label + "/" + base : out_dir + "/" + base;
        ok = runOne(input, *bytes, pipeline, dims, input_shapes, raise_to, output,
                    /*write_unchanged=*/!each_pass);
      } else {
        std::cout << "{\"model\":" << jsonString(input) << ",\"pipeline\":"
                  << jsonString(pipeline.label) << ",\"ok\":false,\"error\":"
                  << jsonString(bytes.status().message()) << "}" << std::endl;
      }
      failed += ok ? 0 : 1;
    }
    std::cout << "{\"model\":" << jsonString(input) << ",\"done\":true}" << std::endl;
  }
  return failed == 0 ? 0 : 1;
}
