#include "profiler/core/RunCopy.h"

#include <string>
#include <unordered_map>

#include "profiler/core/Error.h"

namespace glueprof {

void copyRunContents(TraceWriter& writer, RunId run, const TraceModel& model, TimestampNs shiftNs) {
    copyRunContents(writer, run, model, RunCopyShift{shiftNs, 0, 0});
}

namespace {

// Every event's way into the target: its lane's and name's ids there (names interned once each),
// its times, step and correlation moved; a flush now and then keeps the writer's queue short.
class EventCopier {
  public:
    EventCopier(TraceWriter& writer, RunId run, const TraceModel& names, const RunCopyShift& shift)
        : m_writer(writer), m_run(run), m_names(names), m_shift(shift) {}

    void copy(Event e, LaneId storedLane) {
        auto name = m_stored.find(e.name);
        if (name == m_stored.end())
            name = m_stored.emplace(e.name, m_writer.intern(m_names.name(e.name))).first;
        e.run = m_run;
        e.lane = storedLane;
        e.name = name->second;
        e.startNs += m_shift.ns;
        e.endNs += m_shift.ns;
        if (e.step != kNoTag) e.step += m_shift.steps;
        if (e.correlation != 0) e.correlation += m_shift.correlations;
        m_writer.record(e);
        // 2^18 events (about 25 MB) queued at most: the copy's memory does not grow with the run.
        if (++m_queued % (1u << 18) == 0) m_writer.flush();
    }

  private:
    TraceWriter& m_writer;
    RunId m_run;
    const TraceModel& m_names;
    RunCopyShift m_shift;
    std::unordered_map<StringId, StringId> m_stored;
    std::size_t m_queued = 0;
};

// The run's steps, counters and diagnostics (its events aside), moved by `shift`.
void copyRunRecords(TraceWriter& writer, RunId run, const TraceModel& model,
                    const RunCopyShift& shift) {
    for (StepInfo step : model.steps()) {
        step.startNs += shift.ns;
        step.endNs += shift.ns;
        step.step += shift.steps;
        writer.recordStep(StepRecord{run, step});
    }
    for (const CounterValue& c : model.counters())
        writer.recordCounter(CounterRecord{run, c.step + shift.steps, c.name, c.value});
    for (const Diagnostic& d : model.diagnostics())
        writer.recordDiagnostic(DiagnosticRecord{run, d.name, d.value, d.detail});
}

}  // namespace

void copyRunContents(TraceWriter& writer, RunId run, const TraceModel& model,
                     const RunCopyShift& shift) {
    EventCopier copier(writer, run, model, shift);
    for (std::size_t i = 0; i < model.lanes().size(); ++i) {
        const Lane& lane = model.lanes()[i];
        const LaneId stored =
            writer.addLane(run, lane.kind, lane.name, lane.device, lane.threadOrStream);
        for (const Event& e : model.eventsOnLane(i)) copier.copy(e, stored);
    }
    copyRunRecords(writer, run, model, shift);
}

void copyStoredRun(TraceWriter& writer, RunId run, const TraceReader& source, RunId sourceRun,
                   const RunCopyShift& shift) {
    const TraceModel shell = source.loadRunWithoutEvents(sourceRun);
    std::unordered_map<LaneId, LaneId> lanes;  // the source's lane id -> the target's
    for (const Lane& lane : shell.lanes())
        lanes[lane.id] =
            writer.addLane(run, lane.kind, lane.name, lane.device, lane.threadOrStream);
    EventCopier copier(writer, run, shell, shift);
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
        writer.recordDiagnostic(DiagnosticRecord{run, d.name, d.value, d.detail});
    }
    copyRunRecords(writer, run, shell, shift);
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
