// glueprof report: the trace report of one run or of an A/B pair, as HTML, Markdown or JSON.
#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <sstream>

#include "app/cli/Commands.h"
#include "app/cli/RunSelection.h"
#include "app/report/AtomicFile.h"
#include "app/report/HtmlReport.h"
#include "app/report/ResultsJson.h"
#include "app/report/ResultsMarkdown.h"
#include "app/usecases/StoredRuns.h"
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
    ReportRequest request;
    request.db = o.db;
    if (!o.runs.empty()) request.runs = parseRunIds(o.runs);
    const ReportOutcome outcome = runReport(request);
    std::string text;
    if (o.format == "html")
        text = renderResultsHtml(outcome.results);
    else if (o.format == "md")
        text = renderResultsMarkdown(outcome.results);
    else
        text = renderResultsJson(outcome.results);
    writeFileAtomically(o.out, text);
    const std::vector<RunId>& ids = outcome.runs;
    if (!ids.empty()) {
        std::cout << fmt::format(
            "wrote {} ({} of run{} {})\n", o.out, o.format, ids.size() > 1 ? "s" : "",
            ids.size() > 1 ? fmt::format("{} vs {}", ids[0], ids[1]) : std::to_string(ids[0]));
    } else {
        std::string pairs;
        for (const auto& [baseline, optimized] : outcome.pairs)
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
