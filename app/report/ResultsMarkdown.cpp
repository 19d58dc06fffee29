#include "app/report/ResultsMarkdown.h"

#include <algorithm>

#include "app/report/Escape.h"
#include "app/report/ReportBuilder.h"

namespace glueprof {

namespace {

// Where text is written: in prose, or in a table cell, where a pipe would end the cell (GFM splits
// cells before it reads code spans) and is escaped.
enum class MarkdownPlace { kProse, kCell };

// Trace-derived text as inline code: a backtick would end the span and is dropped; a line break
// would end the paragraph or the table row and becomes a space.
std::string codeSpan(std::string text, MarkdownPlace place) {
    text.erase(std::remove(text.begin(), text.end(), '`'), text.end());
    std::replace(text.begin(), text.end(), '\n', ' ');
    std::replace(text.begin(), text.end(), '\r', ' ');
    std::string out = "`";
    for (char c : text) {
        if (c == '|' && place == MarkdownPlace::kCell) out += '\\';
        out += c;
    }
    return out + "`";
}

std::string markdownOf(const Text& text, MarkdownPlace place) {
    std::string md;
    for (const Span& s : text.spans) {
        switch (s.style) {
            case SpanStyle::kPlain:
                md += s.text;
                break;
            case SpanStyle::kForeign:
                md += escapeMarkdown(s.text);
                break;
            case SpanStyle::kCode:
                md += codeSpan(s.text, place);
                break;
            case SpanStyle::kBold:
                md += "**" + escapeMarkdown(s.text) + "**";
                break;
        }
    }
    return md;
}

std::string markdownOf(const Table& table) {
    std::string md = "|";
    std::string rule = "|";
    for (const Column& c : table.columns) {
        md += " " + c.title + " |";
        rule += c.align == Align::kRight ? "---:|" : "---|";
    }
    md += "\n" + rule + "\n";
    for (const std::vector<Text>& row : table.rows) {
        md += "|";
        for (const Text& cell : row) md += " " + markdownOf(cell, MarkdownPlace::kCell) + " |";
        md += "\n";
    }
    return md;
}

std::string markdownOf(const std::vector<Text>& items) {
    std::string md;
    for (const Text& item : items) md += "- " + markdownOf(item, MarkdownPlace::kProse) + "\n";
    return md;
}

// A block's Markdown; "" for what Markdown does not draw (figures).
std::string markdownOf(const Block& block) {
    if (const auto* h = std::get_if<Heading>(&block))
        return std::string(static_cast<std::size_t>(h->level), '#') + " " +
               markdownOf(h->text, MarkdownPlace::kProse) + "\n";
    if (const auto* p = std::get_if<Paragraph>(&block))
        return markdownOf(p->text, MarkdownPlace::kProse) + "\n";
    if (const auto* l = std::get_if<ListBlock>(&block)) return markdownOf(l->items);
    if (const auto* t = std::get_if<Table>(&block)) return markdownOf(*t);
    if (const auto* n = std::get_if<Notice>(&block))
        return "**" + markdownOf(n->title, MarkdownPlace::kProse) + "**\n\n" + markdownOf(n->items);
    return {};
}

}  // namespace

std::string writeMarkdown(const ReportDocument& document) {
    std::string md;
    for (const Block& block : document.blocks) {
        const std::string text = markdownOf(block);
        if (text.empty()) continue;
        if (!md.empty()) md += "\n";  // a blank line between blocks
        md += text;
    }
    return md;
}

std::string renderResultsMarkdown(const Results& results) {
    return writeMarkdown(buildReportDocument(results));
}

}  // namespace glueprof
