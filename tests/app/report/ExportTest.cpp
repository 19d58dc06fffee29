// Exports parsed back: the Chrome trace's slices nest on every tid and its ac2g flows pair up;
// names with quotes, backslashes and newlines survive; CSV fields are quoted as RFC 4180 says.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <map>
#include <sstream>

#include "app/report/ChromeTrace.h"
#include "app/report/CsvExport.h"
#include "app/report/Escape.h"
#include "app/report/Findings.h"
#include "app/report/GateReport.h"
#include "profiler/core/Error.h"
#include "profiler/core/TimingMetric.h"

namespace glueprof {
namespace {

// Host thread: step [1000, 9000) > op "aten::mm" [2000, 5000) > runtime launch [2100, 2200) (corr
// 7); a name with a quote, a backslash and a newline [6000, 7000). GPU 0 stream 13: the kernel of
// correlation 7 [3000, 4000), and a kernel of correlation 8 whose launch is missing (no flow).
TraceModel hostAndGpu() {
    RunSummary run;
    run.id = 5;
    run.label = "gpu-like";
    TraceModelBuilder b(run);
    std::size_t host = b.addLane(LaneKind::kHostThread, "main", -1, 4242);
    std::size_t stream = b.addLane(LaneKind::kCudaStream, "stream 13", 0, 13);
    b.addEvent(host, EventKind::kRange, Category::kPhase, "step", 1000, 9000, 0);
    b.addEvent(host, EventKind::kOp, Category::kMath, "aten::mm", 2000, 5000, 0);
    b.addEvent(host, EventKind::kRuntime, Category::kNone, "cudaLaunchKernel", 2100, 2200, 0)
        .correlation = 7;
    b.addEvent(host, EventKind::kOp, Category::kGlue, "odd \"name\" \\ with\nnewline", 6000, 7000,
               0);
    b.addEvent(stream, EventKind::kKernel, Category::kNone, "ampere_sgemm", 3000, 4000, 0)
        .correlation = 7;
    b.addEvent(stream, EventKind::kKernel, Category::kNone, "orphan_kernel", 4500, 4600, 0)
        .correlation = 8;
    b.addEvent(host, EventKind::kSync, Category::kSync, "cudaStreamSynchronize", 7500, 8000, 0);
    return std::move(b).build();
}

// Slices of one (pid, tid), in ns: every pair either nests or is disjoint.
bool slicesNest(std::vector<std::pair<std::int64_t, std::int64_t>> slices) {
    std::sort(slices.begin(), slices.end(), [](const auto& a, const auto& b) {
        return a.first != b.first ? a.first < b.first : a.second > b.second;
    });
    std::vector<std::int64_t> openEnds;
    for (const auto& [start, end] : slices) {
        while (!openEnds.empty() && openEnds.back() <= start) openEnds.pop_back();
        if (!openEnds.empty() && end > openEnds.back()) return false;
        openEnds.push_back(end);
    }
    return true;
}

std::int64_t ns(const nlohmann::json& micros) {
    return std::llround(micros.get<double>() * 1000.0);
}

TEST(ChromeTraceTest, SlicesNestPerTidAndFlowsPairLaunchesWithKernels) {
    std::ostringstream out;
    writeChromeTrace(hostAndGpu(), out);
    nlohmann::json j = nlohmann::json::parse(out.str());
    EXPECT_EQ(j["baseTimeNanoseconds"], 1000);
    std::map<std::pair<int, std::int64_t>, std::vector<std::pair<std::int64_t, std::int64_t>>>
        slices;
    std::map<std::int64_t, int> flowStarts, flowEnds;
    bool sawOddName = false;
    for (const nlohmann::json& e : j["traceEvents"]) {
        if (e["ph"] == "X") {
            slices[{e["pid"].get<int>(), e["tid"].get<std::int64_t>()}].push_back(
                {ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])});
            if (e["name"] == "odd \"name\" \\ with\nnewline") sawOddName = true;
            if (e["name"] == "ampere_sgemm") {
                EXPECT_EQ(e["pid"], 100);  // GPU 0
                EXPECT_EQ(e["tid"], 13);   // its stream
                EXPECT_EQ(e["cat"], "kernel");
                EXPECT_EQ(ns(e["ts"]), 2000);  // 3000 - origin 1000
            }
            if (e["name"] == "cudaStreamSynchronize") {
                EXPECT_EQ(e["cat"], "cuda_sync");
            }
        }
        if (e["ph"] == "s") ++flowStarts[e["id"].get<std::int64_t>()];
        if (e["ph"] == "f") {
            ++flowEnds[e["id"].get<std::int64_t>()];
            EXPECT_EQ(e["bp"], "e");
        }
    }
    EXPECT_TRUE(sawOddName);
    for (const auto& [where, list] : slices)
        EXPECT_TRUE(slicesNest(list)) << where.first << "/" << where.second;
    EXPECT_EQ(flowStarts, (std::map<std::int64_t, int>{{7, 1}}));  // the orphan kernel has none
    EXPECT_EQ(flowEnds, flowStarts);
}

TEST(CsvExportTest, FieldsWithCommasQuotesOrNewlinesAreQuoted) {
    EXPECT_EQ(csvField("plain"), "plain");
    EXPECT_EQ(csvField("a,b"), "\"a,b\"");
    EXPECT_EQ(csvField("say \"hi\""), "\"say \"\"hi\"\"\"");
    std::ostringstream out;
    writeEventsCsv(hostAndGpu(), out);
    const std::string csv = out.str();
    EXPECT_EQ(csv.substr(0, csv.find('\n')),
              "lane,lane_kind,lane_name,kind,category,name,start_ns,end_ns,duration_ns,step,layer,"
              "microbatch,correlation,bytes,src_kind,dst_kind,flags");
    EXPECT_NE(csv.find("\"odd \"\"name\"\" \\ with\nnewline\""), std::string::npos);
}

TEST(GateReportTest, JunitEscapesAndMalformedBaselinesNameTheField) {
    std::vector<GateCheck> checks = {{"a<b", "counter x&y", "1 -> 2", "1 -> \"1\"", false},
                                     {"ok", "loss", "", "", true}};
    const std::string xml = renderGateJunit(checks);
    EXPECT_NE(xml.find("tests=\"2\" failures=\"1\""), std::string::npos);
    EXPECT_NE(xml.find("classname=\"glueprof.a&lt;b\" name=\"counter x&amp;y\""),
              std::string::npos);
    EXPECT_NE(xml.find("measured 1 -&gt; &quot;1&quot;"), std::string::npos);
    try {
        parseGateBaseline(
            "{\"format\": \"glueprof-baseline-1\", \"preset\": \"tiny\", \"toggles\": {}}",
            "b.json");
        FAIL() << "an empty toggles object must be refused";
    } catch (const GlueprofError& e) {
        EXPECT_NE(std::string(e.what()).find("\"toggles\" must be a non-empty object"),
                  std::string::npos);
    }
    // Found by the CLI fuzz harness: a "format" or "device" of another type was an internal error.
    for (
        const char* text :
        {R"({"format": 5, "preset": "tiny", "toggles": {"t": {}}})",
         R"({"format": "glueprof-baseline-1", "preset": "tiny", "device": [], "toggles": {"t": {}}})"}) {
        try {
            parseGateBaseline(text, "b.json");
            FAIL() << text;
        } catch (const GlueprofError& e) {
            EXPECT_NE(std::string(e.what()).find("baseline 'b.json' is malformed"),
                      std::string::npos)
                << e.what();
        }
    }
    GateBaseline round = parseGateBaseline(
        renderGateBaseline(GateBaseline{
            "tiny",
            "cpu",
            {{"packed_cache", ToggleExpectation{{{"mask_builds_per_step", {8, 1}}},
                                                {{toString(TimingMetric::kForward), 0.5}},
                                                true}}}}),
        "b.json");
    EXPECT_EQ(round.toggles.at("packed_cache").counters.at("mask_builds_per_step").optimized, 1.0);
    EXPECT_EQ(round.toggles.at("packed_cache").minSpeedup.at(toString(TimingMetric::kForward)),
              0.5);
}

}  // namespace
}  // namespace glueprof

#include "app/report/Escape.h"
#include "app/report/HtmlReport.h"
#include "app/report/Results.h"
#include "app/report/ResultsJson.h"
#include "app/report/ResultsMarkdown.h"

namespace glueprof {
namespace {

// Trace-derived text stays text in every rendering: a kernel, a range and a label named like
// markup.
TEST(ResultsTest, TraceTextIsEscapedInHtmlAndMarkdown) {
    RunSummary run;
    run.id = 3;
    run.label = "<img src=x onerror=alert(1)>";
    run.preset = "tiny";
    TraceModelBuilder b(run);
    std::size_t host = b.addLane(LaneKind::kHostThread, "<b>main</b>");
    b.addStep(StepInfo{1, 0, 100, false, 1, 0.0, 0});
    b.addEvent(host, EventKind::kOp, Category::kMath, "<script>alert('x')</script>", 0, 50, 1, 0)
        .flags = kFlagWouldSync;
    b.addEvent(host, EventKind::kRange, Category::kGlue, "build_packed_mask", 50, 60, 1, 0);
    b.addEvent(host, EventKind::kRange, Category::kGlue, "build_packed_mask", 60, 70, 1, 1);
    b.addDiagnostic(Diagnostic{"dropped", 2, "<script>lost</script>"});
    TraceModel trace = std::move(b).build();
    const Results report = buildResults({&trace});
    const std::string html = renderResultsHtml(report);
    EXPECT_EQ(html.find("<script"), std::string::npos);
    EXPECT_EQ(html.find("<img"), std::string::npos);
    EXPECT_NE(html.find("&lt;img src=x onerror=alert(1)&gt;"), std::string::npos);
    EXPECT_NE(html.find("&lt;script&gt;lost&lt;/script&gt;"),
              std::string::npos);                     // diagnostics shown
    EXPECT_NE(html.find("<svg"), std::string::npos);  // charts inline
    EXPECT_EQ(html.find("http"), std::string::npos);  // nothing fetched
    const std::string md = renderResultsMarkdown(report);
    EXPECT_NE(md.find("`<img src=x onerror=alert(1)>`"), std::string::npos);  // in a code span
    EXPECT_EQ(escapeMarkup("a&b<c>\"'"), "a&amp;b&lt;c&gt;&quot;&#39;");
    const nlohmann::json j = nlohmann::json::parse(renderResultsJson(report));
    EXPECT_EQ(j["runs"][0]["label"], run.label);
    EXPECT_EQ(j["runs"][0]["findings"][0]["toggle"], "packed_cache");
}

TEST(EscapeTest, MarkdownEscapesWhatMarkdownWouldRead) {
    // Issue 17, item 8: advisor text quoting a kernel name rendered as emphasis and HTML.
    EXPECT_EQ(escapeMarkdown("void at::native::<lambda>*_x|y"),
              "void at::native::\\<lambda\\>\\*\\_x\\|y");
    EXPECT_EQ(escapeMarkdown("plain text, 1.5x"), "plain text, 1.5x");
    ReportDocument finding;
    finding.list({bold("repeated_host_syncs") + foreign("`aten::copy_` blocks <script>")});
    const std::string md = writeMarkdown(finding);
    EXPECT_NE(md.find("\\`aten::copy\\_\\` blocks \\<script\\>"), std::string::npos) << md;
}

}  // namespace
}  // namespace glueprof
