#pragma once
// A run's JSON columns (runs.config_json, runs.toggles_json, runs.environment_json; docs/schema.md)
// in one place: every key of environment_json in one typed table, as Diagnostics.h keeps the
// diagnostics (writers set values by id, readers read them typed); the columns parsed here only;
// and the values of config_json that glueprof reads back, typed.
//
// glueprof writes the columns; a value that is not JSON of its kind comes from a row edited by hand
// or a damaged file, and is an input error (exit 2) naming the run, the column and what to do,
// never a parser's message. Part of the trace format: never rename a key; append.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>

#include "profiler/core/TraceModel.h"

namespace glueprof {

// X(id, key, meaning): every key of environment_json.
// clang-format off
#define GLUEPROF_ENVIRONMENT_KEYS(X)                                                              \
    X(kTorchVersion, "torch_version", "libtorch's version as PyPI names the build (2.11.0+cu130)")\
    X(kTorchCuda, "torch_cuda", "whether libtorch saw a CUDA device")                             \
    X(kCudaDevices, "cuda_devices", "the CUDA devices libtorch saw")                              \
    X(kIntraOpThreads, "intra_op_threads", "at::get_num_threads()")                               \
    X(kDevice, "device", "where the run computed: cpu, cuda, cuda:N")                             \
    X(kGpuCapture, "gpu_capture", "what the GPU capture recorded, or why it was off (one line)")  \
    X(kTracingNsPerOp, "tracing_ns_per_op",                                                       \
      "what the tracer adds per recorded op, calibrated at the capture's start; null: unmeasured")\
    X(kClockAlignment, "clock_alignment",                                                         \
      "a rank's clock put on rank 0's (offset_ns, estimate_ns, residual_ns, "                     \
      "same_machine_as_rank_0); null: not measured")                                              \
    X(kDeterministicAlgorithms, "deterministic_algorithms", "torch's deterministic mode was on")  \
    X(kDeterministicWarnOnly, "deterministic_warn_only", "... in warn-only mode")                 \
    X(kCublasWorkspaceConfig, "cublas_workspace_config", "CUBLAS_WORKSPACE_CONFIG as set")        \
    X(kFlushDenormal, "flush_denormal", "denormals flushed to zero (the trainer's setting)")      \
    X(kPid, "pid", "the profiled process")                                                        \
    X(kRecordedBy, "recorded_by", "what recorded the run (\"glueprof profile\")")
// clang-format on

enum class EnvironmentKey {
#define GLUEPROF_ENVIRONMENT_KEY_ID(id, key, meaning) id,
    GLUEPROF_ENVIRONMENT_KEYS(GLUEPROF_ENVIRONMENT_KEY_ID)
#undef GLUEPROF_ENVIRONMENT_KEY_ID
};

// The stored key of `key`.
const char* environmentKeyName(EnvironmentKey key);

// An environment being written: environment[envKey(EnvironmentKey::kGpuCapture)] = ...
inline const char* envKey(EnvironmentKey k) { return environmentKeyName(k); }

enum class StoredRunColumn {
    kConfig,       // config_json: an object
    kToggles,      // toggles_json: an array
    kEnvironment,  // environment_json: an object
};

// The column of `run`, parsed; throws the input error when it is not JSON of its kind.
nlohmann::json parseStoredRunJson(const RunSummary& run, StoredRunColumn column);
// A stored object column read leniently, for a writer that adds to it (ab --exec's arms, the rank
// merge) or a reader that falls back (stepsFoundOf): the object, or an empty one when the text is
// not a JSON object.
nlohmann::json storedObjectOrEmpty(const std::string& text);

// How a rank's clock was put on rank 0's, as its environment stored it.
struct RankClockAlignment {
    double offsetNs = 0.0;     // applied to its timestamps
    double estimateNs = 0.0;   // what the barrier readings estimated
    double residualNs = 0.0;   // the largest deviation of a reading from the estimate
    bool sameMachine = false;  // one clock with rank 0: not shifted
};

// What glueprof reads back of a run's environment, typed.
struct RunEnvironment {
    std::string gpuCapture;  // "" for runs recorded before it was stored
    // The run stored a tracer calibration (measured or not): a trained or profiled run.
    bool tracingCostRecorded = false;
    std::optional<double> tracingNsPerOp;  // nullopt: not measured, or not recorded
    // nullopt outside multi-process runs, or unmeasured.
    std::optional<RankClockAlignment> clockAlignment;
};
// Throws the input error of parseStoredRunJson.
RunEnvironment runEnvironmentOf(const RunSummary& run);

// What glueprof reads back of config_json, typed.
// The range `ab --exec --target RANGE` stored in the arms' configuration; "" for any other run.
// Throws the input error of parseStoredRunJson.
std::string targetRangeOf(const RunSummary& run);
// Whether an imported trace's steps came from its step ranges (steps_found; runs that were not
// imported always have steps). True when the column is damaged (never throws).
bool stepsFoundOf(const RunSummary& run);
// The names of the GPUs an imported trace names (its config's `devices`: Kineto's
// deviceProperties, Nsight's TARGET_INFO_GPU), joined by "; "; "" when it names none (never
// throws).
std::string gpuNamesOf(const RunSummary& run);

}  // namespace glueprof
