#include "onnxopt/ir/op_name.h"

#include <array>
#include <mutex>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"

namespace onnxopt::ir {

const OpName& OpName::of(absl::string_view op_type, absl::string_view domain) {
  if (domain == "ai.onnx") domain = "";
  // Every imported node asks: a per-thread cache answers the repeats without taking the lock.
  thread_local std::array<const OpName*, 64> recent{};
  const OpName*& slot = recent[absl::HashOf(op_type, domain) % recent.size()];
  if (slot != nullptr && slot->op_type_ == op_type && slot->domain_ == domain) return *slot;

  static std::mutex mutex;
  // Never freed: nodes of models held by static objects may still be read during exit.
  static auto* const names = new absl::flat_hash_map<std::string, const OpName*>();
  // The domain's length first keeps ("a", "bc") and ("ab", "c") apart.
  std::string key = absl::StrCat(domain.size(), ":", domain, op_type);
  const std::lock_guard<std::mutex> lock(mutex);
  const OpName*& name = (*names)[std::move(key)];
  if (name == nullptr) {
    name = new OpName(std::string(op_type), std::string(domain),
                      static_cast<uint32_t>(names->size()));
  }
  slot = name;
  return *name;
}

}  // namespace onnxopt::ir
