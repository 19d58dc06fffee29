#include "analyzers/AdvisorRules.h"

namespace glueprof {

std::string toggleForAdvisorRule(std::string_view rule) {
    struct RuleToggle {
        const char* rule;
        const char* toggle;
    };
    static constexpr RuleToggle kToggles[] = {
        {advisor_rules::kRepeatedPackedMetadata, "packed_cache"},
        {advisor_rules::kPerExpertRoutingReads, "moe_group_once"},
        {advisor_rules::kBincountHiddenRead, "moe_sync_free"},
        {advisor_rules::kExposedReloads, "double_buffer"},
        {advisor_rules::kStageImbalance, "roundpipe"},
        {advisor_rules::kBlockingAllReduces, "ddp_overlap"},
    };
    for (const RuleToggle& entry : kToggles) {
        if (rule == entry.rule) return entry.toggle;
    }
    return {};
}

}  // namespace glueprof
