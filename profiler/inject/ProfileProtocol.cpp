#include "profiler/inject/ProfileProtocol.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>

namespace glueprof::profile {

namespace {

std::string variable(const char* name) {
    const char* value = std::getenv(name);
    return value != nullptr ? value : "";
}

int integerVariable(const char* name, int fallback) {
    const std::string text = variable(name);
    if (text.empty()) return fallback;
    char* end = nullptr;
    const long value = std::strtol(text.c_str(), &end, 10);
    if (end == text.c_str() || *end != '\0' || value < 0 || value > 1'000'000) return fallback;
    return static_cast<int>(value);
}

}  // namespace

std::optional<ProfileSettings> settingsFromEnvironment() {
    ProfileSettings settings;
    settings.tracePrefix = variable(kTracePrefixVar);
    if (settings.tracePrefix.empty()) return std::nullopt;
    settings.label = variable(kLabelVar);
    settings.stepRange = variable(kStepRangeVar);
    settings.warmup = integerVariable(kWarmupVar, 1);
    std::stringstream glue(variable(kGlueRangesVar));
    for (std::string name; std::getline(glue, name, ',');) {
        if (!name.empty()) settings.glueRanges.insert(name);
    }
    const std::string device = variable(kDeviceVar);
    if (!device.empty()) settings.device = device;
    const std::string command = variable(kCommandVar);
    if (!command.empty()) settings.commandJson = command;
    settings.torchVersion = variable(kTorchVersionVar);
    settings.arm = variable(kArmVar);
    settings.block = integerVariable(kBlockVar, 0);
    return settings;
}

std::string tracePath(const std::string& tracePrefix, int rank) {
    return tracePrefix + std::to_string(rank);
}

std::string refusalPath(const std::string& tracePrefix) { return tracePrefix + kRefusedSuffix; }

int rankFromEnvironment() { return integerVariable("RANK", 0); }

int worldSizeFromEnvironment() { return std::max(1, integerVariable("WORLD_SIZE", 1)); }

}  // namespace glueprof::profile
