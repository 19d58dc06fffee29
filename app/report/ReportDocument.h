#pragma once
// One document behind the Markdown and HTML reports: what a report says, built once from the
// results (ReportBuilder.h) and written by one writer per format (ResultsMarkdown.h, HtmlReport.h),
// so the formats cannot disagree and no table is written twice. A document is a list of blocks —
// headings, paragraphs, lists, tables, figures and notices — in the order a reader meets them.
// Text is a run of spans: glueprof's own words and numbers, names taken from a trace (escaped by
// every writer), code and bold. Figures point at the results they draw; a format that does not
// draw (Markdown) skips them, and the figures' summary numbers (medians per part, counts, ratios)
// are in the tables and paragraphs beside them; the per-step bars, one step's copies and the
// pipeline's Gantt are drawn only.
#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "profiler/core/TraceModel.h"

namespace glueprof {

struct AbComparison;
struct RunAnalysis;

enum class SpanStyle {
    kPlain,    // glueprof's own words and numbers: Markdown writes them as they are
    kForeign,  // text from a trace, a program or a user: every writer escapes it
    kCode,     // a name shown as code
    kBold,
};

struct Span {
    SpanStyle style = SpanStyle::kPlain;
    std::string text;
    std::string link;  // the anchor of a heading it links to ("" when none); HTML draws it
};

// A run of spans, built with the helpers below and `+`.
struct Text {
    std::vector<Span> spans;
    Text& operator+=(const Text& more);
    bool empty() const { return spans.empty(); }
};
Text operator+(Text a, const Text& b);
Text plain(std::string text);
Text foreign(std::string text);
Text code(std::string text);
Text bold(std::string text);
Text linked(Text text, const std::string& anchor);  // every span of `text` links to `anchor`

struct Heading {
    int level = 2;  // 1: the report's title, 2: a section, 3: a part of one
    Text text;
    std::string anchor;  // what links point at ("" when nothing does)
};

struct Paragraph {
    Text text;
};

struct ListBlock {
    std::vector<Text> items;
};

enum class Align { kLeft, kRight };
struct Column {
    std::string title;  // glueprof's own words
    Align align = Align::kRight;
};
struct Table {
    explicit Table(std::vector<Column> columnsShown, bool isSummary = false)
        : columns(std::move(columnsShown)), summary(isSummary) {}

    std::vector<Column> columns;
    std::vector<std::vector<Text>> rows;  // one Text per column
    bool summary = false;                 // the report's summary of every A/B (HTML styles it)
};

enum class FigureKind {
    kPhaseBars,     // an A/B's metrics, baseline beside optimized (ab)
    kGlueBars,      // each measured step's parts, to the widest step's scale (run, scaleNs)
    kNonMathBars,   // each step outside the math, to the widest non-math scale (run, scaleNs)
    kSyncByLayer,   // sync points per layer (run)
    kOverlapStrip,  // the copies of one step, covered and exposed (run)
    kGantt,         // a pipeline step's workers (run)
};
struct Figure {
    FigureKind kind = FigureKind::kGlueBars;
    std::string caption;  // glueprof's words, shown above the figure by the writers that draw it
    const RunAnalysis* run = nullptr;
    const AbComparison* ab = nullptr;
    TimestampNs scaleNs = 0;  // the widest bar of the report, for bars shared across runs
};

// What a run lost (the capture missed something) or what an import noted: a titled list.
struct Notice {
    bool loss = false;
    Text title;
    std::vector<Text> items;
};

using Block = std::variant<Heading, Paragraph, ListBlock, Table, Figure, Notice>;

struct ReportDocument {
    std::vector<Block> blocks;

    void heading(int level, Text text, std::string anchor = "");
    void paragraph(Text text);
    void list(std::vector<Text> items);
    void table(Table table);
    void figure(Figure figure);
    void notice(Notice notice);
};

}  // namespace glueprof
