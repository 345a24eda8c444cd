#include "onnxopt/ir/name_table.h"

#include "absl/strings/str_cat.h"

namespace onnxopt::ir {

void NameTable::reserve(absl::string_view name) { names_.emplace(name); }

std::string NameTable::fresh(absl::string_view base) {
  if (names_.insert(std::string(base)).second) return std::string(base);
  // Remembering the next suffix per base keeps repeated requests for one base linear overall.
  int64_t& suffix = next_suffix_[base];
  std::string candidate;
  do {
    candidate = absl::StrCat(base, "_", ++suffix);
  } while (!names_.insert(candidate).second);
  return candidate;
}

}  // namespace onnxopt::ir
