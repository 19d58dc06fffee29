#include "app/report/Findings.h"

#include "analyzers/AdvisorRules.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "analyzers/Statistics.h"

namespace glueprof {

std::string toggleText(const Finding& f) {
    if (f.inUserProgram) return "a change to the program";
    return f.toggle.empty() ? "no toggle yet" : "try `" + f.toggle + "`";
}

std::string renderFindingsText(const std::vector<Finding>& findings, bool hostRecorded) {
    if (findings.empty() && !hostRecorded)
        return "  No finding the trace can support: its host side is recorded in part (the "
               "coverage above), so the rules that read what the host did did not run, and the "
               "device's own rules found nothing\n";
    if (findings.empty()) return fmt::format("  {}\n", kNoFindingsText);
    std::string out;
    for (const Finding& f : findings) {
        out += fmt::format("  [{}] {}: up to {:.3f} ms per step\n    {}\n    fix: {}\n", f.rule,
                           toggleText(f), f.savingMsPerStep, f.evidence, f.fix);
    }
    return out;
}

namespace {

// "name 38%, name 31%, ...": the causes of 1%+ of the median step, largest first.
template <std::size_t N, typename Say>
std::string largestCauses(const std::array<double, N>& medianMs, double wallMs, Say say) {
    std::vector<std::pair<double, std::size_t>> causes;
    for (std::size_t c = 0; c < N; ++c)
        if (wallMs > 0.0 && medianMs[c] >= 0.01 * wallMs) causes.push_back({medianMs[c], c});
    std::sort(causes.begin(), causes.end(), [](const auto& a, const auto& b) { return a > b; });
    std::string text;
    for (const auto& [ms, c] : causes)
        text += fmt::format("{}{} {:.0f}%", text.empty() ? "" : ", ", say(c), 100.0 * ms / wallMs);
    return text;
}

}  // namespace

std::string renderStepCausesText(const StepAttributionResult& device,
                                 const HostStepAttributionResult& host) {
    if (!device.steps.empty()) {
        std::vector<double> walls;
        for (const StepAttribution& a : device.steps)
            if (a.device == device.steps.front().device)
                walls.push_back(static_cast<double>(a.wallNs) / 1e6);
        const double wallMs = median(walls);
        const std::string causes = largestCauses(device.medianMs, wallMs, [](std::size_t c) {
            return std::string(toString(static_cast<StepCause>(c)));
        });
        std::string line = fmt::format("  step time by cause (median step {:.3f} ms, GPU {}): {}\n",
                                       wallMs, device.steps.front().device, causes);
        if (!device.coverage.complete())
            line += "  host coverage: " + device.coverage.describe() + "\n";
        return line;
    }
    if (host.steps.empty()) return "";
    std::vector<double> walls;
    for (const HostStepAttribution& a : host.steps)
        walls.push_back(static_cast<double>(a.wallNs) / 1e6);
    const double wallMs = median(walls);
    return fmt::format("  step time by cause (median step {:.3f} ms, {}): {}\n", wallMs,
                       host.thread, largestCauses(host.medianMs, wallMs, [](std::size_t c) {
                           return std::string(toString(static_cast<HostCause>(c)));
                       }));
}

namespace {
// The step-time causes a finding or a rule claims, by their JSON keys.
nlohmann::json claimsJson(const std::vector<StepCause>& claims) {
    nlohmann::json j = nlohmann::json::array();
    for (StepCause c : claims) j.push_back(stepCauseKey(c));
    return j;
}
}  // namespace

nlohmann::json findingsJson(const std::vector<Finding>& findings) {
    nlohmann::json j = nlohmann::json::array();
    for (const Finding& f : findings) {
        nlohmann::json metrics = nlohmann::json::array();
        for (const FindingMetric& m : f.metrics)
            metrics.push_back({{"name", m.name}, {"value", m.value}, {"unit", m.unit}});
        nlohmann::json refs = nlohmann::json::array();
        for (const FindingRef& r : f.refs) {
            nlohmann::json ref = {{"role", r.role}, {"name", r.name}};
            if (!r.detail.empty()) ref["detail"] = r.detail;
            refs.push_back(ref);
        }
        j.push_back({{"rule", f.rule},
                     {"toggle", f.toggle},
                     {"in_user_program", f.inUserProgram},
                     {"saving_ms_per_step", f.savingMsPerStep},
                     {"evidence", f.evidence},
                     {"fix", f.fix},
                     {"metrics", metrics},
                     {"refs", refs},
                     {"claims", claimsJson(f.claims)}});
    }
    return j;
}

namespace {
const char* scopeName(RuleScope scope) {
    return scope == RuleScope::kDevice ? "GPU traces" : "any run";
}
}  // namespace

std::string renderAdvisorRulesText() {
    std::string out =
        fmt::format("{} rules, in the order the advisor runs them:\n", advisorRules().size());
    for (const AdvisorRule& rule : advisorRules()) {
        out += fmt::format("  {} ({}; {})\n    {}\n", rule.id, scopeName(rule.scope),
                           *rule.toggle != '\0' ? fmt::format("toggle `{}`", rule.toggle)
                                                : std::string("no toggle"),
                           rule.looksFor);
        out += fmt::format("    fix: {}\n", rule.fix);
        if (!rule.claims.empty()) {
            std::string claims;
            for (StepCause c : rule.claims)
                claims += (claims.empty() ? "" : ", ") + std::string(stepCauseKey(c));
            out += fmt::format("    claims: {}\n", claims);
        }
        for (const RuleThreshold& t : rule.thresholds)
            out += fmt::format("    threshold {} = {:g}: {}\n", t.name, t.value, t.meaning);
    }
    return out;
}

nlohmann::json advisorRulesJson() {
    nlohmann::json rules = nlohmann::json::array();
    for (const AdvisorRule& rule : advisorRules()) {
        nlohmann::json thresholds = nlohmann::json::object();
        for (const RuleThreshold& t : rule.thresholds)
            thresholds[t.name] = {{"value", t.value}, {"meaning", t.meaning}};
        rules.push_back({{"rule", rule.id},
                         {"scope", rule.scope == RuleScope::kDevice ? "device" : "trace"},
                         {"toggle", rule.toggle},
                         {"looks_for", rule.looksFor},
                         {"fix", rule.fix},
                         {"claims", claimsJson(rule.claims)},
                         {"thresholds", thresholds}});
    }
    return rules;
}

}  // namespace glueprof
