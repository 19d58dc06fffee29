#pragma once
// This process's place in a c10d process group: a TCPStore rendezvous (rank 0 serves it at
// MASTER_ADDR:MASTER_PORT) and the collective backend, Gloo on CPU and NCCL on CUDA (one GPU per
// local rank), as torch.distributed builds them. Every collective the trainer issues goes through
// here, numbered in issue order: the number is equal on every rank for the same collective, which
// is how a merged trace lines up a collective's instances across ranks.
#include <torch/torch.h>
#include <torch/csrc/distributed/c10d/Work.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "profiler/core/Error.h"
#include "profiler/ranks/RankEnvironment.h"
#include "reference_trainer/distributed/CollectiveStallNotice.h"

namespace glueprof {

class RankGroup {
  public:
    // Joins the group (blocks until every rank has joined, or `timeout` passes: then an input
    // error naming the rendezvous). `device` is "cpu" (Gloo) or "cuda" (NCCL on GPU `cudaDevice`,
    // made current first; checkTrainingRequest has checked that it exists).
    RankGroup(const RankEnvironment& environment, const std::string& device, int cudaDevice,
              std::chrono::milliseconds timeout);
    ~RankGroup();
    RankGroup(const RankGroup&) = delete;
    RankGroup& operator=(const RankGroup&) = delete;

    // Why this build cannot join ranks on `device`, or "" when it can: Gloo for cpu always,
    // NCCL for cuda where built with it (GLUEPROF_WITH_NCCL).
    static std::string whyCannotJoin(const std::string& device);

    int rank() const { return m_environment.rank; }
    int worldSize() const { return m_environment.worldSize; }
    const std::string& backendName() const { return m_backendName; }

    // Sums `tensors` across ranks in place. The collective's sequence number comes back in
    // `sequence`; wait() on the returned work before reading the tensors.
    c10::intrusive_ptr<c10d::Work> allReduceSum(std::vector<torch::Tensor>& tensors,
                                                std::int64_t& sequence);
    // Waits for `work` (a collective named `what`); a collective that fails — a rank that died,
    // the timeout — becomes an input error that says so.
    void wait(const c10::intrusive_ptr<c10d::Work>& work, const char* what);
    // Every rank reaches this point before any leaves it.
    void barrier();
    // Small values through the rendezvous store: `publish` sets `key`; `read` waits for it (up to
    // the timeout). A store that fails becomes an input error that says a peer ended.
    void publish(const std::string& key, const std::string& value);
    std::string read(const std::string& key);
    // Rank 0's `value` under `key`, on every rank.
    std::string shareFromLeader(const std::string& key, const std::string& value);

  private:
    void joinGloo(std::chrono::milliseconds timeout);
    void joinNccl(std::chrono::milliseconds timeout);  // defined where built with NCCL
    // An input error for a collective (or store read) `what` that threw `error`.
    GlueprofError collectiveError(const char* what, const std::exception& error) const;

    struct Backend;
    RankEnvironment m_environment;
    std::string m_backendName;
    std::unique_ptr<Backend> m_backend;
    std::unique_ptr<CollectiveStallNotice> m_stallNotice;
    std::int64_t m_nextSequence = 1;
    int m_gpu = -1;  // on cuda: this rank's GPU (the NCCL barrier names it)
};

}  // namespace glueprof
