#pragma once
// The pipeline's P virtual workers: one host thread each, alive for the executor's lifetime. On CPU
// each worker thread has its own intra-op thread count; on CUDA its stream (WorkerStreams) is
// current on it, so all the worker's device work goes there. Each step the pool hands every worker
// the same piece of work (run its jobs of the plan) and returns when all have finished.
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "reference_trainer/WorkerStreams.h"

namespace glueprof {

class WorkerPool {
  public:
    // Starts the threads; `streams` must outlive the pool.
    WorkerPool(const WorkerStreams& streams, int workers, int threadsPerWorker);
    ~WorkerPool();  // stops and joins the threads
    WorkerPool(const WorkerPool&) = delete;
    WorkerPool& operator=(const WorkerPool&) = delete;

    // Every worker thread runs work(worker) once; returns when all have returned. `work` must not
    // throw (a step's failures are kept in its HandOffs).
    void runOnEach(const std::function<void(int worker)>& work);

  private:
    void loop(int worker);

    const WorkerStreams& m_streams;
    int m_threadsPerWorker;
    // Workers wait for a new generation (a step), run it, report done.
    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::condition_variable m_done;
    std::int64_t m_generation = 0;
    int m_running = 0;
    bool m_stop = false;
    const std::function<void(int)>* m_work = nullptr;
    std::vector<std::thread> m_threads;
};

}  // namespace glueprof
