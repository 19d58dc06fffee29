#pragma once
// How MoE routing groups tokens by expert (the moe_group_once and moe_sync_free toggles' setting;
// MoeRouting.h says what each mode does). Torch-free: the toggle registry includes it.
namespace glueprof {

enum class MoeRoutingMode { kPerExpert, kGroupOnce, kSyncFree };
const char* toString(MoeRoutingMode mode);

}  // namespace glueprof
