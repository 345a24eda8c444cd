#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

namespace onnxopt::ir::detail {

// Owns objects of one type, made one after another into chunks that never move. A graph keeps
// its nodes and values here: objects made in sequence (an imported graph's nodes, in file order)
// sit next to each other, so walking them stays in the cache, and making one costs no malloc.
// Objects live until the pool goes; that is the IR's rule for nodes and values anyway (an erased
// node stays valid for an iterator standing on it).
template <typename T>
class ObjectPool {
 public:
  ObjectPool() = default;
  ObjectPool(const ObjectPool&) = delete;
  ObjectPool& operator=(const ObjectPool&) = delete;
  ~ObjectPool() {
    std::allocator<T> allocator;
    for (Chunk& chunk : chunks_) {
      for (size_t i = 0; i < chunk.used; ++i) chunk.objects[i].~T();
      allocator.deallocate(chunk.objects, chunk.capacity);
    }
  }

  template <typename... Args>
  T* create(Args&&... args) {
    if (chunks_.empty() || chunks_.back().used == chunks_.back().capacity) grow();
    Chunk& chunk = chunks_.back();
    T* object = new (chunk.objects + chunk.used) T(std::forward<Args>(args)...);
    ++chunk.used;
    ++size_;
    return object;
  }

  // How many objects were made: the next one's creation number.
  size_t size() const { return size_; }

  // Calls `fn(object)` for every object, oldest first.
  template <typename Fn>
  void forEach(Fn&& fn) {
    for (Chunk& chunk : chunks_) {
      for (size_t i = 0; i < chunk.used; ++i) fn(chunk.objects[i]);
    }
  }

 private:
  // Chunks double from a few objects (subgraphs are often tiny) up to 64 KiB. That bound keeps
  // them below glibc's mmap threshold: a process optimizing model after model reuses freed chunks
  // instead of mapping and faulting in fresh pages each time.
  static constexpr size_t kFirstChunk = 4;
  static constexpr size_t kLargestChunk = std::max<size_t>(1, (64 << 10) / sizeof(T));

  struct Chunk {
    T* objects;
    size_t used;
    size_t capacity;
  };

  void grow() {
    const size_t capacity =
        chunks_.empty() ? kFirstChunk : std::min(2 * chunks_.back().capacity, kLargestChunk);
    // The chunk is listed before its memory is allocated, so a failed allocation leaks nothing.
    chunks_.push_back(Chunk{nullptr, 0, 0});
    chunks_.back().objects = std::allocator<T>().allocate(capacity);
    chunks_.back().capacity = capacity;
  }

  std::vector<Chunk> chunks_;
  size_t size_ = 0;
};

}  // namespace onnxopt::ir::detail
