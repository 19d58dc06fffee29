#pragma once
// TraceModel: one run loaded from the store, immutable once built, events sorted per lane.
// Analyzers read it; nothing writes it after construction (TraceModelBuilder makes one).
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "profiler/core/Event.h"
#include "profiler/core/RunIdentity.h"

namespace glueprof {

struct RunSummary {
    RunId id = 0;
    std::string label;
    std::string status;  // as stored: running / complete / failed / aborted
    std::string preset;
    std::string device;
    std::string configJson = "{}";
    std::string togglesJson = "[]";
    std::string environmentJson = "{}";
    std::string host;
    std::int64_t startedUnixNs = 0;
    std::int64_t endedUnixNs = 0;
    std::int64_t stepCount = 0;
    RunIdentity identity;  // kind, A/B group and arm, toggle, schedule (schema v2 columns)

    // A run still marked `running` when read back was killed or is being recorded: readers show
    // it as "aborted" (its finished steps are all there).
    std::string displayStatus() const { return status == "running" ? "aborted" : status; }
};

struct Lane {
    LaneId id = 0;
    LaneKind kind = LaneKind::kHostThread;
    std::string name;
    std::int64_t device = 0;
    std::int64_t threadOrStream = 0;
};

struct CounterValue {
    std::int32_t step = 0;
    std::string name;
    std::int64_t value = 0;
};

struct Diagnostic {
    std::string name;
    std::int64_t value = 0;
    std::string detail;
};

class TraceModel {
  public:
    TraceModel(RunSummary run, std::vector<Lane> lanes, std::vector<std::vector<Event>> laneEvents,
               std::vector<StepInfo> steps, std::vector<CounterValue> counters,
               std::vector<Diagnostic> diagnostics,
               std::unordered_map<StringId, std::string> strings);

    const RunSummary& run() const { return m_run; }
    const std::vector<Lane>& lanes() const { return m_lanes; }
    // Events of lanes()[laneIndex], sorted by start then by longest first (parents before
    // children).
    const std::vector<Event>& eventsOnLane(std::size_t laneIndex) const {
        return m_laneEvents[laneIndex];
    }
    const std::vector<StepInfo>& steps() const { return m_steps; }  // sorted by step
    const std::vector<CounterValue>& counters() const { return m_counters; }
    const std::vector<Diagnostic>& diagnostics() const { return m_diagnostics; }

    const std::string& name(StringId id) const;  // "" for an unknown id
    std::optional<StringId> findName(const std::string& text) const;
    std::size_t eventCount() const;
    std::optional<std::int64_t> counter(std::int32_t step, const std::string& name) const;
    // The steps that statistics use: every step not marked warm-up.
    std::set<std::int32_t> measuredSteps() const;

  private:
    RunSummary m_run;
    std::vector<Lane> m_lanes;
    std::vector<std::vector<Event>> m_laneEvents;
    std::vector<StepInfo> m_steps;
    std::vector<CounterValue> m_counters;
    std::vector<Diagnostic> m_diagnostics;
    std::unordered_map<StringId, std::string> m_strings;
    std::unordered_map<std::string, StringId> m_stringIds;
};

// Builds a TraceModel in code: used by the reader, by importers and by tests (hand-built traces).
class TraceModelBuilder {
  public:
    explicit TraceModelBuilder(RunSummary run = {});

    std::size_t addLane(LaneKind kind, const std::string& name, std::int64_t device = 0,
                        std::int64_t threadOrStream = 0);  // returns the lane index
    void addLaneWithId(const Lane& lane);
    StringId intern(const std::string& text);
    void addString(StringId id, const std::string& text);
    // Adds an event to the lane with index laneIndex (the event's lane id is set from it).
    Event& addEvent(std::size_t laneIndex, EventKind kind, Category category,
                    const std::string& name, TimestampNs startNs, TimestampNs endNs,
                    std::int32_t step = kNoTag, std::int32_t layer = kNoTag);
    void addEventById(const Event& event);  // lane looked up by event.lane
    void addStep(const StepInfo& step);
    void addCounter(std::int32_t step, const std::string& name, std::int64_t value);
    void addDiagnostic(const Diagnostic& diagnostic);

    TraceModel build() &&;

  private:
    RunSummary m_run;
    std::vector<Lane> m_lanes;
    std::unordered_map<LaneId, std::size_t> m_laneIndex;
    std::vector<std::vector<Event>> m_laneEvents;
    std::vector<StepInfo> m_steps;
    std::vector<CounterValue> m_counters;
    std::vector<Diagnostic> m_diagnostics;
    std::unordered_map<StringId, std::string> m_strings;
    std::unordered_map<std::string, StringId> m_stringIds;
    StringId m_nextString = 1;
};

}  // namespace glueprof
