#pragma once

// Declared types (value_info, a body's inputs and outputs) kept true to what the graph computes.
//
// ONNX Runtime believes a declaration where its own inference knows less, and it refuses one its
// inference contradicts (inside a body, or where an op merges its inputs' dims). A model whose
// declarations an edit left stale may load only because the inference knows just as little
// there: a rewrite that lets it know more (a folded Expand target meeting a stale size a Concat
// merges with), or less (a Reshape removed before an Unsqueeze, whose stale declared dim a
// Squeeze then checks), makes it refuse the model. Any pass can do that, so the pass manager
// keeps, after a pipeline that changed a model, only the declared sizes the facts prove; a
// model left unchanged keeps its declarations, but for what legalize-value-info corrects.

#include <cstdint>

#include "absl/functional/function_ref.h"
#include "absl/strings/string_view.h"
#include "onnxopt/export.h"
#include "onnxopt/ir/ir.h"
#include "onnxopt/ir/type.h"
#include "onnxopt/rewrite/shape_oracle.h"

namespace onnxopt {

// Called for each declaration changed: the value, what it is ("a body's input", "output of
// node 'n' (Relu)"), its declared type before and after.
using DeclarationCorrected = absl::FunctionRef<void(const ir::Value&, absl::string_view,
                                                    const ir::Type&, const ir::Type&)>;

// What legalizeDeclarations() does with a declared size the facts do not prove: drop it where
// the model shows stale declarations (one the facts contradict), or always.
enum class UnprovenSizes { kDropWhereStale, kDrop };

// Corrects every declaration of `model` that the facts (ShapeOracle::inferredTypeOf) contradict
// (correctedDeclaration: another element type or rank, or another size for a dim both know): the
// value_info of node outputs in every graph, and the inputs and outputs of every body. The sizes
// of a Loop's or Scan's body inputs that the facts do not prove are dropped too (those dims
// become unknown), and those of every declaration either always (kDrop) or once one declaration
// of the model is found contradicted (kDropWhereStale: the edit that left it stale may have left
// others where the facts do not reach). The main graph's inputs and outputs are the model's
// interface and stay. `shapes` is called only once a declaration is met. Returns how many
// declarations it changed.
ONNXOPT_API int64_t legalizeDeclarations(ir::Model& model, absl::FunctionRef<ShapeOracle&()> shapes,
                                         DeclarationCorrected corrected,
                                         UnprovenSizes unproven_sizes);

}  // namespace onnxopt
