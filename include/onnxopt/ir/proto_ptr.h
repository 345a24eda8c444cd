#pragma once

// How the IR holds the protobuf messages it keeps aside (residues, tensors, value infos).

#include <cstddef>
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
  ProtoPtr(ProtoPtr&& other) noexcept
      : message_(std::exchange(other.message_, nullptr)), owned_(other.owned_) {}
  ProtoPtr& operator=(ProtoPtr&& other) noexcept {
    if (this != &other) {
      reset();
      message_ = std::exchange(other.message_, nullptr);
      owned_ = other.owned_;
    }
    return *this;
  }
  ~ProtoPtr() { reset(); }

  void reset(T* message = nullptr) {
    if (owned_) delete message_;
    message_ = message;
    owned_ = message != nullptr && message->GetArena() == nullptr;
  }

  T* get() const { return message_; }
  T& operator*() const { return *message_; }
  T* operator->() const { return message_; }
  explicit operator bool() const { return message_ != nullptr; }
  bool operator==(std::nullptr_t) const { return message_ == nullptr; }
  bool operator!=(std::nullptr_t) const { return message_ != nullptr; }

 private:
  T* message_ = nullptr;
  bool owned_ = false;
};

// A new message on `arena` (on the heap when it is null).
template <typename T>
T* newProto(google::protobuf::Arena* arena) {
  return google::protobuf::Arena::CreateMessage<T>(arena);
}

}  // namespace onnxopt::ir
