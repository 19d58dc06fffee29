#include "app/report/GateReport.h"
#include "app/report/ResultsJson.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "app/report/Escape.h"
#include "profiler/core/Error.h"
#include "profiler/core/TargetMetric.h"
#include "profiler/core/TimingMetric.h"
#include "profiler/core/TraceNames.h"

namespace glueprof {

namespace {

constexpr const char* kFormat = "glueprof-baseline-1";

[[noreturn]] void malformed(const std::string& path, const std::string& what) {
    throw inputError(
        fmt::format("baseline '{}' is malformed: {}; fix it or write a new one with "
                    "`glueprof check --update-baseline`",
                    path, what));
}

double number(const nlohmann::json& j, const std::string& path, const std::string& where) {
    if (!j.is_number()) malformed(path, where + " must be a number");
    return j.get<double>();
}

}  // namespace

namespace {

// Where a baseline that is not JSON goes wrong: a second, SAX pass keeps the path of keys down to
// the value being read, so the message names the field ("toggles.t.min_speedup.forward_ms") and
// why, e.g. a NaN (JSON has none) or 1e309 (beyond a double), not only "not a JSON object".
class FieldOfParseError : public nlohmann::json::json_sax_t {
  public:
    std::string field() const {
        std::string text;
        for (const Level& level : m_levels) {
            if (level.array) {
                text += "[" + std::to_string(level.index) + "]";
            } else if (!level.key.empty()) {
                text += (text.empty() ? "" : ".") + level.key;
            }
        }
        return text;
    }
    std::string why() const { return m_why; }

    bool null() override { return value(); }
    bool boolean(bool) override { return value(); }
    bool number_integer(number_integer_t) override { return value(); }
    bool number_unsigned(number_unsigned_t) override { return value(); }
    bool number_float(number_float_t, const string_t&) override { return value(); }
    bool string(string_t&) override { return value(); }
    bool binary(binary_t&) override { return value(); }
    bool start_object(std::size_t) override {
        m_levels.push_back(Level{});
        return true;
    }
    bool key(string_t& name) override {
        m_levels.back().key = name;
        return true;
    }
    bool end_object() override { return end(); }
    bool start_array(std::size_t) override {
        Level array;
        array.array = true;
        m_levels.push_back(array);
        return true;
    }
    bool end_array() override { return end(); }
    bool parse_error(std::size_t position, const std::string& lastToken,
                     const nlohmann::json::exception& error) override {
        const std::string token = lastToken.substr(0, 40);  // control bytes come escaped
        // The value being read: the token's last word (it may hold the key and colon before it).
        const std::size_t wordStart = token.find_last_of(" \t\n:,[{");
        const std::string word =
            wordStart == std::string::npos ? token : token.substr(wordStart + 1);
        const auto startsWith = [&](const char* prefix) { return word.rfind(prefix, 0) == 0; };
        if (error.id == 406) {  // out_of_range: a number beyond a double
            m_why = fmt::format(
                "{} is beyond the range of a number (about 1.8e308): write a finite number", token);
        } else if (startsWith("N") || startsWith("na") || startsWith("I") || startsWith("i") ||
                   startsWith("-I") || startsWith("-i")) {
            m_why = "not a JSON number (JSON has no NaN or Infinity): write a finite number";
        } else if (token.empty()) {
            m_why = "not JSON (empty, or cut short)";
        } else {
            m_why = fmt::format("not JSON at byte {} (after '{}')", position, token);
        }
        return false;
    }

  private:
    struct Level {
        bool array = false;
        std::size_t index = 0;  // of the next element, in an array
        std::string key;        // of the value being read, in an object
    };
    bool value() {
        if (!m_levels.empty() && m_levels.back().array) ++m_levels.back().index;
        return true;
    }
    bool end() {
        m_levels.pop_back();
        return value();  // the object or array just closed is a value of its parent
    }
    std::vector<Level> m_levels;
    std::string m_why;
};

// The field and the reason a baseline that is not JSON fails at.
std::string whyNotJson(const std::string& text) {
    FieldOfParseError where;
    static_cast<void>(nlohmann::json::sax_parse(text, &where));
    const std::string field = where.field();
    const std::string why = where.why().empty() ? "not JSON" : where.why();
    return field.empty() ? why : field + ": " + why;
}

}  // namespace

namespace {

// "mask_builds_per_step": a counter of TraceNames.h, per step, as comparisons name them.
bool isGateCounter(const std::string& name) {
    const std::string suffix = "_per_step";
    if (name.size() <= suffix.size() ||
        name.compare(name.size() - suffix.size(), suffix.size(), suffix))
        return false;
    const std::string counter = name.substr(0, name.size() - suffix.size());
    for (std::size_t i = 0; i < static_cast<std::size_t>(Counter::kCount); ++i) {
        if (counter == counterName(static_cast<Counter>(i))) return true;
    }
    return false;
}

}  // namespace

GateBaseline parseGateBaseline(const std::string& text, const std::string& path) {
    nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) malformed(path, whyNotJson(text));
    if (!j.is_object()) malformed(path, "not a JSON object");
    if (!j.contains("format") || j["format"] != kFormat)
        malformed(path, fmt::format("\"format\" must be \"{}\"", kFormat));
    if (!j.contains("preset") || !j["preset"].is_string())
        malformed(path, "\"preset\" must be a string");
    if (!j.contains("toggles") || !j["toggles"].is_object() || j["toggles"].empty()) {
        malformed(path, "\"toggles\" must be a non-empty object");
    }
    GateBaseline b;
    b.preset = j["preset"].get<std::string>();
    if (j.contains("device") && !j["device"].is_string()) {
        malformed(path, "\"device\" must be a string (cpu or cuda)");
    }
    b.device = j.value("device", "cpu");
    for (const auto& [toggle, t] : j["toggles"].items()) {
        const std::string where = "toggles." + toggle;
        if (!t.is_object()) malformed(path, where + " must be an object");
        ToggleExpectation e;
        if (t.contains("counters")) {
            if (!t["counters"].is_object()) malformed(path, where + ".counters must be an object");
            for (const auto& [name, c] : t["counters"].items()) {
                const std::string at = where + ".counters." + name;
                if (!c.is_object() || !c.contains("baseline") || !c.contains("optimized")) {
                    malformed(path, at + " needs \"baseline\" and \"optimized\"");
                }
                if (!isGateCounter(name)) {
                    malformed(path, at + " is not a counter glueprof records (see docs/metrics.md: "
                                         "<counter>_per_step)");
                }
                e.counters[name] =
                    CounterExpectation{number(c["baseline"], path, at + ".baseline"),
                                       number(c["optimized"], path, at + ".optimized")};
            }
        }
        if (t.contains("min_speedup")) {
            if (!t["min_speedup"].is_object())
                malformed(path, where + ".min_speedup must be an object");
            for (const auto& [metric, floor] : t["min_speedup"].items()) {
                const std::string at = where + ".min_speedup." + metric;
                if (!parseTimingMetric(metric) && !parseTargetMetric(metric)) {
                    malformed(path, at + " is not a metric (step_ms, forward_ms, backward_ms, "
                                         "optimizer_ms, or a target: mask_build_ms, ...)");
                }
                e.minSpeedup[metric] = number(floor, path, at);
                if (e.minSpeedup[metric] < 0.0) malformed(path, at + " must not be negative");
            }
        }
        if (t.contains("loss_equal")) {
            if (!t["loss_equal"].is_boolean())
                malformed(path, where + ".loss_equal must be true or false");
            e.lossEqual = t["loss_equal"].get<bool>();
        }
        b.toggles[toggle] = e;
    }
    return b;
}

std::string renderGateBaseline(const GateBaseline& b) {
    nlohmann::json toggles = nlohmann::json::object();
    for (const auto& [toggle, e] : b.toggles) {
        nlohmann::json counters = nlohmann::json::object();
        for (const auto& [name, c] : e.counters)
            counters[name] = {{"baseline", c.baseline}, {"optimized", c.optimized}};
        nlohmann::json speedups = nlohmann::json::object();
        for (const auto& [metric, floor] : e.minSpeedup) speedups[metric] = floor;
        toggles[toggle] = {
            {"counters", counters}, {"min_speedup", speedups}, {"loss_equal", e.lossEqual}};
    }
    nlohmann::json j = {
        {"format", kFormat}, {"preset", b.preset}, {"device", b.device}, {"toggles", toggles}};
    return jsonText(j) + "\n";
}

std::string renderGateTable(const std::vector<GateCheck>& checks) {
    std::string out = fmt::format("{:<18} {:<38} {:<24} {:<30} {}\n", "toggle", "check", "expected",
                                  "measured", "result");
    int failed = 0;
    for (const GateCheck& c : checks) {
        out += fmt::format("{:<18} {:<38} {:<24} {:<30} {}\n", c.toggle, c.check, c.expected,
                           c.measured, c.passed ? "pass" : "FAIL");
        if (!c.passed) ++failed;
    }
    out += failed == 0
               ? fmt::format("\nall {} checks passed\n", checks.size())
               : fmt::format(
                     "\n{} of {} checks FAILED: a toggle no longer saves what the baseline says\n",
                     failed, checks.size());
    return out;
}

std::string renderGateJunit(const std::vector<GateCheck>& checks) {
    int failures = 0;
    for (const GateCheck& c : checks) failures += c.passed ? 0 : 1;
    std::string xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    xml += fmt::format("<testsuites name=\"glueprof check\" tests=\"{}\" failures=\"{}\">\n",
                       checks.size(), failures);
    xml += fmt::format("  <testsuite name=\"glueprof check\" tests=\"{}\" failures=\"{}\">\n",
                       checks.size(), failures);
    for (const GateCheck& c : checks) {
        xml += fmt::format("    <testcase classname=\"{}\" name=\"{}\"",
                           escapeMarkup("glueprof." + c.toggle), escapeMarkup(c.check));
        if (c.passed) {
            xml += "/>\n";
        } else {
            xml += fmt::format(
                ">\n      <failure message=\"{}\">expected {}, measured {}</failure>\n    "
                "</testcase>\n",
                escapeMarkup("expected " + c.expected + ", measured " + c.measured),
                escapeMarkup(c.expected), escapeMarkup(c.measured));
        }
    }
    xml += "  </testsuite>\n</testsuites>\n";
    return xml;
}

}  // namespace glueprof
