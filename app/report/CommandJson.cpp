#include "app/report/CommandJson.h"

#include "app/report/Findings.h"
#include "app/report/ResultsJson.h"

namespace glueprof {

std::string renderRunJson(const RunAnalysis& run, const std::string& db, double peakRssMib) {
    nlohmann::json j = toJson(run);
    j["db"] = db;
    j["peak_rss_mib"] = peakRssMib;
    return jsonText(j) + "\n";
}

std::string renderRankRunsJson(const Results& results, const RankSet* ranks, const std::string& db,
                               int worldSize) {
    nlohmann::json j = nlohmann::json::object();
    j["db"] = db;
    j["world_size"] = worldSize;
    j["ranks"] = nlohmann::json::array();
    if (ranks != nullptr) {
        for (std::size_t index : ranks->runs) j["ranks"].push_back(toJson(results.runs[index]));
        j["rank_analysis"] = toJson(ranks->analysis);
    }
    return jsonText(j) + "\n";
}

std::string renderProfileJson(const ProfiledProgramJson& program, const Results& results) {
    nlohmann::json j = nlohmann::json::object();
    j["db"] = program.db;
    j["exit_code"] = program.exitCode;
    j["ending"] = program.ending;
    j["runs"] = nlohmann::json::array();
    for (const RunAnalysis& run : results.runs) j["runs"].push_back(toJson(run));
    return jsonText(j) + "\n";
}

std::string renderProfileSummaryJson(const ProfiledProgramJson& program,
                                     const std::vector<RunId>& runs, std::int64_t events,
                                     const std::string& summary) {
    return jsonText(nlohmann::json{{"db", program.db},
                                   {"exit_code", program.exitCode},
                                   {"ending", program.ending},
                                   {"run_ids", runs},
                                   {"events", events},
                                   {"summary", summary}}) +
           "\n";
}

std::string renderAdviseJson(const std::string& db, const RunSummary& run,
                             const std::vector<Finding>& findings) {
    return jsonText(nlohmann::json{{"db", db},
                                   {"run", run.id},
                                   {"label", run.label},
                                   {"findings", findingsJson(findings)}}) +
           "\n";
}

std::string renderAdvisorRulesJson() {
    return jsonText(nlohmann::json{{"rules", advisorRulesJson()}}) + "\n";
}

}  // namespace glueprof
