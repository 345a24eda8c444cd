#pragma once

#include <cstddef>
#include <optional>
#include <utility>

#include "absl/types/span.h"
#include "onnxopt/ir/ir.h"

namespace onnxopt::ir {

// Two values of `values` with the same name, as positions (earlier, later), the pair whose later
// value comes first; nullopt when every name is unique. It groups the names' hashes by their top
// bits (a counting scatter), so it reads memory almost in order: a set of names misses the cache
// once per name on a graph of a million nodes.
std::optional<std::pair<size_t, size_t>> findDuplicateName(absl::Span<const Value* const> values);

}  // namespace onnxopt::ir
