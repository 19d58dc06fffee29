#include "reference_trainer/TrainConfig.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>

#include "optimizations/pipeline_schedule/SimulationTrace.h"
#include "profiler/core/Error.h"
#include "reference_trainer/PipelineExecutor.h"

namespace glueprof {

std::string DocLengthDistribution::describe() const {
    switch (kind) {
        case Kind::kFixed:
            return fmt::format("fixed:{:g}", a);
        case Kind::kUniform:
            return fmt::format("uniform:{:g},{:g}", a, b);
        case Kind::kLogNormal:
            return fmt::format("lognormal:{:g},{:g}", a, b);
    }
    return "unknown";
}

DocLengthDistribution parseDocLengthDistribution(const std::string& text) {
    auto fail = [&] {
        return usageError(
            fmt::format("bad --doc-lengths '{}': use fixed:N, uniform:MIN,MAX or "
                        "lognormal:MEDIAN,SIGMA (tokens)",
                        text));
    };
    auto colon = text.find(':');
    if (colon == std::string::npos) throw fail();
    std::string kind = text.substr(0, colon);
    std::string args = text.substr(colon + 1);
    DocLengthDistribution d;
    // A whole, finite number: stod alone takes "5abc" as 5 and lets nan and inf through.
    auto number = [&](const std::string& word) {
        std::size_t used = 0;
        const double value = std::stod(word, &used);
        if (used != word.size() || !std::isfinite(value)) throw fail();
        return value;
    };
    try {
        auto comma = args.find(',');
        d.a = number(args.substr(0, comma));
        if (comma != std::string::npos) d.b = number(args.substr(comma + 1));
        if (kind == "fixed" && comma == std::string::npos) {
            d.kind = DocLengthDistribution::Kind::kFixed;
        } else if (kind == "uniform" && comma != std::string::npos && d.b >= d.a) {
            d.kind = DocLengthDistribution::Kind::kUniform;
        } else if (kind == "lognormal" && comma != std::string::npos && d.b >= 0) {
            d.kind = DocLengthDistribution::Kind::kLogNormal;
        } else {
            throw fail();
        }
    } catch (const std::logic_error&) {  // stod's invalid_argument / out_of_range
        throw fail();
    }
    if (d.a < 1) throw fail();
    return d;
}

std::string toJson(const TrainConfig& c) {
    nlohmann::json j = {
        {"preset", c.preset},
        {"model",
         {{"vocab", c.model.vocab},
          {"hidden", c.model.hidden},
          {"layers", c.model.layers},
          {"heads", c.model.heads},
          {"kv_heads", c.model.kvHeads},
          {"head_dim", c.model.headDim},
          {"intermediate", c.model.intermediate},
          {"rope_theta", c.model.ropeTheta},
          {"rms_eps", c.model.rmsEps},
          {"qk_norm", c.model.qkNorm},
          {"attention_bias", c.model.attentionBias},
          {"tie_embeddings", c.model.tieEmbeddings},
          {"experts", c.model.experts},
          {"top_k", c.model.topK}}},
        {"scale", c.scale},
        {"lora", {{"rank", c.lora.rank}, {"alpha", c.lora.alpha}, {"nf4", c.lora.nf4}}},
        {"data", c.dataFile.empty() ? std::string("synthetic") : c.dataFile},
        {"seq_len", c.seqLen},
        {"microbatches", c.microbatches},
        {"doc_lengths", c.docLengths.describe()},
        {"learning_rate", c.learningRate},
        {"seed", c.seed},
        {"checkpoint", c.checkpoint},
        {"device", c.device},
        {"packed_metadata", toString(c.optimizations.packedMetadata)},
        {"moe_routing", toString(c.optimizations.moeRouting)},
        {"offload", toString(c.optimizations.offload.mode)},
        {"prefetch", c.optimizations.offload.prefetch},
        {"offload_min_bytes", c.offloadMinBytes},
    };
    if (c.optimizations.calibration.delayOn) {  // steps padded on purpose: the run says so
        j["calibration_delay_percent"] = c.optimizations.calibration.delayPercent;
    }
    if (c.worldSize > 1) {  // data parallel: how the ranks average gradients
        j["world_size"] = c.worldSize;
        j["gradient_sync"] = toString(c.optimizations.gradientSync.mode);
        j["ddp_bucket_bytes"] = c.optimizations.gradientSync.bucketBytes;
    }
    if (c.optimizations.pipeline.mode !=
        PipelineMode::kOff) {  // the bubble analyzer reads "schedule"
        j["schedule"] = toString(c.optimizations.pipeline.mode);
        j["pipeline_workers"] = c.optimizations.pipeline.workers;
        j["threads_per_worker"] = c.optimizations.pipeline.threadsPerWorker;
        j["async_optimizer"] = c.optimizations.pipeline.asyncOptimizer;
        if (!c.optimizations.pipeline.loopedBfsPartition.empty())
            j["looped_bfs_partition"] = c.optimizations.pipeline.loopedBfsPartition;
        try {  // what the executor will run: partitions and the estimated costs it planned with
            j["pipeline_plan"] = nlohmann::json::parse(
                pipeline::specJson(pipelineSpec(withPipelineMicrobatches(c))));
        } catch (const std::invalid_argument&) {
            // an impossible partition: the executor refuses it with the message; nothing to store
        }
    }
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace glueprof
