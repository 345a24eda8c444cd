#include "import_scope.h"

#include <algorithm>

namespace onnxopt::ir {

Value* ImportScope::findLocal(absl::string_view name, size_t* cursor) const {
  const size_t guess_end = std::min(*cursor + kAhead, defined_.size());
  for (size_t i = *cursor; i < guess_end; ++i) {
    if (defined_[i]->name() == name) {
      *cursor = i + 1;
      return defined_[i];
    }
  }
  const ptrdiff_t position = findIndexed(name);
  if (position < 0) return nullptr;
  *cursor = std::max(*cursor, static_cast<size_t>(position) + 1);
  return defined_[position];
}

ptrdiff_t ImportScope::findIndexed(absl::string_view name) const {
  auto it = index_.find(name);
  if (it != index_.end()) return static_cast<ptrdiff_t>(it->second);
  while (indexed_ < defined_.size()) {
    const size_t position = indexed_++;
    index_.emplace(defined_[position]->name(), position);
    if (defined_[position]->name() == name) return static_cast<ptrdiff_t>(position);
  }
  return -1;
}

Value* ImportScope::resolve(absl::string_view name, size_t position, size_t* cursor) const {
  for (size_t i = position; i > position - std::min(position, kRecent); --i) {
    if (defined_[i - 1]->name() == name) return defined_[i - 1];
  }
  if (Value* value = findLocal(name, cursor)) return value;
  for (const ImportScope* scope = parent_; scope != nullptr; scope = scope->parent_) {
    const ptrdiff_t found = scope->findIndexed(name);
    if (found >= 0) return scope->defined_[found];
  }
  return nullptr;
}

}  // namespace onnxopt::ir
