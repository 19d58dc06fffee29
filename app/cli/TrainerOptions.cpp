#include "app/cli/TrainerOptions.h"

#include <algorithm>
#include <sstream>

#include <fmt/format.h>

#include "app/cli/NumberChecks.h"
#include "app/cli/Progress.h"
#include "optimizations/pipeline_schedule/LayerCounts.h"
#include "profiler/core/Error.h"
#include "profiler/torch_ops/CudaDevice.h"
#include "reference_trainer/Presets.h"
#include "reference_trainer/ScheduleBounds.h"
#include "reference_trainer/data/TextCorpus.h"

namespace glueprof::cli {

void TrainerOptions::addTo(CLI::App& command) {
    command.add_option("--preset", preset, "trainer preset: " + presetNames())
        ->capture_default_str();
    command.add_option("--device", device, "cpu or cuda")->capture_default_str();
    command.add_option("--steps", steps, "measured steps (per block for ab)")
        ->capture_default_str()
        ->check(CLI::Range(kStepsBound.min, kStepsBound.max));
    command.add_option("--warmup", warmup, "warm-up steps, excluded from statistics")
        ->capture_default_str()
        ->check(CLI::Range(kWarmupBound.min, kWarmupBound.max));
    command.add_option("--seq-len", seqLen, "override the preset's tokens per micro-batch")
        ->check(CLI::Range(int64_t{8}, int64_t{1} << 24));
    command.add_option("--layers", layers, "override the preset's layer count")
        ->check(CLI::Range(int64_t{1}, int64_t{4096}));
    command.add_option("--hidden", hidden, "override the preset's hidden size (keeps head count)")
        ->check(CLI::Range(int64_t{8}, int64_t{1} << 20));
    command.add_option("--doc-lengths", docLengths,
                       "document lengths: fixed:N, uniform:MIN,MAX or lognormal:MEDIAN,SIGMA");
    command
        .add_option("--scale", scale,
                    "shrink the preset's width and depth by this factor in (0, 1] (CPU runs of "
                    "the published shapes)")
        ->capture_default_str();
    command
        .add_option("--lora-rank", loraRank,
                    "LoRA rank (0 = full fine-tuning; default: the preset's)")
        ->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 20));
    command.add_option("--lora-alpha", loraAlpha, "LoRA alpha (default: the preset's)")
        ->check(finitePositive("a positive number"));
    command.add_flag("--qlora", qlora, "QLoRA: quantize the frozen base weights to NF4");
    command.add_option(
        "--data", data,
        "train on this corpus instead of synthetic documents: UTF-8 text (documents "
        "separated by blank lines) or JSONL with a \"text\" field; byte-level tokens");
    command.add_option("--seed", seed, "seed for weights and data")->capture_default_str();
    command.add_option("--db", db, "trace database (SQLite), created when absent")
        ->capture_default_str();
    command.add_flag("--json", json, "print one JSON object instead of the table");
    command
        .add_option("--microbatches", microbatches,
                    "micro-batches per optimizer step (default: the preset's)")
        ->check(CLI::Range(1, 4096));
    command.add_option("--workers", workers, "pipeline workers for the roundpipe toggle")
        ->capture_default_str()
        ->check(CLI::Range(1, 64));
    command
        .add_option("--threads-per-worker", threadsPerWorker,
                    "intra-op threads of each pipeline worker")
        ->capture_default_str()
        ->check(CLI::Range(1, 256));
    command.add_flag("--async-optimizer", asyncOptimizer,
                     "roundpipe: the optimizer of step k runs under step k + 1, which uses the "
                     "weights before it (one "
                     "step stale)");
    command
        .add_option("--nproc", nproc,
                    "ranks to start on this machine (data parallelism over torch.distributed: "
                    "Gloo on cpu, NCCL on cuda); torchrun-style RANK/WORLD_SIZE/MASTER_ADDR/"
                    "MASTER_PORT in the environment start this process as one rank instead")
        ->check(CLI::Range(1, 64))
        ->capture_default_str();
    command
        .add_option("--rank-timeout", rankTimeoutSeconds,
                    "seconds a rank waits for the rendezvous or a collective before it fails "
                    "(a rank that died)")
        ->check(CLI::Range(1, 86400))
        ->capture_default_str();
    command
        .add_option("--ddp-bucket-mb", ddpBucketMb,
                    "ddp_overlap: gradient bucket size in MiB (DDP's bucket_cap_mb)")
        ->check(finiteRange(0.001, 1024.0))
        ->capture_default_str();
    command
        .add_option("--calibration-delay", calibrationDelayPercent,
                    "calibration_delay: the baseline arm's delay, % of each step's time (a "
                    "calibration aid: an effect of known size)")
        ->check(finiteRange(0.01, 1000.0))
        ->capture_default_str();
    command.add_option(
        "--partition", partition,
        "Looped-BFS stages as layers per stage, e.g. 5,1,1,1 (a multiple of --workers stages; the "
        "last also runs the LM head; default: balanced)");
}

TrainConfig TrainerOptions::resolve() const {
    TrainConfig config = presetConfig(preset, scale);
    config.device = device;
    config.seed = seed;
    if (seqLen > 0) config.seqLen = seqLen;
    if (layers > 0) config.model.layers = layers;
    if (hidden > 0) {
        if (hidden % config.model.heads != 0) {
            throw usageError("--hidden must be a multiple of the preset's head count (" +
                             std::to_string(config.model.heads) + ")");
        }
        config.model.hidden = hidden;
        config.model.headDim = hidden / config.model.heads;
        config.model.intermediate = hidden * 11 / 4;
    }
    if (!docLengths.empty()) config.docLengths = parseDocLengthDistribution(docLengths);
    if (loraRank >= 0) config.lora.rank = loraRank;
    if (loraAlpha > 0) config.lora.alpha = loraAlpha;
    if (qlora) {
        if (!config.lora.enabled()) {
            throw usageError(
                "--qlora quantizes the frozen base under LoRA: give --lora-rank R > 0");
        }
        config.lora.nf4 = true;
    }
    if (!config.lora.enabled()) config.lora.nf4 = false;
    if (microbatches > 0) config.microbatches = microbatches;
    config.optimizations.pipeline.workers = workers;
    config.optimizations.pipeline.threadsPerWorker = threadsPerWorker;
    config.optimizations.pipeline.asyncOptimizer = asyncOptimizer;
    config.optimizations.calibration.delayPercent = calibrationDelayPercent;
    config.optimizations.gradientSync.bucketBytes =
        std::max<std::int64_t>(1, static_cast<std::int64_t>(ddpBucketMb * 1024.0 * 1024.0));
    if (!partition.empty()) {
        config.optimizations.pipeline.loopedBfsPartition =
            pipeline::parseLayerCounts(partition, "--partition");
        int total = 0;
        for (int n : config.optimizations.pipeline.loopedBfsPartition) total += n;
        if (total != config.model.layers ||
            config.optimizations.pipeline.loopedBfsPartition.size() % workers != 0) {
            throw usageError(fmt::format(
                "--partition '{}' must cover the model's {} layers in a multiple of {} stages",
                partition, config.model.layers, workers));
        }
    }
    config.dataFile = data;
    if (!data.empty()) TextCorpus::load(data);  // refuse a bad corpus before anything is written
    return config;
}

std::optional<RankEnvironment> TrainerOptions::launchedRank() const {
    std::optional<RankEnvironment> rank = rankEnvironmentFromProcess();
    if (!rank || rank->worldSize <= 1) return std::nullopt;
    if (nproc > 1 && nproc != rank->worldSize) {
        throw usageError(fmt::format(
            "--nproc {} disagrees with WORLD_SIZE={} in the environment: drop --nproc when a "
            "launcher (torchrun) starts the ranks",
            nproc, rank->worldSize));
    }
    return rank;
}

void TrainerOptions::applyRank(const std::optional<RankEnvironment>& launched,
                               TrainConfig& config) const {
    config.worldSize = launched ? launched->worldSize : nproc;
    config.cudaDevice =
        launched && config.device == "cuda" ? cudaDeviceOfLocalRank(launched->localRank) : 0;
}

RankRunRequest TrainerOptions::rankRequest(const RankEnvironment& environment) const {
    RankRunRequest request;
    request.environment = environment;
    request.db = db;
    request.timeout = std::chrono::seconds(rankTimeoutSeconds);
    request.notice = printNotice;
    return request;
}

}  // namespace glueprof::cli
