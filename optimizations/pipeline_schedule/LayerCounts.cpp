#include "optimizations/pipeline_schedule/LayerCounts.h"

#include <fmt/format.h>

#include <sstream>
#include <stdexcept>

#include "profiler/core/Error.h"

namespace glueprof::pipeline {

std::vector<int> parseLayerCounts(const std::string& text, const char* option) {
    std::vector<int> counts;
    std::stringstream list(text);
    std::string item;
    while (std::getline(list, item, ',')) {
        try {
            std::size_t used = 0;
            const int n = std::stoi(item, &used);
            if (used != item.size() || n < 0) throw std::invalid_argument(item);
            counts.push_back(n);
        } catch (const std::exception&) {
            throw usageError(fmt::format("{} '{}': '{}' is not a layer count; write e.g. 5,1,1,1",
                                         option, text, item));
        }
    }
    return counts;
}

}  // namespace glueprof::pipeline
