#include "profiler/import/TraceAssembly.h"

#include "profiler/core/LaneOrder.h"
#include "profiler/core/StreamLane.h"
#include "profiler/core/TextEncoding.h"
#include "profiler/core/TraceNames.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <utility>

namespace glueprof {

namespace {

// The step number of a range named <prefix><N>, if it is one.
std::optional<std::int32_t> stepNumber(const std::string& name, const std::string& prefix) {
    if (prefix.empty() || name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix))
        return std::nullopt;
    std::int64_t value = 0;
    for (std::size_t i = prefix.size(); i < name.size(); ++i) {
        const char c = name[i];
        if (c < '0' || c > '9') return std::nullopt;
        value = value * 10 + (c - '0');
        if (value > std::numeric_limits<std::int32_t>::max()) return std::nullopt;
    }
    return static_cast<std::int32_t>(value);
}

struct Window {
    TimestampNs start;
    TimestampNs end;
    std::int32_t step;
    bool closed = false;  // includes `end` (the one step over a whole trace)
};

// Steps rows for the windows: all measured (an imported trace says nothing of warm-up), one
// block, no loss recorded.
std::vector<StepInfo> toSteps(const std::vector<Window>& windows) {
    std::vector<StepInfo> steps;
    for (const Window& w : windows) {
        StepInfo s;
        s.step = w.step;
        s.startNs = w.start;
        s.endNs = w.end;
        s.block = 1;
        steps.push_back(s);
    }
    return steps;
}

}  // namespace

TraceAssembly::TraceAssembly(ImportOptions options) : m_options(std::move(options)) {}

std::size_t TraceAssembly::hostLane(const std::string& process, std::int64_t thread) {
    auto [it, added] = m_hostLanes.try_emplace(HostKey{process, thread}, m_lanes.size());
    if (added) {
        Lane lane;
        lane.id = static_cast<LaneId>(m_lanes.size() + 1);
        lane.kind = LaneKind::kHostThread;
        lane.device = -1;
        lane.threadOrStream = thread;
        m_lanes.push_back(lane);
        m_events.emplace_back();
        m_laneProcess.push_back(process);
    }
    return it->second;
}

std::size_t TraceAssembly::streamLane(std::int64_t device, std::int64_t stream,
                                      const std::string& process) {
    auto [it, added] = m_streamLanes.try_emplace({process, device, stream}, m_lanes.size());
    if (added) {
        Lane lane;
        lane.id = static_cast<LaneId>(m_lanes.size() + 1);
        lane.kind = LaneKind::kCudaStream;
        lane.device = device;
        lane.threadOrStream = stream;
        lane.name = streamLaneName(device, stream, process);
        m_lanes.push_back(lane);
        m_events.emplace_back();
        m_laneProcess.emplace_back();
    }
    return it->second;
}

void TraceAssembly::nameHostLane(const std::string& process, std::int64_t thread,
                                 const std::string& name) {
    m_lanes[hostLane(process, thread)].name = validUtf8(name);
}

void TraceAssembly::nameProcess(const std::string& process, const std::string& name) {
    m_processNames[process] = validUtf8(name);
}

// A slot of the recent names for `text`, from its length and its first, middle and last 8 bytes:
// a few instructions where hashing a kernel's name of 200 bytes took a tenth of the event's map.
std::size_t TraceAssembly::recentSlotOf(std::string_view text) {
    std::uint64_t h = text.size() * 0x9E3779B97F4A7C15ull;
    if (text.size() >= 8) {
        std::uint64_t first = 0;
        std::uint64_t middle = 0;
        std::uint64_t last = 0;
        std::memcpy(&first, text.data(), 8);
        std::memcpy(&middle, text.data() + (text.size() - 8) / 2, 8);
        std::memcpy(&last, text.data() + text.size() - 8, 8);
        h ^= first * 0xC2B2AE3D27D4EB4Full;
        h ^= (middle + (h >> 31)) * 0x165667B19E3779F9ull;
        h ^= (last + (h >> 29)) * 0x9E3779B97F4A7C15ull;
    } else {
        for (char c : text) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001B3ull;
    }
    return static_cast<std::size_t>(h ^ (h >> 32)) & (kRecentNames - 1);
}

StringId TraceAssembly::intern(std::string_view text) {
    // A name seen lately is found by one comparison: its slot holds the stored key.
    RecentName& recent = m_recentNames[recentSlotOf(text)];
    if (recent.id != 0 && recent.key == text) return recent.id;
    recent = internSlow(text);
    return recent.id;
}

// The id of `text` and the key m_stringIds finds it by (stored text that equals `text`).
TraceAssembly::RecentName TraceAssembly::internSlow(std::string_view text) {
    // Look up the text as given first, without a copy: nearly every name is valid and seen.
    auto it = m_stringIds.find(text);
    if (it != m_stringIds.end()) return RecentName{it->first, it->second};
    std::string valid = validUtf8(text);
    StringId id = 0;
    if (auto known = m_stringIds.find(valid); known != m_stringIds.end()) {
        id = known->second;
    } else {
        id = static_cast<StringId>(m_strings.size() + 1);
        // The key views the stored name (an unordered_map never moves its values).
        m_stringIds.emplace(m_strings.emplace(id, std::move(valid)).first->second, id);
    }
    // Invalid text maps to its replacement, so the next occurrence is found as given.
    const std::string& stored = m_strings.at(id);
    if (stored == text) return RecentName{stored, id};
    m_stringIds.emplace(m_keys.emplace_back(text), id);
    return RecentName{m_keys.back(), id};
}

Event& TraceAssembly::add(std::size_t lane, EventKind kind, Category category,
                          std::string_view name, TimestampNs startNs, TimestampNs endNs) {
    Event event = makeEvent(0, m_lanes[lane].id, kind, intern(name), startNs, endNs);
    event.category = category;
    ++m_eventCount;
    std::vector<Event>& events = m_events[lane];
    if (events.size() == events.capacity()) reserveAhead(events);
    events.push_back(event);
    return events.back();
}

// Once a twentieth of the source is read, a full lane grows to what the whole file will hold at
// the rate read so far, and a quarter more: one copy of the lane where doubling made one per
// doubling, each into new memory the kernel faults in page by page (on the 1 GiB synthetic trace
// those faults were a tenth of the read). Room left unused is address space, never touched.
// Before that, and for a lane that outgrows its estimate, the capacity doubles.
void TraceAssembly::reserveAhead(std::vector<Event>& events) const {
    const std::size_t doubled = std::max<std::size_t>(events.size() * 2, 64);
    std::size_t next = doubled;
    if (m_readTotal > 0 && m_readDone * 20 >= m_readTotal && m_readDone < m_readTotal) {
        const double expected = static_cast<double>(events.size()) *
                                static_cast<double>(m_readTotal) / static_cast<double>(m_readDone) *
                                1.25;
        next = std::max(doubled, static_cast<std::size_t>(expected));
    }
    events.reserve(next);
}

void TraceAssembly::addSync(const SyncRecord& sync) { m_syncs.push_back(sync); }

void TraceAssembly::countRead(std::string_view what) {
    // Events come in runs of one kind: the last count found is tried first.
    if (m_lastReadCount != nullptr && what == m_lastRead) {
        ++*m_lastReadCount;
        return;
    }
    // Keyed by the source's own text (a category): printed and stored safely.
    auto it = m_read.find(what);
    if (it == m_read.end()) it = m_read.emplace(printableText(std::string(what)), 0).first;
    ++it->second;
    m_lastRead.assign(what);
    m_lastReadCount = &it->second;
}

bool TraceAssembly::offsetTimes(TimestampNs delta) {
    bool ok = true;
    for (auto& events : m_events) {
        for (Event& e : events) {
            ok &= !__builtin_add_overflow(e.startNs, delta, &e.startNs);
            ok &= !__builtin_add_overflow(e.endNs, delta, &e.endNs);
        }
    }
    for (SyncRecord& s : m_syncs) {
        ok &= !__builtin_add_overflow(s.startNs, delta, &s.startNs);
        ok &= !__builtin_add_overflow(s.endNs, delta, &s.endNs);
    }
    return ok;
}

void TraceAssembly::count(DiagnosticId reason, std::int64_t n) { count(reason, {}, n); }

void TraceAssembly::count(DiagnosticId reason, std::string_view quoted, std::int64_t n) {
    if (n <= 0) return;
    const bool derived = std::string_view(diagnosticName(reason)) == kImportDerived;
    // Reasons quote the source (an unknown category, a table name): printed and stored safely.
    (derived ? m_derived : m_skipped)[printableText(diagnosticDetail(reason, quoted))] += n;
}

// Host-blocking syncs go on the lane of the API call that waited (same correlation id); then a
// host sync right after a blocking copy extends the copy's sync: profiler/core/SyncAssembly, the
// trackers the live CUPTI capture feeds too.
void TraceAssembly::placeSyncs() {
    const LinkedCalls calls = linkCalls();
    std::vector<CopyRecord> copies;
    for (std::size_t lane = 0; lane < m_lanes.size(); ++lane) {
        if (m_lanes[lane].kind != LaneKind::kCudaStream) continue;
        for (const Event& e : m_events[lane]) {
            if (e.kind != EventKind::kMemcpy || e.correlation == 0) continue;
            copies.push_back(CopyRecord{e.correlation, static_cast<SourceLane>(lane), e.srcKind,
                                        e.dstKind, std::nullopt});
        }
    }
    SyncSource source;
    source.streamLane = [this](std::int64_t device, std::int64_t stream, const std::string& process,
                               std::int64_t) {
        return static_cast<SourceLane>(streamLane(device, stream, process));
    };
    source.intern = [this](std::string_view text) { return intern(text); };
    source.callsOn = [this](SourceLane lane) { return callsOn(static_cast<std::size_t>(lane)); };
    source.syncsFromCallsWithoutRecords = true;  // PyTorch before 2.3 wrote no cuda_sync events
    const SyncAssemblyResult placed = assembleSyncs(source, calls, copies, m_syncs);
    count(DiagnosticId::kSkippedStreamWaitWithoutStream, placed.streamWaitsWithoutStream);
    count(DiagnosticId::kSkippedStreamWaitOfOtherCall, placed.streamWaitsOfOtherCalls);
    count(DiagnosticId::kSkippedUnknownSync, placed.unknownKinds);
    count(DiagnosticId::kSkippedSyncWithoutCall, static_cast<std::int64_t>(placed.unplaced.size()));
    count(DiagnosticId::kDerivedSyncsFromCalls, placed.fromCalls);
    for (const PlacedEvent& m : placed.markers) {
        add(static_cast<std::size_t>(m.lane), m.event.kind, m.event.category,
            m_strings[m.event.name], m.event.startNs, m.event.endNs)
            .correlation = m.event.correlation;
    }
    for (const PlacedEvent& s : placed.syncs) {
        const auto lane = static_cast<std::size_t>(s.lane);
        Event e = s.event;
        e.lane = m_lanes[lane].id;
        // Marks a sync that reads the host back (a DtoH copy) until the ops are flagged.
        e.flags = s.readsHost ? kFlagHostRead : kFlagNone;
        m_events[lane].push_back(e);
        ++m_eventCount;
    }
    count(DiagnosticId::kDerivedMergedCopySyncs, placed.merged);
}

// The API call of each correlation id: the lane it ran on, its interval and name.
LinkedCalls TraceAssembly::linkCalls() {
    LinkedCalls calls;
    std::int64_t sharedIds = 0;
    for (std::size_t lane = 0; lane < m_lanes.size(); ++lane) {
        if (m_lanes[lane].kind != LaneKind::kHostThread) continue;
        for (const Event& e : m_events[lane]) {
            if (e.kind != EventKind::kRuntime || e.correlation == 0) continue;
            const LinkedCall call{static_cast<SourceLane>(lane), e.startNs, e.endNs, e.name,
                                  m_strings[e.name]};
            if (!calls.try_emplace(e.correlation, call).second) ++sharedIds;
        }
    }
    count(DiagnosticId::kSkippedSharedCorrelation, sharedIds);
    return calls;
}

// The API calls (runtime and driver) on a host lane.
std::vector<HostCall> TraceAssembly::callsOn(std::size_t lane) const {
    std::vector<HostCall> calls;
    for (const Event& e : m_events[lane]) {
        if (e.kind == EventKind::kRuntime) calls.push_back(HostCall{e.startNs, e.correlation});
    }
    return calls;
}

std::vector<StepInfo> TraceAssembly::assignSteps(bool& stepsFound) {
    std::vector<Window> windows;
    std::map<std::int32_t, std::size_t> seen;
    for (std::size_t lane = 0; lane < m_lanes.size(); ++lane) {
        if (m_lanes[lane].kind != LaneKind::kHostThread) continue;
        for (Event& e : m_events[lane]) {
            if (e.kind != EventKind::kRange && e.kind != EventKind::kOp) continue;
            if (m_asRecorded) {
                if (e.kind != EventKind::kRange) continue;
                // glueprof's `step` ranges; a run that was itself imported has its source's
                // step ranges (ProfilerStep#N) instead.
                const bool stepRange = m_strings[e.name] == names::kStep ||
                                       (e.category == Category::kPhase &&
                                        stepNumber(m_strings[e.name], m_options.stepPrefix));
                if (stepRange && e.step != kNoTag && seen.emplace(e.step, windows.size()).second)
                    windows.push_back(Window{e.startNs, e.endNs, e.step});
                continue;
            }
            auto number = stepNumber(m_strings[e.name], m_options.stepPrefix);
            if (!number) continue;
            // Older PyTorch wrote ProfilerStep#N as an op: it is the step's range all the same
            // (HTA matches the name whatever the category), not an op that syncs.
            e.kind = EventKind::kRange;
            e.category = Category::kPhase;
            if (!seen.emplace(*number, windows.size()).second) {
                count(DiagnosticId::kSkippedRepeatedStep, m_options.stepPrefix);
                continue;
            }
            windows.push_back(Window{e.startNs, e.endNs, *number});
        }
    }
    stepsFound = !windows.empty();
    if (windows.empty()) {
        // One step over everything the trace holds.
        TimestampNs first = std::numeric_limits<TimestampNs>::max();
        TimestampNs last = std::numeric_limits<TimestampNs>::min();
        for (const auto& events : m_events) {
            for (const Event& e : events) {
                first = std::min(first, e.startNs);
                last = std::max(last, e.endNs);
            }
        }
        if (first <= last) {
            windows.push_back(Window{first, last, 0, true});
            // Said with the run, so every face can tell what its "per step" means.
            count(DiagnosticId::kDerivedWholeTraceStep, m_options.stepPrefix);
        }
    }
    std::sort(windows.begin(), windows.end(),
              [](const Window& a, const Window& b) { return a.start < b.start; });
    auto stepAt = [&](TimestampNs t) -> std::int32_t {
        auto it = std::upper_bound(windows.begin(), windows.end(), t,
                                   [](TimestampNs v, const Window& w) { return v < w.start; });
        if (it == windows.begin()) return kNoTag;
        --it;
        // [start, end) as HTA; the one step over a whole trace includes its last instant.
        return t < it->end || (it->closed && t == it->end) ? it->step : kNoTag;
    };
    if (m_asRecorded) return toSteps(windows);
    std::unordered_map<std::int64_t, std::int32_t> launchStep;
    for (std::size_t lane = 0; lane < m_lanes.size(); ++lane) {
        if (m_lanes[lane].kind != LaneKind::kHostThread) continue;
        for (Event& e : m_events[lane]) {
            e.step = stepAt(e.startNs);
            if (e.kind == EventKind::kRuntime && e.correlation != 0)
                launchStep.emplace(e.correlation, e.step);
        }
    }
    // Device work belongs to the step that launched it (HTA's convention); work whose launch is
    // not in the trace is in no step, unless the trace is one step (no step ranges): then by time.
    std::int64_t unlaunched = 0;
    for (std::size_t lane = 0; lane < m_lanes.size(); ++lane) {
        if (m_lanes[lane].kind == LaneKind::kHostThread) continue;
        for (Event& e : m_events[lane]) {
            auto launch = launchStep.find(e.correlation);
            if (e.correlation != 0 && launch != launchStep.end()) {
                e.step = launch->second;
            } else {
                e.step = stepsFound ? kNoTag : stepAt(e.startNs);
                if (e.kind != EventKind::kMarker && e.kind != EventKind::kRange) ++unlaunched;
            }
        }
    }
    count(stepsFound ? DiagnosticId::kSkippedUnlaunchedInNoStep
                     : DiagnosticId::kSkippedUnlaunchedByTime,
          unlaunched);
    return toSteps(windows);
}

void TraceAssembly::flagOps() {
    for (std::size_t lane = 0; lane < m_lanes.size(); ++lane) {
        if (m_lanes[lane].kind != LaneKind::kHostThread) continue;
        std::vector<Event>& events = m_events[lane];
        std::vector<Event*> openOps;
        for (Event& e : events) {
            while (!openOps.empty() && openOps.back()->endNs <= e.startNs) openOps.pop_back();
            if (e.kind == EventKind::kOp) {
                if (!openOps.empty()) e.flags |= kFlagNested;
                openOps.push_back(&e);
            } else if (e.kind == EventKind::kSync && !openOps.empty()) {
                Event* top = openOps.front();
                top->flags |= kFlagWouldSync;
                if ((e.flags & kFlagHostRead) != 0) top->flags |= kFlagHostRead;
            }
        }
        for (Event& e : events) {
            if (e.kind == EventKind::kSync) e.flags = kFlagNone;
        }
    }
}

ImportedRun TraceAssembly::finish(RunSummary run) && {
    if (!m_asRecorded) placeSyncs();
    for (auto& events : m_events) sortParentsFirst(events);
    ImportedRun out;
    std::vector<StepInfo> steps = assignSteps(out.stepsFound);
    if (!m_asRecorded) flagOps();

    std::array<std::int64_t, static_cast<std::size_t>(EventKind::kWait) + 1> storedByKind{};
    for (std::size_t lane = 0; lane < m_lanes.size(); ++lane) {
        Lane& l = m_lanes[lane];
        if (l.kind == LaneKind::kHostThread && l.name.empty()) {
            auto process = m_processNames.find(m_laneProcess[lane]);
            l.name = process != m_processNames.end()
                         ? fmt::format("{} thread {}", process->second, l.threadOrStream)
                         : fmt::format("host thread {}", l.threadOrStream);
        }
        for (const Event& e : m_events[lane]) ++storedByKind[static_cast<std::size_t>(e.kind)];
    }
    for (std::size_t kind = 0; kind < storedByKind.size(); ++kind) {
        if (storedByKind[kind] > 0)
            out.eventsByKind[toString(static_cast<EventKind>(kind))] = storedByKind[kind];
    }
    if (run.device.empty()) {
        const bool gpu = std::any_of(m_lanes.begin(), m_lanes.end(),
                                     [](const Lane& l) { return l.kind == LaneKind::kCudaStream; });
        run.device = gpu ? "cuda" : "cpu";
    }
    out.read.insert(m_read.begin(), m_read.end());
    std::vector<Diagnostic> diagnostics;
    for (const auto& [what, count] : m_skipped) {
        diagnostics.push_back(Diagnostic{kImportSkipped, count, what});
    }
    for (const auto& [what, count] : m_derived) {
        diagnostics.push_back(Diagnostic{kImportDerived, count, what});
    }
    out.skipped = m_skipped;
    out.derived = m_derived;
    out.model = TraceModel(std::move(run), std::move(m_lanes), std::move(m_events),
                           std::move(steps), {}, std::move(diagnostics), std::move(m_strings));
    return out;
}

}  // namespace glueprof
