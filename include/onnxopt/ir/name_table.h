#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "onnxopt/export.h"

namespace onnxopt::ir {

// The names in use in one namespace of a model (value names, or node names), across all scopes.
// `fresh` never returns a name in use, and reserves what it returns.
//
// It keeps a 64-bit hash of each name, not the name: seeding a table hashes every name of the
// model, and copying them all as well cost more than the rest of a typical pass. Two names with
// one hash (odds of about one in 40 million for a million names) make `contains` answer true for
// a free name, so `fresh` skips it: a name is never reused, at worst one is passed over.
class ONNXOPT_API NameTable {
 public:
  // False if the name, or one of the same hash, was in the table already.
  bool reserve(absl::string_view name) { return insert(hashOf(name)); }
  // Records a name given to a value or node. False if something may bear it already: it was
  // given before, or reserved other than by `fresh`, or it shares a hash with such a name. A
  // name `fresh` returned is new the first time it is given.
  bool give(absl::string_view name);
  // Reserves names by their hashes (hashOf), many at once; returns how many were there already.
  size_t reserveAll(std::vector<uint64_t> hashes);
  // How many distinct hashes the table holds.
  size_t size() const { return size_; }
  // Room for `count` names, and half as many again, without growing.
  void expect(size_t count);
  bool contains(absl::string_view name) const;
  // `base` if free, else `base_1`, `base_2`, ...
  std::string fresh(absl::string_view base);

  // The hash names are kept by: the same in every run and on every machine (fresh names, and so
  // the optimized model, must not depend on either).
  static uint64_t hashOf(absl::string_view name);

 private:
  // Inserts a hash; false if it was there. Open addressing over the hashes themselves (already
  // well mixed), with 0 marking a free slot. A hash's first slot is its top bits, so hashes in
  // ascending order fill the table front to back.
  bool insert(uint64_t hash);
  void grow(size_t capacity);
  size_t firstSlot(uint64_t hash) const { return static_cast<size_t>(hash >> shift_); }

  std::vector<uint64_t> slots_;  // a power of two in size, at most three quarters full
  int shift_ = 64;               // 64 - log2(slots_.size())
  size_t size_ = 0;
  // By the hash of the base, like the names.
  absl::flat_hash_map<uint64_t, int64_t> next_suffix_;
  // Hashes of the last few names `fresh` returned and nobody was given yet. A name that falls
  // off the end is merely reported as possibly in use when it is given.
  std::vector<uint64_t> fresh_not_given_;
};

}  // namespace onnxopt::ir
