#include "app/report/Palette.h"

#include <fmt/format.h>

namespace glueprof {

std::uint32_t partColour(GluePart part) {
    switch (part) {
        case GluePart::kMath:
            return 0x4F81BD;
        case GluePart::kGlue:
            return 0xF79646;
        case GluePart::kOptimizer:
            return 0x9BBB59;
        case GluePart::kData:
            return 0x8064A2;
        case GluePart::kPipeline:
            return 0x4BACC6;
        case GluePart::kCopy:
            return 0x2C9C8F;
        case GluePart::kComm:
            return 0xD4A017;
        case GluePart::kSyncWait:
            return 0xC0504D;
        case GluePart::kIdle:
            return 0xD9D9D9;
        case GluePart::kCount:
            break;
    }
    return 0x000000;
}

std::uint32_t categoryColour(Category category) {
    switch (category) {
        case Category::kMath:
            return partColour(GluePart::kMath);
        case Category::kGlue:
            return partColour(GluePart::kGlue);
        case Category::kOptimizer:
            return partColour(GluePart::kOptimizer);
        case Category::kData:
            return partColour(GluePart::kData);
        case Category::kPipeline:
            return partColour(GluePart::kPipeline);
        case Category::kCopy:
            return partColour(GluePart::kCopy);
        case Category::kSync:
            return partColour(GluePart::kSyncWait);
        case Category::kComm:
            return partColour(GluePart::kComm);
        case Category::kPhase:
            return 0x5A5A66;
        case Category::kNone:
            break;
    }
    return 0x808080;
}

std::uint32_t pipelineKindColour(const std::string& kind) {
    if (kind == "forward") return 0x4F81BD;
    if (kind == "recompute") return 0xF79646;
    return 0xC0504D;
}

std::string cssColour(std::uint32_t rgb) { return fmt::format("#{:06X}", rgb & 0xFFFFFF); }

}  // namespace glueprof
