#include "profiler/import/ChromeJsonTokenizer.h"

#include <fmt/format.h>
#include <rapidjson/error/en.h>

#include "profiler/core/Error.h"
#include "profiler/import/ChromeJsonHandler.h"
#include "profiler/import/EventPrescan.h"
#include "profiler/import/JsonScanner.h"

namespace glueprof {

namespace {

// A UTF-8 byte order mark before the JSON (some editors write one) is no part of it.
void skipByteOrderMark(CompressedInput& input) {
    if (input.Peek() != '\xEF') return;
    input.Take();
    if (input.Peek() == '\xBB') input.Take();
    if (input.Peek() == '\xBF') input.Take();
}

// Why the reader stopped before the end: the input, the handler, or the JSON itself.
[[noreturn]] void throwParseFailure(const std::string& path, CompressedInput& input,
                                    const ChromeJsonHandler& handler, rapidjson::ParseResult ok) {
    if (!handler.error().empty()) throw inputError(handler.error());
    // The reader takes a NUL byte for the end of the input, as RapidJSON's does: one before the
    // real end is binary data (20 MiB of zeros in a gzip is not an empty trace).
    if (!input.atEnd() && input.Peek() == '\0') {
        throw inputError(
            fmt::format("'{}': not JSON: byte {}{} is a NUL byte (binary data, not text); pass a "
                        "Kineto/Chrome JSON trace",
                        path, input.Tell(), input.gzipped() ? " of the decompressed data" : ""));
    }
    if (input.Tell() == 0 && ok.Code() == rapidjson::kParseErrorDocumentEmpty) {
        throw inputError(fmt::format("'{}' is empty; pass a trace file", path));
    }
    throw inputError(fmt::format("'{}': invalid JSON at byte {}: {}; is the file complete?", path,
                                 ok.Offset(), rapidjson::GetParseError_En(ok.Code())));
}

}  // namespace

ChromeFileFacts tokenizeChromeJson(const std::string& path, CompressedInput& input,
                                   RawEventSink& sink, const PrescanOptions& prescan) {
    TokenBound bound;
    ChromeJsonHandler handler(
        path, [&input] { return input.Tell(); }, sink, bound);
    skipByteOrderMark(input);
    // A recursive reader; the handler bounds its depth, and the bound the length of a token the
    // reader copies before the handler sees it.
    JsonScanner<ChromeJsonHandler> scanner(input, handler, bound);
    EventPrescan ahead(path, input, handler, prescan);
    scanner.setHook(&ahead);
    rapidjson::ParseResult ok;
    try {
        ok = scanner.parse();
    } catch (const OverlongToken&) {
        throw inputError(handler.refusedToken());
    }
    handler.facts().prescan = ahead.counts();
    if (!input.failure().empty()) {
        throw inputError(
            fmt::format("'{}': {} after {} bytes of JSON; copy or export the trace "
                        "again",
                        path, input.failure(), input.Tell()));
    }
    if (!handler.error().empty() || !ok) throwParseFailure(path, input, handler, ok);
    if (!handler.sawEvents()) {
        throw inputError(fmt::format(
            "'{}' has no traceEvents array: not a Chrome/Kineto trace (torch.profiler's "
            "export_chrome_trace writes one)",
            path));
    }
    return std::move(handler.facts());
}

}  // namespace glueprof
