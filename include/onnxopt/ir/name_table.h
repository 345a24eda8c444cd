#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/string_view.h"
#include "onnxopt/export.h"

namespace onnxopt::ir {

// The names in use in one namespace of a model (value names, or node names), across all scopes.
// `fresh` never returns a name in use, and reserves what it returns.
//
// It keeps a 64-bit hash of each name, not the name: seeding a table hashes every name of the
// model, and copying them all as well cost more than the rest of a typical pass. Two names with
// one hash (odds of about one in 40 million for a million names) make `contains` answer true for a free
// name, so `fresh` skips it: a name is never reused, at worst one is passed over.
class ONNXOPT_API NameTable {
 public:
  void reserve(absl::string_view name) { hashes_.insert(hashOf(name)); }
  // Room for `count` names without rehashing.
  void expect(size_t count) { hashes_.reserve(count); }
  bool contains(absl::string_view name) const { return hashes_.contains(hashOf(name)); }
  // `base` if free, else `base_1`, `base_2`, ...
  std::string fresh(absl::string_view base);

 private:
  // std::hash is the same in every run (absl::Hash is seeded per process): fresh names, and so
  // the optimized model, must not depend on the run.
  static uint64_t hashOf(absl::string_view name) {
    return std::hash<std::string_view>()(std::string_view(name.data(), name.size()));
  }
  absl::flat_hash_set<uint64_t> hashes_;
  // By the hash of the base, like the names.
  absl::flat_hash_map<uint64_t, int64_t> next_suffix_;
};

}  // namespace onnxopt::ir
