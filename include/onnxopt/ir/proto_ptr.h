#pragma once

// How the IR holds the protobuf messages it keeps aside (residues, tensors, value infos).

#include <cstddef>
#include <cstdint>
#include <utility>

#include "google/protobuf/arena.h"

namespace onnxopt::ir {

// A message an IR object refers to. A loaded model's messages live on the Model's arena (see
// docs/ir.md, "Tensors and weights"): they are borrowed and freed with the arena, all at once.
// Messages made on the heap (by passes, or imported from a caller's ModelProto) are owned: deleted
// with this pointer. Which one is decided once, when the pointer is set, so destroying a borrowed
// pointer never touches the message (nor its arena).
template <typename T>
class ProtoPtr {
 public:
  ProtoPtr() = default;
  explicit ProtoPtr(T* message) { reset(message); }
  ProtoPtr(ProtoPtr&& other) noexcept : bits_(std::exchange(other.bits_, 0)) {}
  ProtoPtr& operator=(ProtoPtr&& other) noexcept {
    if (this != &other) {
      reset();
      bits_ = std::exchange(other.bits_, 0);
    }
    return *this;
  }
  ~ProtoPtr() { reset(); }

  void reset(T* message = nullptr) {
    if (owned()) delete get();
    const bool owned = message != nullptr && message->GetArena() == nullptr;
    bits_ = reinterpret_cast<uintptr_t>(message) | (owned ? kOwned : 0);
  }

  T* get() const { return reinterpret_cast<T*>(bits_ & ~kOwned); }
  T& operator*() const { return *get(); }
  T* operator->() const { return get(); }
  explicit operator bool() const { return bits_ != 0; }
  bool operator==(std::nullptr_t) const { return bits_ == 0; }
  bool operator!=(std::nullptr_t) const { return bits_ != 0; }

 private:
  // Whether the message is owned rides in the pointer's lowest bit (messages are at least
  // 8-byte aligned): a Value holds three of these, a Node and an Attribute one each.
  static constexpr uintptr_t kOwned = 1;
  static_assert(alignof(T) >= 2, "the lowest bit of a message's address must be free");
  bool owned() const { return (bits_ & kOwned) != 0; }

  uintptr_t bits_ = 0;
};

// A new message on `arena` (on the heap when it is null).
template <typename T>
T* newProto(google::protobuf::Arena* arena) {
  return google::protobuf::Arena::CreateMessage<T>(arena);
}

}  // namespace onnxopt::ir
