#include "app/report/ReportDocument.h"

#include <utility>

namespace glueprof {

Text& Text::operator+=(const Text& more) {
    spans.insert(spans.end(), more.spans.begin(), more.spans.end());
    return *this;
}

Text operator+(Text a, const Text& b) {
    a += b;
    return a;
}

namespace {
Text span(SpanStyle style, std::string text) {
    Text t;
    t.spans.push_back(Span{style, std::move(text), {}});
    return t;
}
}  // namespace

Text plain(std::string text) { return span(SpanStyle::kPlain, std::move(text)); }
Text foreign(std::string text) { return span(SpanStyle::kForeign, std::move(text)); }
Text code(std::string text) { return span(SpanStyle::kCode, std::move(text)); }
Text bold(std::string text) { return span(SpanStyle::kBold, std::move(text)); }

Text linked(Text text, const std::string& anchor) {
    for (Span& s : text.spans) s.link = anchor;
    return text;
}

void ReportDocument::heading(int level, Text text, std::string anchor) {
    blocks.emplace_back(Heading{level, std::move(text), std::move(anchor)});
}
void ReportDocument::paragraph(Text text) { blocks.emplace_back(Paragraph{std::move(text)}); }
void ReportDocument::list(std::vector<Text> items) {
    blocks.emplace_back(ListBlock{std::move(items)});
}
void ReportDocument::table(Table table) { blocks.emplace_back(std::move(table)); }
void ReportDocument::figure(Figure figure) { blocks.emplace_back(std::move(figure)); }
void ReportDocument::notice(Notice notice) { blocks.emplace_back(std::move(notice)); }

}  // namespace glueprof
