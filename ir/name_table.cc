#include "onnxopt/ir/name_table.h"

#include "absl/strings/str_cat.h"

namespace onnxopt::ir {

std::string NameTable::fresh(absl::string_view base) {
  if (hashes_.insert(hashOf(base)).second) return std::string(base);
  // Remembering the next suffix per base keeps repeated requests for one base linear overall.
  int64_t& suffix = next_suffix_[base];
  std::string candidate;
  do {
    candidate = absl::StrCat(base, "_", ++suffix);
  } while (!hashes_.insert(hashOf(candidate)).second);
  return candidate;
}

}  // namespace onnxopt::ir
