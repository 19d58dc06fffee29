#include "reference_trainer/distributed/RankGroup.h"

#include <fmt/format.h>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#ifdef GLUEPROF_WITH_NCCL
#include <torch/csrc/cuda/nccl.h>
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <exception>
#include <optional>
#include <regex>

#include "profiler/core/Error.h"
#include "profiler/torch_ops/CudaDevice.h"
#include "reference_trainer/distributed/RendezvousWatchdog.h"

namespace glueprof {

namespace {
// libtorch's messages carry a C++ backtrace after their first line.
std::string firstLine(const std::string& message) { return message.substr(0, message.find('\n')); }

// Rank 0's rendezvous socket, bound where MASTER_ADDR says and nowhere else, listening; handed to
// the store, which takes it over. Left to itself the store listens on every interface (IPv4 and
// IPv6), unauthenticated, for the whole run: a job whose ranks are all on this machine would take
// keys from anyone who can reach it. MASTER_ADDR 127.0.0.1 or localhost (glueprof --nproc's) is
// loopback only; a multi-node job's MASTER_ADDR is the address the other nodes reach rank 0 at.
// A host name that resolves to loopback only (Debian's /etc/hosts maps the machine's own name to
// 127.0.1.1) says nothing of where the other nodes reach it: the store then listens as libtorch's
// does (nullopt), and docs/cli.md says so.
bool isLoopback(const sockaddr* address) {
    if (address->sa_family == AF_INET) {
        const auto* v4 = reinterpret_cast<const sockaddr_in*>(address);
        return (ntohl(v4->sin_addr.s_addr) >> 24) == 127;
    }
    if (address->sa_family == AF_INET6) {
        const auto* v6 = reinterpret_cast<const sockaddr_in6*>(address);
        return IN6_IS_ADDR_LOOPBACK(&v6->sin6_addr);
    }
    return false;
}

std::optional<int> listenWhereMasterAddrSays(const std::string& masterAddr, int port) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV;
    addrinfo* found = nullptr;
    const std::string host = masterAddr == "localhost" ? "127.0.0.1" : masterAddr;
    const int resolved = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found);
    if (resolved != 0) {
        throw inputError(
            fmt::format("MASTER_ADDR '{}' does not resolve ({}): give rank 0's "
                        "address",
                        masterAddr, ::gai_strerror(resolved)));
    }
    const bool literalLoopback =
        masterAddr == "localhost" || masterAddr.rfind("127.", 0) == 0 || masterAddr == "::1";
    bool onlyLoopback = true;
    for (const addrinfo* a = found; a != nullptr; a = a->ai_next)
        onlyLoopback = onlyLoopback && isLoopback(a->ai_addr);
    if (onlyLoopback && !literalLoopback) {
        ::freeaddrinfo(found);
        return std::nullopt;
    }
    int error = 0;
    for (const addrinfo* a = found; a != nullptr; a = a->ai_next) {
        const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) continue;
        const int on = 1;
        ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
        if (::bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd, 1024) == 0) {
            ::freeaddrinfo(found);
            return fd;
        }
        error = errno;
        ::close(fd);
    }
    ::freeaddrinfo(found);
    throw inputError(fmt::format(
        "rank 0 cannot listen at MASTER_ADDR {} port {} ({}): MASTER_ADDR must be an address of "
        "rank 0's machine, and the port free",
        masterAddr, port, std::strerror(error)));
}
}  // namespace

struct RankGroup::Backend {
    c10::intrusive_ptr<c10d::Store> store;
    c10::intrusive_ptr<c10d::ProcessGroupGloo> gloo;
#ifdef GLUEPROF_WITH_NCCL
    c10::intrusive_ptr<c10d::ProcessGroupNCCL> nccl;
#endif
};

RankGroup::RankGroup(const RankEnvironment& environment, const std::string& device, int cudaDevice,
                     std::chrono::milliseconds timeout)
    : m_environment(environment), m_backend(std::make_unique<Backend>()) {
    const RankEnvironment& e = environment;
    const std::string prefix = fmt::format("glueprof (rank {} of {}): ", e.rank, e.worldSize);
    m_stallNotice = std::make_unique<CollectiveStallNotice>(prefix);
    const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(timeout).count();
    const std::string rendezvous = fmt::format("{}:{}", e.masterAddr, e.masterPort);
    // libtorch's own timeout comes first where it works; the watchdog ends what it cannot.
    const auto watchdogDeadline = timeout + std::chrono::seconds(5);
    std::optional<RendezvousWatchdog> watchdog;
    watchdog.emplace(prefix, "joining the ranks: nothing was recorded",
                     fmt::format("could not join the rendezvous at {} within {} s (nothing there "
                                 "answered as a c10d store)",
                                 rendezvous, seconds),
                     "check MASTER_ADDR/MASTER_PORT name rank 0's port and that every rank was "
                     "started, or raise --rank-timeout",
                     watchdogDeadline);
    try {
        c10d::TCPStoreOptions options;
        options.port = static_cast<std::uint16_t>(e.masterPort);
        options.isServer = e.rank == 0;
        options.numWorkers = static_cast<std::size_t>(e.worldSize);
        options.waitWorkers = true;
        options.timeout = timeout;
        if (options.isServer)
            options.masterListenFd = listenWhereMasterAddrSays(e.masterAddr, e.masterPort);
        // The store owns the socket from here, even where it fails after taking it (a rank
        // that cannot join ends with its error: nothing is left to close it twice).
        m_backend->store = c10::make_intrusive<c10d::TCPStore>(e.masterAddr, options);
    } catch (const std::exception& error) {
        watchdog.reset();
        throw inputError(fmt::format(
            "rank {} of {} could not join the rendezvous at {}:{} within {} s ({}); check "
            "MASTER_ADDR/MASTER_PORT and that every rank was started",
            e.rank, e.worldSize, e.masterAddr, e.masterPort, seconds, firstLine(error.what())));
    }
    watchdog.reset();
    // Joining the backend talks through the store, within the same timeout.
    watchdog.emplace(
        prefix, "joining the ranks: nothing was recorded",
        fmt::format("the ranks did not connect within {} s of meeting at {}", seconds, rendezvous),
        "check that every rank was started with the same WORLD_SIZE and can reach "
        "the others, or raise --rank-timeout",
        watchdogDeadline);
    if (device == "cuda") {
#ifdef GLUEPROF_WITH_NCCL
        // One GPU per rank of a machine: this rank's, current before NCCL picks one.
        m_gpu = cudaDevice;
        try {
            useCudaDevice(m_gpu);
            joinNccl(timeout);
        } catch (const GlueprofError&) {
            throw;  // says what is wrong already
        } catch (const std::exception& error) {
            throw collectiveError("connecting the ranks (NCCL)", error);
        }
        return;
#else
        (void)cudaDevice;
        throw inputError(whyCannotJoin(device));
#endif
    }
    try {
        joinGloo(timeout);
    } catch (const std::exception& error) {
        throw collectiveError("connecting the ranks (Gloo)", error);
    }
}

#ifdef GLUEPROF_WITH_NCCL
void RankGroup::joinNccl(std::chrono::milliseconds timeout) {
    const RankEnvironment& e = m_environment;
    m_backendName = "nccl";
    // ProcessGroupNCCL's objects are laid out after NCCL's version macros: the nccl.h compiled in
    // here must be the NCCL torch was built with (major << 32 | minor << 16 | patch), or libtorch
    // would fill objects of another size.
    const std::uint64_t torchNccl = torch::cuda::nccl::version();
    const std::uint64_t major = torchNccl >> 32;
    const std::uint64_t minor = (torchNccl >> 16) & 0xffff;
    if (major != NCCL_MAJOR || minor != NCCL_MINOR) {
        throw inputError(fmt::format(
            "this glueprof was built with NCCL {}.{}'s nccl.h but torch with NCCL {}.{}; rebuild "
            "with GLUEPROF_NCCL_ROOT at torch's (the nvidia-nccl wheel beside it: docs/gpu.md)",
            NCCL_MAJOR, NCCL_MINOR, major, minor));
    }
    auto options = c10d::ProcessGroupNCCL::Options::create();
    options->timeout = timeout;
    m_backend->nccl =
        c10::make_intrusive<c10d::ProcessGroupNCCL>(m_backend->store, e.rank, e.worldSize, options);
}
#endif

void RankGroup::joinGloo(std::chrono::milliseconds timeout) {
    const RankEnvironment& e = m_environment;
    m_backendName = "gloo";
    auto options = c10d::ProcessGroupGloo::Options::create(timeout);
    // Loopback when the rendezvous is on this machine, else the interface that reaches it.
    options->devices.push_back(e.masterAddr == "127.0.0.1" || e.masterAddr == "localhost"
                                   ? c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1")
                                   : c10d::ProcessGroupGloo::createDefaultDevice());
    m_backend->gloo =
        c10::make_intrusive<c10d::ProcessGroupGloo>(m_backend->store, e.rank, e.worldSize, options);
}

// A ProcessGroupNCCL destroyed without shutdown() warns and aborts its communicators (torch
// >= 2.4): shut it down (abort on an error's way out: a peer may be gone).

RankGroup::~RankGroup() {
#ifdef GLUEPROF_WITH_NCCL
    if (!m_backend->nccl) return;
    try {
        if (std::uncaught_exceptions() > 0) {
            m_backend->nccl->abort();
        } else {
            m_backend->nccl->shutdown();
        }
    } catch (...) {
        // Ending anyway: nothing to tell beyond what the collectives already said.
    }
#endif
}

std::string RankGroup::whyCannotJoin(const std::string& device) {
#ifndef GLUEPROF_WITH_NCCL
    if (device == "cuda") {
        return "--device cuda with several ranks needs NCCL, and this glueprof was built without "
               "it (a CPU libtorch, or no matching nccl.h: cmake's GLUEPROF_NCCL_ROOT, "
               "docs/gpu.md); use --device cpu (Gloo)";
    }
#endif
    (void)device;
    return "";
}

c10::intrusive_ptr<c10d::Work> RankGroup::allReduceSum(std::vector<torch::Tensor>& tensors,
                                                       std::int64_t& sequence) {
    sequence = m_nextSequence++;
    try {
#ifdef GLUEPROF_WITH_NCCL
        if (m_backend->nccl) return m_backend->nccl->allreduce(tensors);
#endif
        return m_backend->gloo->allreduce(tensors);
    } catch (const std::exception& error) {
        throw collectiveError("starting an all-reduce", error);
    }
}

void RankGroup::wait(const c10::intrusive_ptr<c10d::Work>& work, const char* what) {
    m_stallNotice->begin(what);
    try {
        work->wait();
    } catch (const std::exception& error) {
        m_stallNotice->end();
        throw collectiveError(what, error);
    }
    m_stallNotice->end();
}

void RankGroup::barrier() {
    c10::intrusive_ptr<c10d::Work> work;
    try {
#ifdef GLUEPROF_WITH_NCCL
        if (m_backend->nccl) {
            // On this rank's GPU: NCCL would otherwise guess rank % GPUs before any collective
            // named one, and a communicator on another GPU than the all-reduces' would not pair.
            // NCCL connects lazily, so its setup errors surface here.
            c10d::BarrierOptions options;
            options.device_ids = {static_cast<std::int64_t>(m_gpu)};
            work = m_backend->nccl->barrier(options);
        } else
#endif
        {
            work = m_backend->gloo->barrier();
        }
    } catch (const std::exception& error) {
        throw collectiveError("starting a barrier", error);
    }
    if (!work) throw inputError("a barrier across the ranks returned no work to wait for");
    wait(work, "a barrier");
}

void RankGroup::publish(const std::string& key, const std::string& value) {
    try {
        m_backend->store->set(key, std::vector<std::uint8_t>(value.begin(), value.end()));
    } catch (const std::exception& error) {
        throw collectiveError("writing the rendezvous store", error);
    }
}

std::string RankGroup::read(const std::string& key) {
    try {
        const std::vector<std::uint8_t> bytes = m_backend->store->get(key);
        return std::string(bytes.begin(), bytes.end());
    } catch (const std::exception& error) {
        throw collectiveError("reading the rendezvous store", error);
    }
}

std::string RankGroup::shareFromLeader(const std::string& key, const std::string& value) {
    if (rank() != 0) return read(key);
    publish(key, value);
    return value;
}

GlueprofError RankGroup::collectiveError(const char* what, const std::exception& error) const {
    // libtorch appends a backtrace: its first line, without Gloo's source locations
    // ("[../third_party/gloo/gloo/transport/tcp/pair.cc:547] Read error ...").
    static const std::regex sourceLocation(R"(\[[^\]\s]*\.(cc|cpp|h):[0-9]+\] ?)");
    const std::string message = std::regex_replace(std::string(error.what()), sourceLocation, "");
    return inputError(fmt::format(
        "{} across the {} ranks failed ({}: {}): another rank ended or was killed (its own "
        "message says why), or it took longer than --rank-timeout",
        what, worldSize(), m_backendName, firstLine(message)));
}

}  // namespace glueprof
