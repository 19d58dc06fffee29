#include "profiler/core/ProgramToggles.h"

#include <fmt/format.h>

#include <set>
#include <sstream>

#include "profiler/core/Error.h"

namespace glueprof {

const std::vector<ProgramToggle>& programToggles() {
    static const std::vector<ProgramToggle> toggles = {
        {"fused_optimizer", "",
         "Adam, AdamW and SGD built with fused=True (foreach=True where torch refuses fused)",
         "no: the fused kernels round differently"},
        {"loader_workers", "N", "DataLoader built with num_workers=N (when it had fewer)",
         "yes, for a dataset whose items do not depend on the process that loads them"},
        {"loader_persistent", "", "DataLoader built with persistent_workers=True (with workers)",
         "yes"},
        {"pinned_loader", "", "DataLoader built with pin_memory=True", "yes"},
        {"tf32", "", "(GPU) matmuls and cuDNN allowed TF32", "no: TF32 rounds the inputs"},
        {"cudnn_benchmark", "", "(GPU) torch.backends.cudnn.benchmark = True",
         "no: the chosen algorithms may round differently"},
        {"expandable_segments", "", "(GPU) PYTORCH_CUDA_ALLOC_CONF with expandable_segments:True",
         "yes"},
        {"hf_grouped_experts", "",
         "Hugging Face MoE models built with experts_implementation=\"grouped_mm\"",
         "no: the grouped GEMM sums in another order"},
        {"hf_sdpa", "", "Hugging Face models built with attn_implementation=\"sdpa\"",
         "no: another attention kernel"},
    };
    return toggles;
}

std::string checkedProgramToggles(const std::string& list) {
    std::string checked;
    std::set<std::string> seen;
    std::stringstream words(list);
    std::string word;
    while (std::getline(words, word, ',')) {
        if (word.empty()) continue;
        const std::string name = word.substr(0, word.find('='));
        const bool hasValue = word.find('=') != std::string::npos;
        const std::string value = hasValue ? word.substr(word.find('=') + 1) : "";
        const ProgramToggle* toggle = nullptr;
        for (const ProgramToggle& t : programToggles())
            if (name == t.name) toggle = &t;
        if (toggle == nullptr) {
            std::string names;
            for (const ProgramToggle& t : programToggles())
                names += fmt::format("{}{}{}", names.empty() ? "" : ", ", t.name,
                                     *t.value != '\0' ? std::string("=") + t.value : "");
            throw usageError(
                fmt::format("--try: no program toggle '{}'; the toggles are: {}", name, names));
        }
        if (!seen.insert(name).second)
            throw usageError(fmt::format("--try: '{}' is given twice", name));
        if (*toggle->value == '\0' && hasValue)
            throw usageError(fmt::format("--try: '{}' takes no value", name));
        if (*toggle->value != '\0') {
            int n = 0;
            std::size_t used = 0;
            try {
                n = std::stoi(value, &used);
            } catch (const std::exception&) {
                used = 0;
            }
            if (!hasValue || used != value.size() || n < 1 || n > 256)
                throw usageError(
                    fmt::format("--try: '{}' takes a count from 1 to 256: {}=N", name, name));
        }
        checked += (checked.empty() ? "" : ",") + word;
    }
    if (checked.empty()) throw usageError("--try: give the toggles to try, NAME[,NAME]");
    return checked;
}

}  // namespace glueprof
