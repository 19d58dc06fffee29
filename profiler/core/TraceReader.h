#pragma once
// TraceReader: opens a trace database read-only (refusing other schema versions with a message
// that says what to do) and loads runs into immutable TraceModels.
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
    // The run's diagnostics alone (rows of one name summed), without loading its events.
    std::vector<Diagnostic> loadDiagnostics(RunId run) const;

  private:
    std::unique_ptr<SqliteDb> m_db;
    int m_schemaVersion = 0;
};

}  // namespace glueprof
