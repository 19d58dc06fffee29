#pragma once
// How the trainer offloads checkpointed layer inputs (the offload, double_buffer and prefetch
// toggles' setting). Torch-free: the toggle registry and the trainer configuration include it.
namespace glueprof {

enum class OffloadMode { kOff, kSingleBuffer, kDoubleBuffer };
const char* toString(OffloadMode mode);

struct OffloadSettings {
    OffloadMode mode = OffloadMode::kOff;
    bool prefetch = false;  // only with kDoubleBuffer
    bool enabled() const { return mode != OffloadMode::kOff; }
};

}  // namespace glueprof
