#include "profiler/core/TraceModel.h"

#include <algorithm>
#include <utility>

#include "profiler/core/Error.h"
#include "profiler/core/LaneOrder.h"

namespace glueprof {

TraceModel::TraceModel(RunSummary run, std::vector<Lane> lanes,
                       std::vector<std::vector<Event>> laneEvents, std::vector<StepInfo> steps,
                       std::vector<CounterValue> counters, std::vector<Diagnostic> diagnostics,
                       std::unordered_map<StringId, std::string> strings)
    : m_run(std::move(run)),
      m_lanes(std::move(lanes)),
      m_laneEvents(std::move(laneEvents)),
      m_steps(std::move(steps)),
      m_counters(std::move(counters)),
      m_diagnostics(std::move(diagnostics)),
      m_strings(std::move(strings)) {
    m_laneEvents.resize(m_lanes.size());
    for (auto& events : m_laneEvents) sortParentsFirst(events);  // LaneOrder.h
    std::sort(m_steps.begin(), m_steps.end(),
              [](const StepInfo& a, const StepInfo& b) { return a.step < b.step; });
    for (const auto& [id, text] : m_strings) m_stringIds.emplace(text, id);
    m_run.stepCount = static_cast<std::int64_t>(m_steps.size());
}

const std::string& TraceModel::name(StringId id) const {
    static const std::string kEmpty;
    auto it = m_strings.find(id);
    return it != m_strings.end() ? it->second : kEmpty;
}

std::optional<StringId> TraceModel::findName(const std::string& text) const {
    auto it = m_stringIds.find(text);
    if (it == m_stringIds.end()) return std::nullopt;
    return it->second;
}

std::size_t TraceModel::eventCount() const {
    std::size_t total = 0;
    for (const auto& events : m_laneEvents) total += events.size();
    return total;
}

std::optional<std::int64_t> TraceModel::counter(std::int32_t step, const std::string& name) const {
    for (const CounterValue& c : m_counters) {
        if (c.step == step && c.name == name) return c.value;
    }
    return std::nullopt;
}

std::set<std::int32_t> TraceModel::measuredSteps() const {
    std::set<std::int32_t> measured;
    for (const StepInfo& s : m_steps) {
        if (!s.warmup) measured.insert(s.step);
    }
    return measured;
}

TraceModelBuilder::TraceModelBuilder(RunSummary run) : m_run(std::move(run)) {}

std::size_t TraceModelBuilder::addLane(LaneKind kind, const std::string& name, std::int64_t device,
                                       std::int64_t threadOrStream) {
    Lane lane;
    lane.id = static_cast<LaneId>(m_lanes.size() + 1);
    while (m_laneIndex.count(lane.id) != 0) ++lane.id;
    lane.kind = kind;
    lane.name = name;
    lane.device = device;
    lane.threadOrStream = threadOrStream;
    addLaneWithId(lane);
    return m_lanes.size() - 1;
}

void TraceModelBuilder::addLaneWithId(const Lane& lane) {
    m_laneIndex.emplace(lane.id, m_lanes.size());
    m_lanes.push_back(lane);
    m_laneEvents.emplace_back();
}

StringId TraceModelBuilder::intern(const std::string& text) {
    auto it = m_stringIds.find(text);
    if (it != m_stringIds.end()) return it->second;
    while (m_strings.count(m_nextString) != 0) ++m_nextString;
    addString(m_nextString, text);
    return m_nextString;
}

void TraceModelBuilder::addString(StringId id, const std::string& text) {
    m_strings[id] = text;
    m_stringIds.emplace(text, id);
}

Event& TraceModelBuilder::addEvent(std::size_t laneIndex, EventKind kind, Category category,
                                   const std::string& name, TimestampNs startNs, TimestampNs endNs,
                                   std::int32_t step, std::int32_t layer) {
    Event event;
    event.run = m_run.id;
    event.lane = m_lanes.at(laneIndex).id;
    event.kind = kind;
    event.category = category;
    event.name = intern(name);
    event.startNs = startNs;
    event.endNs = endNs;
    event.step = step;
    event.layer = layer;
    m_laneEvents[laneIndex].push_back(event);
    return m_laneEvents[laneIndex].back();
}

void TraceModelBuilder::addEventById(const Event& event) {
    auto it = m_laneIndex.find(event.lane);
    if (it == m_laneIndex.end()) {
        throw inputError(
            "trace event refers to lane " + std::to_string(event.lane) +
            ", which the trace does not define; the database is damaged, re-record it");
    }
    m_laneEvents[it->second].push_back(event);
}

void TraceModelBuilder::addStep(const StepInfo& step) { m_steps.push_back(step); }

void TraceModelBuilder::addCounter(std::int32_t step, const std::string& name, std::int64_t value) {
    m_counters.push_back(CounterValue{step, name, value});
}

void TraceModelBuilder::addDiagnostic(const Diagnostic& diagnostic) {
    m_diagnostics.push_back(diagnostic);
}

TraceModel TraceModelBuilder::build() && {
    return TraceModel(std::move(m_run), std::move(m_lanes), std::move(m_laneEvents),
                      std::move(m_steps), std::move(m_counters), std::move(m_diagnostics),
                      std::move(m_strings));
}

}  // namespace glueprof
