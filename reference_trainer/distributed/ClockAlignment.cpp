#include "reference_trainer/distributed/ClockAlignment.h"

#include <fmt/format.h>
#include <torch/csrc/distributed/c10d/Store.hpp>

#include <algorithm>
#include <fstream>

#include "profiler/core/Clock.h"
#include "reference_trainer/AbRunner.h"
#include "reference_trainer/distributed/RankGroup.h"

namespace glueprof {
namespace {

std::vector<std::uint8_t> bytesOf(const std::string& text) {
    return std::vector<std::uint8_t>(text.begin(), text.end());
}
std::string textOf(const std::vector<std::uint8_t>& bytes) {
    return std::string(bytes.begin(), bytes.end());
}

// This boot's id: equal for every process of one machine (and one clock), different across them.
std::string bootId() {
    std::ifstream in("/proc/sys/kernel/random/boot_id");
    std::string id;
    std::getline(in, id);
    return id;
}

}  // namespace

std::vector<RankClock> alignRankClocks(RankGroup& group, int rounds) {
    c10d::Store& store = group.store();
    const int rank = group.rank();
    std::string readings;
    for (int round = 0; round < rounds; ++round) {
        group.barrier();
        const TimestampNs now = Clock::nowNs();
        readings += (round == 0 ? "" : ",") + std::to_string(now);
    }
    store.set(fmt::format("glueprof/clock/{}", rank),
              bytesOf(fmt::format("{}\n{}\n{}", bootId(), hostName(), readings)));
    group.barrier();
    if (rank != 0) return {};

    auto parse = [&](int r, std::string& boot, std::string& host) {
        const std::string text = textOf(store.get(fmt::format("glueprof/clock/{}", r)));
        const auto first = text.find('\n');
        const auto second = text.find('\n', first + 1);
        boot = text.substr(0, first);
        host = text.substr(first + 1, second - first - 1);
        std::vector<TimestampNs> values;
        std::size_t at = second + 1;
        while (at < text.size()) {
            std::size_t end = text.find(',', at);
            if (end == std::string::npos) end = text.size();
            values.push_back(std::stoll(text.substr(at, end - at)));
            at = end + 1;
        }
        return values;
    };
    std::string boot0, host0;
    const std::vector<TimestampNs> mine = parse(0, boot0, host0);
    std::vector<RankClock> clocks;
    for (int r = 0; r < group.worldSize(); ++r) {
        RankClock clock;
        std::string boot;
        const std::vector<TimestampNs> theirs = parse(r, boot, clock.host);
        std::vector<TimestampNs> differences;
        for (std::size_t k = 0; k < mine.size() && k < theirs.size(); ++k)
            differences.push_back(mine[k] - theirs[k]);
        std::sort(differences.begin(), differences.end());
        clock.estimateNs = differences.empty() ? 0 : differences[differences.size() / 2];
        for (TimestampNs d : differences)
            clock.residualNs =
                std::max<TimestampNs>(clock.residualNs, std::abs(d - clock.estimateNs));
        clock.sameMachine = !boot.empty() && boot == boot0;
        clock.offsetNs = clock.sameMachine ? 0 : clock.estimateNs;
        clocks.push_back(clock);
    }
    return clocks;
}

}  // namespace glueprof
