// A game loop that embeds Loom as a plugin. The host owns its particles (positions and velocities, float arrays of
// its own) and hands them to a script that runs in a Loom sandbox: the script (sim.lua) builds its update kernel
// once, and the host calls the function it returns every frame, on the host's memory itself (the C target) or on
// device buffers it keeps (OpenCL). Whatever the script does (raise, allocate without bound, loop forever, return
// garbage), the host reports it, runs its own built-in update instead, and reloads the script when the file
// changes.
//
//   loom_embed_host SCRIPT.lua [--particles N] [--frames N] [--fps N] [--opencl]
//
// It stops after --frames frames (0: never) or at Ctrl-C / SIGTERM, and prints the frame times every 100 frames.
#include <lua.hpp>

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "loom.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
    std::string script;
    int particles = 10000;
    long frames = 0;
    int fps = 60;
    bool opencl = false;
};

// The host's own data: x and y of each particle, row after row, as the script's float32 arrays of shape (n, 2).
struct Particles {
    explicit Particles(int n) : n(n), pos(2 * static_cast<std::size_t>(n)), vel(pos.size()) {
        for (int i = 0; i < n; ++i) {
            pos[2 * i] = static_cast<float>(i) / static_cast<float>(n);
            pos[2 * i + 1] = 0.5f + 0.5f * static_cast<float>(i % 7) / 7.0f;
            vel[2 * i] = 0.3f * std::sin(static_cast<float>(i));
        }
    }
    int n;
    std::vector<float> pos, vel;
};

// What the host does when no script works: falling straight down, stopping at the floor.
void builtin_update(Particles& p, float dt) {
    for (int i = 0; i < p.n; ++i) {
        p.vel[2 * i + 1] -= 9.81f * dt;
        p.pos[2 * i + 1] = std::max(0.0f, p.pos[2 * i + 1] + dt * p.vel[2 * i + 1]);
    }
}

// The sandbox's limits: what a script may hold and spend. Loading builds kernels (a compiler runs), so it gets more
// time than a frame.
constexpr std::size_t kMemory = std::size_t{256} << 20;
constexpr std::uint64_t kLoadInstructions = 10'000'000, kFrameInstructions = 1'000'000;
constexpr double kLoadSeconds = 30, kFrameSeconds = 0.25;

// Message handler of every call into the script: the error as text ("where KIND: message" for Loom's) and a
// traceback. A C function, as it may run right after a limit stopped the script.
int traceback(lua_State* L) {
    luaL_traceback(L, L, luaL_tolstring(L, 1, nullptr), 1);
    return 1;
}

// One load of the script: a fresh sandbox, the script run once with the host's buffers, and the update function it
// returned, which the registry keeps.
class Script {
public:
    Script() : L_(nullptr, loom_sandbox_close) {}

    // Loads `path`; on failure returns false with the reason in `error`.
    bool load(const std::string& path, Particles& p, bool opencl, std::string& error) {
        loom_limits limits{};
        limits.memory = kMemory;
        limits.instructions = kLoadInstructions;
        limits.seconds = kLoadSeconds;
        L_.reset(loom_sandbox_new(&limits));
        if (!L_) return fail("cannot create the sandbox", error);
        lua_State* L = L_.get();
        const std::string source = read(path);
        const std::int64_t shape[] = {p.n, 2};
        lua_pushcfunction(L, traceback);
        if (luaL_loadbufferx(L, source.data(), source.size(), ("@" + path).c_str(), "t") != LUA_OK)
            return fail(lua_tostring(L, -1), error);
        // No owner: the host's buffers outlive the sandbox.
        if (!loom_push_array(L, p.pos.data(), "float32", 2, shape, nullptr, nullptr) ||
            !loom_push_array(L, p.vel.data(), "float32", 2, shape, nullptr, nullptr))
            return fail(luaL_tolstring(L, -1, nullptr), error);
        lua_pushstring(L, opencl ? "opencl" : "c");
        if (loom_sandbox_pcall(L, 3, 1, 1) != LUA_OK) return fail(lua_tostring(L, -1), error);
        if (!lua_isfunction(L, -1))
            return fail(std::string("the script returned a ") + luaL_typename(L, -1) + ", not the update function", error);
        update_ = luaL_ref(L, LUA_REGISTRYINDEX);
        lua_pop(L, 1);  // the message handler
        loom_sandbox_set_budget(L, kFrameInstructions, kFrameSeconds);
        return true;
    }

    // One frame; on failure returns false with the reason in `error`. `energy` gets what update returned.
    bool update(float dt, double& energy, std::string& error) {
        lua_State* L = L_.get();
        lua_pushcfunction(L, traceback);
        lua_rawgeti(L, LUA_REGISTRYINDEX, update_);
        lua_pushnumber(L, dt);
        if (loom_sandbox_pcall(L, 1, 1, -3) != LUA_OK) return fail(lua_tostring(L, -1), error);
        const bool number = lua_type(L, -1) == LUA_TNUMBER && std::isfinite(lua_tonumber(L, -1));
        if (!number) return fail(std::string("update returned a ") + luaL_typename(L, -1) + ", not a number", error);
        energy = lua_tonumber(L, -1);
        lua_pop(L, 2);
        return true;
    }

    std::size_t memory() const { return loom_sandbox_memory(L_.get()); }

private:
    static std::string read(const std::string& path) {
        std::ifstream in(path, std::ios::binary);
        std::ostringstream text;
        text << in.rdbuf();
        return text.str();
    }

    bool fail(const std::string& why, std::string& error) {
        error = why;
        if (L_) lua_settop(L_.get(), 0);
        return false;
    }

    std::unique_ptr<lua_State, void (*)(lua_State*)> L_;
    int update_ = LUA_NOREF;
};

volatile std::sig_atomic_t g_stop = 0;

void on_signal(int) { g_stop = 1; }

bool parse(int argc, char** argv, Options& o) {
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const bool has_value = i + 1 < argc;
        if (arg == "--particles" && has_value) o.particles = std::atoi(argv[++i]);
        else if (arg == "--frames" && has_value) o.frames = std::atol(argv[++i]);
        else if (arg == "--fps" && has_value) o.fps = std::atoi(argv[++i]);
        else if (arg == "--opencl") o.opencl = true;
        else if (arg[0] != '-' && o.script.empty()) o.script = arg;
        else return false;
    }
    return !o.script.empty() && o.particles > 0 && o.fps > 0;
}

std::filesystem::file_time_type modified(const std::string& path) {
    std::error_code ec;
    return std::filesystem::last_write_time(path, ec);
}

// Frame times of the last 100 frames, and of the script's part of them.
struct Stats {
    double frame = 0, script = 0;
    int frames = 0;
    void print(long frames_so_far, double energy, std::size_t memory) {
        std::printf("frames %ld-%ld: %.3f ms per frame, %.3f ms in the script; energy %.1f; script memory %.1f MiB\n",
                    frames_so_far - frames + 1, frames_so_far, 1e3 * frame / frames, 1e3 * script / frames, energy,
                    static_cast<double>(memory) / (1 << 20));
        std::fflush(stdout);
        *this = {};
    }
};

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

void report(const char* what, const std::string& script, long frame, const std::string& why) {
    std::printf("%s %s (frame %ld): %s\n-> the built-in update runs until %s changes\n", what, script.c_str(), frame,
                why.c_str(), script.c_str());
    std::fflush(stdout);
}

int run(const Options& o) {
    Particles particles(o.particles);
    std::unique_ptr<Script> script;
    std::filesystem::file_time_type loaded_version{};
    const float dt = 1.0f / static_cast<float>(o.fps);
    const auto frame_length = std::chrono::duration<double>(dt);
    Stats stats;
    double energy = 0;
    long frame = 0;
    for (; !g_stop && (o.frames == 0 || frame < o.frames); ++frame) {
        const Clock::time_point start = Clock::now();
        // Hot reload: a new version of the file gets a new sandbox; the old one is closed with all it held.
        if (const auto version = modified(o.script); version != loaded_version) {
            loaded_version = version;
            std::string error;
            script = std::make_unique<Script>();
            if (script->load(o.script, particles, o.opencl, error)) {
                std::printf("loaded %s (%s, frame %ld)\n", o.script.c_str(), o.opencl ? "opencl" : "c", frame);
                std::fflush(stdout);
            } else {
                report("cannot load", o.script, frame, error);
                script.reset();
            }
        }
        const Clock::time_point update_start = Clock::now();
        std::string error;
        if (script && !script->update(dt, energy, error)) {
            report("script failed in", o.script, frame, error);
            script.reset();
        }
        if (!script) builtin_update(particles, dt);
        stats.script += seconds_since(update_start);
        stats.frame += seconds_since(start);
        if (++stats.frames == 100) stats.print(frame + 1, energy, script ? script->memory() : 0);
        std::this_thread::sleep_until(start + std::chrono::duration_cast<Clock::duration>(frame_length));
    }
    std::printf("stopped after %ld frames\n", frame);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    Options o;
    if (!parse(argc, argv, o)) {
        std::fprintf(stderr, "usage: %s SCRIPT.lua [--particles N] [--frames N] [--fps N] [--opencl]\n", argv[0]);
        return 2;
    }
    std::signal(SIGINT, on_signal);
    std::signal(SIGTERM, on_signal);
    // Scripts run on a thread with a stack deep enough for Loom's expression trees (loom_sandbox_pcall).
    int status = 1;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, std::size_t{256} << 20);
    pthread_t thread;
    struct Job {
        const Options* options;
        int* status;
    } job{&o, &status};
    if (pthread_create(&thread, &attr, [](void* p) -> void* {
            auto* j = static_cast<Job*>(p);
            *j->status = run(*j->options);
            return nullptr;
        }, &job) != 0) {
        std::fprintf(stderr, "cannot start the game thread\n");
        return 1;
    }
    pthread_join(thread, nullptr);
    pthread_attr_destroy(&attr);
    return status;
}
