#pragma once
// The workspace: the open trace database, its runs, the selected baseline/optimized pair and what
// the analyzers say about it (the results model every face renders, so the numbers
// agree). Loading and analysis run on a background thread; poll() moves finished work in. Panels
// only read it.
#include <atomic>
#include <cstdint>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/gui/Log.h"
#include "app/gui/widgets/TimelineLod.h"
#include "app/report/Results.h"
#include "profiler/core/TraceModel.h"

namespace glueprof::gui {

class Workspace {
  public:
    explicit Workspace(Log& log) : m_log(log) {}
    ~Workspace();

    // Opens `path` (creating an empty database when there is no file) and lists its runs; false
    // (with the reason in the log and a toast) when it is not a glueprof database. Selects the
    // newest A/B pair, else the newest run.
    bool open(const std::string& path);
    bool isOpen() const { return !m_path.empty(); }
    const std::string& path() const { return m_path; }
    const std::vector<RunSummary>& runSummaries() const { return m_runSummaries; }

    // Loads and analyzes `baseline` (and `optimized` unless 0) in the background.
    void select(RunId baseline, RunId optimized);
    RunId selectedBaseline() const { return m_baseline; }
    RunId selectedOptimized() const { return m_optimized; }

    // Call once per frame: takes in a finished load (true when one came in).
    bool poll();
    bool loading() const { return m_pending.valid(); }
    void waitForLoad() const {
        if (m_pending.valid()) m_pending.wait();
    }               // blocks; poll() still takes it in
    void cancel();  // drops the load in flight without blocking
    struct Progress {
        float fraction = 0.0F;
        const char* stage = "";
    };
    Progress progress() const;  // of the load in flight

    // The analysis of the selection; null until loaded.
    const Results* results() const { return m_results.get(); }
    const std::vector<TraceModel>& traces() const { return m_traces; }
    // Per selected trace (as traces()): when it is one rank of a data-parallel run, every rank's
    // trace in rank order (it among them); else empty. The Ranks panel draws them.
    const std::vector<std::vector<const TraceModel*>>& rankTraces() const { return m_rankTraces; }
    const std::vector<TimelineIndex>& timelines() const { return m_timelines; }  // one per trace
    // Counts the analyses taken in: what a panel caches about the traces is stale when it changed.
    std::uint64_t generation() const { return m_generation; }

  private:
    struct Loaded {
        std::vector<TraceModel> traces;
        std::vector<std::unique_ptr<TraceModel>> otherRanks;  // the selection's other ranks
        std::vector<std::vector<const TraceModel*>> rankTraces;
        std::unique_ptr<Results> results;
        std::vector<TimelineIndex> timelines;
        std::string error;
    };

    Log& m_log;
    std::string m_path;
    std::vector<RunSummary> m_runSummaries;
    RunId m_baseline = 0;
    RunId m_optimized = 0;
    std::future<Loaded> m_pending;
    std::shared_ptr<std::atomic<bool>> m_cancelled;
    std::shared_ptr<std::atomic<int>> m_stage;     // index into kStages, written by the loader
    std::vector<std::future<Loaded>> m_abandoned;  // cancelled loads still finishing
    static constexpr int kStageCount = 6;
    static const char* const kStages[kStageCount];
    std::vector<TraceModel> m_traces;
    std::vector<std::unique_ptr<TraceModel>> m_otherRanks;
    std::vector<std::vector<const TraceModel*>> m_rankTraces;
    std::unique_ptr<Results> m_results;
    std::vector<TimelineIndex> m_timelines;
    std::uint64_t m_generation = 0;
};

}  // namespace glueprof::gui
