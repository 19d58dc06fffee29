#include "analyzers/NameMatch.h"

#include "profiler/core/RuntimeCallNames.h"

#include <algorithm>
#include <cctype>

namespace glueprof {

std::string lowerCased(const std::string& text) {
    std::string lower(text.size(), ' ');
    std::transform(text.begin(), text.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return lower;
}

bool containsAny(const std::string& text, std::initializer_list<const char*> parts) {
    const std::string lower = lowerCased(text);
    for (const char* part : parts)
        if (lower.find(part) != std::string::npos) return true;
    return false;
}

bool isKernelLaunchCall(const std::string& name) {
    return isAnyRuntimeCall(
        name, {"cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel", "cuLaunchKernelEx",
               "hipLaunchKernel", "hipExtModuleLaunchKernel"});
}

bool isWaitingCall(const std::string& name) {
    return containsAny(name, {"synchronize", "memcpy", "memset", "query", "waitevent"});
}

bool isMoeRangeName(const std::string& name) {
    // By whole words, split at non-letters and at case changes ("MixtralSparseMoeBlock",
    // "SwitchMoE_1", "moe_routing"): a coroutine or a file path's "moe" is no MoE layer.
    std::vector<std::string> words;
    std::string word;
    const auto flush = [&] {
        if (!word.empty()) words.push_back(lowerCased(word));
        word.clear();
    };
    for (std::size_t i = 0; i < name.size(); ++i) {
        const char c = name[i];
        const bool letter = std::isalpha(static_cast<unsigned char>(c)) != 0;
        if (!letter) {
            flush();
            continue;
        }
        const bool upper = std::isupper(static_cast<unsigned char>(c)) != 0;
        const bool afterLower = i > 0 && std::islower(static_cast<unsigned char>(name[i - 1]));
        // "MoE": an upper-case letter after a lower-case one starts a word, except the E of
        // "MoE" (a word of its own spelled so).
        if (upper && afterLower && !(c == 'E' && lowerCased(word) == "mo")) flush();
        word += c;
    }
    flush();
    for (const std::string& w : words) {
        if (w == "moe" || w == "expert" || w == "experts" || w == "router" || w == "routing")
            return true;
    }
    return false;
}

std::string withoutModuleInstance(const std::string& name) {
    if (name.rfind("nn.Module: ", 0) != 0) return name;
    const std::size_t underscore = name.find_last_of('_');
    if (underscore == std::string::npos || underscore + 1 == name.size()) return name;
    for (std::size_t i = underscore + 1; i < name.size(); ++i)
        if (name[i] < '0' || name[i] > '9') return name;
    return name.substr(0, underscore);
}

bool isJitCompileName(const std::string& name) {
    return containsAny(
        name, {"nvrtc", "compilefusion", "torch/_dynamo/convert_frame",
               "torch/_inductor/compile_fx", "torch/_inductor/codecache",
               "torch/_inductor/select_algorithm", "triton/compiler/", "triton/runtime/autotuner",
               "compile_fx_inner", "torchdynamo compile", "cudnnfind", "nvjitlink"});
}

}  // namespace glueprof
