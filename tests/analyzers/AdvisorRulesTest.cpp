#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <stdexcept>
#include <string>

#include "analyzers/AdvisorRules.h"
#include "profiler/core/ToggleCatalog.h"

namespace glueprof {
namespace {

// The rule -> toggle map names toggles by string: each must be in the catalogue, or `advise` would
// recommend a toggle nobody can run.
TEST(AdvisorRulesTest, EveryRuleWithAToggleNamesACatalogueToggle) {
    for (const char* rule :
         {advisor_rules::kRepeatedPackedMetadata, advisor_rules::kPerExpertRoutingReads,
          advisor_rules::kBincountHiddenRead, advisor_rules::kExposedReloads,
          advisor_rules::kStageImbalance, advisor_rules::kBlockingAllReduces}) {
        const std::string toggle = toggleForAdvisorRule(rule);
        ASSERT_FALSE(toggle.empty()) << rule;
        EXPECT_NE(findToggleInfo(toggle), nullptr) << rule << " -> " << toggle;
    }
    EXPECT_EQ(toggleForAdvisorRule(advisor_rules::kRepeatedGlue), "");
    EXPECT_EQ(toggleForAdvisorRule(advisor_rules::kRepeatedHostSyncs), "");
    EXPECT_EQ(toggleForAdvisorRule("no such rule"), "");
}

// The table is the one list of rules: ids unique, every toggle the catalogue's, a function each,
// thresholds named once per rule, and docs/metrics.md ("Advisor") naming every rule.
TEST(AdvisorRulesTest, TheTableListsEachRuleOnceAndTheDocsNameThemAll) {
    std::ifstream in(std::string(GLUEPROF_SOURCE_DIR) + "/docs/metrics.md");
    const std::string docs((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ASSERT_FALSE(docs.empty());
    std::set<std::string> ids;
    for (const AdvisorRule& rule : advisorRules()) {
        EXPECT_TRUE(ids.insert(rule.id).second) << rule.id << " is in the table twice";
        EXPECT_NE(rule.find, nullptr) << rule.id;
        EXPECT_EQ(findAdvisorRule(rule.id), &rule);
        if (*rule.toggle != '\0') {
            EXPECT_NE(findToggleInfo(rule.toggle), nullptr) << rule.id;
        }
        std::set<std::string> names;
        for (const RuleThreshold& t : rule.thresholds) {
            EXPECT_TRUE(names.insert(t.name).second) << rule.id << ": " << t.name << " twice";
            EXPECT_EQ(rule.threshold(t.name), t.value);
        }
        EXPECT_THROW(rule.threshold("no such threshold"), std::logic_error);
        EXPECT_NE(docs.find("`" + std::string(rule.id) + "`"), std::string::npos)
            << rule.id << " is not in docs/metrics.md";
    }
    EXPECT_EQ(ids.size(), 25u);
    EXPECT_EQ(findAdvisorRule("no such rule"), nullptr);
}

}  // namespace
}  // namespace glueprof

namespace glueprof {
namespace {

TEST(AdvisorRulesTest, EveryRuleSaysWhatItMeasuredAndNamesAFix) {
    for (const AdvisorRule& rule : advisorRules()) {
        EXPECT_FALSE(rule.says.empty()) << rule.id;
        EXPECT_NE(rule.fix, nullptr) << rule.id;
        EXPECT_NE(*rule.fix, '\0') << rule.id;
    }
}

// A finding's sentence is rendered from its data: a clause is said when its names are there and
// its `unless` is not; a role of several references is one list.
TEST(AdvisorRulesTest, TheSentenceIsRenderedFromTheFindingsMetricsAndReferences) {
    const AdvisorRule& rule = *findAdvisorRule(advisor_rules::kRepeatedWouldSyncs);
    Finding f;
    f.pointsAt("op", "aten::item").measured("per_step", 5, "count/step");
    f.measured("ms_per_step", 0.25, "ms/step");
    EXPECT_EQ(sayFinding(rule, f),
              "aten::item is issued 5 times per step outside any range, 0.250 ms per step: each "
              "reads a value back to the host, which on a GPU waits for the device");
    f.pointsAt("range", "Optimizer.step#AdamW.step").pointsAt("optimizer", "AdamW.step");
    EXPECT_EQ(sayFinding(rule, f),
              "aten::item is issued 5 times per step inside Optimizer.step#AdamW.step, 0.250 ms "
              "per step: AdamW.step reads each parameter's step count (a CPU tensor: no wait for "
              "the device, but host time each)");

    const AdvisorRule& copies = *findAdvisorRule(advisor_rules::kPageableCopies);
    Finding p;
    p.measured("copies_per_step", 3, "count/step").measured("call_ms_per_step", 1.5, "ms/step");
    p.pointsAt("issuer", "aten::to", "(2 per step, host to device)");
    p.pointsAt("issuer", "aten::item", "(1 per step, device to host)");
    EXPECT_NE(sayFinding(copies, p).find("issued by aten::to (2 per step, host to device); "
                                         "aten::item (1 per step, device to host)"),
              std::string::npos)
        << sayFinding(copies, p);
    // A metric of the wrong kind for its clause's format is the rule's bug, named.
    Finding wrong;
    wrong.measured("copies_per_step", 3, "count/step").pointsAt("call_ms_per_step", "x");
    wrong.pointsAt("issuer", "aten::to");
    EXPECT_THROW(sayFinding(copies, wrong), std::logic_error);
}

}  // namespace
}  // namespace glueprof

namespace glueprof {
namespace {

// Every clause of every rule renders once its names are there: a wording mistake (an unclosed
// brace, a spec that fits no value) fails here, not in a user's report.
TEST(AdvisorRulesTest, EveryClauseOfEveryRuleRendersWithItsNames) {
    const std::regex name(R"(\{([a-z_]+)(:[^}]*)?\})");
    for (const AdvisorRule& rule : advisorRules()) {
        for (const RuleClause& clause : rule.says) {
            Finding f;
            const std::string text = clause.text;
            for (std::sregex_iterator m(text.begin(), text.end(), name), end; m != end; ++m) {
                const std::string n = (*m)[1];
                bool threshold = false;
                for (const RuleThreshold& t : rule.thresholds) threshold = threshold || n == t.name;
                if (threshold || f.metric(n) != nullptr) continue;
                // A format spec means a number; a count or a name is said as text.
                if ((*m)[2].matched)
                    f.measured(n, 1.5, "ms");
                else
                    f.measured(n, 3, "count");
            }
            std::string said;
            EXPECT_NO_THROW(said = sayFinding(rule, f)) << rule.id << ": " << clause.text;
            if (clause.unless == nullptr) {
                EXPECT_FALSE(said.empty()) << rule.id << ": " << text;
            }
        }
    }
}

}  // namespace
}  // namespace glueprof

namespace glueprof {
namespace {

Finding claiming(const char* rule, double saving, std::vector<StepCause> claims) {
    Finding f;
    f.rule = rule;
    f.savingMsPerStep = saving;
    f.claims = std::move(claims);
    return f;
}

// No two findings claim the same time: the largest takes first, each at most what is left of the
// causes its fix removes; a finding of host time the attribution does not cut keeps its saving.
TEST(AdvisorRulesTest, FindingsClaimTheAttributedTimeOnceLargestFirst) {
    std::vector<Finding> findings = {
        claiming("b", 4.0, {StepCause::kLaunch, StepCause::kSyncWait}),
        claiming("d", 2.0, {StepCause::kData}),
        claiming("a", 5.0, {StepCause::kLaunch}),
        claiming("c", 3.0, {}),
    };
    std::array<double, kStepCauseCount> budget{};
    budget[static_cast<std::size_t>(StepCause::kLaunch)] = 6.0;
    budget[static_cast<std::size_t>(StepCause::kSyncWait)] = 1.0;
    budget[static_cast<std::size_t>(StepCause::kData)] = 0.5;
    claimAttributedTime(findings, budget);
    ASSERT_EQ(findings.size(), 4u);
    EXPECT_EQ(findings[0].rule, "a");
    EXPECT_DOUBLE_EQ(findings[0].savingMsPerStep, 5.0);
    EXPECT_EQ(findings[1].rule, "c");
    EXPECT_DOUBLE_EQ(findings[1].savingMsPerStep, 3.0);
    EXPECT_EQ(findings[2].rule, "b");
    EXPECT_DOUBLE_EQ(findings[2].savingMsPerStep, 2.0);  // launch's last 1 ms and sync's 1 ms
    EXPECT_EQ(findings[3].rule, "d");
    EXPECT_DOUBLE_EQ(findings[3].savingMsPerStep, 0.5);
}

// A device rule whose saving is the GPU's idle claims the causes of that idle; the two whose saving
// is host time in calls (pageable copies, allocator churn) claim none.
TEST(AdvisorRulesTest, EveryDeviceRuleOfIdleTimeClaimsTheCausesItsFixRemoves) {
    namespace r = advisor_rules;
    for (const AdvisorRule& rule : advisorRules()) {
        const std::string id = rule.id;
        const bool hostTime = id == r::kPageableCopies || id == r::kAllocatorChurn;
        if (rule.scope == RuleScope::kDevice && !hostTime) {
            EXPECT_FALSE(rule.claims.empty()) << rule.id;
        }
        // jit_compile, a trace rule, claims the compile time, which bounds it on a GPU trace.
        if ((rule.scope == RuleScope::kTrace && id != r::kJitCompile) || hostTime) {
            EXPECT_TRUE(rule.claims.empty()) << rule.id;
        }
    }
}

}  // namespace
}  // namespace glueprof
