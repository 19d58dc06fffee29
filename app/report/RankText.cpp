#include "app/report/RankText.h"

#include <fmt/format.h>

namespace glueprof {

std::string clockAlignmentText(const RunAnalysis& rank) {
    const std::optional<RankClockAlignment>& c = rank.clockAlignment;
    if (!c) return "not measured";
    if (c->sameMachine) {
        return fmt::format(
            "one clock (same machine); barrier estimate {:+.1f} us, within {:.1f} us",
            c->estimateNs / 1000.0, c->residualNs / 1000.0);
    }
    return fmt::format("shifted {:+.1f} us, residual {:.1f} us", c->offsetNs / 1000.0,
                       c->residualNs / 1000.0);
}

std::string overlapRatioText(double ratio) {
    return ratio < 0.0 ? std::string("no comm") : fmt::format("{:.2f}", ratio);
}

}  // namespace glueprof
