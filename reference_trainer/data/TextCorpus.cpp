#include "reference_trainer/data/TextCorpus.h"

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string_view>
#include <vector>

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

namespace {

// The file's bytes, read a MiB at a time and checked as they come: a device or a binary file is
// refused at its first byte that is not UTF-8, and nothing past kMaxCorpusBytes is held.
std::string readUtf8Text(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    if (!file) {
        throw inputError(fmt::format("--data {}: cannot open the file; check the path", path));
    }
    std::string text;
    std::size_t checked = 0;  // text[0, checked) is whole, valid UTF-8
    std::vector<char> chunk(1 << 20);
    for (;;) {
        file.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
        const std::size_t got = static_cast<std::size_t>(file.gcount());
        const bool atEnd = got == 0;
        if (text.size() + got > TextCorpus::kMaxBytes) {
            throw inputError(fmt::format(
                "--data {}: larger than {} MiB, the most a corpus may hold; give a smaller file",
                path, TextCorpus::kMaxBytes >> 20));
        }
        text.append(chunk.data(), got);
        const std::int64_t bad = firstInvalidUtf8(std::string_view(text).substr(checked));
        // A character cut by the chunk's end is completed by the next chunk.
        const bool cutCharacter =
            bad >= 0 && !atEnd && text.size() - (checked + static_cast<std::size_t>(bad)) < 4 &&
            utf8SequenceLength(text, checked + static_cast<std::size_t>(bad)) == 0 &&
            static_cast<unsigned char>(text[checked + static_cast<std::size_t>(bad)]) >= 0xC0;
        if (bad >= 0 && !cutCharacter) {
            throw inputError(fmt::format(
                "--data {}: not UTF-8 text (invalid byte at offset {}); give UTF-8 text or JSONL",
                path, checked + static_cast<std::size_t>(bad)));
        }
        checked = bad >= 0 ? checked + static_cast<std::size_t>(bad) : text.size();
        if (atEnd) return text;
    }
}

}  // namespace

TextCorpus TextCorpus::load(const std::string& path) {
    const std::string text = readUtf8Text(path);
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
