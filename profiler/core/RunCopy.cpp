#include "profiler/core/RunCopy.h"

#include <unordered_map>

namespace glueprof {

void copyRunContents(TraceWriter& writer, RunId run, const TraceModel& model, TimestampNs shiftNs) {
    copyRunContents(writer, run, model, RunCopyShift{shiftNs, 0, 0});
}

void copyRunContents(TraceWriter& writer, RunId run, const TraceModel& model,
                     const RunCopyShift& shift) {
    const TimestampNs shiftNs = shift.ns;
    std::unordered_map<StringId, StringId> names;
    constexpr std::size_t kFlushEvery = 1u << 20;  // stay far below the writer's queue cap
    std::size_t queued = 0;
    for (std::size_t i = 0; i < model.lanes().size(); ++i) {
        const Lane& lane = model.lanes()[i];
        const LaneId stored =
            writer.addLane(run, lane.kind, lane.name, lane.device, lane.threadOrStream);
        for (Event e : model.eventsOnLane(i)) {
            auto name = names.find(e.name);
            if (name == names.end())
                name = names.emplace(e.name, writer.intern(model.name(e.name))).first;
            e.run = run;
            e.lane = stored;
            e.name = name->second;
            e.startNs += shiftNs;
            e.endNs += shiftNs;
            if (e.step != kNoTag) e.step += shift.steps;
            if (e.correlation != 0) e.correlation += shift.correlations;
            writer.record(e);
            if (++queued % kFlushEvery == 0) writer.flush();
        }
    }
    for (StepInfo step : model.steps()) {
        step.startNs += shiftNs;
        step.endNs += shiftNs;
        step.step += shift.steps;
        writer.recordStep(StepRecord{run, step});
    }
    for (const CounterValue& c : model.counters())
        writer.recordCounter(CounterRecord{run, c.step + shift.steps, c.name, c.value});
    for (const Diagnostic& d : model.diagnostics())
        writer.recordDiagnostic(DiagnosticRecord{run, d.name, d.value, d.detail});
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
