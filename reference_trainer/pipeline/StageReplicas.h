#pragma once
// RoundPipe's stage replicas. RoundPipe's workers are stateless: each keeps a replica of the model
// and, before a job of a stage it does not hold, uploads that stage's weights from the host master
// copy (an `upload` range with its bytes); the gradients it computes are downloaded to the
// optimizer's host slots (`download`). Looped-BFS workers own their stages (the weight binding):
// they compute on the master weights and have no replicas.
// On CUDA, RoundPipe's master weights stay in pinned host memory (the trainer keeps its model on
// the host, pipelineKeepsMasterOnHost) and the optimizer updates them there; uploads are
// host-to-device copies into the worker's replica on its stream, downloads device-to-host copies
// into pinned buffers.
// RoundPipe's asynchronous optimizer (PipelineSettings::asyncOptimizer): the optimizer of step k
// runs while step k + 1 computes on the weights published before update k (one step stale,
// deterministic: uploads read a snapshot, never the weights being updated).
#include <torch/torch.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

#include "reference_trainer/WorkerStreams.h"
#include "reference_trainer/model/Decoder.h"
#include "reference_trainer/pipeline/HandOffs.h"
#include "reference_trainer/pipeline/PipelineJob.h"
#include "reference_trainer/pipeline/PipelineRecorder.h"
#include "reference_trainer/pipeline/PipelineStep.h"

namespace glueprof {

class Trainer;

class StageReplicas {
  public:
    // One replica per worker on its device, built as the master was (the RNG the data and training
    // draw from is left as it was); pins the master on CUDA; with `snapshots` (an asynchronous
    // optimizer) the two published snapshots of the master's state.
    StageReplicas(Trainer& trainer, const WorkerStreams& streams, int workers,
                  PipelineRecorder& recorder, bool snapshots);

    Decoder& model(int worker) { return m_replicas[static_cast<std::size_t>(worker)]; }
    // Each replica's trainable parameter joins `index` under its master's slot.
    void indexParameters(ParameterIndex& index) const;
    // Copies the job's stage weights into the worker's replica unless it holds them already (an
    // `upload` range with their bytes).
    void upload(int worker, const PipelineJob& job, const PipelineStep& step);
    // Moves the gradients grads[first..] computed on the worker's replica to host buffers, in place
    // (on CUDA, copies into pinned buffers queued on the worker's stream; a `download` range with
    // their bytes).
    void download(int worker, const PipelineJob& job, const PipelineStep& step,
                  std::vector<torch::Tensor>& grads, std::size_t first);
    // True when uploads read snapshots (the asynchronous optimizer).
    bool snapshotted() const { return !m_snapshots.empty(); }
    // After the update of `step`: publishes the master's weights for step + 2 (step + 1 reads the
    // other snapshot meanwhile). Nothing without snapshots.
    void publishSnapshot(std::int32_t step);

  private:
    // (first layer, layers, head, step) of the stage weights a replica holds.
    using HeldStage = std::tuple<std::int64_t, std::int64_t, bool, std::int64_t>;

    void buildReplicas(int workers);
    void pinMaster();
    void takeSnapshots();
    // The weights an upload of `step` reads for the master tensor `master`.
    const torch::Tensor& uploadSource(const torch::Tensor& master, std::int32_t step) const;
    // The copies of an upload; returns their bytes.
    std::int64_t copyStage(int worker, const PipelineJob& job, std::int32_t step);

    Trainer& m_trainer;
    const WorkerStreams& m_streams;
    PipelineRecorder& m_recorder;
    std::vector<Decoder> m_replicas;    // one per worker
    std::vector<HeldStage> m_resident;  // per worker
    // The weights uploads read: the master itself (synchronous) or, asynchronously, two published
    // snapshots, step j reading snapshot j mod 2 (written by the optimizer of step j - 2).
    std::vector<std::vector<torch::Tensor>> m_snapshots;
    // Master parameter or buffer -> its index in a snapshot.
    std::map<const void*, std::size_t> m_snapshotPosition;
};

}  // namespace glueprof
