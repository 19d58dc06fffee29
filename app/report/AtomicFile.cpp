#include "app/report/AtomicFile.h"

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "profiler/core/Error.h"

namespace glueprof {

void writeFileAtomically(const std::string& path, const std::string& contents) {
    writeFileAtomically(path, [&](std::ostream& out) { out << contents; });
}

void writeFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& write) {
    const std::string temporary = path + ".tmp";
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        if (!out) {
            throw inputError(
                fmt::format("cannot write '{}': check the directory exists and is "
                            "writable, or choose another path",
                            path));
        }
        write(out);
        out.flush();
        if (!out) {
            std::remove(temporary.c_str());
            throw inputError(
                fmt::format("writing '{}' failed (disk full?); nothing was written", path));
        }
    }
    std::error_code ec;
    std::filesystem::rename(temporary, path, ec);
    if (ec) {
        std::remove(temporary.c_str());
        throw inputError(
            fmt::format("cannot move the finished file to '{}': {}", path, ec.message()));
    }
}

}  // namespace glueprof
