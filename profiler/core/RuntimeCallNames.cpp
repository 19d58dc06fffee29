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

bool isAnyRuntimeCall(std::string_view name, std::initializer_list<const char*> calls) {
    for (const char* call : calls)
        if (isRuntimeCallNamed(name, call)) return true;
    return false;
}

}  // namespace glueprof
