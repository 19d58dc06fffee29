// glueprof list: the runs in a trace database.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <ctime>
#include <iostream>
#include <memory>

#include "app/cli/Commands.h"
#include "app/report/ResultsJson.h"
#include "profiler/core/RunMetadata.h"
#include "profiler/core/TraceReader.h"

namespace glueprof::cli {

namespace {

struct ListOptions {
    std::string db = "runs.sqlite";
    bool json = false;
};

std::string formatTime(std::int64_t unixNs) {
    std::time_t seconds = static_cast<std::time_t>(unixNs / 1000000000);
    std::tm utc{};
    gmtime_r(&seconds, &utc);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S", &utc);
    return text;
}

int listRuns(const ListOptions& o) {
    TraceReader reader(o.db);
    std::vector<RunSummary> runs = reader.listRuns();
    if (o.json) {
        nlohmann::json j = nlohmann::json::array();
        for (const RunSummary& r : runs) {
            j.push_back({{"id", r.id},
                         {"label", r.label},
                         {"status", r.displayStatus()},
                         {"preset", r.preset},
                         {"device", r.device},
                         {"toggles", parseStoredRunJson(r, StoredRunColumn::kToggles)},
                         {"identity", toJson(r.identity)},
                         {"steps", r.stepCount},
                         {"started_utc", formatTime(r.startedUnixNs)}});
        }
        std::cout << jsonText(j) << "\n";
        return 0;
    }
    std::cout << fmt::format("{:>4}  {:<28} {:<9} {:<8} {:<6} {:>6}  {}\n", "id", "label", "status",
                             "preset", "device", "steps", "started (UTC)");
    for (const RunSummary& r : runs) {
        std::cout << fmt::format("{:>4}  {:<28} {:<9} {:<8} {:<6} {:>6}  {}\n", r.id, r.label,
                                 r.displayStatus(), r.preset, r.device, r.stepCount,
                                 formatTime(r.startedUnixNs));
    }
    return 0;
}

}  // namespace

void registerListCommand(CLI::App& app, Action& action) {
    auto options = std::make_shared<ListOptions>();
    CLI::App* command = app.add_subcommand("list", "list the runs in a trace database");
    command->add_option("--db", options->db, "trace database")->capture_default_str();
    command->add_flag("--json", options->json, "print JSON");
    command->callback([options, &action] { action = [options] { return listRuns(*options); }; });
}

}  // namespace glueprof::cli
