#pragma once
// How packed-sequence metadata is built (the packed_cache and packed_vectorized toggles' setting;
// PackedMetadata.h says what each mode does). Torch-free: the toggle registry includes it.
namespace glueprof {

enum class PackedMetadataMode { kRebuild, kCached, kVectorized };
const char* toString(PackedMetadataMode mode);

}  // namespace glueprof
