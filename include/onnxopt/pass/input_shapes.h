#pragma once

// Fixing a model's dynamic dims before optimizing (`--input-shape`, `--dim`), so that shape
// computations fold: a graph input's dims, or a symbolic dim everywhere it is declared.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "onnxopt/export.h"
#include "onnxopt/ir/ir.h"

namespace onnxopt {

// `NAME=D0,D1,...`: every dim of the main-graph input NAME ("NAME=" for a scalar).
struct InputShape {
  std::string input;
  std::vector<int64_t> dims;
};

// `SYMBOL=V`: the dim named SYMBOL (a dim_param), in every declaration of every graph.
struct DimValue {
  std::string symbol;
  int64_t value = 0;
};

// A dim that fixDims() made known. A symbol is fixed in every declaration that names it (graph
// inputs, outputs and value_info, in every graph scope); a dim without a name only in the input.
struct FixedDim {
  std::string symbol;  // "" for a dim the input declared without a name (or not at all)
  std::string input;   // the input the value was given for; "" for a symbol fixed by --dim
  int64_t index = 0;   // the dim's position in `input`
  int64_t value = 0;
  int64_t declarations = 0;  // how many declarations changed
};

// Parse the flags' text. Errors (InvalidArgument) say what is wrong with it: no '=', an empty
// name, a dim that is not an integer or not positive.
ONNXOPT_API absl::StatusOr<InputShape> parseInputShape(absl::string_view text);
ONNXOPT_API absl::StatusOr<DimValue> parseDimValue(absl::string_view text);

// Fixes the dims: checks everything first, and changes the model only when all of it holds.
// InvalidArgument naming the input (or symbol) for a size that is not positive, an input the
// main graph does not have (or an initializer), one given twice, a number of dims other than the input's rank, a dim the
// model fixes to another size, a symbol given two different sizes (by --dim and through an
// input, or through two inputs), and a --dim symbol the model does not name anywhere.
ONNXOPT_API absl::StatusOr<std::vector<FixedDim>> fixDims(ir::Model& model,
                                                          absl::Span<const InputShape> shapes,
                                                          absl::Span<const DimValue> dims);

// "batch=1 (3 declarations), X[2]=224": the summary's words for what fixDims() did.
ONNXOPT_API std::string formatFixedDims(absl::Span<const FixedDim> fixed);

}  // namespace onnxopt
