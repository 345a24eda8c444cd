#pragma once

#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/string_view.h"
#include "onnxopt/export.h"

namespace onnxopt::ir {

// The names in use in one namespace of a model (value names, or node names), across all scopes.
// `fresh` never returns a name in use, and reserves what it returns.
class ONNXOPT_API NameTable {
 public:
  void reserve(absl::string_view name);
  bool contains(absl::string_view name) const { return names_.contains(name); }
  // `base` if free, else `base_1`, `base_2`, ...
  std::string fresh(absl::string_view base);

 private:
  absl::flat_hash_set<std::string> names_;
  absl::flat_hash_map<std::string, int64_t> next_suffix_;
};

}  // namespace onnxopt::ir
