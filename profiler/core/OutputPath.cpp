#include "profiler/core/OutputPath.h"

#include <fmt/format.h>

#include <filesystem>

#include "profiler/core/Error.h"

namespace glueprof {

void requireParentDirectory(const std::string& path, const std::string& what,
                            const std::string& option) {
    const std::filesystem::path parent = std::filesystem::path(path).parent_path();
    std::error_code ec;
    if (!parent.empty() && !std::filesystem::is_directory(parent, ec)) {
        throw inputError(fmt::format(
            "cannot {} '{}': directory '{}' does not exist; create it or pass another {}", what,
            path, parent.string(), option));
    }
}

}  // namespace glueprof
