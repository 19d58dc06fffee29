#include "app/report/Findings.h"

#include "analyzers/AdvisorRules.h"

#include <fmt/format.h>

namespace glueprof {

std::string toggleText(const Finding& f) {
    if (f.inUserProgram) return "a change to the program";
    return f.toggle.empty() ? "no toggle yet" : "try `" + f.toggle + "`";
}

std::string renderFindingsText(const std::vector<Finding>& findings) {
    if (findings.empty()) return fmt::format("  {}\n", kNoFindingsText);
    std::string out;
    for (const Finding& f : findings) {
        out += fmt::format("  [{}] {}: up to {:.3f} ms per step\n    {}\n    fix: {}\n", f.rule,
                           toggleText(f), f.savingMsPerStep, f.evidence, f.fix);
    }
    return out;
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
