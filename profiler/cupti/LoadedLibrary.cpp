#include "profiler/cupti/LoadedLibrary.h"

#include <dlfcn.h>
#include <link.h>

#include <filesystem>

namespace glueprof::cupti {

std::string loadedLibraryPath(const char* name) {
    void* handle = dlopen(name, RTLD_LAZY | RTLD_NOLOAD);
    if (handle == nullptr) return "";
    link_map* map = nullptr;
    std::string path = name;
    if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr && map->l_name != nullptr &&
        map->l_name[0] != '\0') {
        path = std::filesystem::path(map->l_name).lexically_normal().string();
    }
    dlclose(handle);
    return path;
}

}  // namespace glueprof::cupti
