// The report's one document (app/report/ReportDocument.h): built once from the results, written by
// the Markdown and HTML writers alike, no table in it twice.
#include <gtest/gtest.h>

#include <regex>

#include "app/report/HtmlReport.h"
#include "app/report/ReportBuilder.h"
#include "app/report/Results.h"
#include "app/report/ResultsMarkdown.h"

namespace glueprof {
namespace {

// A GPU-like run: steps with an op, its launch and kernel, a copy and a host sync.
TraceModel gpuRun(RunId id, TimestampNs kernelNs) {
    RunSummary run;
    run.id = id;
    run.label = "run-" + std::to_string(id);
    run.status = "complete";
    TraceModelBuilder b(run);
    const std::size_t host = b.addLane(LaneKind::kHostThread, "main", -1, 1);
    const std::size_t stream = b.addLane(LaneKind::kCudaStream, "stream 7", 0, 7);
    for (int step = 0; step < 4; ++step) {
        const TimestampNs t = step * 100000;
        b.addStep(StepInfo{step, t, t + 90000, false, 1, 1.0, 0});
        b.addEvent(host, EventKind::kOp, Category::kMath, "aten::mm", t + 1000, t + 5000, step);
        b.addEvent(host, EventKind::kRuntime, Category::kNone, "cudaLaunchKernel", t + 1100,
                   t + 1200, step)
            .correlation = 10 + step;
        b.addEvent(stream, EventKind::kKernel, Category::kNone, "ampere_sgemm", t + 3000,
                   t + 3000 + kernelNs, step)
            .correlation = 10 + step;
        b.addEvent(stream, EventKind::kMemcpy, Category::kCopy, "Memcpy HtoD", t + 60000, t + 61000,
                   step);
        b.addEvent(host, EventKind::kSync, Category::kSync, "cudaStreamSynchronize", t + 70000,
                   t + 80000, step);
    }
    return std::move(b).build();
}

std::size_t count(const std::string& text, const std::regex& pattern) {
    return static_cast<std::size_t>(
        std::distance(std::sregex_iterator(text.begin(), text.end(), pattern), {}));
}

TEST(ReportDocument, MarkdownAndHtmlWriteTheSameHeadingsAndTablesOfOneDocument) {
    const TraceModel baseline = gpuRun(1, 20000);
    const TraceModel optimized = gpuRun(2, 10000);
    const Results results = buildResults({&baseline, &optimized}, "pair.sqlite");
    const ReportDocument doc = buildReportDocument(results);

    std::size_t headings = 0;
    std::size_t tables = 0;
    std::size_t figures = 0;
    std::vector<const Table*> all;
    std::vector<int> sectionOf;  // the level-2 section each table is in
    int section = 0;
    for (const Block& block : doc.blocks) {
        headings += std::holds_alternative<Heading>(block) ? 1 : 0;
        if (const auto* h = std::get_if<Heading>(&block)) section += h->level <= 2 ? 1 : 0;
        figures += std::holds_alternative<Figure>(block) ? 1 : 0;
        if (const auto* t = std::get_if<Table>(&block)) {
            ++tables;
            all.push_back(t);
            sectionOf.push_back(section);
            for (const auto& row : t->rows) EXPECT_EQ(row.size(), t->columns.size());
        }
    }
    ASSERT_GT(tables, 10u);  // the comparison and two runs' device tables
    ASSERT_GT(figures, 4u);

    const std::string md = writeMarkdown(doc);
    const std::string html = writeHtml(doc);
    EXPECT_EQ(md, renderResultsMarkdown(results));
    EXPECT_EQ(html, renderResultsHtml(results));
    EXPECT_EQ(count(md, std::regex("(^|\n)#{1,3} ")), headings);
    EXPECT_EQ(count(html, std::regex("<h[1-3][ >]")), headings);
    EXPECT_EQ(count(md, std::regex("\n\\|(---:?\\|)+\n")), tables);  // one rule per table
    EXPECT_EQ(count(html, std::regex("<table")), tables);
    EXPECT_EQ(count(md, std::regex("<svg")), 0u);             // Markdown draws no figure
    EXPECT_GE(count(html, std::regex("<svg")), figures - 1);  // an empty figure draws nothing

    // No table twice: two tables of one section with the same columns hold different rows (two
    // runs may hold equal tables, each in its own section).
    for (std::size_t i = 0; i < all.size(); ++i) {
        for (std::size_t j = i + 1; j < all.size() && sectionOf[j] == sectionOf[i]; ++j) {
            bool sameColumns = all[i]->columns.size() == all[j]->columns.size();
            for (std::size_t c = 0; sameColumns && c < all[i]->columns.size(); ++c)
                sameColumns = all[i]->columns[c].title == all[j]->columns[c].title;
            if (!sameColumns || all[i]->rows.size() != all[j]->rows.size()) continue;
            bool sameRows = true;
            for (std::size_t r = 0; sameRows && r < all[i]->rows.size(); ++r) {
                for (std::size_t c = 0; sameRows && c < all[i]->rows[r].size(); ++c) {
                    const auto& a = all[i]->rows[r][c].spans;
                    const auto& b = all[j]->rows[r][c].spans;
                    sameRows = a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(),
                                                                  [](const Span& x, const Span& y) {
                                                                      return x.text == y.text;
                                                                  });
                }
            }
            EXPECT_FALSE(sameRows) << "table " << i << " and table " << j << " are one table";
        }
    }
}

TEST(ReportDocument, TheSummaryLinksEachToggleToItsSection) {
    const TraceModel baseline = gpuRun(1, 20000);
    const TraceModel optimized = gpuRun(2, 10000);
    const std::string html = renderResultsHtml(buildResults({&baseline, &optimized}));
    EXPECT_NE(html.find("<a href=\"#ab-2\">"), std::string::npos) << html.substr(0, 3000);
    EXPECT_NE(html.find("<h2 id=\"ab-2\">"), std::string::npos);
}

TEST(ReportDocument, EachWriterEscapesTraceTextItsOwnWay) {
    ReportDocument doc;
    doc.paragraph(plain("own [1.0, 2.0] ") + foreign("*x*<b>") + plain(" ") + code("a`b|c"));
    Table t{{{"name", Align::kLeft}}};
    t.rows.push_back({code("x|y")});
    doc.table(std::move(t));
    const std::string md = writeMarkdown(doc);
    EXPECT_NE(md.find("own [1.0, 2.0] \\*x\\*\\<b\\> `ab|c`"), std::string::npos) << md;
    EXPECT_NE(md.find("| `x\\|y` |"), std::string::npos) << md;  // a pipe in a cell is escaped
    const std::string html = writeHtml(doc);
    EXPECT_NE(html.find("*x*&lt;b&gt; <code>a`b|c</code>"), std::string::npos);
}

}  // namespace
}  // namespace glueprof
