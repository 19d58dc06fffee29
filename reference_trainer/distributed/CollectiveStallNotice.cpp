#include "reference_trainer/distributed/CollectiveStallNotice.h"

#include <chrono>
#include <cstdio>

namespace glueprof {

namespace {

std::int64_t steadyNowNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

}  // namespace

CollectiveStallNotice::CollectiveStallNotice(std::string prefix)
    : m_prefix(std::move(prefix)), m_thread([this] { watch(); }) {}

CollectiveStallNotice::~CollectiveStallNotice() {
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_stopping = true;
    }
    m_stop.notify_one();
    m_thread.join();
}

void CollectiveStallNotice::begin(const char* what) {
    m_what.store(what);
    m_sinceNs.store(steadyNowNs());
}

void CollectiveStallNotice::end() { m_sinceNs.store(0); }

void CollectiveStallNotice::watch() {
    std::int64_t noticedWait = 0;  // the wait last told about, and after how many seconds
    std::int64_t toldSeconds = 0;
    std::unique_lock<std::mutex> lock(m_mutex);
    while (!m_stop.wait_for(lock, std::chrono::seconds(1), [this] { return m_stopping; })) {
        const std::int64_t since = m_sinceNs.load();
        if (since == 0) continue;
        if (since != noticedWait) {
            noticedWait = since;
            toldSeconds = 0;
        }
        const std::int64_t seconds = (steadyNowNs() - since) / 1'000'000'000;
        const std::int64_t due = toldSeconds == 0 ? 10 : toldSeconds + 30;
        if (seconds < due) continue;
        toldSeconds = seconds;
        const char* what = m_what.load();
        std::fprintf(stderr,
                     "%s%s has waited %lld s for the other ranks (one may be stalled or gone; "
                     "this rank gives up at --rank-timeout)\n",
                     m_prefix.c_str(), what != nullptr ? what : "a collective",
                     static_cast<long long>(seconds));
    }
}

}  // namespace glueprof
