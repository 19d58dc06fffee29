#include "reference_trainer/distributed/ClockAlignment.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "profiler/core/Clock.h"
#include "profiler/core/Error.h"
#include "reference_trainer/AbRunner.h"
#include "reference_trainer/distributed/RankGroup.h"

namespace glueprof {
namespace {

// This boot's id: equal for every process of one machine (and one clock), different across them.
std::string bootId() {
    std::ifstream in("/proc/sys/kernel/random/boot_id");
    std::string id;
    std::getline(in, id);
    return id;
}

// What one rank published: "BOOT\nHOST\nT1,T2,...".
struct Readings {
    std::string boot;
    std::string host;
    std::vector<TimestampNs> times;
};

Readings parseReadings(const std::string& text, int rank) {
    Readings r;
    std::istringstream in(text);
    std::string times;
    std::getline(in, r.boot);
    std::getline(in, r.host);
    std::getline(in, times);
    std::istringstream list(times);
    for (std::string item; std::getline(list, item, ',');) {
        char* end = nullptr;
        const long long value = std::strtoll(item.c_str(), &end, 10);
        if (item.empty() || *end != '\0') {
            throw inputError(
                fmt::format("rank {} published clock readings glueprof cannot read "
                            "('{}'); are all ranks the same glueprof build?",
                            rank, item));
        }
        r.times.push_back(value);
    }
    return r;
}

}  // namespace

std::vector<RankClock> alignRankClocks(RankGroup& group, int rounds) {
    const int rank = group.rank();
    std::string times;
    for (int round = 0; round < rounds; ++round) {
        group.barrier();
        times += (round == 0 ? "" : ",") + std::to_string(Clock::nowNs());
    }
    group.publish(fmt::format("glueprof/clock/{}", rank),
                  fmt::format("{}\n{}\n{}", bootId(), hostName(), times));
    group.barrier();
    if (rank != 0) return {};

    std::vector<Readings> readings;
    for (int r = 0; r < group.worldSize(); ++r)
        readings.push_back(parseReadings(group.read(fmt::format("glueprof/clock/{}", r)), r));
    const Readings& mine = readings.front();
    std::vector<RankClock> clocks;
    for (const Readings& theirs : readings) {
        RankClock clock = estimateRankClock(mine.times, theirs.times,
                                            !theirs.boot.empty() && theirs.boot == mine.boot);
        clock.host = theirs.host;
        clocks.push_back(clock);
    }
    return clocks;
}

}  // namespace glueprof
