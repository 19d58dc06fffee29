#include "app/gui/Workspace.h"

#include <fmt/format.h>

#include <algorithm>
#include <exception>
#include <filesystem>

#include "app/report/AbPairs.h"
#include "profiler/core/TraceReader.h"
#include "profiler/core/TraceSchema.h"

namespace glueprof::gui {

Workspace::~Workspace() {
    cancel();
    for (std::future<Loaded>& f : m_abandoned) f.wait();
}

const char* const Workspace::kStages[] = {"reading run A",           "reading run B",
                                          "reading the other ranks", "analyzing",
                                          "indexing the timeline",   "done"};

Workspace::Progress Workspace::progress() const {
    if (!m_stage) return {};
    const int stage = std::min(m_stage->load(), kStageCount - 1);
    return {static_cast<float>(stage) / static_cast<float>(kStageCount - 1), kStages[stage]};
}

bool Workspace::open(const std::string& path) {
    try {
        if (!std::filesystem::exists(path)) {
            // A new database: the Run panel writes its A/Bs here.
            createTraceDatabase(path);
            m_log.info(fmt::format("created the new database {}", path));
        }
        TraceReader reader(path);
        std::vector<RunSummary> runs = reader.listRuns();
        cancel();
        m_path = path;
        m_runSummaries = std::move(runs);
        m_results.reset();
        m_rankTraces.clear();
        m_otherRanks.clear();
        m_traces.clear();
        m_timelines.clear();
        m_log.info(fmt::format("opened {} ({} runs)", path, m_runSummaries.size()));
    } catch (const std::exception& e) {
        m_log.error(fmt::format("cannot open {}: {}", path, e.what()));
        return false;
    }
    // The newest A/B pair, else the newest run.
    if (const std::optional<AbPair> newest = newestAbPair(m_runSummaries)) {
        select(newest->baseline.id, newest->optimized.id);
        return true;
    }
    if (!m_runSummaries.empty()) select(m_runSummaries.back().id, 0);
    return true;
}

void Workspace::select(RunId baseline, RunId optimized) {
    if (m_path.empty()) return;
    cancel();
    m_baseline = baseline;
    m_optimized = optimized;
    auto cancelled = std::make_shared<std::atomic<bool>>(false);
    auto stage = std::make_shared<std::atomic<int>>(0);
    m_cancelled = cancelled;
    m_stage = stage;
    const std::string path = m_path;
    const std::vector<RunSummary> runs = m_runSummaries;
    m_pending = std::async(std::launch::async, [path, runs, baseline, optimized, cancelled, stage] {
        Loaded loaded;
        try {
            TraceReader reader(path);
            loaded.traces.push_back(reader.loadRun(baseline));
            *stage = 1;
            if (optimized != 0 && !*cancelled) loaded.traces.push_back(reader.loadRun(optimized));
            *stage = 2;
            // A rank of a data-parallel run brings the other ranks (Results.h loadRankTraces).
            for (const TraceModel& selected : loaded.traces) {
                if (*cancelled) break;
                loaded.rankTraces.push_back(
                    loadRankTraces(reader, selected, runs, loaded.otherRanks));
            }
            *stage = 3;
            if (*cancelled) return loaded;
            std::vector<const TraceModel*> traces;
            for (const TraceModel& t : loaded.traces) traces.push_back(&t);
            loaded.results =
                std::make_unique<Results>(buildResults(traces, path, loaded.rankTraces));
            *stage = 4;
            if (*cancelled) return loaded;
            for (const TraceModel& t : loaded.traces)
                loaded.timelines.push_back(buildTimelineIndex(t));
            *stage = 5;
        } catch (const std::exception& e) {
            loaded.error = e.what();
        }
        return loaded;
    });
    m_log.info(optimized != 0 ? fmt::format("loading runs {} vs {}", baseline, optimized)
                              : fmt::format("loading run {}", baseline));
}

bool Workspace::poll() {
    m_abandoned.erase(std::remove_if(m_abandoned.begin(), m_abandoned.end(),
                                     [](std::future<Loaded>& f) {
                                         return f.wait_for(std::chrono::seconds(0)) ==
                                                std::future_status::ready;
                                     }),
                      m_abandoned.end());
    if (!m_pending.valid() ||
        m_pending.wait_for(std::chrono::seconds(0)) != std::future_status::ready)
        return false;
    Loaded loaded = m_pending.get();
    if (*m_cancelled) return false;
    if (!loaded.error.empty()) {
        m_log.error(fmt::format("cannot load the selected runs: {}", loaded.error));
        return false;
    }
    // Moving the vectors keeps their elements where they are: rankTraces' pointers stay valid.
    m_traces = std::move(loaded.traces);
    m_otherRanks = std::move(loaded.otherRanks);
    m_rankTraces = std::move(loaded.rankTraces);
    m_results = std::move(loaded.results);
    m_timelines = std::move(loaded.timelines);
    ++m_generation;
    m_log.info("analysis ready");
    return true;
}

void Workspace::cancel() {
    if (m_cancelled) *m_cancelled = true;
    // The loader stops at its next check; its result is dropped. It is not waited for here, so the
    // UI stays responsive: poll() and the destructor reap it.
    if (m_pending.valid()) {
        m_abandoned.push_back(std::move(m_pending));
        m_log.info("loading cancelled");
    }
    m_pending = {};
}

}  // namespace glueprof::gui
