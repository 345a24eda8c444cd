#pragma once

// Synthetic models for the benchmarks: graphs shaped like exported networks, and models whose
// size is dominated by weights (inline or as external data). Generation is deterministic.

#include <cstdint>
#include <string>
#include <vector>

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

// A graph on which one pass fires everywhere: the pass's motif (pass_motifs.cc), a few nodes in
// the ONNX text syntax whose first input X and output Y have the same type, chained: copy i
// reads copy i-1's Y as its X, and its other names get the prefix "m<i>_" (other graph inputs
// are shared by every copy).
struct PassMotif {
  std::string pass;
  std::string text;
};
// One motif per built-in pass.
const std::vector<PassMotif>& passMotifs();

struct MotifModel {
  std::string bytes;      // the serialized model
  int64_t copies = 0;     // of the motif
  int64_t num_nodes = 0;  // main-graph nodes: copies times the motif's
};
// Copies of `motif_text` chained to about `num_nodes` main-graph nodes (at least one copy);
// each copy's Y gets a value_info of Y's type. Aborts if the text does not parse.
MotifModel repeatMotif(const std::string& motif_text, int64_t num_nodes);
// repeatMotif of the motif of `pass`, built once per process and cached; aborts if `pass` has
// none.
const MotifModel& passMotifModel(const std::string& pass, int64_t num_nodes);

// A model whose initializers hold `total_bytes` of float weights in `num_tensors` equal tensors
// of shape [rows, 2048] (chained as MatMul nodes), written to `dir`; the tensor count stays the
// same across sizes so that a size series changes only the bytes. Inline: one .onnx file. External: the .onnx file
// plus one "<model file name>.data" next to it, each tensor with data_location=EXTERNAL and
// location/offset/length entries (offsets 4 KiB aligned). `foldable` stores each weight
// transposed, as [2048, rows], read through a Transpose that fold-constants folds. Returns the
// .onnx path. Nothing is written if the file already exists.
std::string writeBigWeightsModel(const std::string& dir, int64_t total_bytes, bool external,
                                 int num_tensors = 64, bool foldable = false);

// File name (without directory) that writeBigWeightsModel uses.
std::string bigWeightsModelName(int64_t total_bytes, bool external, bool foldable = false);

// A temporary folder for this process ($ONNXOPT_BENCH_DIR or $TMPDIR or /tmp, then
// "onnxopt-bench-<pid>"), created on first call and removed with its contents at exit.
const std::string& benchTempDir();

// Whole-file helpers (plain stdio, large buffers).
std::string readFile(const std::string& path);
void writeFile(const std::string& path, const std::string& bytes);
int64_t fileSize(const std::string& path);

}  // namespace onnxopt::bench
