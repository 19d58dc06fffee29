// The report's figures as inline SVG (HtmlReport.cpp draws the document's Figure blocks with
// them): an A/B's metrics side by side, each step's parts, the step outside the math, sync points
// per layer, one step's copies and a pipeline step's workers. Colours come from Palette.h, shared
// with the GUI.
#include "app/report/HtmlFigures.h"

#include <fmt/format.h>

#include <algorithm>

#include "app/report/Escape.h"
#include "app/report/Palette.h"
#include "app/report/VerdictText.h"

namespace glueprof {

namespace {

constexpr int kChartWidth = 760;
constexpr int kLabelWidth = 170;

std::string phaseBars(const AbComparison& c) {
    double top = 0.0;
    for (const MetricComparison& m : c.metrics) top = std::max({top, m.baseline, m.optimized});
    if (top <= 0) return {};
    const int rowHeight = 44;
    std::string svg = fmt::format(
        "<svg width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"phase times before and "
        "after\">\n",
        kChartWidth, rowHeight * static_cast<int>(c.metrics.size()) + 10);
    int y = 5;
    for (const MetricComparison& m : c.metrics) {
        const double scale = (kChartWidth - kLabelWidth - 330) / top;  // room for the label
        svg += fmt::format("<text x=\"0\" y=\"{}\" class=\"label\">{}</text>\n", y + 24,
                           escapeMarkup(m.name()));
        svg += fmt::format(
            "<rect x=\"{}\" y=\"{}\" width=\"{:.1f}\" height=\"16\" fill=\"{}\"><title>baseline "
            "{:.3f} ms</title></rect>\n",
            kLabelWidth, y, std::max(1.0, m.baseline * scale), cssColour(kBaselineColour),
            m.baseline);
        svg += fmt::format(
            "<rect x=\"{}\" y=\"{}\" width=\"{:.1f}\" height=\"16\" fill=\"{}\"><title>optimized "
            "{:.3f} ms</title></rect>\n",
            kLabelWidth, y + 18, std::max(1.0, m.optimized * scale), cssColour(kOptimizedColour),
            m.optimized);
        svg += fmt::format(
            "<text x=\"{:.1f}\" y=\"{}\" class=\"value\">{:.3f} / {:.3f} ms &#8594; {}</text>\n",
            kLabelWidth + std::max(m.baseline, m.optimized) * scale + 6, y + 24, m.baseline,
            m.optimized, escapeMarkup(speedupText(m)));
        y += rowHeight;
    }
    return svg + "</svg>\n";
}

std::string legend() {
    std::string html = "<p class=\"legend\">";
    for (std::size_t p = 0; p < kGluePartCount; ++p) {
        const auto part = static_cast<GluePart>(p);
        html += fmt::format("<span><i style=\"background:{}\"></i>{}</span> ",
                            cssColour(partColour(part)), toString(part));
    }
    return html + "</p>\n";
}

// One part of a step's bar, with its time as the tooltip.
std::string partRect(double x, int y, double width, GluePart part, TimestampNs ns) {
    return fmt::format(
        "<rect x=\"{:.2f}\" y=\"{}\" width=\"{:.2f}\" height=\"14\" fill=\"{}\"><title>{} "
        "{:.3f} ms</title></rect>\n",
        x, y, width, cssColour(partColour(part)), toString(part), static_cast<double>(ns) / 1e6);
}

std::string glueBars(const RunAnalysis& r, TimestampNs widest) {
    const std::vector<GlueStep>& steps = r.analysis.glue.steps;
    if (steps.empty() || widest <= 0) return "<p>No measured steps.</p>\n";
    const int rowHeight = 18;
    std::string svg = fmt::format(
        "<svg width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"glue breakdown per step\">\n",
        kChartWidth, rowHeight * static_cast<int>(steps.size()) + 4);
    const double scale =
        static_cast<double>(kChartWidth - kLabelWidth - 90) / static_cast<double>(widest);
    int y = 2;
    for (const GlueStep& s : steps) {
        svg +=
            fmt::format("<text x=\"0\" y=\"{}\" class=\"label\">step {}</text>\n", y + 12, s.step);
        double x = kLabelWidth;
        for (std::size_t p = 0; p < kGluePartCount; ++p) {
            const double w = static_cast<double>(s.partNs[p]) * scale;
            if (w <= 0) continue;
            svg += partRect(x, y, w, static_cast<GluePart>(p), s.partNs[p]);
            x += w;
        }
        svg += fmt::format("<text x=\"{:.1f}\" y=\"{}\" class=\"value\">{:.2f} ms</text>\n", x + 4,
                           y + 12, static_cast<double>(s.wallNs) / 1e6);
        y += rowHeight;
    }
    return svg + "</svg>\n";
}

// The step outside the math, to its own scale: math folded into one labelled segment of fixed
// width (not to scale), then glue, copy, sync wait and idle scaled to the widest non-math step of
// the report, so a 1% share is as readable as the math.
std::string nonMathBars(const RunAnalysis& r, TimestampNs widestNonMath) {
    const std::vector<GlueStep>& steps = r.analysis.glue.steps;
    if (steps.empty() || widestNonMath <= 0) return {};
    const int rowHeight = 18;
    const double mathWidth = 110.0;
    std::string svg = fmt::format(
        "<svg width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"non-math parts per step\">\n",
        kChartWidth, rowHeight * static_cast<int>(steps.size()) + 4);
    const double scale =
        (kChartWidth - kLabelWidth - mathWidth - 160) / static_cast<double>(widestNonMath);
    const auto math = static_cast<std::size_t>(GluePart::kMath);
    int y = 2;
    for (const GlueStep& s : steps) {
        svg +=
            fmt::format("<text x=\"0\" y=\"{}\" class=\"label\">step {}</text>\n", y + 12, s.step);
        svg += fmt::format(
            "<rect x=\"{}\" y=\"{}\" width=\"{:.0f}\" height=\"14\" fill=\"{}\" opacity=\"0.35\">"
            "<title>math {:.3f} ms (not to scale)</title></rect>\n<text x=\"{}\" y=\"{}\" "
            "class=\"value\">math {:.1f} ms</text>\n",
            kLabelWidth, y, mathWidth - 4, cssColour(partColour(GluePart::kMath)),
            static_cast<double>(s.partNs[math]) / 1e6, kLabelWidth + 3, y + 11,
            static_cast<double>(s.partNs[math]) / 1e6);
        double x = kLabelWidth + mathWidth;
        TimestampNs outside = 0;
        for (std::size_t p = 0; p < kGluePartCount; ++p) {
            if (p == math) continue;
            outside += s.partNs[p];
            const double w = static_cast<double>(s.partNs[p]) * scale;
            if (w <= 0) continue;
            svg += partRect(x, y, w, static_cast<GluePart>(p), s.partNs[p]);
            x += w;
        }
        svg += fmt::format(
            "<text x=\"{:.1f}\" y=\"{}\" class=\"value\">{:.3f} ms outside math</text>\n", x + 4,
            y + 12, static_cast<double>(outside) / 1e6);
        y += rowHeight;
    }
    return svg + "</svg>\n";
}

std::string syncByLayer(const RunAnalysis& r) {
    const std::vector<SyncGroup>& groups = r.analysis.syncPoints.byLayer;
    if (groups.empty()) return "<p>No sync points in the measured steps.</p>\n";
    std::int64_t top = 1;
    for (const SyncGroup& g : groups) top = std::max(top, g.count);
    const int rowHeight = 18;
    std::string svg = fmt::format(
        "<svg width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"sync points per layer\">\n",
        kChartWidth, rowHeight * static_cast<int>(groups.size()) + 4);
    int y = 2;
    for (const SyncGroup& g : groups) {
        const double w = static_cast<double>(g.count) * (kChartWidth - kLabelWidth - 60) /
                         static_cast<double>(top);
        svg += fmt::format("<text x=\"0\" y=\"{}\" class=\"label\">{}</text>\n", y + 12,
                           escapeMarkup(g.key));
        svg += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{:.1f}\" height=\"14\" fill=\"{}\"/>\n",
                           kLabelWidth, y, w, cssColour(kSyncColour));
        svg += fmt::format("<text x=\"{:.1f}\" y=\"{}\" class=\"value\">{}</text>\n",
                           kLabelWidth + w + 4, y + 12, g.count);
        y += rowHeight;
    }
    return svg + "</svg>\n";
}

std::string overlapStrip(const RunAnalysis& r) {
    if (r.strip.copies.empty() || r.strip.endNs <= r.strip.startNs) return {};
    const double scale = static_cast<double>(kChartWidth - 10) /
                         static_cast<double>(r.strip.endNs - r.strip.startNs);
    auto x = [&](TimestampNs t) { return 5.0 + static_cast<double>(t - r.strip.startNs) * scale; };
    std::string svg = fmt::format(
        "<svg width=\"{}\" height=\"46\" role=\"img\" aria-label=\"copies of step {}\">\n"
        "<rect x=\"5\" y=\"4\" width=\"{}\" height=\"26\" fill=\"#F2F2F2\"/>\n",
        kChartWidth, r.strip.step, kChartWidth - 10);
    for (const CopySpan& c : r.strip.copies) {
        svg += fmt::format(
            "<rect x=\"{:.2f}\" y=\"4\" width=\"{:.2f}\" height=\"26\" fill=\"{}\"><title>{} "
            "{:.3f} ms (exposed part red)</title></rect>\n",
            x(c.startNs), std::max(0.5, x(c.endNs) - x(c.startNs)), cssColour(kExposedColour),
            escapeMarkup(c.name), static_cast<double>(c.endNs - c.startNs) / 1e6);
        for (const auto& [start, end] : c.covered) {
            svg += fmt::format(
                "<rect x=\"{:.2f}\" y=\"4\" width=\"{:.2f}\" height=\"26\" fill=\"{}\"/>\n",
                x(start), std::max(0.5, x(end) - x(start)), cssColour(kCoveredColour));
        }
    }
    svg += fmt::format(
        "<text x=\"5\" y=\"44\" class=\"value\">step {}: {:.2f} ms; copies green where compute "
        "covered them, red where exposed</text>\n",
        r.strip.step, static_cast<double>(r.strip.endNs - r.strip.startNs) / 1e6);
    return svg + "</svg>\n";
}

std::string gantt(const RunAnalysis& r) {
    if (r.gantt.bars.empty()) return {};
    const auto [start, end] = r.gantt.extent();
    if (end <= start) return {};
    const int rowHeight = 20;
    const double scale =
        static_cast<double>(kChartWidth - kLabelWidth - 10) / static_cast<double>(end - start);
    std::string svg =
        fmt::format("<svg width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"pipeline Gantt\">\n",
                    kChartWidth, rowHeight * static_cast<int>(r.gantt.workers.size()) + 4);
    for (std::size_t w = 0; w < r.gantt.workers.size(); ++w) {
        svg +=
            fmt::format("<text x=\"0\" y=\"{}\" class=\"label\">{}</text>\n",
                        2 + rowHeight * static_cast<int>(w) + 13, escapeMarkup(r.gantt.workers[w]));
    }
    for (const GanttBar& b : r.gantt.bars) {
        svg += fmt::format(
            "<rect x=\"{:.2f}\" y=\"{}\" width=\"{:.2f}\" height=\"16\" fill=\"{}\" "
            "stroke=\"#000\" stroke-width=\"0.2\"><title>{}</title></rect>\n",
            kLabelWidth + static_cast<double>(b.startNs - start) * scale,
            2 + rowHeight * static_cast<int>(b.worker),
            std::max(0.5, static_cast<double>(b.endNs - b.startNs) * scale),
            cssColour(pipelineKindColour(b.kind)), escapeMarkup(b.kind));
    }
    return svg + "</svg>\n";
}

}  // namespace

std::string drawFigure(const Figure& figure) {
    switch (figure.kind) {
        case FigureKind::kPhaseBars:
            return phaseBars(*figure.ab);
        case FigureKind::kGlueBars:
            return legend() + glueBars(*figure.run, figure.scaleNs);
        case FigureKind::kNonMathBars:
            return nonMathBars(*figure.run, figure.scaleNs);
        case FigureKind::kSyncByLayer:
            return syncByLayer(*figure.run);
        case FigureKind::kOverlapStrip:
            return overlapStrip(*figure.run);
        case FigureKind::kGantt:
            return gantt(*figure.run);
    }
    return {};
}

}  // namespace glueprof
