#include "reference_trainer/pipeline/WorkerPool.h"

#include <fmt/format.h>
#include <torch/torch.h>

#include <optional>

#include <c10/core/StreamGuard.h>

#include "profiler/host/HostTracer.h"

namespace glueprof {

WorkerPool::WorkerPool(const WorkerStreams& streams, int workers, int threadsPerWorker)
    : m_streams(streams), m_threadsPerWorker(threadsPerWorker) {
    for (int w = 0; w < workers; ++w) m_threads.emplace_back([this, w] { loop(w); });
}

WorkerPool::~WorkerPool() {
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_stop = true;
    }
    m_wake.notify_all();
    for (std::thread& t : m_threads) t.join();
}

void WorkerPool::runOnEach(const std::function<void(int worker)>& work) {
    std::unique_lock<std::mutex> lock(m_mutex);
    m_work = &work;
    m_running = static_cast<int>(m_threads.size());
    ++m_generation;
    m_wake.notify_all();
    m_done.wait(lock, [&] { return m_running == 0; });
    m_work = nullptr;
}

void WorkerPool::loop(int worker) {
    HostTracer::nameThisThread(fmt::format("pipeline worker {}", worker));
    at::set_num_threads(m_threadsPerWorker);
    // CUDA: all this thread's device work goes to its stream.
    std::optional<c10::StreamGuard> onOwnStream;
    if (m_streams.queued()) onOwnStream.emplace(m_streams.stream(worker));
    std::int64_t seen = 0;
    while (true) {
        const std::function<void(int)>* work = nullptr;
        {
            std::unique_lock<std::mutex> lock(m_mutex);
            m_wake.wait(lock, [&] { return m_stop || m_generation != seen; });
            if (m_stop) return;
            seen = m_generation;
            work = m_work;
        }
        (*work)(worker);
        std::lock_guard<std::mutex> lock(m_mutex);
        if (--m_running == 0) m_done.notify_all();
    }
}

}  // namespace glueprof
