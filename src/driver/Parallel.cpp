// Parallel input loop with terminal progress (see Parallel.h).
#include "driver/Parallel.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>

namespace fenceline::driver {

namespace {

// Progress is drawn only on a terminal, and only once the run has lasted
// long enough for a user to wonder.
class Progress {
 public:
  explicit Progress(size_t total) : total_(total), enabled_(::isatty(2) && total > 1) {}

  void finished(size_t done, const std::string& label) {
    if (!enabled_) return;
    std::lock_guard lock(mutex_);
    if (std::chrono::steady_clock::now() - start_ < std::chrono::milliseconds(500)) return;
    std::fprintf(stderr, "\r\033[K[%zu/%zu] %s", done, total_, label.c_str());
    std::fflush(stderr);
    drawn_ = true;
  }

  // Erases the line, so that other output starts at the line's beginning.
  void clear() {
    if (!enabled_) return;
    std::lock_guard lock(mutex_);
    if (drawn_) std::fprintf(stderr, "\r\033[K");
    drawn_ = false;
  }

  ~Progress() {
    if (drawn_) std::fprintf(stderr, "\r\033[K");
  }

 private:
  size_t total_;
  bool enabled_;
  bool drawn_ = false;
  std::mutex mutex_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace

void forEachInParallel(size_t count, unsigned jobs, const std::function<void(size_t)>& work,
                       const std::function<std::string(size_t)>& label) {
  if (jobs == 0) jobs = std::max(1u, std::thread::hardware_concurrency());
  size_t threads = std::min<size_t>(jobs, count);
  Progress progress(count);
  std::atomic<size_t> next{0}, done{0};
  auto worker = [&] {
    for (size_t index; (index = next.fetch_add(1)) < count;) {
      work(index);
      progress.finished(done.fetch_add(1) + 1, label(index));
    }
  };
  if (threads <= 1) {
    worker();
    return;
  }
  std::vector<std::thread> pool;
  for (size_t i = 0; i < threads; ++i) pool.emplace_back(worker);
  for (auto& thread : pool) thread.join();
}

void forEachInParallel(size_t count, unsigned jobs, const std::function<void(size_t)>& work,
                       const std::function<std::string(size_t)>& label, const std::function<void(size_t)>& consume) {
  if (jobs == 0) jobs = std::max(1u, std::thread::hardware_concurrency());
  size_t threads = std::min<size_t>(jobs, count);
  Progress progress(count);
  if (threads <= 1) {
    for (size_t index = 0; index < count; ++index) {
      work(index);
      progress.finished(index + 1, label(index));
      progress.clear();
      consume(index);
    }
    return;
  }
  std::atomic<size_t> next{0}, finished{0};
  std::vector<char> done(count, 0);
  std::mutex mutex;
  std::condition_variable ready;
  auto worker = [&] {
    for (size_t index; (index = next.fetch_add(1)) < count;) {
      work(index);
      {
        std::lock_guard lock(mutex);
        done[index] = 1;
      }
      ready.notify_all();
      progress.finished(finished.fetch_add(1) + 1, label(index));
    }
  };
  std::vector<std::thread> pool;
  for (size_t i = 0; i < threads; ++i) pool.emplace_back(worker);
  for (size_t index = 0; index < count; ++index) {
    {
      std::unique_lock lock(mutex);
      ready.wait(lock, [&] { return done[index] != 0; });
    }
    progress.clear();
    consume(index);
  }
  for (auto& thread : pool) thread.join();
}

}  // namespace fenceline::driver
