#include "profiler/cupti/RecordHandler.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "profiler/core/LossDiagnostics.h"
#include "profiler/core/StreamLane.h"
#include "profiler/cupti/ActivityLayouts.h"

namespace glueprof::cupti {

namespace {

MemoryKind memoryKind(std::uint8_t kind) {
    switch (kind) {
        case CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE:
            return MemoryKind::kPageable;
        case CUPTI_ACTIVITY_MEMORY_KIND_PINNED:
            return MemoryKind::kPinned;
        case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE:
        case CUPTI_ACTIVITY_MEMORY_KIND_ARRAY:
        case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC:
            return MemoryKind::kDevice;
        default:
            return MemoryKind::kUnknown;
    }
}

const char* copyName(std::uint8_t copyKind) {
    switch (copyKind) {
        case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
            return "memcpy HtoD";
        case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
            return "memcpy DtoH";
        case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
            return "memcpy DtoD";
        case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH:
            return "memcpy HtoH";
        case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP:
            return "memcpy PtoP";
        default:
            return "memcpy";
    }
}

SyncRecordKind syncKindOf(CUpti_ActivitySynchronizationType type) {
    switch (type) {
        case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE:
            return SyncRecordKind::kEvent;
        case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT:
            return SyncRecordKind::kStreamWaitEvent;
        case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE:
            return SyncRecordKind::kStream;
        case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE:
            return SyncRecordKind::kContext;
        default:
            return SyncRecordKind::kUnknown;
    }
}

std::string overheadName(CUpti_ActivityOverheadKind kind) {
    switch (static_cast<std::uint32_t>(kind)) {
        case CUPTI_ACTIVITY_OVERHEAD_DRIVER_COMPILER:
            return "cupti overhead: driver compiler";
        case CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH:
            return "cupti overhead: buffer flush";
        case CUPTI_ACTIVITY_OVERHEAD_CUPTI_INSTRUMENTATION:
            return "cupti overhead: instrumentation";
        case CUPTI_ACTIVITY_OVERHEAD_CUPTI_RESOURCE:
            return "cupti overhead: resource";
        default:
            return fmt::format("cupti overhead: kind {}", static_cast<std::uint32_t>(kind));
    }
}

constexpr const char* kOwnNvtxDomain = "glueprof";  // profiler/host ScopedRange's domain

}  // namespace

// What every record that ran on a stream (kernel, copy, memset) has in common.
template <typename Record>
RecordHandler::DeviceRecord RecordHandler::onStream(const Record& r, EventKind kind,
                                                    std::string name) {
    DeviceRecord d;
    d.kind = kind;
    d.name = std::move(name);
    d.start = static_cast<TimestampNs>(r.start);
    d.end = static_cast<TimestampNs>(r.end);
    d.device = r.deviceId;
    d.stream = r.streamId;
    d.correlation = r.correlationId;
    return d;
}

RecordHandler::RecordHandler(CaptureEnvironment env) : m_env(std::move(env)) {}

void RecordHandler::noteOp(std::uint64_t externalId, const OpContext& op) {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_ops[externalId] = op;
}

void RecordHandler::lose(const char* name, std::int64_t count) {
    m_counts.losses[name] += count;
    m_unwrittenLosses[name] += count;
}

void RecordHandler::noteDropped(std::size_t records) {
    if (records == 0) return;
    std::lock_guard<std::mutex> lock(m_mutex);
    lose(loss::kCuptiDroppedRecords, static_cast<std::int64_t>(records));
}

void RecordHandler::noteBufferRefused() {
    std::lock_guard<std::mutex> lock(m_mutex);
    lose(loss::kCuptiBufferLimit);
}

void RecordHandler::drainBuffer(const NextRecord& next) {
    CUpti_Activity* record = nullptr;
    CUptiResult result = CUPTI_SUCCESS;
    while ((result = next(&record)) == CUPTI_SUCCESS) handle(*record);
    if (result != CUPTI_ERROR_MAX_LIMIT_REACHED) {
        std::lock_guard<std::mutex> lock(m_mutex);
        lose(loss::kCuptiUnreadableRecords);
    }
}

void RecordHandler::ignoreHostCalls(std::int64_t tid, TimestampNs start, TimestampNs end) {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_ignored.push_back(IgnoredWindow{tid, start, end});
}

bool RecordHandler::ignored(const ApiCall& call) const {
    for (const IgnoredWindow& w : m_ignored) {
        if (call.tid == w.tid && call.start >= w.start && call.start <= w.end) return true;
    }
    return false;
}

void RecordHandler::noteCallFailure() {
    std::lock_guard<std::mutex> lock(m_mutex);
    lose(loss::kCuptiCallFailures);
}

void RecordHandler::noteClockFallbacks(std::int64_t n) {
    if (n <= 0) return;
    std::lock_guard<std::mutex> lock(m_mutex);
    lose(loss::kCuptiClockFallbacks, n);
}

void RecordHandler::handle(const CUpti_Activity& record) {
    std::lock_guard<std::mutex> lock(m_mutex);
    ++m_counts.records;
    auto timed = [&](std::uint64_t start, std::uint64_t end) {
        if (start == 0 && end == 0) {
            lose(loss::kCuptiZeroTimestamps);
            return false;
        }
        return true;
    };
    switch (record.kind) {
        case CUPTI_ACTIVITY_KIND_KERNEL:
        case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
            const auto& r = reinterpret_cast<const KernelRecord&>(record);
            if (!timed(r.start, r.end)) return;
            DeviceRecord d = onStream(r, EventKind::kKernel, r.name != nullptr ? r.name : "kernel");
            m_device.push_back(std::move(d));
            return;
        }
        case CUPTI_ACTIVITY_KIND_MEMCPY: {
            const auto& r = reinterpret_cast<const MemcpyRecord&>(record);
            if (!timed(r.start, r.end)) return;
            DeviceRecord d = onStream(r, EventKind::kMemcpy, copyName(r.copyKind));
            d.bytes = static_cast<std::int64_t>(r.bytes);
            d.src = memoryKind(r.srcKind);
            d.dst = memoryKind(r.dstKind);
            // Whether it blocked the host is the sync trackers' to say (BlockingCopy.h's rule);
            // CUPTI says whether the API call was asynchronous.
            d.asynchronous = (r.flags & CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC) != 0;
            d.direction =
                r.copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_DTOH   ? CopyDirection::kDeviceToHost
                : r.copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_HTOD ? CopyDirection::kHostToDevice
                                                                : CopyDirection::kOther;
            m_device.push_back(std::move(d));
            return;
        }
        case CUPTI_ACTIVITY_KIND_MEMSET: {
            const auto& r = reinterpret_cast<const MemsetRecord&>(record);
            if (!timed(r.start, r.end)) return;
            DeviceRecord d = onStream(r, EventKind::kMemset, "memset");
            d.bytes = static_cast<std::int64_t>(r.bytes);
            d.dst = memoryKind(static_cast<std::uint8_t>(r.memoryKind));
            m_device.push_back(std::move(d));
            return;
        }
        case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
            const auto& r = reinterpret_cast<const SyncRecordLayout&>(record);
            if (!timed(r.start, r.end)) return;
            m_syncs.push_back(SyncActivity{r.type, static_cast<TimestampNs>(r.start),
                                           static_cast<TimestampNs>(r.end), r.streamId,
                                           r.correlationId});
            return;
        }
        case CUPTI_ACTIVITY_KIND_CUDA_EVENT: {
            const auto& r = reinterpret_cast<const CudaEventRecord&>(record);
            m_events.push_back(
                EventMark{0, r.streamId, r.correlationId, 0});  // placed at its API call
            return;
        }
        case CUPTI_ACTIVITY_KIND_RUNTIME:
        case CUPTI_ACTIVITY_KIND_DRIVER: {
            const auto& r = reinterpret_cast<const ApiRecord&>(record);
            if (!timed(r.start, r.end)) return;
            auto& calls = record.kind == CUPTI_ACTIVITY_KIND_DRIVER ? m_driverApi : m_api;
            calls[r.correlationId] =
                ApiCall{static_cast<std::int64_t>(r.threadId), static_cast<TimestampNs>(r.start),
                        static_cast<TimestampNs>(r.end), static_cast<std::uint32_t>(r.cbid),
                        record.kind == CUPTI_ACTIVITY_KIND_DRIVER};
            ++m_counts.apiCalls;
            return;
        }
        case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
            const auto& r = reinterpret_cast<const ExternalCorrelationRecord&>(record);
            if (r.externalKind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0)
                m_external[r.correlationId] = r.externalId;
            return;
        }
        case CUPTI_ACTIVITY_KIND_MARKER: {
            const auto& r = reinterpret_cast<const MarkerRecord&>(record);
            // glueprof's own ranges are already host ranges. CUPTI names the domain on a START;
            // an END may carry none, so the ids of skipped STARTs are remembered.
            if (r.domain != nullptr && std::string(r.domain) == kOwnNvtxDomain) {
                if ((r.flags & CUPTI_ACTIVITY_FLAG_MARKER_START) != 0) m_ownMarkers.insert(r.id);
                return;
            }
            if ((r.flags & CUPTI_ACTIVITY_FLAG_MARKER_END) != 0 && m_ownMarkers.erase(r.id) != 0) {
                return;
            }
            const std::int64_t tid =
                r.objectKind == CUPTI_ACTIVITY_OBJECT_THREAD ? r.objectId.pt.threadId : 0;
            const auto at = static_cast<TimestampNs>(r.timestamp);
            if ((r.flags & CUPTI_ACTIVITY_FLAG_MARKER_START) != 0) {
                m_openMarkers[r.id] =
                    MarkerStart{r.name != nullptr ? r.name : "nvtx range", tid, at};
            } else if ((r.flags & CUPTI_ACTIVITY_FLAG_MARKER_END) != 0) {
                auto open = m_openMarkers.find(r.id);
                if (open == m_openMarkers.end()) {
                    lose(loss::kCuptiUnpairedMarkers);
                    return;
                }
                m_nvtx.push_back(
                    NvtxRange{open->second.name, open->second.tid, open->second.start, at});
                m_openMarkers.erase(open);
            } else if ((r.flags & CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS) != 0) {
                m_nvtx.push_back(NvtxRange{r.name != nullptr ? r.name : "nvtx mark", tid, at, at});
            }
            return;
        }
        case CUPTI_ACTIVITY_KIND_OVERHEAD: {
            const auto& r = reinterpret_cast<const OverheadRecord&>(record);
            if (!timed(r.start, r.end)) return;
            m_overheads.push_back(Overhead{overheadName(r.overheadKind),
                                           static_cast<TimestampNs>(r.start),
                                           static_cast<TimestampNs>(r.end)});
            return;
        }
        default:
            lose(loss::kCuptiUnknownKinds);
            return;
    }
}

const RecordHandler::ApiCall* RecordHandler::callOf(std::uint32_t correlation) const {
    for (const auto* calls : {&m_api, &m_driverApi, &m_previousApi, &m_previousDriverApi}) {
        if (auto it = calls->find(correlation); it != calls->end()) return &it->second;
    }
    return nullptr;
}

StringId RecordHandler::intern(const std::string& text) { return m_env.writer->intern(text); }

const RecordHandler::ApiName& RecordHandler::apiName(bool driver, std::uint32_t cbid) {
    auto [it, added] = m_apiNames.try_emplace({driver, cbid});
    if (added) {  // named once per callback id, not per call
        it->second.text = m_env.apiName
                              ? m_env.apiName(driver, cbid)
                              : fmt::format("{} api {}", driver ? "driver" : "runtime", cbid);
        it->second.id = intern(it->second.text);
    }
    return it->second;
}

StringId RecordHandler::apiNameId(bool driver, std::uint32_t cbid) {
    return apiName(driver, cbid).id;
}

LaneId RecordHandler::streamLane(RunId run, std::uint32_t device, std::uint32_t stream) {
    auto [it, added] = m_streamLanes.try_emplace({run, device, stream}, 0);
    if (added) {
        it->second = m_env.writer->addLane(run, LaneKind::kCudaStream,
                                           streamLaneName(device, stream), device, stream);
    }
    return it->second;
}

LaneId RecordHandler::namedLane(RunId run, const std::string& name) {
    auto [it, added] = m_namedLanes.try_emplace({run, name}, 0);
    if (added) it->second = m_env.writer->addLane(run, LaneKind::kHostThread, name, -1, -1);
    return it->second;
}

const OpContext* RecordHandler::opOf(std::uint32_t correlation) const {
    for (const auto* external : {&m_external, &m_previousExternal}) {
        auto id = external->find(correlation);
        if (id == external->end()) continue;
        for (const auto* ops : {&m_ops, &m_previousOps}) {
            if (auto op = ops->find(id->second); op != ops->end()) return &op->second;
        }
    }
    return nullptr;
}

RunId RecordHandler::runOf(std::uint32_t correlation, const Resolution& r) const {
    // An op started outside any run (a model being built between A/B arms) is not traced, as its
    // host events are not; records with no op take the current run.
    const OpContext* op = opOf(correlation);
    return op != nullptr ? op->run : r.currentRun;
}

LaneId RecordHandler::hostLane(RunId run, std::int64_t tid) {
    return m_env.laneOfThread ? m_env.laneOfThread(run, tid) : namedLane(run, "host");
}

void RecordHandler::tagFromOp(Event& e, std::uint32_t correlation, std::int32_t flushedStep,
                              Category fallback) {
    e.category = fallback;
    e.step = flushedStep;
    const OpContext* op = opOf(correlation);
    if (op == nullptr) return;
    e.step = op->step != kNoTag ? op->step : flushedStep;
    e.layer = op->layer;
    e.microbatch = op->microbatch;
    if (fallback != Category::kSync && fallback != Category::kCopy &&
        op->category != Category::kNone) {
        e.category = op->category;
    }
    ++m_counts.attributedToOps;
}

void RecordHandler::resolve(std::int32_t flushedStep) { resolve(flushedStep, false); }

void RecordHandler::resolve(std::int32_t flushedStep, bool final) {
    Resolution r;
    r.currentRun = m_env.currentRun ? m_env.currentRun() : 0;
    r.flushedStep = flushedStep;
    r.final = final;
    std::lock_guard<std::mutex> lock(m_mutex);
    writeApiCalls(r);
    writeDeviceRecords(r);
    writeSyncs(r);
    writeEventMarks(r);
    writeHostRanges(r);
    if (r.currentRun != 0) writeDiagnostics(r.currentRun);
    rotate(r);
}

void RecordHandler::writeApiCalls(Resolution& r) {
    for (const auto* calls : {&m_api, &m_driverApi}) {
        for (const auto& [correlation, call] : *calls) {
            const RunId run = runOf(correlation, r);
            if (run == 0 || ignored(call)) continue;  // outside any run, or the profiler's own
            Event e = makeEvent(run, hostLane(run, call.tid), EventKind::kRuntime,
                                apiNameId(call.driver, call.cbid), call.start, call.end);
            e.correlation = correlation;
            tagFromOp(e, correlation, r.flushedStep, Category::kNone);
            m_env.writer->record(e);
        }
    }
}

void RecordHandler::writeDeviceRecords(Resolution& r) {
    for (DeviceRecord& d : m_device) {
        const ApiCall* call = callOf(d.correlation);
        if (call == nullptr && !r.final && !d.carried) {
            // Its API call may come with the next flush: wait for it once before counting a loss.
            d.carried = true;
            r.carriedDevice.push_back(d);
            continue;
        }
        const RunId run = runOf(d.correlation, r);
        if (run == 0) continue;
        m_streamDevice[d.stream] = d.device;
        Event e = makeEvent(run, streamLane(run, d.device, d.stream), d.kind, intern(d.name),
                            d.start, d.end);
        e.correlation = d.correlation;
        e.bytes = d.bytes;
        e.srcKind = d.src;
        e.dstKind = d.dst;
        tagFromOp(e, d.correlation, r.flushedStep,
                  d.kind == EventKind::kKernel ? Category::kMath : Category::kCopy);
        if (call == nullptr) lose(loss::kCuptiUnmatched);
        if (d.kind == EventKind::kKernel) ++m_counts.kernels;
        if (d.kind == EventKind::kMemcpy) ++m_counts.memcpys;
        if (d.kind == EventKind::kMemset) ++m_counts.memsets;
        m_env.writer->record(e);
        if (d.kind == EventKind::kMemcpy && call != nullptr) {
            r.copies.push_back(
                CopyRecord{d.correlation, e.lane, d.src, d.dst, d.asynchronous, d.direction});
        }
    }
}

std::uint32_t RecordHandler::deviceOfStream(std::uint32_t stream) const {
    const auto device = m_streamDevice.find(stream);
    return device != m_streamDevice.end() ? device->second : 0u;
}

LinkedCalls RecordHandler::linkedCalls(const Resolution& r,
                                       std::unordered_map<LaneId, std::int64_t>& threads) {
    LinkedCalls calls;
    for (const auto* byId : {&m_api, &m_previousApi, &m_driverApi, &m_previousDriverApi}) {
        for (const auto& [correlation, call] : *byId) {
            if (calls.count(correlation) != 0 || ignored(call)) continue;
            const RunId run = runOf(correlation, r);
            if (run == 0) continue;
            const LaneId lane = hostLane(run, call.tid);
            threads[lane] = call.tid;
            const ApiName& name = apiName(call.driver, call.cbid);
            calls.emplace(correlation, LinkedCall{lane, call.start, call.end, name.id, name.text});
        }
    }
    return calls;
}

void RecordHandler::writeSyncs(Resolution& r) {
    std::vector<SyncRecord> records;  // in record order, so lanes and names are made in that order
    for (SyncActivity& sync : m_syncs) {
        const ApiCall* call = callOf(sync.correlation);
        if (call == nullptr && !r.final && !sync.carried) {
            sync.carried = true;
            r.carriedSyncs.push_back(sync);
            continue;
        }
        const RunId run = runOf(sync.correlation, r);
        if (run == 0 || (call != nullptr && ignored(*call))) continue;
        SyncRecord record;
        record.kind = syncKindOf(sync.type);
        record.name = syncRecordName(record.kind);
        record.startNs = sync.start;
        record.endNs = sync.end;
        record.correlation = sync.correlation;
        record.device = deviceOfStream(sync.stream);
        record.stream = sync.stream;
        record.waitedStream = record.kind == SyncRecordKind::kStream ? record.stream : -1;
        records.push_back(record);
    }
    if (records.empty() && r.copies.empty()) return;   // nothing waits: no calls to link
    std::unordered_map<LaneId, std::int64_t> threads;  // host lane -> its thread
    const LinkedCalls calls = linkedCalls(r, threads);
    SyncSource source;
    source.streamLane = [this, &r](std::int64_t device, std::int64_t stream, const std::string&,
                                   std::int64_t correlation) {
        return streamLane(runOf(static_cast<std::uint32_t>(correlation), r),
                          static_cast<std::uint32_t>(device), static_cast<std::uint32_t>(stream));
    };
    source.intern = [this](std::string_view text) { return intern(std::string(text)); };
    source.callsOn = [this, &threads](SourceLane lane) {
        const auto thread = threads.find(lane);
        return thread != threads.end() ? apiCallsOfThread(thread->second) : std::vector<HostCall>{};
    };
    const SyncAssemblyResult placed = assembleSyncs(source, calls, r.copies, records);
    // Each placed event under the run and step of the op that issued its call.
    const auto write = [&](const PlacedEvent& p, Category category) {
        const auto correlation = static_cast<std::uint32_t>(p.event.correlation);
        Event e = p.event;
        e.run = runOf(correlation, r);
        e.lane = p.lane;
        tagFromOp(e, correlation, r.flushedStep, category);
        m_env.writer->record(e);
    };
    for (const PlacedEvent& m : placed.markers) write(m, Category::kSync);
    for (const PlacedEvent& s : placed.syncs) write(s, Category::kSync);
    // A sync whose call never came: on a lane of its own, the thread that waited unknown.
    for (const SyncRecord* sync : placed.unplaced) {
        const auto correlation = static_cast<std::uint32_t>(sync->correlation);
        const RunId run = runOf(correlation, r);
        Event e = makeEvent(run, namedLane(run, "CUDA syncs (thread unknown)"), EventKind::kSync,
                            intern(sync->name), sync->startNs, sync->endNs);
        e.correlation = sync->correlation;
        tagFromOp(e, correlation, r.flushedStep, Category::kSync);
        lose(loss::kCuptiUnmatched);
        m_env.writer->record(e);
    }
    // Records glueprof cannot place are counted, never dropped silently.
    if (placed.unknownKinds > 0) lose(loss::kCuptiUnknownKinds, placed.unknownKinds);
    if (placed.streamWaitsWithoutStream + placed.streamWaitsOfOtherCalls > 0)
        lose(loss::kCuptiUnmatched,
             placed.streamWaitsWithoutStream + placed.streamWaitsOfOtherCalls);
    m_counts.syncs += static_cast<std::int64_t>(placed.syncs.size() + placed.unplaced.size()) -
                      placed.blockingCopies;
    m_counts.mergedSyncs += placed.merged;
    m_counts.blockingCopies += placed.blockingCopies;
}

// The API calls of thread `tid` that this flush and the previous one read.
std::vector<HostCall> RecordHandler::apiCallsOfThread(std::int64_t tid) const {
    std::vector<HostCall> out;
    for (const auto* calls : {&m_api, &m_driverApi, &m_previousApi, &m_previousDriverApi}) {
        for (const auto& [correlation, call] : *calls) {
            if (call.tid == tid) out.push_back(HostCall{call.start, correlation});
        }
    }
    return out;
}

void RecordHandler::writeEventMarks(Resolution& r) {
    for (EventMark& mark : m_events) {
        const ApiCall* call = callOf(mark.correlation);
        if (call == nullptr && !r.final && !mark.carried) {
            mark.carried = true;
            r.carriedEvents.push_back(mark);
            continue;
        }
        if (call == nullptr) {
            lose(loss::kCuptiUnmatched);
            continue;
        }
        const RunId run = runOf(mark.correlation, r);
        if (run == 0) continue;
        const std::uint32_t device = deviceOfStream(mark.stream);
        Event e = makeEvent(run, streamLane(run, device, mark.stream), EventKind::kMarker,
                            intern("cudaEventRecord"), call->end, call->end);
        e.correlation = mark.correlation;
        tagFromOp(e, mark.correlation, r.flushedStep, Category::kNone);
        m_env.writer->record(e);
    }
}

void RecordHandler::writeHostRanges(Resolution& r) {
    if (r.currentRun == 0) return;  // NVTX and overhead carry no op: the current run's, if any
    for (const NvtxRange& range : m_nvtx) {
        Event e = makeEvent(r.currentRun, hostLane(r.currentRun, range.tid),
                            range.end == range.start ? EventKind::kMarker : EventKind::kRange,
                            intern(range.name), range.start, range.end);
        e.step = r.flushedStep;
        ++m_counts.markers;
        m_env.writer->record(e);
    }
    for (const Overhead& o : m_overheads) {
        Event e = makeEvent(r.currentRun, namedLane(r.currentRun, "CUPTI overhead"),
                            EventKind::kRange, intern(o.name), o.start, o.end);
        e.step = r.flushedStep;
        m_env.writer->record(e);
    }
}

// What a resolve consumed goes; the links it read (API calls, external ids, ops) stay one more
// flush for records delivered a flush late, and records still waiting for their call come back.
void RecordHandler::rotate(Resolution& r) {
    for (IgnoredWindow& w : m_ignored) --w.resolvesLeft;
    m_ignored.erase(std::remove_if(m_ignored.begin(), m_ignored.end(),
                                   [](const IgnoredWindow& w) { return w.resolvesLeft <= 0; }),
                    m_ignored.end());
    m_previousApi = std::move(m_api);
    m_previousDriverApi = std::move(m_driverApi);
    m_previousExternal = std::move(m_external);
    m_previousOps = std::move(m_ops);
    m_api.clear();
    m_driverApi.clear();
    m_external.clear();
    m_ops.clear();
    m_device = std::move(r.carriedDevice);
    m_syncs = std::move(r.carriedSyncs);
    m_events = std::move(r.carriedEvents);
    m_nvtx.clear();
    m_overheads.clear();
}

void RecordHandler::writeDiagnostics(RunId run) {
    static const std::map<std::string, const char*> kMeaning = {
        {loss::kCuptiDroppedRecords,
         "CUPTI dropped records because its buffers were full: the device timeline has gaps"},
        {loss::kCuptiBufferLimit,
         "glueprof refused a CUPTI buffer at its memory cap: records were dropped"},
        {loss::kCuptiUnknownKinds,
         "records of kinds glueprof does not handle: update glueprof for this CUPTI"},
        {loss::kCuptiZeroTimestamps, "records with start = end = 0 were skipped"},
        {loss::kCuptiUnmatched,
         "device records whose launching API call was not captured: their host side is unknown"},
        {loss::kCuptiUnpairedMarkers,
         "NVTX range ends without a start (or starts without an end at the capture's end)"},
        {loss::kCuptiUnreadableRecords,
         "a CUPTI buffer stopped reading before its end: the rest of its records were lost"},
        {loss::kCuptiCallFailures,
         "a CUPTI call failed while capturing (a flush, or an op's external correlation push or "
         "pop): records may be missing or attributed to no op"},
        {loss::kCuptiClockFallbacks,
         "host timestamps were taken from the steady clock because cuptiGetTimestamp failed: "
         "host and device times may not line up"},
    };
    for (const auto& [name, count] : m_unwrittenLosses) {
        auto meaning = kMeaning.find(name);
        m_env.writer->recordDiagnostic(
            DiagnosticRecord{run, name, count, meaning != kMeaning.end() ? meaning->second : ""});
    }
    m_unwrittenLosses.clear();
}

void RecordHandler::finish() {
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        if (!m_openMarkers.empty())
            lose(loss::kCuptiUnpairedMarkers, static_cast<std::int64_t>(m_openMarkers.size()));
        m_openMarkers.clear();
    }
    resolve(kNoTag, true);  // the capture's end: nothing waits for a next flush
}

CaptureCounts RecordHandler::counts() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_counts;
}

}  // namespace glueprof::cupti
