#include "profiler/core/SyncAssembly.h"

#include <algorithm>
#include <unordered_set>

#include "profiler/core/LaneOrder.h"
#include "profiler/core/RuntimeCallNames.h"
#include "profiler/core/TraceNames.h"

namespace glueprof {

const char* syncRecordName(SyncRecordKind kind) {
    switch (kind) {
        case SyncRecordKind::kStream:
            return "Stream Sync";
        case SyncRecordKind::kEvent:
            return "Event Sync";
        case SyncRecordKind::kContext:
            return "Context Sync";
        case SyncRecordKind::kStreamWaitEvent:
            return "Stream Wait Event";
        case SyncRecordKind::kUnknown:
            break;
    }
    return "Unknown Sync";
}

namespace {

// The host-blocking sync calls of the CUDA runtime and driver, and HIP's.
bool isSyncCall(std::string_view name) {
    return isAnyRuntimeCall(
        name,
        {"cudaStreamSynchronize", "cudaEventSynchronize", "cudaDeviceSynchronize",
         "cudaThreadSynchronize", "cuStreamSynchronize", "cuEventSynchronize", "cuCtxSynchronize",
         "hipStreamSynchronize", "hipEventSynchronize", "hipDeviceSynchronize"});
}

bool isStreamWaitCall(std::string_view name) {
    return isAnyRuntimeCall(name,
                            {"cudaStreamWaitEvent", "cuStreamWaitEvent", "hipStreamWaitEvent"});
}

// Whether a copy blocked the host, by the rule of profiler/core/BlockingCopy.h: the direction from
// the memory kinds, asynchronous as the source says, else unless its API call is a synchronous
// memcpy (cudaMemcpy*, cuMemcpy* without Async in the name).
const char* blockingNameOf(const CopyRecord& copy, std::string_view apiName) {
    const auto isHost = [](MemoryKind k) {
        return k == MemoryKind::kPageable || k == MemoryKind::kPinned;
    };
    const CopyDirection direction =
        copy.direction                                        ? *copy.direction
        : copy.src == MemoryKind::kDevice && isHost(copy.dst) ? CopyDirection::kDeviceToHost
        : isHost(copy.src) && copy.dst == MemoryKind::kDevice ? CopyDirection::kHostToDevice
                                                              : CopyDirection::kOther;
    bool asynchronous = true;
    if (copy.asynchronous) {
        asynchronous = *copy.asynchronous;
    } else {
        const bool memcpyApi =
            apiName.rfind("cudaMemcpy", 0) == 0 || apiName.rfind("cuMemcpy", 0) == 0;
        asynchronous = !memcpyApi || apiName.find("Async") != std::string_view::npos;
    }
    return blockingCopyName(direction, copy.src, copy.dst, asynchronous);
}

class Assembly {
  public:
    Assembly(const SyncSource& source, const LinkedCalls& calls, SyncAssemblyResult& out)
        : m_source(source), m_calls(calls), m_out(out) {}

    struct PlacedSync {
        PlacedEvent placed;
        bool blockingCopy;  // the sync over a blocking copy's API call
    };

    PlacedSync syncOn(const LinkedCall& call, StringId name, TimestampNs startNs, TimestampNs endNs,
                      std::int64_t correlation, bool blockingCopy) const {
        Event e = makeEvent(0, 0, EventKind::kSync, name, startNs, endNs);
        e.category = Category::kSync;
        e.correlation = correlation;
        return PlacedSync{PlacedEvent{call.lane, e, false}, blockingCopy};
    }

    void marker(SourceLane lane, StringId name, TimestampNs at, std::int64_t correlation) {
        Event e = makeEvent(0, 0, EventKind::kMarker, name, at, at);
        e.category = Category::kSync;
        e.correlation = correlation;
        m_out.markers.push_back(PlacedEvent{lane, e, false});
    }

    // Where the host waits: a `host sync` marker on the waited stream, with the sync's correlation.
    void markWaitedStream(SourceLane lane, TimestampNs at, std::int64_t correlation) {
        marker(lane, hostSyncName(), at, correlation);
    }

    // The records: stream waits as markers on their stream, host syncs over the record's
    // interval. Returns the correlations that have a host sync record.
    std::unordered_set<std::int64_t> fromRecords(const std::vector<SyncRecord>& records,
                                                 std::vector<PlacedSync>& syncs) {
        std::unordered_set<std::int64_t> recorded;
        for (const SyncRecord& s : records) {
            if (s.kind == SyncRecordKind::kStreamWaitEvent) {
                if (s.stream < 0) {
                    ++m_out.streamWaitsWithoutStream;
                    continue;
                }
                // A stream waits only where the program called cudaStreamWaitEvent; a record of
                // the kind correlated with another call (Nsight writes one beside each stream
                // sync) is no wait of a stream. Without the call, the record is taken as it is.
                auto call = m_calls.find(s.correlation);
                if (call != m_calls.end() && !isStreamWaitCall(call->second.text)) {
                    ++m_out.streamWaitsOfOtherCalls;
                    continue;
                }
                marker(m_source.streamLane(s.device, s.stream, s.process, s.correlation),
                       m_source.intern(s.name), s.startNs, s.correlation);
                continue;
            }
            if (s.kind == SyncRecordKind::kUnknown) {
                ++m_out.unknownKinds;
                continue;
            }
            auto call = m_calls.find(s.correlation);
            if (call == m_calls.end()) {
                m_out.unplaced.push_back(&s);
                continue;
            }
            recorded.insert(s.correlation);
            // Named by its blocking call (cudaStreamSynchronize, ...); where the call is not one
            // (CUPTI records an event sync under cudaEventQuery too), by the record: "Event Sync".
            const StringId name = isSyncCall(call->second.text) || s.name.empty()
                                      ? callName(call->second)
                                      : m_source.intern(s.name);
            syncs.push_back(syncOn(call->second, name, s.startNs, s.endNs, s.correlation, false));
            if (s.waitedStream >= 0)
                markWaitedStream(
                    m_source.streamLane(s.device, s.waitedStream, s.process, s.correlation),
                    s.startNs, s.correlation);
        }
        return recorded;
    }

    // Sync calls without a record (PyTorch before 2.3 wrote no cuda_sync events): the host
    // blocked for the call.
    void fromCalls(const std::unordered_set<std::int64_t>& recorded,
                   std::vector<PlacedSync>& syncs) {
        for (const auto& [correlation, call] : m_calls) {
            if (recorded.count(correlation) != 0 || !isSyncCall(call.text)) continue;
            syncs.push_back(
                syncOn(call, callName(call), call.startNs, call.endNs, correlation, false));
            ++m_out.fromCalls;
        }
    }

    // Copies the host waits for: a sync over the API call that issued them, the copy's stream
    // marked as the waited one.
    void blockingCopies(const std::vector<CopyRecord>& copies, std::vector<PlacedSync>& syncs) {
        for (const CopyRecord& copy : copies) {
            if (copy.correlation == 0) continue;
            auto call = m_calls.find(copy.correlation);
            if (call == m_calls.end()) continue;
            const char* name = blockingNameOf(copy, call->second.text);
            if (name == nullptr) continue;
            PlacedSync s = syncOn(call->second, m_source.intern(name), call->second.startNs,
                                  call->second.endNs, copy.correlation, true);
            s.placed.readsHost = std::string_view(name) == names::kBlockingDtoHCopy;
            syncs.push_back(s);
            ++m_out.blockingCopies;
            markWaitedStream(copy.streamLane, call->second.startNs, copy.correlation);
        }
    }

    // Each lane's host syncs that extend a blocking copy's sync (SyncPlacement.h) are folded into
    // it; the rest go to the result by lane, parents first.
    void merge(std::vector<PlacedSync>& syncs) {
        std::sort(syncs.begin(), syncs.end(), [](const PlacedSync& a, const PlacedSync& b) {
            return a.placed.lane != b.placed.lane ? a.placed.lane < b.placed.lane
                                                  : parentsFirst(a.placed.event, b.placed.event);
        });
        std::vector<bool> folded(syncs.size(), false);
        for (std::size_t begin = 0; begin < syncs.size();) {
            std::size_t end = begin;
            while (end < syncs.size() && syncs[end].placed.lane == syncs[begin].placed.lane) ++end;
            m_out.merged += foldLane(syncs, begin, end, folded);
            begin = end;
        }
        for (std::size_t i = 0; i < syncs.size(); ++i) {
            if (!folded[i]) m_out.syncs.push_back(std::move(syncs[i].placed));
        }
    }

  private:
    // A call's name without the suffixes CUPTI's callback names carry
    // (cudaStreamSynchronize_v3020).
    StringId callName(const LinkedCall& call) const {
        const std::string_view base = runtimeCallBaseName(call.text);
        return base.size() == call.text.size() ? call.name : m_source.intern(base);
    }

    StringId hostSyncName() {
        if (m_hostSync == 0) m_hostSync = m_source.intern(names::kHostSyncMarker);
        return m_hostSync;
    }

    // The syncs [begin, end) of one lane: each host sync that extends a blocking copy's sync grows
    // it to its own end and is marked folded. Returns how many were.
    std::int64_t foldLane(std::vector<PlacedSync>& syncs, std::size_t begin, std::size_t end,
                          std::vector<bool>& folded) const {
        std::vector<HostWait> waits;
        for (std::size_t i = begin; i < end; ++i) {
            const Event& e = syncs[i].placed.event;
            waits.push_back(HostWait{e.startNs, e.endNs, e.correlation, syncs[i].blockingCopy});
        }
        const bool anyCopy = std::any_of(waits.begin(), waits.end(),
                                         [](const HostWait& w) { return w.blockingCopy; });
        const bool anySync = std::any_of(waits.begin(), waits.end(),
                                         [](const HostWait& w) { return !w.blockingCopy; });
        if (!anyCopy || !anySync) return 0;  // nothing to fold: the lane's calls are not needed
        const std::vector<std::size_t> extended =
            copiesExtendedBySyncs(waits, m_source.callsOn(syncs[begin].placed.lane));
        std::int64_t merged = 0;
        for (std::size_t k = 0; k < extended.size(); ++k) {
            if (extended[k] == kNoCopy) continue;
            Event& copy = syncs[begin + extended[k]].placed.event;
            copy.endNs = std::max(copy.endNs, waits[k].endNs);
            folded[begin + k] = true;
            ++merged;
        }
        return merged;
    }

    const SyncSource& m_source;
    const LinkedCalls& m_calls;
    SyncAssemblyResult& m_out;
    StringId m_hostSync = 0;
};

}  // namespace

SyncAssemblyResult assembleSyncs(const SyncSource& source, const LinkedCalls& calls,
                                 const std::vector<CopyRecord>& copies,
                                 const std::vector<SyncRecord>& syncs) {
    SyncAssemblyResult out;
    Assembly assembly(source, calls, out);
    std::vector<Assembly::PlacedSync> placed;
    const std::unordered_set<std::int64_t> recorded = assembly.fromRecords(syncs, placed);
    if (source.syncsFromCallsWithoutRecords) assembly.fromCalls(recorded, placed);
    assembly.blockingCopies(copies, placed);
    assembly.merge(placed);
    return out;
}

}  // namespace glueprof
