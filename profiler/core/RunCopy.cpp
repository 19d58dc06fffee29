#include "profiler/core/RunCopy.h"

#include <string>
#include <unordered_map>

#include "profiler/core/Error.h"

namespace glueprof {

namespace {

// Every event's way into the target: its lane's and name's ids there (names interned once each),
// its times, step and correlation moved.
class EventCopier {
  public:
    EventCopier(RunAppend& append, const TraceModel& names, const RunCopyShift& shift)
        : m_append(append), m_names(names), m_shift(shift) {}

    void copy(Event e, LaneId storedLane) {
        auto name = m_stored.find(e.name);
        if (name == m_stored.end())
            name = m_stored.emplace(e.name, m_append.intern(m_names.name(e.name))).first;
        e.lane = storedLane;
        e.name = name->second;
        e.startNs += m_shift.ns;
        e.endNs += m_shift.ns;
        if (e.step != kNoTag) e.step += m_shift.steps;
        if (e.correlation != 0) e.correlation += m_shift.correlations;
        m_append.event(e);
    }

  private:
    RunAppend& m_append;
    const TraceModel& m_names;
    RunCopyShift m_shift;
    std::unordered_map<StringId, StringId> m_stored;
};

// The run's steps, counters and diagnostics (its events aside), moved by `shift`.
void copyRunRecords(RunAppend& append, const TraceModel& model, const RunCopyShift& shift) {
    for (StepInfo step : model.steps()) {
        step.startNs += shift.ns;
        step.endNs += shift.ns;
        step.step += shift.steps;
        append.step(step);
    }
    for (const CounterValue& c : model.counters())
        append.counter(c.step + shift.steps, c.name, c.value);
    for (const Diagnostic& d : model.diagnostics()) append.diagnostic(d.name, d.value, d.detail);
}

}  // namespace

void copyRunContents(RunAppend& append, const TraceModel& model, const RunCopyShift& shift) {
    EventCopier copier(append, model, shift);
    for (std::size_t i = 0; i < model.lanes().size(); ++i) {
        const Lane& lane = model.lanes()[i];
        const LaneId stored =
            append.addLane(lane.kind, lane.name, lane.device, lane.threadOrStream);
        for (const Event& e : model.eventsOnLane(i)) copier.copy(e, stored);
    }
    copyRunRecords(append, model, shift);
}

void copyStoredRun(RunAppend& append, const TraceReader& source, RunId sourceRun,
                   const RunCopyShift& shift) {
    const TraceModel shell = source.loadRunWithoutEvents(sourceRun);
    std::unordered_map<LaneId, LaneId> lanes;  // the source's lane id -> the target's
    for (const Lane& lane : shell.lanes())
        lanes[lane.id] = append.addLane(lane.kind, lane.name, lane.device, lane.threadOrStream);
    EventCopier copier(append, shell, shift);
    const std::int64_t invalid = source.forEachEvent(sourceRun, [&](const Event& e) {
        const auto lane = lanes.find(e.lane);
        if (lane == lanes.end()) {
            throw inputError("trace event refers to lane " + std::to_string(e.lane) +
                             ", which the trace does not define; the database is damaged, "
                             "re-record it");
        }
        copier.copy(e, lane->second);
    });
    if (invalid > 0) {
        const Diagnostic d = invalidEventsDiagnostic(invalid);
        append.diagnostic(d.name, d.value, d.detail);
    }
    copyRunRecords(append, shell, shift);
}

RunInfo runInfoOf(const RunSummary& s) {
    RunInfo info;
    info.label = s.label;
    info.preset = s.preset;
    info.device = s.device;
    info.configJson = s.configJson;
    info.togglesJson = s.togglesJson;
    info.environmentJson = s.environmentJson;
    info.host = s.host;
    info.identity = s.identity;
    return info;
}

RunStatus finalStatusOf(const RunSummary& summary) {
    if (summary.status == "complete") return RunStatus::kComplete;
    if (summary.status == "failed") return RunStatus::kFailed;
    return RunStatus::kAborted;
}

}  // namespace glueprof
