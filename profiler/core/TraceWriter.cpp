#include "profiler/core/TraceWriter.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <stdexcept>
#include <utility>

#include "profiler/core/LossDiagnostics.h"
#include "profiler/core/SpinLock.h"
#include "profiler/core/TraceStore.h"

namespace glueprof {

// A recording thread's events between hand-offs to the queue. Its lock is taken by its own thread
// per event and by collectThreadBuffers: uncontended but for the moment of a hand-off.
class TraceWriter::ThreadBuffer {
  public:
    SpinLock lock;
    std::vector<Event> events;
};

namespace {
std::atomic<std::uint64_t> g_nextWriterInstance{1};
}  // namespace

TraceWriter::TraceWriter(const std::string& path, WriterOptions options)
    : TraceWriter(std::make_unique<TraceStore>(path), options) {}

TraceWriter::TraceWriter(std::unique_ptr<RecordSink> sink, WriterOptions options)
    : m_options(options), m_sink(std::move(sink)), m_instance(g_nextWriterInstance.fetch_add(1)) {
    m_thread = std::thread([this] { drainLoop(); });
}

TraceWriter::~TraceWriter() {
    try {
        close();
    } catch (...) {
        // NOTE(writer): a destructor cannot report; callers that care call close() themselves.
    }
}

RunId TraceWriter::beginRun(const RunInfo& info) {
    std::lock_guard<std::mutex> lock(m_sinkMutex);
    if (m_sinkClosed) throw std::logic_error("TraceWriter::beginRun after close");
    return m_sink->beginRun(info);
}

void TraceWriter::queueDropCount(RunId run) {
    auto dropped = m_droppedByRun.find(run);
    if (dropped == m_droppedByRun.end()) return;
    m_pending.diagnostics.push_back(
        DiagnosticRecord{run, loss::kWriterDroppedEvents, dropped->second,
                         "the writer queue was full; raise WriterOptions::maxQueuedEvents"});
    m_droppedByRun.erase(dropped);
}

void TraceWriter::endRun(RunId run, RunStatus status) {
    collectThreadBuffers();  // the run's events before its status (and its drop count)
    std::lock_guard<std::mutex> lock(m_queueMutex);
    queueDropCount(run);
    m_pending.statuses.push_back(StoreBatch::Status{run, status, unixNowNs()});
    m_urgent = true;
    m_wakeDrain.notify_one();
}

StringId TraceWriter::intern(std::string_view text) {
    std::lock_guard<std::mutex> lock(m_internMutex);
    auto [it, inserted] = m_strings.try_emplace(std::string(text), m_nextString);
    if (inserted) {
        ++m_nextString;
        std::lock_guard<std::mutex> queueLock(m_queueMutex);
        m_pending.names.push_back(StoreBatch::Name{it->second, it->first});
    }
    return it->second;
}

LaneId TraceWriter::addLane(RunId run, LaneKind kind, const std::string& name, std::int64_t device,
                            std::int64_t threadOrStream) {
    LaneId id = m_nextLane++;
    std::lock_guard<std::mutex> lock(m_queueMutex);
    m_pending.lanes.push_back(StoreBatch::LaneRow{id, run, kind, name, device, threadOrStream});
    return id;
}

namespace {

struct ThreadBufferSlot {
    std::uint64_t writer = 0;
    void* buffer = nullptr;
};
// The calling thread's buffer in each writer it recorded into. A writer's instance number is never
// reused, so the slot of a writer that is gone never matches again. Plain arrays: a thread_local
// with a constructor is reached through a TLS wrapper call at every use, and record() is per op.
constexpr std::size_t kThreadBufferSlots = 64;
thread_local ThreadBufferSlot t_buffers[kThreadBufferSlots];
thread_local std::size_t t_bufferCount = 0;

}  // namespace

TraceWriter::ThreadBuffer& TraceWriter::bufferForThisThread() {
    for (std::size_t i = t_bufferCount; i-- > 0;) {
        if (t_buffers[i].writer == m_instance)
            return *static_cast<ThreadBuffer*>(t_buffers[i].buffer);
    }
    if (t_bufferCount == kThreadBufferSlots) {
        // Slots of writers long closed: forget the older half (a live writer whose slot goes
        // only gets a second buffer for this thread, which it collects like the first).
        constexpr std::size_t kKept = kThreadBufferSlots / 2;
        std::copy(t_buffers + kKept, t_buffers + kThreadBufferSlots, t_buffers);
        t_bufferCount = kKept;
    }
    auto buffer = std::make_unique<ThreadBuffer>();
    buffer->events.reserve(kThreadBufferEvents);
    ThreadBuffer* raw = buffer.get();
    {
        std::lock_guard<std::mutex> lock(m_buffersMutex);
        m_buffers.push_back(std::move(buffer));
    }
    t_buffers[t_bufferCount++] = ThreadBufferSlot{m_instance, raw};
    return *raw;
}

void TraceWriter::enqueueEvents(std::vector<Event>& events) {
    const std::size_t room = m_options.maxQueuedEvents > m_pending.eventCount
                                 ? m_options.maxQueuedEvents - m_pending.eventCount
                                 : 0;
    if (events.size() > room) {
        for (std::size_t i = room; i < events.size(); ++i) {
            ++m_stats.eventsDropped;
            ++m_droppedByRun[events[i].run];
        }
        events.resize(room);
    }
    if (events.empty()) return;
    m_pending.eventCount += events.size();
    // A nearly empty buffer (a step's end, a writer round) is copied into the queue's last chunk
    // instead of handed over whole, so queued memory stays proportional to the queued events.
    std::vector<Event>* tail =
        m_pending.eventChunks.empty() ? nullptr : &m_pending.eventChunks.back();
    if (events.size() < kThreadBufferEvents / 8 && tail != nullptr &&
        tail->capacity() - tail->size() >= events.size()) {
        tail->insert(tail->end(), events.begin(), events.end());
        events.clear();
        return;
    }
    m_pending.eventChunks.push_back(std::move(events));
    if (m_freeChunks.empty()) {
        events = std::vector<Event>();
        events.reserve(kThreadBufferEvents);
    } else {
        events = std::move(m_freeChunks.back());
        m_freeChunks.pop_back();
    }
}

void TraceWriter::recycleChunks(Batch& batch) {
    std::lock_guard<std::mutex> lock(m_queueMutex);
    for (std::vector<Event>& chunk : batch.eventChunks) {
        if (m_freeChunks.size() >= kMaxFreeChunks) break;  // the rest is freed with the batch
        if (chunk.capacity() < kThreadBufferEvents) continue;
        chunk.clear();
        m_freeChunks.push_back(std::move(chunk));
    }
}

void TraceWriter::collectThreadBuffers() {
    // A recording thread waits on its buffer's lock only while its vector is exchanged for an empty
    // one: nothing is copied.
    std::lock_guard<std::mutex> buffersLock(m_buffersMutex);
    for (const std::unique_ptr<ThreadBuffer>& buffer : m_buffers) {
        // The queue's mutex first, then the buffer's spin lock (as record() takes them).
        std::lock_guard<std::mutex> queueLock(m_queueMutex);
        std::lock_guard<SpinLock> bufferLock(buffer->lock);
        if (!buffer->events.empty()) enqueueEvents(buffer->events);
    }
}

void TraceWriter::record(const Event& event) { record(bufferForThisThread(), event); }

void TraceWriter::record(ThreadBuffer& buffer, const Event& event) {
    {
        std::lock_guard<SpinLock> lock(buffer.lock);
        buffer.events.push_back(event);
        if (buffer.events.size() < kThreadBufferEvents) return;
    }
    // Full: queued under the queue's mutex and then the buffer's lock, the order every collector
    // takes them in. No one holds a spin lock while waiting for the mutex, and the events stay in
    // the buffer, where a collector finds them, until they are queued: a step row, a run's end or
    // a flush never overtakes events recorded before it.
    std::lock_guard<std::mutex> queueLock(m_queueMutex);
    std::lock_guard<SpinLock> lock(buffer.lock);
    if (!buffer.events.empty()) enqueueEvents(buffer.events);
}

void TraceWriter::recordStep(const StepRecord& step) {
    // Every event recorded so far, on any thread, joins the queue before the step's row: a step
    // with a row is complete.
    collectThreadBuffers();
    std::lock_guard<std::mutex> lock(m_queueMutex);
    m_pending.steps.push_back(step);
    m_urgent = true;  // commit at every step boundary
    m_wakeDrain.notify_one();
}

void TraceWriter::recordCounter(CounterRecord counter) {
    std::lock_guard<std::mutex> lock(m_queueMutex);
    m_pending.counters.push_back(std::move(counter));
}

void TraceWriter::recordDiagnostic(DiagnosticRecord diagnostic) {
    std::lock_guard<std::mutex> lock(m_queueMutex);
    m_pending.diagnostics.push_back(std::move(diagnostic));
}

void TraceWriter::flush() {
    collectThreadBuffers();
    std::unique_lock<std::mutex> lock(m_queueMutex);
    if (m_closed) return;
    std::uint64_t wanted = ++m_requestedGeneration;
    m_urgent = true;
    m_wakeDrain.notify_one();
    m_drained.wait(lock, [&] { return m_committedGeneration >= wanted || m_failure; });
    lock.unlock();
    rethrowWriterFailure();
}

void TraceWriter::stopDrain() {
    collectThreadBuffers();
    {
        std::lock_guard<std::mutex> lock(m_queueMutex);
        if (m_closed) return;
        m_closed = true;
        m_stopping = true;
        m_wakeDrain.notify_one();
    }
    if (m_thread.joinable()) m_thread.join();
}

void TraceWriter::close() {
    stopDrain();
    {
        std::lock_guard<std::mutex> lock(m_sinkMutex);
        if (!m_sinkClosed) {
            m_sinkClosed = true;
            m_sink->close();
        }
    }
    rethrowWriterFailure();
}

bool TraceWriter::abandon() {
    collectThreadBuffers();
    {
        // The drop counts of runs not ended go with what is written (the sink marks those runs
        // failed).
        std::lock_guard<std::mutex> lock(m_queueMutex);
        while (!m_droppedByRun.empty()) queueDropCount(m_droppedByRun.begin()->first);
    }
    stopDrain();  // what can be written is; the sink marks the runs it still holds open failed
    std::lock_guard<std::mutex> lock(m_sinkMutex);
    m_sinkClosed = true;
    return m_sink->abandon();
}

WriterStats TraceWriter::stats() const {
    std::lock_guard<std::mutex> lock(m_queueMutex);
    return m_stats;
}

void TraceWriter::rethrowWriterFailure() {
    std::lock_guard<std::mutex> lock(m_queueMutex);
    if (m_failure) std::rethrow_exception(m_failure);
}

int WriterOptions::defaultWriterNice() {
    constexpr int kDefault = 19;
    const char* text = std::getenv("GLUEPROF_WRITER_NICE");
    if (text == nullptr || *text == '\0') return kDefault;
    char* end = nullptr;
    const long value = std::strtol(text, &end, 10);
    return *end == '\0' && value >= 0 && value <= 19 ? static_cast<int>(value) : kDefault;
}

void TraceWriter::drainLoop() {
    if (m_options.writerNice > 0) {
        // The recorded work comes first: on a machine with few cores the writer's SQLite time would
        // otherwise be taken from the training it records (a step's compute threads all wait for
        // the one the writer displaced). At a higher nice value it runs mostly in the cores' idle
        // time, and still gets a share under load; behind, it catches up at nice 0 (below). The
        // default, 19: on 2 cores the tiny preset's traced step took 33-40 ms with the writer at
        // nice 5 and 21-27 ms at 19, in one process (bench: BM_StepTinyTracingOn*).
        ::setpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)), m_options.writerNice);
    }
    Batch batch;
    for (;;) {
        std::uint64_t generation = 0;
        bool stopping = false;
        {
            std::unique_lock<std::mutex> lock(m_queueMutex);
            m_wakeDrain.wait_for(lock, std::chrono::milliseconds(m_options.drainIntervalMs),
                                 [&] { return m_urgent || m_stopping; });
        }
        collectThreadBuffers();  // what threads recorded since: no event waits for a full buffer
        {
            std::unique_lock<std::mutex> lock(m_queueMutex);
            std::swap(batch, m_pending);
            m_urgent = false;
            generation = m_requestedGeneration;
            stopping = m_stopping;
        }
        // Far behind (an eighth of the drop limit queued): the writer takes its full share of the
        // cores until it catches up, rather than letting the queue grow toward that limit. Where
        // the system permits raising the priority again (root, or RLIMIT_NICE); else it stays at
        // its nice value and a run that outpaces it counts its drops (writer_dropped_events).
        if (m_options.writerNice > 0) {
            const bool behind = batch.eventCount > m_options.maxQueuedEvents / 8;
            if (behind != m_catchingUp) {
                m_catchingUp = behind;
                ::setpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)),
                              behind ? 0 : m_options.writerNice);
            }
        }
        try {
            if (!batch.empty()) writeBatch(batch);
        } catch (...) {
            std::lock_guard<std::mutex> lock(m_queueMutex);
            m_failure = std::current_exception();
            m_drained.notify_all();
            return;
        }
        recycleChunks(batch);
        batch.clear();
        {
            std::lock_guard<std::mutex> lock(m_queueMutex);
            m_committedGeneration = generation;
        }
        m_drained.notify_all();
        if (stopping) {
            std::lock_guard<std::mutex> lock(m_queueMutex);
            if (m_pending.empty()) return;  // otherwise one more round for late arrivals
        }
    }
}

namespace {
std::int64_t threadCpuNs() {
    timespec now{};
    ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return static_cast<std::int64_t>(now.tv_sec) * 1000000000 + now.tv_nsec;
}
}  // namespace

void TraceWriter::writeBatch(Batch& batch) {
    const std::int64_t cpuAtStart = threadCpuNs();
    {
        std::lock_guard<std::mutex> lock(m_sinkMutex);
        m_sink->write(batch);
    }
    std::lock_guard<std::mutex> lock(m_queueMutex);
    m_stats.eventsWritten += static_cast<std::int64_t>(batch.eventCount);
    ++m_stats.transactions;
    m_stats.writeCpuNs += threadCpuNs() - cpuAtStart;
}

}  // namespace glueprof
