#include "profiler/core/ProcessStat.h"

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

namespace glueprof {

std::optional<ProcessStat> readProcessStat(int pid) {
    std::ifstream in(pid == 0 ? std::string("/proc/self/stat")
                              : "/proc/" + std::to_string(pid) + "/stat");
    const std::string text((std::istreambuf_iterator<char>(in)), {});
    // The command name (field 2) is in parentheses and may hold spaces: count from its end.
    const auto close = text.rfind(')');
    if (close == std::string::npos) return std::nullopt;
    std::stringstream fields(text.substr(close + 1));
    ProcessStat stat;
    std::string field;
    for (int index = 3; index <= 22 && fields >> field; ++index) {
        if (index == 3) stat.state = field.empty() ? '?' : field[0];
        if (index == 4) stat.parent = std::atoi(field.c_str());
        if (index == 5) stat.group = std::atoi(field.c_str());
        if (index == 22) {
            stat.startTime = std::atoll(field.c_str());
            return stat;
        }
    }
    return std::nullopt;
}

}  // namespace glueprof
