#include "app/report/Results.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <set>

#include "app/report/AbPairs.h"
#include "profiler/core/ToggleCatalog.h"
#include "profiler/core/TraceNames.h"
#include "profiler/core/TraceReader.h"

namespace glueprof {

namespace {

// The run's environment JSON, parsed once; an empty object when it is not one.
nlohmann::json environmentOf(const RunSummary& run) {
    nlohmann::json env = nlohmann::json::parse(run.environmentJson, nullptr, false);
    return env.is_object() ? env : nlohmann::json::object();
}

// The run's GPU capture line ("" for runs recorded before it was stored).
std::string gpuCaptureOf(const nlohmann::json& env) {
    if (!env.contains("gpu_capture") || !env["gpu_capture"].is_string()) return "";
    return env["gpu_capture"].get<std::string>();
}

// How a rank's clock was put on rank 0's (nullopt outside multi-process runs, or unmeasured).
std::optional<RankClockAlignment> clockAlignmentOf(const nlohmann::json& env) {
    if (!env.contains("clock_alignment") || !env["clock_alignment"].is_object())
        return std::nullopt;
    const nlohmann::json& c = env["clock_alignment"];
    RankClockAlignment a;
    a.offsetNs = c.value("offset_ns", 0.0);
    a.estimateNs = c.value("estimate_ns", 0.0);
    a.residualNs = c.value("residual_ns", 0.0);
    a.sameMachine = c.value("same_machine_as_rank_0", false);
    return a;
}

TracingOverhead tracingOverheadOf(const TraceModel& trace, const nlohmann::json& env,
                                  const StepBreakdownResult& steps) {
    TracingOverhead t;
    if (env.contains("tracing_ns_per_op")) {
        t.recorded = true;
        if (env["tracing_ns_per_op"].is_number()) {
            t.nsPerEvent = env["tracing_ns_per_op"].get<double>();
        }
    }
    const std::set<std::int32_t> measured = trace.measuredSteps();
    if (measured.empty()) return t;
    std::size_t busiest = 0;  // the calibrated cost is an aten op's: ops only, not ranges or API
    for (std::size_t lane = 0; lane < trace.lanes().size(); ++lane) {
        if (trace.lanes()[lane].kind != LaneKind::kHostThread) continue;
        std::size_t ops = 0;
        for (const Event& e : trace.eventsOnLane(lane)) {
            ops += e.kind == EventKind::kOp && measured.count(e.step) != 0 ? 1 : 0;
        }
        busiest = std::max(busiest, ops);
    }
    t.eventsPerStep = static_cast<double>(busiest) / static_cast<double>(measured.size());
    t.stepMs = steps.median(TimingMetric::kStep);
    return t;
}

void addOverlapStrip(const TraceModel& trace, RunAnalysis& r) {
    const std::set<std::int32_t> measured = trace.measuredSteps();
    if (measured.empty()) return;
    r.stripStep = *measured.begin();
    for (const StepInfo& s : trace.steps()) {
        if (s.step == r.stripStep) {
            r.stripStartNs = s.startNs;
            r.stripEndNs = s.endNs;
        }
    }
    r.stripCopies = copySpans(trace, r.stripStep);
}

// The Gantt shows one step: the first measured one (a simulation has one per iteration).
void addGantt(const TraceModel& trace, RunAnalysis& r) {
    const std::set<std::int32_t> measured = trace.measuredSteps();
    const bool oneStep = !measured.empty();
    const std::int32_t ganttStep = oneStep ? *measured.begin() : kNoTag;
    for (std::size_t i = 0; i < trace.lanes().size(); ++i) {
        const Lane& lane = trace.lanes()[i];
        if (lane.kind != LaneKind::kPipelineWorker && lane.kind != LaneKind::kSimulatedWorker)
            continue;
        const std::size_t worker = r.workers.size();
        r.workers.push_back(lane.name);
        for (const Event& e : trace.eventsOnLane(i)) {
            const std::string& name = trace.name(e.name);
            if (e.kind == EventKind::kRange && (!oneStep || e.step == ganttStep) &&
                (name == names::kForward || name == names::kRecompute ||
                 name == names::kBackward)) {
                r.gantt.push_back(GanttBar{worker, name, e.startNs, e.endNs});
            }
        }
    }
}

// Warm-up steps, measured steps per block and blocks, as the baseline arm recorded them.
AbSetup setupOf(const TraceModel& baseline) {
    AbSetup setup;
    std::map<std::int32_t, int> perBlock;
    for (const StepInfo& s : baseline.steps()) {
        if (s.warmup) {
            ++setup.warmup;
        } else {
            ++perBlock[s.block];
        }
    }
    setup.repeats = static_cast<int>(perBlock.size());
    for (const auto& [block, count] : perBlock) setup.steps = std::max(setup.steps, count);
    return setup;
}

class ResultsBuilder {
  public:
    explicit ResultsBuilder(Results& results) : m_results(results) {}

    bool has(RunId run) const { return run != 0 && m_index.count(run) != 0; }

    std::size_t add(const TraceModel& trace) {
        auto found = m_index.find(trace.run().id);
        if (found != m_index.end() && trace.run().id != 0) return found->second;
        m_results.runs.push_back(analyzeRun(trace));
        m_index[trace.run().id] = m_results.runs.size() - 1;
        return m_results.runs.size() - 1;
    }

    void compare(const TraceModel& baseline, const TraceModel& optimized) {
        Comparison c;
        c.baseline = add(baseline);
        c.optimized = add(optimized);
        // The breakdowns the analysis of each run already holds, not computed again.
        c.ab = compareArms(baseline, m_results.runs[c.baseline].analysis.steps, optimized,
                           m_results.runs[c.optimized].analysis.steps);
        if (!m_results.setup) m_results.setup = setupOf(baseline);
        m_results.comparisons.push_back(std::move(c));
    }

  private:
    Results& m_results;
    std::map<RunId, std::size_t> m_index;
};

}  // namespace

AbComparison compareArms(const TraceModel& baseline, const StepBreakdownResult& baselineSteps,
                         const TraceModel& optimized, const StepBreakdownResult& optimizedSteps) {
    const RunSummary& reference = baseline.run();
    const RunSummary& compared = optimized.run();
    const TimingMetric primary = armsOfOneAb(reference, compared)
                                     ? primaryMetricOf(compared.identity.toggle)
                                     : TimingMetric::kStep;
    AbComparison ab = compareRuns(pairName(reference, compared), primary, baseline, baselineSteps,
                                  optimized, optimizedSteps);
    if (armsOfOneAb(reference, compared)) {
        ab.target = compareTarget(targetMetricOf(compared.identity.toggle), baseline, optimized,
                                  baselineSteps.median(TimingMetric::kStep));
    }
    return ab;
}

AbComparison compareArms(const TraceModel& baseline, const TraceModel& optimized) {
    return compareArms(baseline, analyzeStepBreakdown(baseline), optimized,
                       analyzeStepBreakdown(optimized));
}

RunAnalysis analyzeRun(const TraceModel& trace) {
    RunAnalysis r;
    r.run = trace.run();
    r.analysis = analyze(trace);
    r.diagnostics = trace.diagnostics();
    const nlohmann::json environment = environmentOf(trace.run());
    r.gpuCapture = gpuCaptureOf(environment);
    r.clockAlignment = clockAlignmentOf(environment);
    r.tracing = tracingOverheadOf(trace, environment, r.analysis.steps);
    addOverlapStrip(trace, r);
    addGantt(trace, r);
    return r;
}

Results buildResults(const TraceReader& reader, const std::string& db,
                     const ResultsSelection& selection) {
    Results results;
    results.db = db;
    ResultsBuilder builder(results);
    for (const auto& [baseline, optimized] : selection.pairs) {
        // One pair in memory at a time: a suite of toggles never holds all its traces.
        builder.compare(reader.loadRun(baseline), reader.loadRun(optimized));
    }
    for (RunId run : selection.runs) {
        if (!builder.has(run)) builder.add(reader.loadRun(run));  // each run read once
    }
    return results;
}

Results buildResults(const std::vector<const TraceModel*>& traces, const std::string& db) {
    Results results;
    results.db = db;
    ResultsBuilder builder(results);
    if (traces.size() == 2) {
        builder.compare(*traces[0], *traces[1]);
    } else {
        for (const TraceModel* trace : traces) builder.add(*trace);
    }
    return results;
}

namespace {
const RunAnalysis* headline(const Results& r) {
    if (!r.comparisons.empty()) return &r.runs[r.comparisons.front().baseline];
    return r.runs.empty() ? nullptr : &r.runs.front();
}
}  // namespace

std::string Results::preset() const {
    const RunAnalysis* r = headline(*this);
    return r != nullptr ? r->run.preset : "";
}

std::string Results::device() const {
    const RunAnalysis* r = headline(*this);
    return r != nullptr ? r->run.device : "";
}

std::string Results::gpuCapture() const {
    const RunAnalysis* r = headline(*this);
    return r != nullptr ? r->gpuCapture : "";
}

}  // namespace glueprof
