#pragma once
// The ranges torch itself records, by name, and what they are: the optimizer's step
// (`Optimizer.step#AdamW.step`, `Optimizer.zero_grad#...`) and the DataLoader's fetch of a batch
// (`enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__`). The live capture and the
// importers give them the same category.
#include <optional>
#include <string_view>

#include "profiler/core/Event.h"

namespace glueprof {

inline std::optional<Category> categoryOfTorchRange(std::string_view name) {
    if (name.rfind("Optimizer.", 0) == 0 && name.find('#') != std::string_view::npos)
        return Category::kOptimizer;
    if (name.rfind("enumerate(DataLoader)", 0) == 0) return Category::kData;
    return std::nullopt;
}

}  // namespace glueprof
