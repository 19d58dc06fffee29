#pragma once
// What the mappers of a Chrome trace's dialects share while a file is read (Perfetto's trackers):
// host lanes by pid/tid and their names, begin events waiting for their end, and the ac2g flows
// that link a launch to its device work. Kept apart from the mappers so that the dialect can
// change mid-file (otherData.producer may follow the events) without losing any of it.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "profiler/import/RawTraceEvent.h"
#include "profiler/import/TraceAssembly.h"

namespace glueprof {

class ChromeTraceState {
  public:
    explicit ChromeTraceState(TraceAssembly& assembly) : m_assembly(assembly) {}

    TraceAssembly& assembly() { return m_assembly; }

    // The host lane of the event's pid/tid: a numeric tid is the thread; a text one gets an id
    // from 1000000000 up and names its lane.
    std::size_t hostLane(const RawEvent& e);
    // A thread_name metadata event: applied at the end to the host lanes events made (GPU
    // "processes" name streams).
    void nameThread(const RawEvent& e) { m_threadNames[laneKey(e)] = e.argName; }

    // Begin/end pairs per pid/tid: the begin's event and time, when one is open and the end has
    // a time.
    void begin(const RawEvent& e) { m_open[laneKey(e)].emplace_back(e, *e.ts); }
    std::optional<std::pair<RawEvent, TimestampNs>> end(const RawEvent& e);

    // An ac2g flow start (a launch) or end (device work) with its id.
    void flow(const RawEvent& e, bool start, std::int64_t id) {
        (start ? m_flowStarts : m_flowEnds).emplace_back(flowKey(e, *e.ts), id);
    }
    // A runtime call or device work without args.correlation: added in finish(), with the id of
    // the flow that starts (a launch) or ends (device work) at its pid/tid and start.
    struct Unlinked {
        std::size_t lane;
        EventKind kind;
        Category category;
        std::string name;
        TimestampNs start, end;
        std::int64_t bytes;
        MemoryKind src, dst;
    };
    void addUnlinked(const RawEvent& e, Unlinked event);

    // Adds the unlinked events, counts what stayed unpaired, names the host lanes.
    void finish();

  private:
    static std::string laneKey(const RawEvent& e) { return e.pid + "/" + e.tid; }
    static std::size_t flowKey(const RawEvent& e, TimestampNs ts);

    TraceAssembly& m_assembly;
    // The lane of the previous host event: consecutive events nearly always share a thread.
    std::string m_lastPid, m_lastTid;
    std::size_t m_lastHostLane = 0;
    bool m_haveLastHost = false;
    bool m_lastTidNumeric = false;
    std::unordered_map<std::string, std::int64_t> m_stringThreads;
    std::map<std::string, std::pair<std::string, std::int64_t>> m_hostThreads;  // key -> pid, tid
    std::map<std::string, std::string> m_threadNames;                           // key -> name
    std::map<std::string, std::vector<std::pair<RawEvent, TimestampNs>>> m_open;
    // Flows as (hash of pid/tid/ts, id), sorted only when an event needs one: a trace whose events
    // all carry args.correlation pays 16 bytes per flow and no lookups.
    std::vector<std::pair<std::size_t, std::int64_t>> m_flowStarts, m_flowEnds;
    struct Pending {
        Unlinked event;
        std::size_t flowKey;  // where its flow ends or starts
        bool flowStart;       // a launch (flow start) rather than device work (flow end)
    };
    std::vector<Pending> m_pending;
};

}  // namespace glueprof
