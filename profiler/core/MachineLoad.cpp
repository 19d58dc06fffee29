#include "profiler/core/MachineLoad.h"

#include <sys/resource.h>
#include <unistd.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <sstream>

namespace glueprof {

namespace {

std::int64_t nanosecondsOf(const timeval& t) {
    return static_cast<std::int64_t>(t.tv_sec) * 1'000'000'000 +
           static_cast<std::int64_t>(t.tv_usec) * 1'000;
}

std::int64_t cpuNsOf(int who) {
    rusage usage{};
    if (::getrusage(who, &usage) != 0) return 0;
    return nanosecondsOf(usage.ru_utime) + nanosecondsOf(usage.ru_stime);
}

}  // namespace

MachineLoadSample sampleMachineLoad() {
    MachineLoadSample sample;
    sample.wallNs = std::chrono::duration_cast<std::chrono::nanoseconds>(
                        std::chrono::steady_clock::now().time_since_epoch())
                        .count();
    sample.ownCpuNs = cpuNsOf(RUSAGE_SELF) + cpuNsOf(RUSAGE_CHILDREN);
    std::ifstream in("/proc/stat");
    for (std::string line; std::getline(in, line);) {
        std::stringstream fields(line);
        std::string name;
        fields >> name;
        if (name == "cpu") {
            // user nice system idle iowait irq softirq steal (guest time is inside user).
            std::int64_t v[8] = {0, 0, 0, 0, 0, 0, 0, 0};
            for (std::int64_t& value : v) fields >> value;
            // Interrupt time is left out: a process's own rusage never holds it, so the
            // program's own I/O and loopback traffic would read as another process's load.
            sample.busyTicks = v[0] + v[1] + v[2];
            sample.stealTicks = v[7];
            sample.valid = static_cast<bool>(fields) || fields.eof();
        } else if (name == "procs_running") {
            fields >> sample.runnable;
        }
    }
    return sample;
}

std::optional<MachineLoad> loadBetween(const MachineLoadSample& start,
                                       const MachineLoadSample& end) {
    const double wallNs = static_cast<double>(end.wallNs - start.wallNs);
    if (!start.valid || !end.valid || wallNs <= 0.0) return std::nullopt;
    static const double nsPerTick = 1e9 / static_cast<double>(::sysconf(_SC_CLK_TCK));
    const double busyNs = static_cast<double>(end.busyTicks - start.busyTicks) * nsPerTick;
    const double ownNs = static_cast<double>(end.ownCpuNs - start.ownCpuNs);
    MachineLoad load;
    // Ticks are counted at 100 Hz: over a short span the difference is noise of about a tick.
    load.otherCores = std::max(0.0, (busyNs - ownNs) / wallNs);
    load.stealCores =
        std::max(0.0, static_cast<double>(end.stealTicks - start.stealTicks) * nsPerTick / wallNs);
    load.runnable = std::max(start.runnable, end.runnable);
    load.seconds = wallNs / 1e9;
    return load;
}

std::string blockLoadsJson(const std::vector<BlockLoad>& loads) {
    nlohmann::json rows = nlohmann::json::array();
    for (const BlockLoad& b : loads) {
        rows.push_back({b.block, std::round(b.load.otherCores * 1000.0) / 1000.0,
                        std::round(b.load.stealCores * 1000.0) / 1000.0, b.load.runnable,
                        std::round(b.load.seconds * 1000.0) / 1000.0});
    }
    return rows.dump();
}

std::vector<BlockLoad> parseBlockLoads(const std::string& json) {
    const nlohmann::json rows = nlohmann::json::parse(json, nullptr, false);
    std::vector<BlockLoad> loads;
    if (!rows.is_array()) return loads;
    for (const nlohmann::json& row : rows) {
        if (!row.is_array() || row.size() != 5 || !row[0].is_number_integer() ||
            !row[1].is_number() || !row[2].is_number() || !row[3].is_number_integer() ||
            !row[4].is_number())
            return {};
        BlockLoad b;
        b.block = row[0].get<int>();
        b.load.otherCores = row[1].get<double>();
        b.load.stealCores = row[2].get<double>();
        b.load.runnable = row[3].get<int>();
        b.load.seconds = row[4].get<double>();
        loads.push_back(b);
    }
    return loads;
}

}  // namespace glueprof
