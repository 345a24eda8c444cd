#pragma once

#include <cstddef>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "onnxopt/ir/ir.h"

namespace onnxopt::ir {

// The values one graph defines while it is imported, in order (graph inputs, initializers, node
// outputs in file order), and the names they answer to, falling back to the enclosing graphs'
// (lexical scoping). Names must be unique: check with findDuplicateName before resolving.
//
// Exported graphs mostly read a value defined just before the reading node, or the weight listed
// after the last one read. Lookups try those first, in memory already in the cache; a hash map of
// names is built only as far into the definitions as a lookup needs. On a graph of a million
// nodes a map of every name costs a cache miss per name defined and per name read: a third of the
// import's time.
class ImportScope {
 public:
  explicit ImportScope(const ImportScope* parent) : parent_(parent) {}
  ImportScope(const ImportScope&) = delete;
  ImportScope& operator=(const ImportScope&) = delete;

  // Adds `value`, defined after every value added so far.
  void define(Value* value) {
    defined_.push_back(value);
    name_hashes_.push_back(NameTable::hashOf(value->name()));
  }
  size_t size() const { return defined_.size(); }
  absl::Span<Value* const> definitions() const { return defined_; }
  // NameTable::hashOf each definition's name, taken while the name is in the cache.
  std::vector<uint64_t> takeNameHashes() { return std::move(name_hashes_); }

  // The value named `name` in this graph alone, or null. `*cursor` guesses where it was
  // defined: the few definitions from there are compared first, and a value found past the
  // cursor moves it there, so that lookups in definition order seldom touch the map.
  Value* findLocal(absl::string_view name, size_t* cursor) const;

  // The value `name` denotes for an operand of a node whose outputs are defined at `position`
  // (the size of the scope before them): one of the values defined just before it, or
  // findLocal(name, cursor), or the enclosing graphs' value. Null when no graph defines it.
  Value* resolve(absl::string_view name, size_t position, size_t* cursor) const;

 private:
  static constexpr size_t kRecent = 8;
  static constexpr size_t kAhead = 4;

  // The position of the definition of `name` in this graph, or -1.
  ptrdiff_t findIndexed(absl::string_view name) const;

  const ImportScope* parent_;
  std::vector<Value*> defined_;
  std::vector<uint64_t> name_hashes_;
  // Positions of defined_[0, indexed_) by name, grown on demand. Keys view the Values' own
  // names: Values do not move, and nothing renames them during the import.
  mutable absl::flat_hash_map<absl::string_view, size_t> index_;
  mutable size_t indexed_ = 0;
};

}  // namespace onnxopt::ir
