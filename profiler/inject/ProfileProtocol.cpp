#include "profiler/inject/ProfileProtocol.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <sstream>

#include "profiler/core/ProcessStat.h"

namespace glueprof::profile {

namespace {

std::string variable(const char* name) {
    const char* value = std::getenv(name);
    return value != nullptr ? value : "";
}

int integerVariable(const char* name, int fallback, long most = 1'000'000) {
    const std::string text = variable(name);
    if (text.empty()) return fallback;
    char* end = nullptr;
    const long value = std::strtol(text.c_str(), &end, 10);
    if (end == text.c_str() || *end != '\0' || value < 0 || value > most) return fallback;
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
    settings.launcherPid = integerVariable(kLauncherPidVar, 0, 0x7fffffffL);
    settings.launcherGroup = integerVariable(kLauncherGroupVar, 0, 0x7fffffffL);
    return settings;
}

std::string tracePath(const std::string& tracePrefix, int rank) {
    return tracePrefix + std::to_string(rank);
}

std::string processesPath(const std::string& tracePrefix) { return tracePrefix + kProcessesSuffix; }

namespace {

constexpr const char* kNoteWords[] = {"started", "finished", "failed", "refused"};

}  // namespace

bool noteProcess(const std::string& tracePrefix, ProcessNoteKind kind, int rank,
                 const std::string& detail) {
    std::string oneLine = detail;
    std::replace(oneLine.begin(), oneLine.end(), '\n', ' ');
    const std::string line = std::string(kNoteWords[static_cast<int>(kind)]) + " " +
                             std::to_string(::getpid()) + " " +
                             std::to_string(readProcessStat(0).value_or(ProcessStat{}).startTime) +
                             " " + std::to_string(rank) + " " + oneLine + "\n";
    const int fd = ::open(processesPath(tracePrefix).c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd < 0) return false;
    const bool written = ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
    ::close(fd);
    return written;
}

std::vector<ProcessNote> parseProcessNotes(const std::string& text) {
    std::vector<ProcessNote> notes;
    std::stringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
        std::stringstream fields(line);
        std::string word;
        ProcessNote note;
        if (!(fields >> word >> note.pid >> note.startTime >> note.rank)) continue;
        const auto kind = std::find(std::begin(kNoteWords), std::end(kNoteWords), word);
        if (kind == std::end(kNoteWords) || note.pid <= 0) continue;
        note.kind = static_cast<ProcessNoteKind>(kind - std::begin(kNoteWords));
        std::getline(fields >> std::ws, note.detail);
        notes.push_back(note);
    }
    return notes;
}

// A rank's trace file name holds at most 5 digits (what the launcher reads back).
int rankFromEnvironment() { return integerVariable("RANK", 0, 99'999); }

int worldSizeFromEnvironment() { return std::max(1, integerVariable("WORLD_SIZE", 1)); }

}  // namespace glueprof::profile
