// A C++ libtorch training loop for `glueprof profile` (docs/profile.md): it knows nothing of
// glueprof. Its steps are the ranges it opens itself (RECORD_USER_SCOPE("train_step"), found with
// --step-range train_step), and its mask build is a glue range as in the reference trainer.
//   glueprof profile --step-range train_step -- build/release/examples/cpp/libtorch_train 8
#include <torch/torch.h>

#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
    const int steps = argc > 1 ? std::atoi(argv[1]) : 8;
    torch::manual_seed(0);
    torch::nn::Linear model(32, 32);
    torch::optim::SGD optimizer(model->parameters(), 0.01);
    for (int step = 0; step < steps; ++step) {
        RECORD_USER_SCOPE("train_step");
        torch::Tensor mask;
        {
            RECORD_USER_SCOPE("build_packed_mask");
            mask = torch::ones({16, 32}).tril();
        }
        const torch::Tensor loss = (model->forward(torch::randn({16, 32})) * mask).pow(2).mean();
        optimizer.zero_grad();
        loss.backward();
        optimizer.step();
        std::printf("step %d loss %a\n", step, loss.item<double>());
    }
    return 0;
}
