#pragma once
// The advisor's findings as text and JSON, shared by `advise` and `run` (the reports write them
// from their document, ReportRunSections.cpp).
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "analyzers/Advisor.h"

namespace glueprof {

// What addresses the finding: "try `TOGGLE`", "no toggle yet", or, in a user's program, "a change
// to the program".
std::string toggleText(const Finding& f);
// What every face says when no rule fired (a sentence, no final period).
constexpr const char* kNoFindingsText =
    "No finding: none of the patterns the advisor looks for (docs/metrics.md, \"Advisor\") is in "
    "this run";
// Indented lines. With no finding on a trace whose host side is recorded in part
// (`hostRecorded` false), says that the rules reading the host did not run rather than that none
// of the patterns is there.
std::string renderFindingsText(const std::vector<Finding>& findings, bool hostRecorded = true);
// Where the median measured step's time went, largest causes first (those of 1%+), as an indented
// line: per GPU's attribution on a GPU trace (with its host coverage when partial), the step's
// thread's on a CPU run; "" when the run has neither.
std::string renderStepCausesText(const StepAttributionResult& device,
                                 const HostStepAttributionResult& host);
nlohmann::json findingsJson(const std::vector<Finding>& findings);

// The advisor's rule table (analyzers/AdvisorRules.h), for `advise --rules`: each rule with its
// scope, toggle, thresholds and what it looks for, as text or JSON.
std::string renderAdvisorRulesText();
nlohmann::json advisorRulesJson();

}  // namespace glueprof
