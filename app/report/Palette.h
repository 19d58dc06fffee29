#pragma once
// The colours of glueprof's charts, one palette for the HTML report and the GUI, so a part has the
// same colour everywhere. 0xRRGGBB.
#include <cstdint>
#include <string>

#include "analyzers/GlueOverhead.h"

namespace glueprof {

std::uint32_t partColour(GluePart part);
// An event's colour on a timeline: its category's part's colour (phases dark grey, none grey).
std::uint32_t categoryColour(Category category);
std::uint32_t pipelineKindColour(const std::string& kind);  // forward, recompute, backward
constexpr std::uint32_t kBaselineColour = 0x7F7F7F;
constexpr std::uint32_t kOptimizedColour = 0x4F81BD;
constexpr std::uint32_t kSyncColour = 0xC0504D;
constexpr std::uint32_t kCoveredColour = 0x2C9C8F;
constexpr std::uint32_t kExposedColour = 0xC0504D;

std::string cssColour(std::uint32_t rgb);  // "#RRGGBB"

}  // namespace glueprof
