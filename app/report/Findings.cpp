#include "app/report/Findings.h"

#include "app/report/Escape.h"

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
        out += fmt::format("  [{}] {}: up to {:.3f} ms per step\n    {}\n", f.rule, toggleText(f),
                           f.savingMsPerStep, f.evidence);
    }
    return out;
}

std::string renderFindingsMarkdown(const std::vector<Finding>& findings) {
    if (findings.empty()) return fmt::format("{}.\n", kNoFindingsText);
    std::string md;
    for (const Finding& f : findings) {
        md += fmt::format("- **{}** ({}, up to {:.3f} ms per step): {}\n", escapeMarkdown(f.rule),
                          escapeMarkdown(toggleText(f)), f.savingMsPerStep,
                          escapeMarkdown(f.evidence));
    }
    return md;
}

nlohmann::json findingsJson(const std::vector<Finding>& findings) {
    nlohmann::json j = nlohmann::json::array();
    for (const Finding& f : findings) {
        j.push_back({{"rule", f.rule},
                     {"toggle", f.toggle},
                     {"in_user_program", f.inUserProgram},
                     {"saving_ms_per_step", f.savingMsPerStep},
                     {"evidence", f.evidence}});
    }
    return j;
}

}  // namespace glueprof
