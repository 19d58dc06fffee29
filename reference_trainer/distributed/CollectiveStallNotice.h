#pragma once
// A rank whose collective waits on a stalled peer says so while it waits — after 10 s, then every
// 30 s, one line on stderr — instead of nothing until --rank-timeout ends it. One thread for the
// rank group's life, asleep but for a look each second; a wait costs two atomic stores. Torch-free.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

namespace glueprof {

class CollectiveStallNotice {
  public:
    explicit CollectiveStallNotice(std::string prefix);  // "glueprof (rank 1 of 2): "
    ~CollectiveStallNotice();
    CollectiveStallNotice(const CollectiveStallNotice&) = delete;
    CollectiveStallNotice& operator=(const CollectiveStallNotice&) = delete;

    // Around one wait: `what` ("a gradient all-reduce") must outlive it.
    void begin(const char* what);
    void end();

  private:
    void watch();

    std::string m_prefix;
    std::atomic<std::int64_t> m_sinceNs{0};  // 0: no wait now
    std::atomic<const char*> m_what{nullptr};
    std::mutex m_mutex;
    std::condition_variable m_stop;
    bool m_stopping = false;
    std::thread m_thread;
};

}  // namespace glueprof
