#include "reference_trainer/data/TextCorpus.h"

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "profiler/core/Error.h"
#include "profiler/core/TextEncoding.h"

namespace glueprof {

namespace {

bool endsWith(const std::string& text, const std::string& suffix) {
    return text.size() >= suffix.size() &&
           text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::vector<std::string> paragraphs(const std::string& text) {
    std::vector<std::string> documents;
    std::istringstream lines(text);
    std::string line, current;
    auto flush = [&] {
        if (!current.empty()) documents.push_back(current);
        current.clear();
    };
    while (std::getline(lines, line)) {
        if (line.find_first_not_of(" \t\r") == std::string::npos) {
            flush();
        } else {
            current += line + "\n";
        }
    }
    flush();
    return documents;
}

std::vector<std::string> jsonlTexts(const std::string& text, const std::string& path) {
    std::vector<std::string> documents;
    std::istringstream lines(text);
    std::string line;
    std::int64_t number = 0;
    while (std::getline(lines, line)) {
        ++number;
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        nlohmann::json record = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
        if (record.is_discarded() || !record.is_object() || !record.contains("text") ||
            !record["text"].is_string()) {
            throw inputError(fmt::format(
                "--data {}: line {} is not a JSON object with a string \"text\" field; give JSONL "
                "with one {{\"text\": ...}} per line, or a plain text file (not .jsonl)",
                path, number));
        }
        std::string document = record["text"].get<std::string>();
        if (!document.empty()) documents.push_back(std::move(document));
    }
    return documents;
}

}  // namespace

TextCorpus TextCorpus::load(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    if (!file) {
        throw inputError(fmt::format("--data {}: cannot open the file; check the path", path));
    }
    std::ostringstream content;
    content << file.rdbuf();
    const std::string text = content.str();
    const std::int64_t bad = firstInvalidUtf8(text);
    if (bad >= 0) {
        throw inputError(fmt::format(
            "--data {}: not UTF-8 text (invalid byte at offset {}); give UTF-8 text or JSONL", path,
            bad));
    }
    TextCorpus corpus;
    corpus.m_documents = endsWith(path, ".jsonl") || endsWith(path, ".json")
                             ? jsonlTexts(text, path)
                             : paragraphs(text);
    if (corpus.m_documents.empty()) {
        throw inputError(
            fmt::format("--data {}: no documents found (the file is empty or blank)", path));
    }
    for (const std::string& d : corpus.m_documents)
        corpus.m_bytes += static_cast<std::int64_t>(d.size());
    return corpus;
}

}  // namespace glueprof
