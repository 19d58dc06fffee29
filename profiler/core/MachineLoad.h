#pragma once
// What else the machine did while an A/B arm ran: the CPU time of every other process (all of
// /proc/stat's busy time less this process's and its waited-for children's), the time the
// hypervisor took (steal) and the run queue, between two samples. An A/B on a shared machine
// compares its arms fairly only when the two arms of a block saw the same load (docs/metrics.md,
// "Load that changes between blocks"). Torch-free.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace glueprof {

struct MachineLoadSample {
    std::int64_t wallNs = 0;
    std::int64_t busyTicks = 0;   // every CPU's user+nice+system (not idle, iowait, interrupts)
    std::int64_t stealTicks = 0;  // time the hypervisor ran something else on our CPUs
    std::int64_t ownCpuNs = 0;    // this process and its waited-for children (getrusage)
    int runnable = 0;             // procs_running when sampled (this process's threads among them)
    bool valid = false;           // /proc/stat was read
};

MachineLoadSample sampleMachineLoad();

// The load between two samples, in cores: other processes' CPU, steal, and the larger of the two
// samples' runnable counts.
struct MachineLoad {
    double otherCores = 0.0;
    double stealCores = 0.0;
    int runnable = 0;
    double seconds = 0.0;  // the span measured
};
std::optional<MachineLoad> loadBetween(const MachineLoadSample& start,
                                       const MachineLoadSample& end);

// One arm's half of one A/B block and the load while it ran.
struct BlockLoad {
    int block = 0;
    MachineLoad load;
};

// The per-block loads an A/B arm stores with its run: the diagnostic's detail, JSON
// ([[block, other_cores, steal_cores, runnable, seconds], ...]), and back (malformed: empty).
inline constexpr const char kMachineLoadDiagnostic[] = "machine_load";
std::string blockLoadsJson(const std::vector<BlockLoad>& loads);
std::vector<BlockLoad> parseBlockLoads(const std::string& json);

}  // namespace glueprof
