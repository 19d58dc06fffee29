# NCCL for several ranks on CUDA (c10d's ProcessGroupNCCL, reference_trainer/distributed/RankGroup):
# GLUEPROF_WITH_NCCL is ON only when
#   1. this libtorch has NCCL (its targets define USE_C10D_NCCL, as CUDA builds do);
#   2. nccl.h and libnccl are found: GLUEPROF_NCCL_ROOT (the nvidia-nccl-cu* wheel's
#      site-packages/nvidia/nccl, which cmake/GlueprofTorch.cmake finds beside GLUEPROF_PYTHON's
#      torch; searched alone when given), else the CUDA toolkit's;
#   3. that nccl.h is the NCCL major.minor torch was built with, when GLUEPROF_NCCL_TORCH_VERSION
#      says which (torch.cuda.nccl.version(), also from GlueprofTorch.cmake): ProcessGroupNCCL's layout
#      follows NCCL's version macros, so another header would mis-size libtorch's objects;
#   4. RankGroup.cpp itself builds with it against this libtorch: a try_compile links it (with
#      CudaDevice.cpp, CudaDriver.cpp and cmake/nccl-probe's main) against torch, and against libnccl only if
#      that is needed, so a header, API or symbol that does not fit turns NCCL off instead of
#      breaking the build.
# Otherwise several ranks on CUDA are refused with the reason (RankGroup::whyCannotJoin) and the rest
# builds as before.
set(GLUEPROF_WITH_NCCL OFF)
set(_glueprof_torch_definitions "")
foreach(_target torch torch_cuda torch_cpu)
  if(TARGET ${_target})
    get_target_property(_definitions ${_target} INTERFACE_COMPILE_DEFINITIONS)
    if(_definitions)
      list(APPEND _glueprof_torch_definitions ${_definitions})
    endif()
  endif()
endforeach()
if(NOT "USE_C10D_NCCL" IN_LIST _glueprof_torch_definitions)
  return()  # a CPU libtorch: Gloo only
endif()

# The toolkit torch's config found (CUDAToolkit_BIN_DIR: the nvcc it took): searched for NCCL after
# the wheel's, and the one the probe builds with.
get_filename_component(_toolkit_root "${CUDAToolkit_BIN_DIR}/.." ABSOLUTE)
set(GLUEPROF_NCCL_ROOT "$ENV{GLUEPROF_NCCL_ROOT}" CACHE PATH "NCCL's prefix (include/nccl.h, lib/libnccl.so.2)")
set(GLUEPROF_NCCL_TORCH_VERSION "" CACHE STRING "NCCL version torch was built with (torch.cuda.nccl.version(), e.g. 2.27.3)")
# Found again when the root changes (find_* keep a cached result otherwise).
if(NOT "${GLUEPROF_NCCL_ROOT}" STREQUAL "${GLUEPROF_NCCL_SEARCHED_ROOT}")
  unset(GLUEPROF_NCCL_INCLUDE_DIR CACHE)
  unset(GLUEPROF_NCCL_LIBRARY CACHE)
endif()
set(GLUEPROF_NCCL_SEARCHED_ROOT "${GLUEPROF_NCCL_ROOT}" CACHE INTERNAL "the root the NCCL search used")
if(GLUEPROF_NCCL_ROOT)
  set(_nccl_search HINTS ${GLUEPROF_NCCL_ROOT} NO_DEFAULT_PATH)
else()
  set(_nccl_search HINTS ${_toolkit_root} /usr/local/cuda)
endif()
find_path(GLUEPROF_NCCL_INCLUDE_DIR nccl.h ${_nccl_search} PATH_SUFFIXES include)
find_library(GLUEPROF_NCCL_LIBRARY NAMES libnccl.so.2 nccl NAMES_PER_DIR ${_nccl_search}
             PATH_SUFFIXES lib lib64 lib/x86_64-linux-gnu)
if(NOT GLUEPROF_NCCL_INCLUDE_DIR OR NOT GLUEPROF_NCCL_LIBRARY)
  message(STATUS "glueprof: libtorch has NCCL but nccl.h or libnccl was not found (set GLUEPROF_NCCL_ROOT): several ranks on CUDA not built")
  return()
endif()

file(STRINGS "${GLUEPROF_NCCL_INCLUDE_DIR}/nccl.h" _nccl_version_lines
     REGEX "^#define NCCL_(MAJOR|MINOR|PATCH) +[0-9]+")
set(_nccl_version "")
foreach(_part MAJOR MINOR PATCH)
  string(REGEX MATCH "NCCL_${_part} +([0-9]+)" _match "${_nccl_version_lines}")
  list(APPEND _nccl_version "${CMAKE_MATCH_1}")
endforeach()
list(JOIN _nccl_version "." _nccl_version)
if(GLUEPROF_NCCL_TORCH_VERSION)
  string(REGEX MATCH "^[0-9]+\\.[0-9]+" _theirs "${GLUEPROF_NCCL_TORCH_VERSION}")
  string(REGEX MATCH "^[0-9]+\\.[0-9]+" _ours "${_nccl_version}")
  if(NOT _theirs STREQUAL _ours)
    message(STATUS "glueprof: nccl.h in ${GLUEPROF_NCCL_INCLUDE_DIR} is NCCL ${_nccl_version} but torch was built with ${GLUEPROF_NCCL_TORCH_VERSION} (point GLUEPROF_NCCL_ROOT at torch's): several ranks on CUDA not built")
    return()
  endif()
endif()

# Probed again only when a file of the probe, nccl.h, the libtorch, the compiler or the flags
# changed: a probe takes 15-30 s.
set(_probe_key "${GLUEPROF_NCCL_INCLUDE_DIR} ${_nccl_version} ${Torch_DIR} ${Torch_VERSION} ${CMAKE_CXX_COMPILER} ${_toolkit_root} ${CMAKE_CXX_FLAGS}")
set(_probe_files reference_trainer/distributed/RankGroup.cpp reference_trainer/distributed/RankGroup.h
    profiler/ranks/RankEnvironment.h profiler/torch_ops/CudaDevice.cpp
    profiler/torch_ops/CudaDevice.h profiler/cupti/CudaDriver.cpp profiler/cupti/CudaDriver.h profiler/core/Error.h cmake/nccl-probe/NcclProbe.cpp
    reference_trainer/distributed/RendezvousWatchdog.cpp
    reference_trainer/distributed/RendezvousWatchdog.h profiler/core/Interruption.cpp
    reference_trainer/distributed/CollectiveStallNotice.cpp
    reference_trainer/distributed/CollectiveStallNotice.h
    profiler/core/Interruption.h cmake/nccl-probe/CMakeLists.txt)
foreach(_file ${_probe_files})
  file(MD5 ${PROJECT_SOURCE_DIR}/${_file} _hash)
  string(APPEND _probe_key " ${_hash}")
endforeach()
if(NOT "${_probe_key}" STREQUAL "${GLUEPROF_NCCL_PROBED}")
  unset(GLUEPROF_NCCL_BUILDS CACHE)
  unset(GLUEPROF_NCCL_NEEDS_LIBRARY CACHE)
endif()
if(NOT DEFINED GLUEPROF_NCCL_BUILDS)
  file(WRITE "${CMAKE_BINARY_DIR}/nccl-probe.log" "")
  # With torch alone first; with libnccl too only if that is what was missing.
  foreach(_with_library OFF ON)
    set(_libraries "")
    if(_with_library)
      set(_libraries ${GLUEPROF_NCCL_LIBRARY})
    endif()
    try_compile(GLUEPROF_NCCL_BUILDS ${CMAKE_BINARY_DIR}/nccl-probe
      ${PROJECT_SOURCE_DIR}/cmake/nccl-probe glueprof_nccl_probe nccl_probe
      CMAKE_FLAGS "-DTorch_DIR=${Torch_DIR}" "-DCUDAToolkit_ROOT=${_toolkit_root}"
                  "-DTORCH_CUDA_ARCH_LIST=${TORCH_CUDA_ARCH_LIST}"
                  "-DGLUEPROF_SOURCE_DIR=${PROJECT_SOURCE_DIR}"
                  "-DGLUEPROF_NCCL_INCLUDE_DIR=${GLUEPROF_NCCL_INCLUDE_DIR}"
                  "-DGLUEPROF_PROBE_EXTRA_LIBRARIES=${_libraries}"
                  "-DCMAKE_BUILD_TYPE=Release" "-DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER}"
      OUTPUT_VARIABLE _probe_output)
    file(APPEND "${CMAKE_BINARY_DIR}/nccl-probe.log" "== linked with: ${_libraries}\n${_probe_output}\n")
    set(GLUEPROF_NCCL_NEEDS_LIBRARY ${_with_library} CACHE INTERNAL "RankGroup.cpp needs libnccl itself")
    if(GLUEPROF_NCCL_BUILDS)
      break()
    endif()
  endforeach()
endif()
set(GLUEPROF_NCCL_PROBED "${_probe_key}" CACHE INTERNAL "what the NCCL probe built")
if(NOT GLUEPROF_NCCL_BUILDS)
  message(STATUS "glueprof: RankGroup.cpp does not build with NCCL ${_nccl_version} against this libtorch (see ${CMAKE_BINARY_DIR}/nccl-probe.log): several ranks on CUDA not built")
  return()
endif()
set(GLUEPROF_WITH_NCCL ON)
message(STATUS "glueprof: NCCL ${_nccl_version} (${GLUEPROF_NCCL_INCLUDE_DIR}, ${GLUEPROF_NCCL_LIBRARY}): several ranks on CUDA built")
