#include "profiler/core/RuntimeCallNames.h"

namespace glueprof {

bool isRuntimeCallNamed(std::string_view name, std::string_view call) {
    if (name.substr(0, call.size()) != call) return false;
    std::size_t at = call.size();
    for (std::string_view perThread : {"_ptsz", "_ptds"}) {
        if (name.substr(at, perThread.size()) == perThread) at += perThread.size();
    }
    return name.size() == at || name.substr(at, 2) == "_v";
}

std::string_view withoutApiVersion(std::string_view name) {
    const std::size_t version = name.rfind("_v");
    if (version != std::string_view::npos && version + 2 < name.size() &&
        name.find_first_not_of("0123456789", version + 2) == std::string_view::npos)
        return name.substr(0, version);
    return name;
}

std::string_view runtimeCallBaseName(std::string_view name) {
    name = withoutApiVersion(name);
    for (std::string_view perThread : {"_ptsz", "_ptds"}) {
        if (name.size() > perThread.size() &&
            name.substr(name.size() - perThread.size()) == perThread)
            name = name.substr(0, name.size() - perThread.size());
    }
    return name;
}

bool isAnyRuntimeCall(std::string_view name, std::initializer_list<const char*> calls) {
    for (const char* call : calls)
        if (isRuntimeCallNamed(name, call)) return true;
    return false;
}

}  // namespace glueprof
