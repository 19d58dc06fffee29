#include "app/cli/RunSelection.h"

#include <fmt/format.h>

#include <sstream>
#include <stdexcept>

#include "profiler/core/Error.h"

namespace glueprof::cli {

std::vector<RunId> parseRunIds(const std::string& text) {
    std::vector<RunId> ids;
    std::stringstream list(text);
    std::string item;
    while (std::getline(list, item, ',')) {
        try {
            std::size_t used = 0;
            const long long id = std::stoll(item, &used);
            if (used != item.size() || id <= 0) throw std::invalid_argument(item);
            ids.push_back(id);
        } catch (const std::logic_error&) {
            throw usageError(fmt::format(
                "bad --runs '{}': give one run id or two, BASELINE,OPTIMIZED (see `glueprof list`)",
                text));
        }
    }
    if (ids.empty() || ids.size() > 2) {
        throw usageError(
            fmt::format("bad --runs '{}': give one run id or two, BASELINE,OPTIMIZED", text));
    }
    if (ids.size() == 2 && ids[0] == ids[1]) {
        throw usageError(
            fmt::format("bad --runs '{}': a run compared with itself; give two different runs, "
                        "BASELINE,OPTIMIZED (an A/A comparison is `glueprof ab --aa`)",
                        text));
    }
    return ids;
}

}  // namespace glueprof::cli
