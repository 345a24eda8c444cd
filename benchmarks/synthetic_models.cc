#include "synthetic_models.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "onnxopt/ir/serialization.h"

namespace onnxopt::bench {
namespace {

constexpr int64_t kHidden = 8;  // layer width of the synthetic graphs

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "synthetic_models: %s\n", what.c_str());
  std::abort();
}

void setFloatRaw(onnx::TensorProto* tensor, int64_t count, uint32_t seed) {
  std::string raw(static_cast<size_t>(count) * sizeof(float), '\0');
  for (int64_t i = 0; i < count; ++i) {
    float v = static_cast<float>((seed * 31u + static_cast<uint32_t>(i) * 7u) % 17u) * 0.01f - 0.08f;
    std::memcpy(&raw[static_cast<size_t>(i) * sizeof(float)], &v, sizeof(float));
  }
  tensor->set_raw_data(std::move(raw));
}

void setTensorType(onnx::TypeProto* type, bool symbolic_batch, int64_t batch, int64_t width) {
  auto* tensor_type = type->mutable_tensor_type();
  tensor_type->set_elem_type(onnx::TensorProto::FLOAT);
  auto* shape = tensor_type->mutable_shape();
  auto* d0 = shape->add_dim();
  if (symbolic_batch) {
    d0->set_dim_param("batch");
  } else {
    d0->set_dim_value(batch);
  }
  shape->add_dim()->set_dim_value(width);
}

onnx::NodeProto* addNode(onnx::GraphProto* graph, const std::string& op_type,
                         const std::string& name, std::initializer_list<std::string> inputs,
                         const std::string& output) {
  onnx::NodeProto* node = graph->add_node();
  node->set_op_type(op_type);
  node->set_name(name);
  for (const std::string& input : inputs) node->add_input(input);
  node->add_output(output);
  return node;
}

void fillModelHeader(onnx::ModelProto* model) {
  model->set_ir_version(8);
  model->set_producer_name("pytorch");
  model->set_producer_version("1.13.1");
  auto* opset = model->add_opset_import();
  opset->set_domain("");
  opset->set_version(13);
}

}  // namespace

onnx::ModelProto makeSyntheticModel(int64_t num_nodes) {
  onnx::ModelProto model;
  fillModelHeader(&model);
  onnx::GraphProto* graph = model.mutable_graph();
  graph->set_name("main_graph");

  auto* input = graph->add_input();
  input->set_name("input");
  setTensorType(input->mutable_type(), true, 0, kHidden);

  const int64_t layers = num_nodes / 4;
  const int64_t padding = num_nodes % 4;
  graph->mutable_node()->Reserve(static_cast<int>(num_nodes));
  graph->mutable_initializer()->Reserve(static_cast<int>(2 * layers + 1));

  // Shared by every Expand (one value with many uses, as exporters produce for constant shapes).
  const std::string expand_shape = "onnx::Expand_shape";
  if (layers > 1) {
    onnx::TensorProto* shape = graph->add_initializer();
    shape->set_name(expand_shape);
    shape->set_data_type(onnx::TensorProto::INT64);
    shape->add_dims(2);
    shape->add_int64_data(1);
    shape->add_int64_data(kHidden);
  }

  std::string current = "input";
  std::vector<std::string> relu_outputs;
  relu_outputs.reserve(static_cast<size_t>(layers));
  for (int64_t layer = 0; layer < layers; ++layer) {
    const std::string idx = std::to_string(layer);
    const std::string fc = "/layers." + idx + "/fc/";
    const std::string weight = "layers." + idx + ".fc.weight";
    const std::string bias = "layers." + idx + ".fc.bias";

    onnx::TensorProto* w = graph->add_initializer();
    w->set_name(weight);
    w->set_data_type(onnx::TensorProto::FLOAT);
    w->add_dims(kHidden);
    w->add_dims(kHidden);
    setFloatRaw(w, kHidden * kHidden, static_cast<uint32_t>(layer));
    onnx::TensorProto* b = graph->add_initializer();
    b->set_name(bias);
    b->set_data_type(onnx::TensorProto::FLOAT);
    b->add_dims(kHidden);
    setFloatRaw(b, kHidden, static_cast<uint32_t>(layer) + 1);

    onnx::NodeProto* transpose =
        addNode(graph, "Transpose", fc + "Transpose", {weight}, fc + "Transpose_output_0");
    auto* perm = transpose->add_attribute();
    perm->set_name("perm");
    perm->set_type(onnx::AttributeProto::INTS);
    perm->add_ints(1);
    perm->add_ints(0);

    std::string pre_activation;
    if (layer % 2 == 0 || layers == 1) {
      // torch's 3-D nn.Linear without constant folding.
      addNode(graph, "MatMul", fc + "MatMul", {current, fc + "Transpose_output_0"},
              fc + "MatMul_output_0");
      addNode(graph, "Add", fc + "Add", {fc + "MatMul_output_0", bias}, fc + "Add_output_0");
      pre_activation = fc + "Add_output_0";
    } else {
      // Older exporters: explicit bias broadcast into Gemm.
      addNode(graph, "Expand", fc + "Expand", {bias, expand_shape}, fc + "Expand_output_0");
      onnx::NodeProto* gemm =
          addNode(graph, "Gemm", fc + "Gemm",
                  {current, fc + "Transpose_output_0", fc + "Expand_output_0"},
                  fc + "Gemm_output_0");
      auto* alpha = gemm->add_attribute();
      alpha->set_name("alpha");
      alpha->set_type(onnx::AttributeProto::FLOAT);
      alpha->set_f(1.0f);
      auto* beta = gemm->add_attribute();
      beta->set_name("beta");
      beta->set_type(onnx::AttributeProto::FLOAT);
      beta->set_f(1.0f);
      pre_activation = fc + "Gemm_output_0";
    }
    const std::string act = "/layers." + idx + "/act/Relu";
    addNode(graph, "Relu", act, {pre_activation}, act + "_output_0");
    current = act + "_output_0";
    relu_outputs.push_back(current);
  }
  for (int64_t i = 0; i < padding; ++i) {
    const std::string name = "/tail/Identity_" + std::to_string(i);
    addNode(graph, "Identity", name, {current}, name + "_output_0");
    current = name + "_output_0";
  }

  // The last node's output is the graph output.
  if (graph->node_size() > 0) {
    onnx::NodeProto* last = graph->mutable_node(graph->node_size() - 1);
    last->set_output(0, "output");
    if (!relu_outputs.empty() && relu_outputs.back() == current) relu_outputs.pop_back();
    current = "output";
  }
  for (const std::string& name : relu_outputs) {
    auto* info = graph->add_value_info();
    info->set_name(name);
    setTensorType(info->mutable_type(), true, 0, kHidden);
  }
  auto* output = graph->add_output();
  output->set_name(current);
  setTensorType(output->mutable_type(), true, 0, kHidden);
  return model;
}

const std::string& syntheticModelBytes(int64_t num_nodes) {
  static std::mutex mutex;
  static std::map<int64_t, std::unique_ptr<std::string>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto& slot = cache[num_nodes];
  if (!slot) {
    slot = std::make_unique<std::string>();
    if (!makeSyntheticModel(num_nodes).SerializeToString(slot.get())) {
      fail("cannot serialize synthetic model");
    }
  }
  return *slot;
}

namespace {

using Rename = std::function<std::string(const std::string&)>;

// Renames every value a graph defines or reads, its subgraphs' included.
void renameGraph(onnx::GraphProto* graph, const Rename& rename) {
  for (onnx::NodeProto& node : *graph->mutable_node()) {
    node.set_name(rename(node.name().empty() ? node.output(0) + "_node" : node.name()));
    for (std::string& input : *node.mutable_input()) input = rename(input);
    for (std::string& output : *node.mutable_output()) output = rename(output);
    for (onnx::AttributeProto& attribute : *node.mutable_attribute()) {
      if (attribute.has_g()) renameGraph(attribute.mutable_g(), rename);
      for (onnx::GraphProto& subgraph : *attribute.mutable_graphs()) renameGraph(&subgraph, rename);
    }
  }
  for (onnx::TensorProto& tensor : *graph->mutable_initializer()) tensor.set_name(rename(tensor.name()));
  for (onnx::ValueInfoProto& info : *graph->mutable_value_info()) info.set_name(rename(info.name()));
}

void renameSubgraphInterfaces(onnx::GraphProto* graph, const Rename& rename) {
  for (onnx::NodeProto& node : *graph->mutable_node()) {
    for (onnx::AttributeProto& attribute : *node.mutable_attribute()) {
      std::vector<onnx::GraphProto*> subgraphs;
      if (attribute.has_g()) subgraphs.push_back(attribute.mutable_g());
      for (onnx::GraphProto& subgraph : *attribute.mutable_graphs()) subgraphs.push_back(&subgraph);
      for (onnx::GraphProto* subgraph : subgraphs) {
        for (auto& input : *subgraph->mutable_input()) input.set_name(rename(input.name()));
        for (auto& output : *subgraph->mutable_output()) output.set_name(rename(output.name()));
        renameSubgraphInterfaces(subgraph, rename);
      }
    }
  }
}

}  // namespace

MotifModel repeatMotif(const std::string& motif_text, int64_t num_nodes) {
  absl::StatusOr<onnx::ModelProto> parsed = ir::parseModelText(motif_text);
  if (!parsed.ok()) fail("motif does not parse: " + std::string(parsed.status().message()));
  const onnx::GraphProto& motif = parsed->graph();
  if (motif.input_size() == 0 || motif.output_size() != 1 || motif.node_size() == 0) {
    fail("a motif has inputs (X first), one output Y and nodes: " + motif.name());
  }
  const std::string& x = motif.input(0).name();
  const std::string& y = motif.output(0).name();
  // An input that is also one of the motif's initializers (keep_initializers_as_inputs) belongs
  // to each copy, as the initializer does; the other inputs are shared.
  auto is_own_input = [&motif](const std::string& name) {
    for (const onnx::TensorProto& initializer : motif.initializer()) {
      if (initializer.name() == name) return true;
    }
    return false;
  };

  onnx::ModelProto model = *parsed;
  onnx::GraphProto* graph = model.mutable_graph();
  graph->clear_node();
  graph->clear_initializer();
  graph->clear_value_info();
  graph->clear_output();
  graph->clear_input();
  for (const onnx::ValueInfoProto& input : motif.input()) {
    if (!is_own_input(input.name())) *graph->add_input() = input;
  }
  graph->set_name("bench_motif");

  MotifModel result;
  result.copies = std::max<int64_t>(1, num_nodes / motif.node_size());
  std::string previous_y = x;
  for (int64_t copy = 0; copy < result.copies; ++copy) {
    const std::string prefix = "m" + std::to_string(copy) + "_";
    const Rename rename = [&](const std::string& name) -> std::string {
      if (name.empty()) return name;
      if (name == x) return previous_y;
      for (int i = 1; i < motif.input_size(); ++i) {
        if (name == motif.input(i).name() && !is_own_input(name)) return name;
      }
      return prefix + name;
    };
    onnx::GraphProto instance = motif;
    renameGraph(&instance, rename);
    renameSubgraphInterfaces(&instance, rename);
    for (const onnx::ValueInfoProto& input : motif.input()) {
      if (!is_own_input(input.name())) continue;
      onnx::ValueInfoProto* own = graph->add_input();
      *own = input;
      own->set_name(rename(input.name()));
    }
    for (auto& node : *instance.mutable_node()) graph->add_node()->Swap(&node);
    for (auto& tensor : *instance.mutable_initializer()) graph->add_initializer()->Swap(&tensor);
    for (auto& info : *instance.mutable_value_info()) graph->add_value_info()->Swap(&info);
    previous_y = prefix + y;
    if (copy + 1 < result.copies) {
      onnx::ValueInfoProto* info = graph->add_value_info();
      *info = motif.output(0);
      info->set_name(previous_y);
    }
  }
  onnx::ValueInfoProto* output = graph->add_output();
  *output = motif.output(0);
  output->set_name(previous_y);
  result.num_nodes = graph->node_size();
  if (!model.SerializeToString(&result.bytes)) fail("cannot serialize a motif model");
  return result;
}

const MotifModel& passMotifModel(const std::string& pass, int64_t num_nodes) {
  static std::mutex mutex;
  static std::map<std::pair<std::string, int64_t>, std::unique_ptr<MotifModel>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto& slot = cache[{pass, num_nodes}];
  if (!slot) {
    for (const PassMotif& motif : passMotifs()) {
      if (motif.pass == pass) slot = std::make_unique<MotifModel>(repeatMotif(motif.text, num_nodes));
    }
    if (!slot) fail("no motif for pass " + pass);
  }
  return *slot;
}

std::string bigWeightsModelName(int64_t total_bytes, bool external, bool foldable) {
  return std::string("big_") + (foldable ? "foldable_" : "") + (external ? "external_" : "inline_") +
         std::to_string(total_bytes >> 20) + "MiB.onnx";
}

std::string writeBigWeightsModel(const std::string& dir, int64_t total_bytes, bool external,
                                 int num_tensors, bool foldable) {
  constexpr int64_t kCols = 2048;
  const int64_t rows = std::max<int64_t>(1, total_bytes / num_tensors / (kCols * 4));
  const int64_t tensor_bytes = rows * kCols * 4;
  const std::string name = bigWeightsModelName(total_bytes, external, foldable);
  const std::string path = dir + "/" + name;
  if (std::filesystem::exists(path)) return path;

  onnx::ModelProto model;
  fillModelHeader(&model);
  onnx::GraphProto* graph = model.mutable_graph();
  graph->set_name("big_weights");
  auto* input = graph->add_input();
  input->set_name("input");
  setTensorType(input->mutable_type(), false, 1, kCols);

  // One pattern buffer; each tensor gets its index stamped in its first bytes so no two are equal.
  std::string pattern(static_cast<size_t>(tensor_bytes), '\0');
  for (size_t i = 0; i < pattern.size() / sizeof(float); ++i) {
    float v = static_cast<float>(i % 251) * 0.001f;
    std::memcpy(&pattern[i * sizeof(float)], &v, sizeof(float));
  }

  const std::string data_name = name + ".data";
  std::FILE* data = nullptr;
  if (external) {
    data = std::fopen((dir + "/" + data_name).c_str(), "wb");
    if (!data) fail("cannot create " + dir + "/" + data_name);
  }
  int64_t offset = 0;
  std::string current = "input";
  for (int64_t index = 0; index < num_tensors; ++index) {
    const std::string idx = std::to_string(index);
    const std::string weight = "blocks." + idx + ".weight";
    onnx::TensorProto* tensor = graph->add_initializer();
    tensor->set_name(weight);
    tensor->set_data_type(onnx::TensorProto::FLOAT);
    tensor->add_dims(foldable ? kCols : rows);
    tensor->add_dims(foldable ? rows : kCols);
    std::string stamp = "tensor" + idx;
    if (external) {
      const int64_t aligned = (offset + 4095) / 4096 * 4096;
      if (aligned != offset) {
        std::string pad(static_cast<size_t>(aligned - offset), '\0');
        std::fwrite(pad.data(), 1, pad.size(), data);
        offset = aligned;
      }
      std::memcpy(&pattern[0], stamp.data(), stamp.size());
      if (std::fwrite(pattern.data(), 1, static_cast<size_t>(tensor_bytes), data) !=
          static_cast<size_t>(tensor_bytes)) {
        fail("short write to " + data_name);
      }
      tensor->set_data_location(onnx::TensorProto::EXTERNAL);
      auto add_entry = [&](const std::string& key, const std::string& value) {
        auto* entry = tensor->add_external_data();
        entry->set_key(key);
        entry->set_value(value);
      };
      add_entry("location", data_name);
      add_entry("offset", std::to_string(offset));
      add_entry("length", std::to_string(tensor_bytes));
      offset += tensor_bytes;
    } else {
      std::string raw(pattern.data(), static_cast<size_t>(tensor_bytes));
      std::memcpy(&raw[0], stamp.data(), stamp.size());
      tensor->set_raw_data(std::move(raw));
    }
    std::string matmul_weight = weight;
    if (foldable) {
      matmul_weight = "/blocks." + idx + "/Transpose_output_0";
      addNode(graph, "Transpose", "/blocks." + idx + "/Transpose", {weight}, matmul_weight);
    }
    const std::string out = "/blocks." + idx + "/MatMul_output_0";
    addNode(graph, "MatMul", "/blocks." + idx + "/MatMul", {current, matmul_weight}, out);
    current = out;
  }
  if (data && std::fclose(data) != 0) fail("cannot write " + data_name);
  graph->mutable_node(graph->node_size() - 1)->set_output(0, "output");
  auto* output = graph->add_output();
  output->set_name("output");
  setTensorType(output->mutable_type(), false, 1, kCols);

  // Write to a temporary name first so an interrupted run leaves no truncated model behind.
  const std::string tmp = path + ".partial";
  std::FILE* file = std::fopen(tmp.c_str(), "wb");
  if (!file) fail("cannot create " + tmp);
  bool ok = model.SerializeToFileDescriptor(fileno(file));
  ok = (std::fclose(file) == 0) && ok;
  if (!ok) fail("cannot write " + tmp);
  std::filesystem::rename(tmp, path);
  return path;
}

namespace {
struct TempDirHolder {
  std::string path;
  ~TempDirHolder() {
    if (!path.empty() && !std::getenv("ONNXOPT_BENCH_KEEP")) {
      std::error_code ec;
      std::filesystem::remove_all(path, ec);
    }
  }
};
}  // namespace

const std::string& benchTempDir() {
  static TempDirHolder holder;
  static std::once_flag once;
  std::call_once(once, [] {
    const char* base = std::getenv("ONNXOPT_BENCH_DIR");
    if (!base || !*base) base = std::getenv("TMPDIR");
    if (!base || !*base) base = "/tmp";
    std::string path = std::string(base) + "/onnxopt-bench-" + std::to_string(::getpid());
    std::filesystem::create_directories(path);
    holder.path = std::filesystem::canonical(path).string();
  });
  return holder.path;
}

std::string readFile(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (!file) fail("cannot open " + path);
  std::string bytes;
  bytes.resize(static_cast<size_t>(fileSize(path)));
  size_t read = bytes.empty() ? 0 : std::fread(&bytes[0], 1, bytes.size(), file);
  std::fclose(file);
  if (read != bytes.size()) fail("short read from " + path);
  return bytes;
}

void writeFile(const std::string& path, const std::string& bytes) {
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (!file) fail("cannot create " + path);
  size_t written = std::fwrite(bytes.data(), 1, bytes.size(), file);
  if (std::fclose(file) != 0 || written != bytes.size()) fail("cannot write " + path);
}

int64_t fileSize(const std::string& path) {
  std::error_code ec;
  auto size = std::filesystem::file_size(path, ec);
  if (ec) fail("cannot stat " + path);
  return static_cast<int64_t>(size);
}

}  // namespace onnxopt::bench
