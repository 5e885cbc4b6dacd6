// A bounded queue between two pipeline stages. close() ends it: pop() then returns what is left and
// after that nothing, push() refuses. Used with a fixed set of buffers that circulate between stages.
#pragma once
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>

namespace sarfuse::pipeline {

template <class T>
class StageQueue {
 public:
  explicit StageQueue(std::size_t capacity) : capacity_(capacity) {}
  // False when the queue was closed (the consumer has stopped).
  bool push(T v) {
    std::unique_lock lock(m_);
    room_.wait(lock, [&] { return closed_ || items_.size() < capacity_; });
    if (closed_) return false;
    items_.push_back(std::move(v));
    ready_.notify_one();
    return true;
  }
  // Empty once the queue is closed and drained.
  std::optional<T> pop() {
    std::unique_lock lock(m_);
    ready_.wait(lock, [&] { return closed_ || !items_.empty(); });
    if (items_.empty()) return std::nullopt;
    T v = std::move(items_.front());
    items_.pop_front();
    room_.notify_one();
    return v;
  }
  void close() {
    std::lock_guard lock(m_);
    closed_ = true;
    ready_.notify_all();
    room_.notify_all();
  }

 private:
  std::mutex m_;
  std::condition_variable ready_, room_;
  std::deque<T> items_;
  std::size_t capacity_;
  bool closed_ = false;
};

}  // namespace sarfuse::pipeline
