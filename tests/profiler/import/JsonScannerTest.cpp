// JsonScanner against RapidJSON's reader (kParseNumbersAsStringsFlag | kParseNanAndInfFlag), the
// reader it replaced: the same handler calls in the same order, and the same error, on the real
// traces, on seeded mutants of them, on every kind of bad token, and on tokens of every kind that
// cross the 1 MiB seam between two of CompressedInput's blocks (the one place the scanner copies).
#include "profiler/import/JsonScanner.h"

#include <gtest/gtest.h>
#include <rapidjson/reader.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "tests/profiler/import/ImportFixtures.h"
#include "tests/support/ScratchDirectoryTest.h"

namespace glueprof {
namespace {

namespace fs = std::filesystem;

// Every call, as text: what each reader told its handler.
struct Recorder : rapidjson::BaseReaderHandler<rapidjson::UTF8<>, Recorder> {
    std::vector<std::string> calls;
    std::size_t stopAt = SIZE_MAX;  // the call that returns false (the handler stops the read)
    bool Null() { return add("null"); }
    bool Bool(bool b) { return add(b ? "true" : "false"); }
    bool RawNumber(const char* s, rapidjson::SizeType n, bool) { return add("#" + text(s, n)); }
    bool String(const char* s, rapidjson::SizeType n, bool) { return add("s" + text(s, n)); }
    bool Key(const char* s, rapidjson::SizeType n, bool) { return add("k" + text(s, n)); }
    bool StartObject() { return add("{"); }
    bool EndObject(rapidjson::SizeType n) { return add("}" + std::to_string(n)); }
    bool StartArray() { return add("["); }
    bool EndArray(rapidjson::SizeType n) { return add("]" + std::to_string(n)); }
    static std::string text(const char* s, rapidjson::SizeType n) { return std::string(s, n); }
    bool add(std::string call) {
        calls.push_back(std::move(call));
        return calls.size() != stopAt;
    }
};

struct Outcome {
    std::vector<std::string> calls;
    rapidjson::ParseErrorCode code = rapidjson::kParseErrorNone;
    std::size_t offset = 0;
};

class JsonScannerTest : public glueprof::testing::ScratchDirectoryTest {
  protected:
    JsonScannerTest() : ScratchDirectoryTest("glueprof-scanner-") {}

    Outcome rapidjsonReads(const std::string& json, std::size_t stopAt = SIZE_MAX) {
        Recorder recorder;
        recorder.stopAt = stopAt;
        rapidjson::Reader reader;
        rapidjson::StringStream in(json.c_str());
        constexpr unsigned kFlags =
            rapidjson::kParseNumbersAsStringsFlag | rapidjson::kParseNanAndInfFlag;
        const rapidjson::ParseResult result = reader.Parse<kFlags>(in, recorder);
        return {recorder.calls, result.Code(), result.Offset()};
    }
    Outcome scannerReads(const std::string& json, std::size_t stopAt = SIZE_MAX) {
        const std::string path = (m_dir / "input.json").string();
        {
            std::ofstream out(path, std::ios::binary);
            out << json;
        }
        CompressedInput input(path);
        Recorder recorder;
        recorder.stopAt = stopAt;
        TokenBound bound;
        JsonScanner<Recorder> scanner(input, recorder, bound);
        const rapidjson::ParseResult result = scanner.parse();
        return {recorder.calls, result.Code(), result.Offset()};
    }
    // Both readers, the same calls and the same error.
    void expectSame(const std::string& json, const std::string& what,
                    std::size_t stopAt = SIZE_MAX) {
        const Outcome expected = rapidjsonReads(json, stopAt);
        const Outcome got = scannerReads(json, stopAt);
        EXPECT_EQ(got.code, expected.code) << what;
        EXPECT_EQ(got.offset, expected.offset) << what;
        ASSERT_EQ(got.calls.size(), expected.calls.size()) << what;
        for (std::size_t i = 0; i < got.calls.size(); ++i)
            ASSERT_EQ(got.calls[i], expected.calls[i]) << what << ", call " << i;
    }
};

// The Kineto traces of the repository's fixtures (and the shared ones beside the checkout, where
// there are), in the order of their paths: the same first trace, and the same mutants, everywhere.
std::vector<std::string> realTraces() {
    std::vector<std::string> paths;
    for (const char* dir : {"/tests/fixtures/import/kineto", "/../shared/fixtures/kineto"}) {
        const fs::path folder = fs::path(GLUEPROF_SOURCE_DIR + std::string(dir));
        std::error_code error;
        if (!fs::is_directory(folder, error)) continue;
        for (const auto& entry : fs::directory_iterator(folder)) {
            const std::string name = entry.path().string();
            const bool json = name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0;
            const bool gzipped =
                name.size() > 8 && name.compare(name.size() - 8, 8, ".json.gz") == 0;
            if (json || gzipped) paths.push_back(name);
        }
    }
    std::sort(paths.begin(), paths.end());
    std::vector<std::string> traces;
    for (const std::string& path : paths) traces.push_back(testing::gunzip(path));
    return traces;
}

TEST_F(JsonScannerTest, ReadsTheRealTracesAsRapidJsonDoes) {
    const std::vector<std::string> traces = realTraces();
    ASSERT_FALSE(traces.empty());
    for (std::size_t i = 0; i < traces.size(); ++i)
        expectSame(traces[i], "trace " + std::to_string(i));
}

// Each kind of token, well formed and not: literals, numbers (NaN and Infinity among them),
// escapes, surrogates, control bytes, a NUL byte, what may follow a value, an empty document.
TEST_F(JsonScannerTest, EveryKindOfTokenAndMistakeGivesRapidJsonsCallsAndError) {
    const std::vector<std::string> documents = {
        "",
        "   ",
        "null",
        "[true, false, null]",
        "[tru]",
        "[nul, 1]",
        "[0, -0, 12, -3.25, 1e5, 1E+5, 2.5e-3, 1700000000000000.125]",
        "[01]",
        "[1.]",
        "[1.e3]",
        "[1e]",
        "[1e+]",
        "[-]",
        "[- 1]",
        "[NaN, Infinity, -Infinity, Inf, -Inf]",
        "[Nan]",
        "[Infinit]",
        "[+1]",
        "[1e308, 1e309, 1e400, -1e309, 1.5e308, 0.000001e314, 1e-400, 1e-99999999999]",
        "[1e400]",
        "[-1e400]",
        "[2.5e308]",
        "[1" + std::string(400, '0') + "]",
        "[1" + std::string(300, '0') + "]",
        "[-1" + std::string(400, '7') + ".5]",
        "[18446744073709551615, 18446744073709551616, -9223372036854775808, "
        "-9223372036854775809, 4294967295, 4294967296, -2147483648, -2147483649]",
        "[0.1234567890123456789012345e300, 123456789012345678901234.5e290]",
        "[NaN.5, NaNe5, Infinity.0e3, -Inf.25, NaNe400]",
        "[.5]",
        R"(["plain", "tab\tnew\nline", "q\"uote", "back\\slash", "sl\/ash", "\b\f\r"])",
        R"(["\u0041\u00e9\u20ac", "\ud83d\ude00", "\u0000x"])",
        R"(["\ud83d"])",
        R"(["\ud83dx"])",
        R"(["\ud83d\u0041"])",
        R"(["\u12G4"])",
        R"(["\x"])",
        "[\"control\x01byte\"]",
        std::string("[\"nul\0byte\"]", 12),
        std::string("[1, 2]\0 trailing", 16),
        "[\"unterminated",
        R"({"a": 1, "b": [1, {"c": null}], "d": {}})",
        R"({"a" 1})",
        R"({"a": 1,})",
        R"({"a": 1 "b": 2})",
        R"({1: 2})",
        "[1, 2,]",
        "[1 2]",
        "[1, 2] [3]",
        "{\"traceEvents\": [{\"ph\": \"X\"}]}  \n\t\r ",
        "\xEF\xBB\xBF[1]",
        "]",
        "}",
    };
    for (const std::string& json : documents) expectSame(json, "'" + json + "'");
}

// The handler stops the read at each of its calls in turn: the same calls, the same
// kParseErrorTermination at the same byte.
TEST_F(JsonScannerTest, AHandlerThatStopsTheReadStopsItAtTheSameByte) {
    const std::string json =
        R"({"traceEvents": [{"ph": "X", "ts": 1700000000000000.125, "args": {"n": null, )"
        R"("t": true, "s": "\u00e9x", "a": [1, -2.5e3, NaN]}}], "otherData": {}})";
    const std::size_t calls = rapidjsonReads(json).calls.size();
    ASSERT_GT(calls, 20u);
    for (std::size_t stop = 1; stop <= calls; ++stop)
        expectSame(json, "stopped at call " + std::to_string(stop), stop);
    expectSame("\"x\"", "a string that ends the document, stopped", 1);
    expectSame("12", "a number that ends the document, stopped", 1);
}

// A document whose tokens fall across the seam between the first two blocks: padding before a
// tail of every token kind puts each byte of the tail, in turn, at the seam.
TEST_F(JsonScannerTest, TokensAcrossTheBlockSeamReadAsRapidJsonReadsThem) {
    constexpr std::size_t kBlock = std::size_t{1} << 20;  // CompressedInput's block
    const std::string tail =
        R"(, "a key", {"k\"ey": -12.5e+3, "n": null, "t": true, "f": false}, "esc\u00e9\n",)"
        R"( [NaN, -Infinity, 1700000000000000.125], "longer string of plain text", 0])";
    for (std::size_t at = 0; at < tail.size() + 2; ++at) {
        // "[" + a padding string + tail, with the seam `at` bytes into the tail.
        const std::size_t padding = kBlock - 2 - at;
        const std::string json = "[\"" + std::string(padding - 1, 'p') + "\"" + tail;
        expectSame(json, "seam at byte " + std::to_string(at) + " of the tail");
    }
    // Whitespace that runs over the seam, then a value.
    expectSame("[" + std::string(kBlock + 10, ' ') + "1]", "whitespace over the seam");
    // A string of two blocks and more, escaped at both seams.
    expectSame("[\"" + std::string(kBlock - 3, 'x') + "\\n" + std::string(kBlock, 'y') + "\"]",
               "a string over two seams");
}

// Seeded mutants of a real trace (bytes flipped, deleted, duplicated): the readers agree on each.
TEST_F(JsonScannerTest, MutantsOfARealTraceReadAsRapidJsonReadsThem) {
    const std::vector<std::string> traces = realTraces();
    ASSERT_FALSE(traces.empty());
    const std::string& base = traces.front();
    std::mt19937_64 random(2026);
    const std::string alphabet = "{}[]\",:.-+eE0123456789 \n\\untfalsNIy\x01";
    for (int i = 0; i < 300; ++i) {
        std::string json = base.substr(0, std::min<std::size_t>(base.size(), 4000));
        std::uniform_int_distribution<std::size_t> at(0, json.size() - 1);
        std::uniform_int_distribution<std::size_t> pick(0, alphabet.size() - 1);
        for (int m = 0; m < 3; ++m) {
            const std::size_t p = at(random) % json.size();
            switch (random() % 3) {
                case 0:
                    json[p] = alphabet[pick(random)];
                    break;
                case 1:
                    json.erase(p, 1);
                    break;
                default:
                    json.insert(p, 1, alphabet[pick(random)]);
                    break;
            }
        }
        expectSame(json, "mutant " + std::to_string(i));
    }
}

}  // namespace
}  // namespace glueprof
