#pragma once
// bf16 autocast on CUDA, as the published runs train (CPU runs stay fp32, which keeps A/B arms
// bitwise comparable). Autocast state is thread-local, so the checkpoint recompute, which may run
// on autograd's device thread, re-enters it with the state its forward had.
namespace glueprof {

bool cudaAutocastEnabled();

class CudaAutocast {
  public:
    explicit CudaAutocast(bool enable);
    ~CudaAutocast();
    CudaAutocast(const CudaAutocast&) = delete;
    CudaAutocast& operator=(const CudaAutocast&) = delete;

  private:
    bool m_active;
    bool m_previous = false;
};

}  // namespace glueprof
