# Every dependency comes from Debian's archive (scripts/bootstrap.sh) except libtorch: PyPI's torch
# (scripts/torch-env.sh) or another libtorch >= 2.4 (cmake/GlueprofTorch.cmake), whose fmt headers
# the project uses.
find_package(Threads REQUIRED)
find_package(SQLite3 REQUIRED)
find_package(nlohmann_json 3 REQUIRED)
find_package(CLI11 REQUIRED)
# glueprof import: zlib (gzip'd traces) and RapidJSON's SAX reader (header-only).
find_package(ZLIB REQUIRED)
find_path(RAPIDJSON_INCLUDE_DIR rapidjson/reader.h)
if(NOT RAPIDJSON_INCLUDE_DIR)
  message(FATAL_ERROR "RapidJSON headers not found: install rapidjson-dev (scripts/bootstrap.sh does)")
endif()

include(GlueprofTorch)
include(GlueprofNccl)  # GLUEPROF_WITH_NCCL: several ranks on CUDA

# NVTX3 is header-only; it ships with the CUDA toolkit.

if(GLUEPROF_WITH_NVTX)
  find_path(GLUEPROF_NVTX_INCLUDE_DIR nvtx3/nvToolsExt.h
    HINTS $ENV{CUDA_HOME}/include /usr/local/cuda/include)
  if(GLUEPROF_NVTX_INCLUDE_DIR)
    message(STATUS "glueprof: NVTX3 headers in ${GLUEPROF_NVTX_INCLUDE_DIR}")
  else()
    message(STATUS "glueprof: NVTX3 headers not found; ranges are recorded without NVTX")
  endif()
endif()

# The desktop app: Dear ImGui 1.86 (with its GLFW and OpenGL 3 backends), GLFW 3.3 and OpenGL, all from
# Debian (libimgui-dev, libglfw3-dev, libstb-dev). Without them the rest still builds.
if(GLUEPROF_GUI)
  find_package(PkgConfig REQUIRED)
  pkg_check_modules(IMGUI IMPORTED_TARGET imgui)
  pkg_check_modules(STB IMPORTED_TARGET stb)  # stb_image_write for screenshots
  find_package(glfw3 3.3 QUIET)
  set(OpenGL_GL_PREFERENCE GLVND)
  find_package(OpenGL QUIET)
  if(IMGUI_FOUND AND STB_FOUND AND glfw3_FOUND AND OpenGL_FOUND)
    message(STATUS "glueprof: building glueprof-gui (ImGui ${IMGUI_VERSION})")
  else()
    message(STATUS "glueprof: glueprof-gui skipped: ImGui, stb, GLFW 3.3 or OpenGL not found (scripts/bootstrap.sh installs them)")
    set(GLUEPROF_GUI OFF)
  endif()
endif()

if(GLUEPROF_BUILD_TESTS)
  find_package(GTest REQUIRED)
  include(GoogleTest)
endif()
if(GLUEPROF_BUILD_BENCH)
  find_package(benchmark REQUIRED)
endif()
