// glueprof report: the trace report of one run or of an A/B pair, as HTML, Markdown or JSON.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <memory>
#include <sstream>

#include "app/cli/Commands.h"
#include "app/cli/RunSelection.h"
#include "app/report/AbPairs.h"
#include "app/report/AtomicFile.h"
#include "app/report/HtmlReport.h"
#include "app/report/Results.h"
#include "app/report/ResultsJson.h"
#include "app/report/ResultsMarkdown.h"
#include "profiler/core/Error.h"
#include "profiler/core/OutputPath.h"
#include "profiler/core/TraceReader.h"

namespace glueprof::cli {

namespace {

struct ReportOptions {
    std::string db = "runs.sqlite";
    std::string runs;  // "A,B", "A" or "" (the latest A/B, else the latest run)
    std::string format = "html";
    std::string out;
};

int report(const ReportOptions& o) {
    requireOutputBesideDatabase(o.out, o.db, "--out");
    TraceReader reader(o.db);
    std::vector<RunId> ids;
    ResultsSelection selection;
    if (!o.runs.empty()) {
        ids = parseRunIds(o.runs);
    } else {
        // Every toggle's latest A/B (what `make run` did), in the order they ran; else the
        // latest run.
        std::vector<AbPair> pairs;
        for (const auto& [name, pair] : latestAbPairs(reader.listRuns())) pairs.push_back(pair);
        std::sort(pairs.begin(), pairs.end(),
                  [](const AbPair& a, const AbPair& b) { return a.optimized.id < b.optimized.id; });
        for (const AbPair& pair : pairs)
            selection.pairs.emplace_back(pair.baseline.id, pair.optimized.id);
        if (pairs.empty()) ids = {chooseRun(reader, 0, o.db)};
    }
    if (ids.size() == 2) {
        selection.pairs.emplace_back(ids[0], ids[1]);
    } else if (ids.size() == 1) {
        selection.runs = ids;
    }
    const Results built = buildResults(reader, o.db, selection);
    std::string text;
    if (o.format == "html")
        text = renderResultsHtml(built);
    else if (o.format == "md")
        text = renderResultsMarkdown(built);
    else
        text = renderResultsJson(built);
    writeFileAtomically(o.out, text);
    if (!ids.empty()) {
        std::cout << fmt::format(
            "wrote {} ({} of run{} {})\n", o.out, o.format, ids.size() > 1 ? "s" : "",
            ids.size() > 1 ? fmt::format("{} vs {}", ids[0], ids[1]) : std::to_string(ids[0]));
    } else {
        std::string pairs;
        for (const auto& [baseline, optimized] : selection.pairs)
            pairs += fmt::format("{}{} vs {}", pairs.empty() ? "" : ", ", baseline, optimized);
        std::cout << fmt::format("wrote {} ({} of the latest A/B of each toggle: runs {})\n", o.out,
                                 o.format, pairs);
    }
    return 0;
}

}  // namespace

void registerReportCommand(CLI::App& app, Action& action) {
    auto options = std::make_shared<ReportOptions>();
    CLI::App* command =
        app.add_subcommand("report", "the trace report of a run or an A/B pair: html, md or json");
    command->add_option("--db", options->db, "trace database")->capture_default_str();
    command->add_option("--runs", options->runs,
                        "RUN or BASELINE,OPTIMIZED (default: the latest A/B of every toggle, else "
                        "the latest run)");
    command
        ->add_option("--format", options->format, "html (self-contained, inline SVG), md or json")
        ->capture_default_str()
        ->check(CLI::IsMember({"html", "md", "json"}));
    command->add_option("--out", options->out, "output file")->required();
    command->callback([options, &action] { action = [options] { return report(*options); }; });
}

}  // namespace glueprof::cli
