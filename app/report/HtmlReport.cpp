#include "app/report/HtmlReport.h"

#include <fmt/format.h>

#include "app/report/Escape.h"
#include "app/report/HtmlFigures.h"
#include "app/report/ReportBuilder.h"

namespace glueprof {

namespace {

std::string htmlOf(const Text& text) {
    std::string html;
    for (const Span& s : text.spans) {
        std::string span = escapeMarkup(s.text);
        if (s.style == SpanStyle::kCode) span = "<code>" + span + "</code>";
        if (s.style == SpanStyle::kBold) span = "<b>" + span + "</b>";
        if (!s.link.empty())
            span = fmt::format("<a href=\"#{}\">{}</a>", escapeMarkup(s.link), span);
        html += span;
    }
    return html;
}

// The first column is left-aligned by the style sheet, the others by their class.
bool leftAligned(const Table& table, std::size_t column) {
    return column > 0 && column < table.columns.size() &&
           table.columns[column].align == Align::kLeft;
}

std::string htmlOf(const Table& table) {
    std::string html = table.summary ? "<table class=\"summary\"><tr>" : "<table><tr>";
    for (std::size_t c = 0; c < table.columns.size(); ++c) {
        html += (leftAligned(table, c) ? "<th class=\"l\">" : "<th>") +
                escapeMarkup(table.columns[c].title) + "</th>";
    }
    html += "</tr>\n";
    for (const std::vector<Text>& row : table.rows) {
        html += "<tr>";
        for (std::size_t c = 0; c < row.size(); ++c) {
            html +=
                (leftAligned(table, c) ? "<td class=\"l\">" : "<td>") + htmlOf(row[c]) + "</td>";
        }
        html += "</tr>\n";
    }
    return html + "</table>\n";
}

std::string htmlOf(const std::vector<Text>& items) {
    std::string html = "<ul>\n";
    for (const Text& item : items) html += "<li>" + htmlOf(item) + "</li>\n";
    return html + "</ul>\n";
}

std::string htmlOf(const Block& block) {
    if (const auto* h = std::get_if<Heading>(&block)) {
        return fmt::format("<h{0}{1}>{2}</h{0}>\n", h->level,
                           h->anchor.empty() ? "" : " id=\"" + escapeMarkup(h->anchor) + "\"",
                           htmlOf(h->text));
    }
    if (const auto* p = std::get_if<Paragraph>(&block)) return "<p>" + htmlOf(p->text) + "</p>\n";
    if (const auto* l = std::get_if<ListBlock>(&block)) return htmlOf(l->items);
    if (const auto* t = std::get_if<Table>(&block)) return htmlOf(*t);
    if (const auto* f = std::get_if<Figure>(&block)) {
        const std::string svg = drawFigure(*f);
        if (svg.empty() || f->caption.empty()) return svg;
        return "<p class=\"caption\">" + escapeMarkup(f->caption) + "</p>\n" + svg;
    }
    const auto& n = std::get<Notice>(block);
    // Losses (the capture missed something) in red; what an import skipped or derived as notes.
    return fmt::format("<div class=\"{}\"><strong>{}</strong>\n{}</div>\n",
                       n.loss ? "diagnostics" : "notes", htmlOf(n.title), htmlOf(n.items));
}

}  // namespace

std::string writeHtml(const ReportDocument& document) {
    std::string html =
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>glueprof "
        "report</title>\n"
        "<style>body{font-family:sans-serif;max-width:1100px;margin:2em auto;color:#222}"
        "h1,h2,h3{font-weight:600}table{border-collapse:collapse}td,th{border:1px solid "
        "#ccc;padding:3px 8px;text-align:right}"
        "td:first-child,th:first-child{text-align:left}.label{font-size:12px}.value{font-size:11px;"
        "fill:#444}"
        ".legend span{margin-right:10px;font-size:12px}.legend "
        "i{display:inline-block;width:10px;height:10px;margin-right:4px}"
        ".diagnostics{background:#FDECEA;border:1px solid "
        "#C0504D;padding:8px}.notes{background:#f4f4f4;border:1px solid #ccc;padding:8px}"
        "code{background:#f4f4f4}td code{word-break:break-all}.summary td code{word-break:normal;"
        "white-space:nowrap}.summary td,.summary "
        "th{text-align:left;"
        "vertical-align:top;font-size:14px;line-height:1.5}"
        "td.l,th.l{text-align:left}.caption{font-size:13px;color:#444;margin-bottom:2px}</style>\n"
        "</head><body>\n";
    for (const Block& block : document.blocks) html += htmlOf(block);
    return html + "</body></html>\n";
}

std::string renderResultsHtml(const Results& results) {
    return writeHtml(buildReportDocument(results));
}

}  // namespace glueprof
