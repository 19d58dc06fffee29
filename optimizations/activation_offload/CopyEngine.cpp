#include "optimizations/activation_offload/CopyEngine.h"

#include <ATen/record_function.h>
#include <c10/core/Event.h>
#include <c10/core/StreamGuard.h>
#include <c10/core/impl/VirtualGuardImpl.h>

#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>

#include "profiler/host/HostTracer.h"

namespace glueprof {

namespace {

// ---- CPU: a copy worker thread -------------------------------------------------------------

class ThreadEvent : public CopyEvent {
  public:
    explicit ThreadEvent(bool done = false) : m_done(done) {}
    void complete(std::exception_ptr error) {
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_done = true;
            m_error = std::move(error);
        }
        m_changed.notify_all();
    }
    // Returns whether it had to block.
    bool wait() {
        std::unique_lock<std::mutex> lock(m_mutex);
        const bool blocked = !m_done;
        m_changed.wait(lock, [this] { return m_done; });
        if (m_error) std::rethrow_exception(m_error);
        return blocked;
    }

  private:
    std::mutex m_mutex;
    std::condition_variable m_changed;
    bool m_done;
    std::exception_ptr m_error;
};

class WorkerThreadCopyEngine : public CopyEngine {
  public:
    explicit WorkerThreadCopyEngine(HostTracer* tracer)
        : m_tracer(tracer), m_worker([this] { work(); }) {}

    ~WorkerThreadCopyEngine() override {
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_stopping = true;
        }
        m_changed.notify_all();
        m_worker.join();
    }

    CopyEventPtr markCompute() override { return std::make_shared<ThreadEvent>(true); }

    CopyEventPtr copy(CopyJob job, const CopyEventPtr& after) override {
        auto done = std::make_shared<ThreadEvent>();
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_queue.push_back(
                Queued{std::move(job), std::static_pointer_cast<ThreadEvent>(after), done});
        }
        m_changed.notify_all();
        return done;
    }

    bool computeWaits(const CopyEventPtr& event) override {
        return std::static_pointer_cast<ThreadEvent>(event)->wait();
    }

    void drain() override {
        auto marker = copy(CopyJob{}, nullptr);
        computeWaits(marker);
    }

    bool computeIsHostThread() const override { return true; }

  private:
    struct Queued {
        CopyJob job;
        std::shared_ptr<ThreadEvent> after;
        std::shared_ptr<ThreadEvent> done;
    };

    void work() {
        HostTracer::nameThisThread("copy engine");
        // The worker's copy_ calls are the copy engine's, not ops the trainer dispatched.
        at::DisableRecordFunctionGuard notObserved;
        for (;;) {
            Queued item;
            {
                std::unique_lock<std::mutex> lock(m_mutex);
                m_changed.wait(lock, [this] { return m_stopping || !m_queue.empty(); });
                if (m_queue.empty()) return;  // stopping and drained
                item = std::move(m_queue.front());
                m_queue.pop_front();
            }
            std::exception_ptr error;
            try {
                if (item.after) item.after->wait();
                run(item.job);
            } catch (...) {
                error = std::current_exception();
            }
            item.job = CopyJob{};  // release the source before signalling
            item.done->complete(error);
        }
    }

    void run(const CopyJob& job) {
        if (!job.src.defined()) return;  // a drain marker
        const TimestampNs start = Clock::nowNs();
        job.dst.copy_(job.src);
        const TimestampNs end = Clock::nowNs();
        if (m_tracer == nullptr) return;
        Event event;
        event.lane = m_tracer->laneForThisThread(LaneKind::kCopyStream);
        event.kind = EventKind::kMemcpy;
        event.category = Category::kCopy;
        event.name = m_tracer->intern(job.name);
        event.startNs = start;
        event.endNs = end;
        event.step = job.step;
        event.layer = job.layer;
        event.microbatch = job.microbatch;
        event.bytes = static_cast<std::int64_t>(job.src.nbytes());
        event.srcKind = job.srcKind;
        event.dstKind = job.dstKind;
        m_tracer->record(event);
    }

    HostTracer* m_tracer;
    std::mutex m_mutex;
    std::condition_variable m_changed;
    std::deque<Queued> m_queue;
    bool m_stopping = false;
    std::thread m_worker;  // last: starts after everything it uses
};

// ---- devices with streams: the c10 stream/event API ------------------------------------------

class StreamEvent : public CopyEvent {
  public:
    explicit StreamEvent(c10::DeviceType type) : event(type) {}
    c10::Event event;
};

class StreamCopyEngine : public CopyEngine {
  public:
    explicit StreamCopyEngine(const at::Device& device)
        : m_device(device),
          m_impl(device.type()),
          m_copyStream(m_impl.getStreamFromGlobalPool(device, /*isHighPriority=*/false)) {}

    ~StreamCopyEngine() override { m_impl.synchronizeStream(m_copyStream); }

    CopyEventPtr markCompute() override {
        auto marker = std::make_shared<StreamEvent>(m_device.type());
        marker->event.record(m_impl.getStream(m_device));
        return marker;
    }

    CopyEventPtr copy(CopyJob job, const CopyEventPtr& after) override {
        c10::StreamGuard onCopyStream(m_copyStream);
        if (after) std::static_pointer_cast<StreamEvent>(after)->event.block(m_copyStream);
        job.dst.copy_(job.src, /*non_blocking=*/true);
        // The caching allocator must not hand the source to compute before this copy has read it.
        if (job.src.device().type() == m_device.type()) {
            m_impl.recordDataPtrOnStream(job.src.storage().data_ptr(), m_copyStream);
        }
        auto done = std::make_shared<StreamEvent>(m_device.type());
        done->event.record(m_copyStream);
        return done;
    }

    bool computeWaits(const CopyEventPtr& event) override {
        std::static_pointer_cast<StreamEvent>(event)->event.block(m_impl.getStream(m_device));
        return false;  // the device waits; the host goes on
    }

    void drain() override { m_impl.synchronizeStream(m_copyStream); }

    bool computeIsHostThread() const override { return false; }

  private:
    at::Device m_device;
    c10::impl::VirtualGuardImpl m_impl;
    c10::Stream m_copyStream;
};

}  // namespace

std::unique_ptr<CopyEngine> makeCopyEngine(const at::Device& device, HostTracer* tracer) {
    if (device.is_cuda()) return std::make_unique<StreamCopyEngine>(device);
    return std::make_unique<WorkerThreadCopyEngine>(tracer);
}

}  // namespace glueprof
