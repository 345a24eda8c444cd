#pragma once

// What a successful run did, and its two renderings: the summary onnx-opt prints to stderr, and
// the --report JSON file. Both formats are documented in docs/user-guide.md and
// docs/report-schema.md, and tests/cli keeps them in step with those pages.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "onnxopt/ir/ir.h"
#include "onnxopt/pass/input_shapes.h"
#include "onnxopt/pass/pass_manager.h"
#include "onnxopt/pass/target.h"

namespace onnxopt::cli {

// The report file's layout version; raised when a field changes meaning or goes away (added
// fields do not raise it).
inline constexpr int kReportSchemaVersion = 1;

// Counts over every graph of a model, subgraphs included.
struct ModelCensus {
  int64_t nodes = 0;
  // Op type ("Gemm"; "domain.OpType" outside the default domain) -> count, in order of first
  // appearance.
  std::vector<std::pair<std::string, int64_t>> op_types;
  int64_t initializers = 0;
  // Bytes of the initializers' data as raw bytes: raw_data's or the external data's length,
  // elements x element size for data in typed fields (float_data, ...), the strings' lengths
  // for string tensors.
  int64_t initializer_bytes = 0;
  // The main graph's inputs, and those of them an initializer defines (weights a caller may
  // feed, which no pass reads as constants).
  int64_t inputs = 0;
  int64_t initializer_inputs = 0;

  static ModelCensus of(ir::Model& model);
};

struct RunRecord {
  std::string input;   // as given; "-" is stdin
  std::string output;  // as given; "-" is stdout
  std::string emit;    // "binary" or "text"
  std::string pipeline;
  bool fixed_point = false;
  ModelCensus before;
  ModelCensus after;
  std::optional<int64_t> input_bytes;   // read from the input (model file only); unknown for FIFOs
  std::optional<int64_t> output_bytes;  // written to the output; unknown for devices and FIFOs
  double load_seconds = 0;
  double optimize_seconds = 0;
  double save_seconds = 0;
  PipelineReport pipeline_report;
  std::vector<FixedDim> fixed_dims;  // --input-shape, --dim
  std::string target;                   // --target's name; "" without it
  std::optional<int64_t> target_opset;  // --target-opset
  // The default-domain opset as loaded and as saved (nullopt: the model imports none).
  std::optional<int64_t> opset_before;
  std::optional<int64_t> opset_after;
  std::optional<TensorRtFindings> tensorrt;  // --target=tensorrt
};

// The summary lines (each ending in '\n'); `input` is the display name ("<stdin>" for "-"):
//   onnx-opt: <input>: <before> -> <after> nodes
//     fixed dims: <symbol>=<v> (<n> declarations), <input>[<i>]=<v>   (with --input-shape, --dim)
//     opset: <before> -> <after>               (with --target-opset)
//     op <type>: <before> -> <after>          (one per op type whose count changed)
//     initializers: <before> -> <after> (<bytes before> -> <bytes after> bytes)
//     time: load <s> s, optimize <s> s, save <s> s
//     tensorrt: <finding>                      (with --target=tensorrt, one line each)
std::string formatSummary(const RunRecord& record, const std::string& input);

// The --report file: JSON, schema version kReportSchemaVersion (docs/report-schema.md).
std::string formatJsonReport(const RunRecord& record, const std::string& tool_version);

}  // namespace onnxopt::cli
