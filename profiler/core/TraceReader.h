#pragma once
// TraceReader: opens a trace database read-only (refusing other schema versions with a message
// that says what to do) and loads runs into immutable TraceModels.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "profiler/core/TraceModel.h"

namespace glueprof {

class SqliteDb;

class TraceReader {
  public:
    explicit TraceReader(const std::string& path);
    ~TraceReader();

    std::vector<RunSummary> listRuns() const;
    RunSummary runSummary(RunId run) const;  // throws GlueprofError(kInput) for an unknown id
    TraceModel loadRun(RunId run) const;
    // The run without its events (lanes, names, steps, counters, diagnostics), and its events one
    // at a time, in the order loadRun adds them: what copying a run of any size needs, in memory
    // that does not grow with it (RunCopy's copyStoredRun). forEachEvent skips the rows loadRun
    // leaves out (an end before the start, a name not in the strings table) and returns how many.
    TraceModel loadRunWithoutEvents(RunId run) const;
    std::int64_t eventCount(RunId run) const;  // its stored events (rows), without reading them
    std::int64_t forEachEvent(RunId run, const std::function<void(const Event&)>& visit) const;
    // The run's diagnostics alone (rows of one name summed), without loading its events.
    std::vector<Diagnostic> loadDiagnostics(RunId run) const;

  private:
    // The lanes and every name into `builder`; a flag per string id that names something.
    std::vector<char> addLanesAndNames(TraceModelBuilder& builder, RunId run) const;
    std::int64_t scanEvents(RunId run, const std::vector<char>& named,
                            const std::function<void(const Event&)>& visit) const;
    void addStepsCountersAndDiagnostics(TraceModelBuilder& builder, RunId run) const;

    std::unique_ptr<SqliteDb> m_db;
    int m_schemaVersion = 0;
};

// The diagnostic a run gets for the stored rows loadRun left out.
Diagnostic invalidEventsDiagnostic(std::int64_t invalid);

}  // namespace glueprof
