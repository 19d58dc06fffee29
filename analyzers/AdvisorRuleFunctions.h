#pragma once
// The functions of the advisor's rules, for its table (AdvisorRules.cpp) only: the trace rules are
// in Advisor.cpp, the device rules in DeviceAdvisorRules.cpp, the rules over kernels, streams
// and compilation in KernelAdvisorRules.cpp. Each looks at the context and
// appends what it finds, with the rule's id, toggle and thresholds.
#include <memory>
#include <vector>

#include "analyzers/AdvisorRules.h"

namespace glueprof::rule_functions {

#define GLUEPROF_RULE_FUNCTION(name)                                  \
    void name(const AdvisorContext& context, const AdvisorRule& rule, \
              std::vector<Finding>& findings)

GLUEPROF_RULE_FUNCTION(repeatedPackedMetadata);
GLUEPROF_RULE_FUNCTION(repeatedGlue);
GLUEPROF_RULE_FUNCTION(perExpertRoutingReads);
GLUEPROF_RULE_FUNCTION(bincountHiddenRead);
GLUEPROF_RULE_FUNCTION(exposedReloads);
GLUEPROF_RULE_FUNCTION(stageImbalance);
GLUEPROF_RULE_FUNCTION(repeatedHostSyncs);
GLUEPROF_RULE_FUNCTION(repeatedWouldSyncs);
GLUEPROF_RULE_FUNCTION(perLayerGlue);
GLUEPROF_RULE_FUNCTION(blockingAllReduces);
GLUEPROF_RULE_FUNCTION(launchBound);
GLUEPROF_RULE_FUNCTION(hostBoundOps);
GLUEPROF_RULE_FUNCTION(exposedCommunication);
GLUEPROF_RULE_FUNCTION(pageableCopies);
GLUEPROF_RULE_FUNCTION(syncStalls);
GLUEPROF_RULE_FUNCTION(elementwiseFusion);
GLUEPROF_RULE_FUNCTION(allocatorChurn);
GLUEPROF_RULE_FUNCTION(dataLoaderStall);
GLUEPROF_RULE_FUNCTION(hostOutsideTorch);
GLUEPROF_RULE_FUNCTION(crossStreamWaits);
GLUEPROF_RULE_FUNCTION(warmupInProfile);
GLUEPROF_RULE_FUNCTION(jitCompile);
GLUEPROF_RULE_FUNCTION(fp32Gemms);
GLUEPROF_RULE_FUNCTION(serializedStreams);
GLUEPROF_RULE_FUNCTION(dataOnStepThread);

#undef GLUEPROF_RULE_FUNCTION

}  // namespace glueprof::rule_functions

namespace glueprof {

// The device view of a trace with device work (null without), its sync stalls found; and the mean
// measured step (ms) that caps a device rule's saving (negative: no measured step, no cap).
std::shared_ptr<const DeviceView> deviceViewOf(const AdvisorInput& input);
double meanMeasuredStepMs(const DeviceView& view);
// Whether the trace records the host's side of the device's work (HostCoverage.h).
bool hostSideRecorded(const DeviceView& view);

}  // namespace glueprof
