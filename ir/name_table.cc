#include "onnxopt/ir/name_table.h"

#include "absl/strings/str_cat.h"

namespace onnxopt::ir {

std::string NameTable::fresh(absl::string_view base) {
  const uint64_t base_hash = hashOf(base);
  if (hashes_.insert(base_hash).second) return std::string(base);
  // Remembering the next suffix per base keeps repeated requests for one base linear overall.
  int64_t& suffix = next_suffix_[base_hash];
  std::string candidate;
  do {
    candidate = absl::StrCat(base, "_", ++suffix);
  } while (!hashes_.insert(hashOf(candidate)).second);
  return candidate;
}

}  // namespace onnxopt::ir
