#pragma once

// Synthetic models for the benchmarks: graphs shaped like exported networks, and models whose
// size is dominated by weights (inline or as external data). Generation is deterministic.

#include <cstdint>
#include <string>

#include "onnx/onnx_pb.h"

namespace onnxopt::bench {

// A model of exactly `num_nodes` nodes resembling an exported MLP stack. Layers alternate
// between the form torch exports for 3-D nn.Linear (Transpose(W) -> MatMul -> Add -> Relu) and
// the legacy exporter form (Transpose(W), Expand(b, shape) -> Gemm -> Relu); every layer has two
// small initializers (an 8x8 weight and an 8-float bias), every Expand reads one shared shape
// initializer, names follow torch ("/layers.12/fc/Gemm", "/layers.12/fc/Gemm_output_0",
// "layers.12.fc.weight"), and every layer output has a value_info entry with a symbolic batch
// dim. Node count is padded with Identity nodes when not a multiple of 4.
onnx::ModelProto makeSyntheticModel(int64_t num_nodes);

// Serialized makeSyntheticModel(num_nodes), built once per process and cached.
const std::string& syntheticModelBytes(int64_t num_nodes);

// A model whose initializers hold `total_bytes` of float weights in `num_tensors` equal tensors
// of shape [rows, 2048] (chained as MatMul nodes), written to `dir`; the tensor count stays the
// same across sizes so that a size series changes only the bytes. Inline: one .onnx file. External: the .onnx file
// plus one "<model file name>.data" next to it, each tensor with data_location=EXTERNAL and
// location/offset/length entries (offsets 4 KiB aligned). Returns the .onnx path. Nothing is
// written if the file already exists.
std::string writeBigWeightsModel(const std::string& dir, int64_t total_bytes, bool external,
                                 int num_tensors = 64);

// File name (without directory) that writeBigWeightsModel uses.
std::string bigWeightsModelName(int64_t total_bytes, bool external);

// A temporary folder for this process ($ONNXOPT_BENCH_DIR or $TMPDIR or /tmp, then
// "onnxopt-bench-<pid>"), created on first call and removed with its contents at exit.
const std::string& benchTempDir();

// Whole-file helpers (plain stdio, large buffers).
std::string readFile(const std::string& path);
void writeFile(const std::string& path, const std::string& bytes);
int64_t fileSize(const std::string& path);

}  // namespace onnxopt::bench
