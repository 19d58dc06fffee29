#include "profiler/import/ChromeTraceState.h"

#include <algorithm>
#include <functional>
#include <string_view>

#include "profiler/core/Diagnostics.h"
#include "profiler/import/ChromeJsonNumbers.h"

namespace glueprof {

std::size_t ChromeTraceState::hostLane(const RawEvent& e) {
    if (m_haveLastHost && e.pid == m_lastPid && e.tid == m_lastTid &&
        e.tidNumeric == m_lastTidNumeric)
        return m_lastHostLane;
    std::int64_t thread = 0;
    if (e.tidNumeric) {
        thread = parseInteger(e.tid).value_or(0);
    } else {
        auto [it, added] = m_stringThreads.try_emplace(
            e.pid + "/" + e.tid, 1000000000 + static_cast<std::int64_t>(m_stringThreads.size()));
        if (added) m_assembly.nameHostLane(e.pid, it->second, e.tid);
        thread = it->second;
    }
    m_hostThreads.try_emplace(laneKey(e), e.pid, thread);
    m_lastPid = e.pid;
    m_lastTid = e.tid;
    m_lastTidNumeric = e.tidNumeric;
    m_haveLastHost = true;
    m_lastHostLane = m_assembly.hostLane(e.pid, thread);
    return m_lastHostLane;
}

std::optional<std::pair<RawEvent, TimestampNs>> ChromeTraceState::end(const RawEvent& e) {
    auto& stack = m_open[laneKey(e)];
    if (stack.empty() || !e.ts) return std::nullopt;
    std::pair<RawEvent, TimestampNs> begun = std::move(stack.back());
    stack.pop_back();
    return begun;
}

// Where a flow ends or starts: a hash of pid, tid and time, without building a string.
std::size_t ChromeTraceState::flowKey(const RawEvent& e, TimestampNs ts) {
    auto mix = [](std::uint64_t h, std::uint64_t v) {  // boost's hash_combine, 64-bit
        return h ^ (v + 0x9e3779b97f4a7c15ull + (h << 12) + (h >> 4));
    };
    std::uint64_t h = std::hash<std::string_view>()(e.pid);
    h = mix(h, std::hash<std::string_view>()(e.tid));
    h = mix(h, static_cast<std::uint64_t>(ts) * 0xff51afd7ed558ccdull);
    return static_cast<std::size_t>(h);
}

void ChromeTraceState::addUnlinked(const RawEvent& e, Unlinked event) {
    const std::size_t key = flowKey(e, event.start);
    const bool launch = event.kind == EventKind::kRuntime;
    m_pending.push_back(Pending{std::move(event), key, launch});
}

void ChromeTraceState::finish() {
    std::int64_t unlinked = 0;
    if (!m_pending.empty()) {
        std::sort(m_flowStarts.begin(), m_flowStarts.end());
        std::sort(m_flowEnds.begin(), m_flowEnds.end());
    }
    for (const Pending& p : m_pending) {
        const auto& flows = p.flowStart ? m_flowStarts : m_flowEnds;
        auto flow =
            std::lower_bound(flows.begin(), flows.end(), std::make_pair(p.flowKey, kAbsent));
        const Unlinked& u = p.event;
        Event& added = m_assembly.add(u.lane, u.kind, u.category, u.name, u.start, u.end);
        added.bytes = u.bytes;
        added.srcKind = u.src;
        added.dstKind = u.dst;
        if (flow != flows.end() && flow->first == p.flowKey) {
            added.correlation = flow->second;
        } else {
            ++unlinked;
        }
    }
    m_assembly.count(DiagnosticId::kSkippedUnlinkedLaunches, unlinked);
    for (auto& [lane, stack] : m_open)
        m_assembly.count(DiagnosticId::kSkippedBeginWithoutEnd,
                         static_cast<std::int64_t>(stack.size()));
    for (const auto& [key, thread] : m_hostThreads) {
        auto name = m_threadNames.find(key);
        if (name != m_threadNames.end())
            m_assembly.nameHostLane(thread.first, thread.second, name->second);
    }
}

}  // namespace glueprof
