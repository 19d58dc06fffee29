#pragma once
// What each command prints with --json: its envelope (database, exit code, run ids, ...) around the
// results' JSON (ResultsJson.h), written here rather than by the commands. Each returns the text,
// indented and newline-terminated, as jsonText.
#include <cstdint>
#include <string>
#include <vector>

#include "analyzers/Advisor.h"
#include "app/report/Results.h"

namespace glueprof {

// `run`: the run's analysis, with the database and the process's peak resident memory.
std::string renderRunJson(const RunAnalysis& run, const std::string& db, double peakRssMib);
// `run` on ranks: each rank's analysis and the ranks side by side (none when `ranks` is null).
std::string renderRankRunsJson(const Results& results, const RankSet* ranks, const std::string& db,
                               int worldSize);

// `profile`: how the program ended and its runs' analyses.
struct ProfiledProgramJson {
    std::string db;
    int exitCode = 0;
    std::string ending;
};
std::string renderProfileJson(const ProfiledProgramJson& program, const Results& results);
// `profile` of a run too large to summarize: its events and how to analyze it.
std::string renderProfileSummaryJson(const ProfiledProgramJson& program,
                                     const std::vector<RunId>& runs, std::int64_t events,
                                     const std::string& summary);

// `advise`: one run's findings; `advise --rules`: the advisor's rules.
std::string renderAdviseJson(const std::string& db, const RunSummary& run,
                             const std::vector<Finding>& findings);
std::string renderAdvisorRulesJson();

}  // namespace glueprof
