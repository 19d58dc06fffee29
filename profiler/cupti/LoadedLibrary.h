#pragma once
// Where a shared library this process already loaded lives (libcupti, libnccl: the ones torch
// brought). Free of cuda.h and cupti.h, like CudaDriver.h.
#include <string>

namespace glueprof::cupti {

// The normalized path of the library this process loaded under `name` ("libnccl.so.2"), `name`
// itself when the loader does not say, or "" when it is not loaded. Loads nothing.
std::string loadedLibraryPath(const char* name);

}  // namespace glueprof::cupti
