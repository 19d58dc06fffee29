# libtorch. The build is against PyPI's torch (a CUDA build; scripts/torch-env.sh makes its
# environment, the Makefile passes its python as GLUEPROF_PYTHON), or against any libtorch >= 2.4
# given by TORCH_DIR (environment) or Torch_DIR / CMAKE_PREFIX_PATH, which win over GLUEPROF_PYTHON.
#
# From GLUEPROF_PYTHON's torch (scripts/torch_layout.py says where things are) this sets, unless given:
#   Torch_DIR                     its share/cmake/Torch
#   GLUEPROF_NCCL_ROOT            the nvidia-nccl wheel beside it (nccl.h, libnccl.so.2)
#   GLUEPROF_NCCL_TORCH_VERSION   the NCCL it was built with
#   GLUEPROF_CUPTI_ROOT           the CUDA wheel beside it that holds cupti.h (nvidia/cu13)
# A CUDA libtorch's config needs the CUDA toolkit of the same major version (nvcc): CUDA_HOME's,
# else FindCUDAToolkit's own search (nvcc on PATH, then /usr/local/cuda), as scripts/gpu-check.sh.
set(GLUEPROF_PYTHON "" CACHE FILEPATH "python of the torch environment to build against (scripts/torch-env.sh)")
# Sets cache VARIABLE to what GLUEPROF_PYTHON's torch says, unless the user set it: a value this
# module set earlier (another environment's) is replaced, one given on the command line is kept.
macro(_glueprof_from_python variable value type doc)
  if(NOT ${variable} OR "${${variable}}" STREQUAL "${_GLUEPROF_FROM_PYTHON_${variable}}")
    set(${variable} "${value}" CACHE ${type} "${doc}" FORCE)
    set(_GLUEPROF_FROM_PYTHON_${variable} "${value}" CACHE INTERNAL "what GLUEPROF_PYTHON gave ${variable}")
  endif()
endmacro()
if(DEFINED ENV{TORCH_DIR})
  # The environment's libtorch wins, also in a build folder configured before with GLUEPROF_PYTHON's:
  # what that torch gave is forgotten (NCCL's and CUPTI's defaults are then the toolkit's).
  set(Torch_DIR "$ENV{TORCH_DIR}" CACHE PATH "libtorch's CMake config" FORCE)
  foreach(_variable Torch_DIR GLUEPROF_NCCL_ROOT GLUEPROF_NCCL_TORCH_VERSION GLUEPROF_CUPTI_ROOT)
    if(DEFINED _GLUEPROF_FROM_PYTHON_${_variable})
      if(NOT _variable STREQUAL "Torch_DIR" AND "${${_variable}}" STREQUAL "${_GLUEPROF_FROM_PYTHON_${_variable}}")
        unset(${_variable} CACHE)
      endif()
      unset(_GLUEPROF_FROM_PYTHON_${_variable} CACHE)
    endif()
  endforeach()
elseif(GLUEPROF_PYTHON)
  execute_process(COMMAND "${GLUEPROF_PYTHON}" "${PROJECT_SOURCE_DIR}/scripts/torch_layout.py"
    OUTPUT_VARIABLE _layout ERROR_VARIABLE _layout_error RESULT_VARIABLE _layout_result
    OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_STRIP_TRAILING_WHITESPACE)
  if(NOT _layout_result EQUAL 0)
    message(FATAL_ERROR "glueprof: GLUEPROF_PYTHON=${GLUEPROF_PYTHON} has no usable torch (${_layout_error}); run scripts/torch-env.sh, or set TORCH_DIR to a libtorch's share/cmake/Torch")
  endif()
  string(REPLACE "\n" ";" _layout "${_layout}")
  foreach(_line ${_layout})
    if(_line MATCHES "^([a-z0-9_]+)=(.*)$")
      set(_torch_${CMAKE_MATCH_1} "${CMAKE_MATCH_2}")
    endif()
  endforeach()
  if(NOT _torch_cxx11_abi STREQUAL "1")
    message(FATAL_ERROR "glueprof: torch ${_torch_torch_version} (${GLUEPROF_PYTHON}) was built with the pre-C++11 ABI; glueprof links the system's C++ libraries: use a cxx11-ABI torch (every PyPI wheel from 2.6 on)")
  endif()
  _glueprof_from_python(Torch_DIR "${_torch_cmake_prefix}/Torch" PATH "libtorch's CMake config")
  if(NOT _torch_nccl_root STREQUAL "-" AND "$ENV{GLUEPROF_NCCL_ROOT}" STREQUAL "")
    _glueprof_from_python(GLUEPROF_NCCL_ROOT "${_torch_nccl_root}" PATH "NCCL's prefix (include/nccl.h, lib/libnccl.so.2)")
  endif()
  if(NOT _torch_nccl_version STREQUAL "-")
    _glueprof_from_python(GLUEPROF_NCCL_TORCH_VERSION "${_torch_nccl_version}" STRING "NCCL version torch was built with")
  endif()
  if(NOT _torch_cupti_lib STREQUAL "-" AND EXISTS "${_torch_cupti_lib}/../include/cupti.h")
    get_filename_component(_cupti_root "${_torch_cupti_lib}/.." ABSOLUTE)
    _glueprof_from_python(GLUEPROF_CUPTI_ROOT "${_cupti_root}" PATH "prefix of cupti.h")
  endif()
endif()
set(GLUEPROF_CUPTI_ROOT "" CACHE PATH "prefix of cupti.h (include/) to build GPU capture with; default: torch's CUDA wheel, else the toolkit")

# The toolkit torch's CUDA config compiles against: CUDA_HOME's, else FindCUDAToolkit's search.
if(NOT CUDAToolkit_ROOT AND DEFINED ENV{CUDA_HOME} AND EXISTS "$ENV{CUDA_HOME}/bin/nvcc")
  set(CUDAToolkit_ROOT "$ENV{CUDA_HOME}")
endif()

# glueprof compiles no CUDA code, so torch's config need not detect a GPU to pick architectures (its
# detection runs a program, which fails without a GPU and inside try_compile).
if(NOT DEFINED TORCH_CUDA_ARCH_LIST AND NOT DEFINED ENV{TORCH_CUDA_ARCH_LIST})
  set(TORCH_CUDA_ARCH_LIST "9.0")
endif()
find_package(Torch REQUIRED)
if(Torch_VERSION VERSION_LESS 2.4)
  message(FATAL_ERROR "glueprof: libtorch ${Torch_VERSION} (${Torch_DIR}) is older than 2.4, the oldest glueprof builds against; make configure uses PyPI's torch (scripts/torch-env.sh), or set TORCH_DIR to a libtorch >= 2.4")
endif()
set(GLUEPROF_TORCH_HAS_CUDA OFF)
if(TARGET torch_cuda)
  set(GLUEPROF_TORCH_HAS_CUDA ON)
endif()
message(STATUS "glueprof: libtorch ${Torch_VERSION} from ${Torch_DIR} (CUDA: ${GLUEPROF_TORCH_HAS_CUDA})")

# fmt: libtorch's own headers (torch/include/fmt) are on every torch target's include path, and c10's
# headers include them, so the project uses that one fmt everywhere: a second fmt (Debian's) would meet
# it in the same program. Only the fmt folder is exposed, through a link in the build tree. Its
# out-of-line functions are compiled once, into a static library (cmake/fmt-library), not header-only
# into every file that formats (about 3 s of compiler time each; the clean build's compiler time went
# from 1370 s to 1167 s on 2 cores before the unity groups).
list(GET TORCH_INCLUDE_DIRS 0 _torch_include)
if(NOT EXISTS "${_torch_include}/fmt/format.h")
  message(FATAL_ERROR "glueprof: ${_torch_include}/fmt/format.h not found: this libtorch does not ship fmt's headers (every libtorch >= 2.4 does)")
endif()
file(MAKE_DIRECTORY "${CMAKE_BINARY_DIR}/torch-fmt")
file(CREATE_LINK "${_torch_include}/fmt" "${CMAKE_BINARY_DIR}/torch-fmt/fmt" SYMBOLIC)
add_library(glueprof_fmt STATIC "${PROJECT_SOURCE_DIR}/cmake/fmt-library/FmtLibrary.cpp")
target_include_directories(glueprof_fmt SYSTEM PUBLIC "${CMAKE_BINARY_DIR}/torch-fmt")

# PyPI's libtorch exports pieces of a newer libstdc++ it was built with (std::filesystem, std::chrono
# time zones, string streams) that do not work outside its own toolchain's runtime: called from
# glueprof, std::filesystem::remove_all jumped to address 0. A symbol binds to the first library in
# the program's load order that defines it, and libtorch came before libstdc++ there; so every
# program is linked with libstdc++ first (its first DT_NEEDED), where the system's runtime answers.
add_link_options("LINKER:--push-state,--no-as-needed" "-lstdc++" "LINKER:--pop-state")
