#include <gtest/gtest.h>

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

}  // namespace
}  // namespace glueprof
