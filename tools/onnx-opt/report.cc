#include "report.h"

#include <sys/stat.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "json.h"

namespace onnxopt::cli {
namespace {

int64_t dataBytes(const ir::Tensor& tensor) {
  if (tensor.isExternal()) {
    const ir::ExternalData& external = *tensor.external();
    if (external.length >= 0) return external.length;
    struct stat info;  // length -1: to the end of the file (the loader checked that it exists)
    if (stat(external.path.c_str(), &info) != 0) return 0;
    return std::max<int64_t>(0, static_cast<int64_t>(info.st_size) - external.offset);
  }
  const onnx::TensorProto& proto = tensor.proto();
  if (proto.has_raw_data()) return static_cast<int64_t>(proto.raw_data().size());
  if (proto.data_type() == onnx::TensorProto::STRING) {
    int64_t bytes = 0;
    for (const std::string& element : proto.string_data()) bytes += element.size();
    return bytes;
  }
  // Typed fields (float_data, int64_data, ...) hold wider or varint-coded values: count what
  // the elements take in raw form.
  const std::optional<int64_t> elements = tensor.numElements();
  return elements.has_value() ? *elements * ir::elemTypeSize(proto.data_type()) : 0;
}

int64_t countOf(const std::vector<std::pair<std::string, int64_t>>& counts,
                const std::string& op) {
  for (const auto& [name, count] : counts) {
    if (name == op) return count;
  }
  return 0;
}

void writeCensus(JsonWriter& json, const ModelCensus& census, std::optional<int64_t> file_bytes) {
  json.beginObject();
  json.key("nodes").integer(census.nodes);
  json.key("op_types").beginObject();
  for (const auto& [op, count] : census.op_types) json.key(op).integer(count);
  json.endObject();
  json.key("initializers").integer(census.initializers);
  json.key("initializer_bytes").integer(census.initializer_bytes);
  json.key("inputs").integer(census.inputs);
  json.key("initializer_inputs").integer(census.initializer_inputs);
  json.key("file_bytes");
  if (file_bytes.has_value()) {
    json.integer(*file_bytes);
  } else {
    json.null();
  }
  json.endObject();
}

// The --target=tensorrt lines of the summary.
void appendTensorRtFindings(const TensorRtFindings& findings, std::string* text) {
  std::vector<std::string> dims;
  for (const TensorRtFindings::DynamicDim& dim : findings.dynamic_dims) {
    std::string name = dim.index < 0 ? absl::StrCat(dim.input, " (rank unknown)")
                                     : absl::StrCat(dim.input, "[", dim.index, "]");
    if (!dim.symbol.empty()) absl::StrAppend(&name, " (", dim.symbol, ")");
    dims.push_back(std::move(name));
  }
  absl::StrAppend(text, "  tensorrt: dynamic input dims: ",
                  dims.empty() ? "none" : absl::StrJoin(dims, ", "), "\n");
  if (findings.int64_initializers > 0) {
    absl::StrAppendFormat(text, "  tensorrt: %d INT64 initializers (TensorRT casts them to INT32)",
                          findings.int64_initializers);
    if (!findings.int64_overflows.empty()) {
      std::vector<std::string> names;
      for (const auto& overflow : findings.int64_overflows) {
        names.push_back(absl::StrCat(overflow.name, " (", overflow.value, ")"));
      }
      absl::StrAppend(text, "; values outside int32: ", absl::StrJoin(names, ", "));
    }
    if (!findings.int64_unread.empty()) {
      absl::StrAppend(text, "; not read: ", absl::StrJoin(findings.int64_unread, ", "));
    }
    absl::StrAppend(text, "\n");
  }
  if (!findings.non_onnx_ops.empty()) {
    std::vector<std::string> ops;
    for (const auto& [op, count] : findings.non_onnx_ops) {
      ops.push_back(absl::StrCat(op, " (", count, ")"));
    }
    absl::StrAppend(text, "  tensorrt: ops outside the ONNX domain: ", absl::StrJoin(ops, ", "),
                    "\n");
  }
  if (!findings.double_tensors.empty()) {
    absl::StrAppend(text, "  tensorrt: DOUBLE tensors (TensorRT has no double): ",
                    absl::StrJoin(findings.double_tensors, ", "), "\n");
  }
}

void writeTensorRtFindings(JsonWriter& json, const TensorRtFindings& findings) {
  json.beginObject();
  json.key("dynamic_dims").beginArray();
  for (const TensorRtFindings::DynamicDim& dim : findings.dynamic_dims) {
    json.beginObject();
    json.key("input").string(dim.input);
    json.key("index").integer(dim.index);
    json.key("symbol").string(dim.symbol);
    json.endObject();
  }
  json.endArray();
  json.key("int64_initializers").integer(findings.int64_initializers);
  json.key("int64_outside_int32").beginArray();
  for (const TensorRtFindings::Int64Overflow& overflow : findings.int64_overflows) {
    json.beginObject();
    json.key("name").string(overflow.name);
    json.key("value").integer(overflow.value);
    json.endObject();
  }
  json.endArray();
  json.key("int64_unread").beginArray();
  for (const std::string& name : findings.int64_unread) json.string(name);
  json.endArray();
  json.key("non_onnx_ops").beginObject();
  for (const auto& [op, count] : findings.non_onnx_ops) json.key(op).integer(count);
  json.endObject();
  json.key("double_tensors").beginArray();
  for (const std::string& name : findings.double_tensors) json.string(name);
  json.endArray();
  json.endObject();
}

void optionalInteger(JsonWriter& json, const std::optional<int64_t>& value) {
  if (value.has_value()) {
    json.integer(*value);
  } else {
    json.null();
  }
}

}  // namespace

ModelCensus ModelCensus::of(ir::Model& model) {
  ModelCensus census;
  ir::forEachGraph(model.graph(), [&census](ir::Graph& graph) {
    for (const ir::Node& node : graph) {
      ++census.nodes;
      const std::string& domain = node.op().domain();
      const std::string op = absl::StrCat(domain, domain.empty() ? "" : ".", node.opType());
      auto it = std::find_if(census.op_types.begin(), census.op_types.end(),
                             [&op](const auto& entry) { return entry.first == op; });
      if (it == census.op_types.end()) {
        census.op_types.emplace_back(op, 1);
      } else {
        ++it->second;
      }
    }
    for (const ir::Value* value : graph.initializers()) {
      if (!value->isInitializer()) continue;
      ++census.initializers;
      census.initializer_bytes += dataBytes(*value->initializer());
    }
  });
  for (const ir::Value* input : model.graph().inputs()) {
    ++census.inputs;
    if (input->isInitializer()) ++census.initializer_inputs;
  }
  return census;
}

std::string formatSummary(const RunRecord& record, const std::string& input) {
  std::string text = absl::StrFormat("onnx-opt: %s: %d -> %d nodes\n", input, record.before.nodes,
                                     record.after.nodes);
  if (!record.fixed_dims.empty()) {
    absl::StrAppend(&text, "  fixed dims: ", formatFixedDims(record.fixed_dims), "\n");
  }
  // Op types in order of first appearance before, then those that only appear after.
  std::vector<std::string> ops;
  for (const auto& entry : record.before.op_types) ops.push_back(entry.first);
  for (const auto& entry : record.after.op_types) {
    if (countOf(record.before.op_types, entry.first) == 0) ops.push_back(entry.first);
  }
  for (const std::string& op : ops) {
    const int64_t before = countOf(record.before.op_types, op);
    const int64_t after = countOf(record.after.op_types, op);
    if (before != after) absl::StrAppendFormat(&text, "  op %s: %d -> %d\n", op, before, after);
  }
  if (record.target_opset.has_value()) {
    absl::StrAppend(&text, "  opset: ", record.opset_before.value_or(0), " -> ",
                    record.opset_after.value_or(0), "\n");
  }
  if (record.before.inputs != record.after.inputs) {
    absl::StrAppendFormat(&text, "  inputs: %d -> %d\n", record.before.inputs,
                          record.after.inputs);
  }
  absl::StrAppendFormat(&text, "  initializers: %d -> %d (%d -> %d bytes)\n",
                        record.before.initializers, record.after.initializers,
                        record.before.initializer_bytes, record.after.initializer_bytes);
  if (record.after.initializer_inputs > 0) {
    absl::StrAppendFormat(&text,
                          "  initializer inputs: %d (a caller may feed them, so they are not "
                          "folded; see eliminate-initializer-inputs)\n",
                          record.after.initializer_inputs);
  }
  absl::StrAppendFormat(&text, "  time: load %.3f s, optimize %.3f s, save %.3f s\n",
                        record.load_seconds, record.optimize_seconds, record.save_seconds);
  if (record.tensorrt.has_value()) appendTensorRtFindings(*record.tensorrt, &text);
  return text;
}

std::string formatJsonReport(const RunRecord& record, const std::string& tool_version) {
  const PipelineReport& pipeline = record.pipeline_report;
  JsonWriter json;
  json.beginObject();
  json.key("schema_version").integer(kReportSchemaVersion);
  json.key("tool").string("onnx-opt");
  json.key("tool_version").string(tool_version);
  json.key("input").string(record.input);
  json.key("output").string(record.output);
  json.key("emit").string(record.emit);
  json.key("pipeline").string(record.pipeline);
  json.key("fixed_point").boolean(record.fixed_point);
  json.key("rounds").integer(pipeline.rounds);
  json.key("reached_fixed_point").boolean(pipeline.reached_fixed_point);
  json.key("changed").boolean(pipeline.changed);

  json.key("model").beginObject();
  json.key("before");
  writeCensus(json, record.before, record.input_bytes);
  json.key("after");
  writeCensus(json, record.after, record.output_bytes);
  json.endObject();

  json.key("passes").beginArray();
  for (const PassTotals& totals : passTotals(pipeline)) {
    const PassStatistics& s = totals.statistics;
    json.beginObject();
    json.key("pass").string(totals.pass);
    json.key("runs").integer(totals.runs);
    json.key("changed").boolean(totals.changed);
    json.key("nodes_visited").integer(s.nodes_visited);
    json.key("nodes_matched").integer(s.nodes_matched);
    json.key("nodes_rewritten").integer(s.nodes_rewritten);
    json.key("nodes_removed").integer(s.nodes_removed);
    json.key("initializers_removed").integer(s.initializers_removed);
    json.key("seconds").number(totals.seconds);
    json.endObject();
  }
  json.endArray();

  json.key("seconds").beginObject();
  json.key("load").number(record.load_seconds);
  json.key("optimize").number(record.optimize_seconds);
  json.key("save").number(record.save_seconds);
  json.key("total").number(record.load_seconds + record.optimize_seconds + record.save_seconds);
  json.endObject();

  json.key("warnings").beginArray();
  for (const std::string& warning : pipeline.warnings) json.string(warning);
  json.endArray();

  json.key("fixed_dims").beginArray();
  for (const FixedDim& dim : record.fixed_dims) {
    json.beginObject();
    json.key("symbol").string(dim.symbol);
    json.key("input").string(dim.input);
    json.key("index").integer(dim.index);
    json.key("value").integer(dim.value);
    json.key("declarations").integer(dim.declarations);
    json.endObject();
  }
  json.endArray();

  json.key("target");
  if (record.target.empty()) {
    json.null();
  } else {
    json.string(record.target);
  }
  json.key("target_opset");
  optionalInteger(json, record.target_opset);
  json.key("opset").beginObject();
  json.key("before");
  optionalInteger(json, record.opset_before);
  json.key("after");
  optionalInteger(json, record.opset_after);
  json.endObject();
  json.key("tensorrt");
  if (record.tensorrt.has_value()) {
    writeTensorRtFindings(json, *record.tensorrt);
  } else {
    json.null();
  }
  json.endObject();
  return json.text();
}

}  // namespace onnxopt::cli
