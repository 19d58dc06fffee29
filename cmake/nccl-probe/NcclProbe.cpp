// The program cmake/GlueprofNccl.cmake links to decide GLUEPROF_WITH_NCCL: RankGroup.cpp and
// CudaDevice.cpp, compiled with NCCL, linked against this libtorch. If this does not build, the
// project is built without NCCL instead of failing.
#include "reference_trainer/distributed/RankGroup.h"

int main() { return glueprof::RankGroup::whyCannotJoin("cuda").empty() ? 0 : 1; }
