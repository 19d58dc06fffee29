#include "optimizations/moe_routing/MoeRouting.h"

#include "profiler/core/TraceNames.h"
#include "profiler/host/ScopedRange.h"
#include "profiler/torch_ops/HostRead.h"

namespace glueprof {

const char* toString(MoeRoutingMode mode) {
    switch (mode) {
        case MoeRoutingMode::kPerExpert:
            return "per_expert";
        case MoeRoutingMode::kGroupOnce:
            return "group_once";
        case MoeRoutingMode::kSyncFree:
            return "sync_free";
    }
    return "unknown";
}

namespace {

std::vector<ExpertTokens> routePerExpert(const at::Tensor& topExperts, std::int64_t experts) {
    std::vector<ExpertTokens> routes;
    for (std::int64_t e = 0; e < experts; ++e) {
        // where(mask) is nonzero underneath: its output size is read back to the host.
        at::Tensor tokens = at::where(topExperts == e)[0];
        if (tokens.numel() > 0) routes.push_back(ExpertTokens{e, tokens});
    }
    return routes;
}

std::vector<ExpertTokens> routeGrouped(MoeRoutingMode mode, const at::Tensor& topExperts,
                                       std::int64_t experts) {
    const std::int64_t k = topExperts.size(1);
    at::Tensor flat = topExperts.reshape({-1});  // [T*K], index = token * K + slot
    // Stable: equal expert ids keep ascending flat index, so ascending token order per expert.
    at::Tensor order =
        std::get<1>(at::sort(flat, /*stable=*/true, /*dim=*/0, /*descending=*/false));
    at::Tensor tokenOfSorted = at::div(order, k, "floor");
    at::Tensor counts;
    if (mode == MoeRoutingMode::kGroupOnce) {
        // bincount has no deterministic CUDA kernel; its integer counts are exact anyway. Under a
        // CUDA A/B's deterministic mode it would warn on every call (inside the timed forward of
        // one arm only) or throw: the switch is off around it.
        // NOTE(determinism): the flag is process-wide; another thread's op in this window runs
        // unchecked.
        const bool deterministic = at::globalContext().deterministicAlgorithms();
        const bool warnOnly = at::globalContext().deterministicAlgorithmsWarnOnly();
        if (deterministic) at::globalContext().setDeterministicAlgorithms(false, false);
        counts = at::bincount(flat, {}, experts);
        if (deterministic) at::globalContext().setDeterministicAlgorithms(true, warnOnly);
    } else {
        counts = at::zeros({experts}, flat.options()).scatter_add_(0, flat, at::ones_like(flat));
    }
    at::Tensor hostCounts = copyToHost(counts);
    const std::int64_t* count = hostCounts.data_ptr<std::int64_t>();
    std::vector<ExpertTokens> routes;
    std::int64_t offset = 0;
    for (std::int64_t e = 0; e < experts; ++e) {
        if (count[e] > 0)
            routes.push_back(ExpertTokens{e, tokenOfSorted.narrow(0, offset, count[e])});
        offset += count[e];
    }
    return routes;
}

}  // namespace

std::vector<ExpertTokens> routeTokens(MoeRoutingMode mode, const at::Tensor& topExperts,
                                      std::int64_t experts, HostTracer* tracer) {
    ScopedRange range(tracer, names::kMoeRouting, Category::kGlue);
    // What blocks inside this range is counted by the op observer (routing_host_reads).
    if (mode == MoeRoutingMode::kPerExpert) return routePerExpert(topExperts, experts);
    return routeGrouped(mode, topExperts, experts);
}

}  // namespace glueprof
