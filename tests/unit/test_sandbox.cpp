// loom.h's sandbox: only the safe libraries; the memory cap over Lua's heap and Loom's arrays and compiled code;
// the instruction budget and the deadline of a run, builds included, which a script cannot escape by catching
// the error; builds confined to the host's cache directory with the host's compiler flags; and a state that goes
// on working after each limit.
#include <catch2/catch.hpp>
#include <lua.hpp>
#include <stdlib.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "lua/loom.h"
#include "tests/unit/embed_helpers.h"
#include "support/error.h"
#include "isl/isl.h"
#include "support/limits.h"
#include "support/process.h"

namespace {

namespace fs = std::filesystem;
using loom::test::temp_dir;

struct Outcome {
    int status;
    std::string kind;  // of a Loom error object; "" for any other error value
    std::string message;
};

class Sandbox {
public:
    explicit Sandbox(const loom_limits& limits) : L(loom_sandbox_new(&limits)) { REQUIRE(L != nullptr); }
    ~Sandbox() { loom_sandbox_close(L); }
    Sandbox(const Sandbox&) = delete;
    Sandbox& operator=(const Sandbox&) = delete;

    /// Runs `code` through loom_sandbox_pcall (on any thread: no Catch2 assertion here).
    Outcome run(const std::string& code) const {
        Outcome out{luaL_loadbufferx(L, code.data(), code.size(), "=script", "t"), "", ""};
        if (out.status == LUA_OK) out.status = loom_sandbox_pcall(L, 0, 0, 0);
        if (out.status == LUA_OK) return out;
        if (lua_istable(L, -1)) {
            lua_getfield(L, -1, "kind");
            lua_getfield(L, -2, "message");
            out.kind = lua_tostring(L, -2);
            out.message = lua_tostring(L, -1);
            lua_pop(L, 2);
        } else {
            out.message = lua_tostring(L, -1);
        }
        lua_pop(L, 1);
        return out;
    }

    void ok(const std::string& code) const {
        const Outcome out = run(code);
        INFO(code);
        INFO(out.kind << ": " << out.message);
        REQUIRE(out.status == LUA_OK);
    }

    lua_State* const L;
};

void check_error(const Outcome& out, const char* kind, const char* text) {
    INFO(out.kind << ": " << out.message);
    CHECK(out.status == LUA_ERRRUN);
    CHECK(out.kind == kind);
    CHECK(out.message.find(text) != std::string::npos);
}

constexpr const char* kDouble = R"(
    local lp = require("loom")
    knl = lp.make_kernel("{ [i]: 0<=i<n }", "x[i] = 2*x[i] + %d", { lp.GlobalArg("x", "float32", { shape = "n" }), "..." })
    x = lp.arange(8, "float32")
)";

std::string doubling_kernel(int constant) {
    char text[512];
    std::snprintf(text, sizeof text, kDouble, constant);
    return text;
}

}  // namespace

TEST_CASE("a sandbox has only the safe libraries, and loom", "[sandbox]") {
    const Sandbox s(loom_limits{});
    s.ok(R"(
        assert(io == nil and debug == nil and dofile == nil and loadfile == nil)
        assert(os.execute == nil and os.getenv == nil and os.remove == nil and os.exit == nil)
        assert(type(os.clock()) == "number" and type(os.time()) == "number")
        assert(string.dump == nil and package.loadlib == nil and package.cpath == nil)
        assert(type(coroutine.wrap) == "function" and math.pi and utf8.char(65) == "A")
        assert(require("loom").make_kernel)
        assert(not pcall(require, "io") and not pcall(require, "helpers"))
        assert(load("return 1 + 1")() == 2)
        local env = {}
        load("y = 3", "chunk", "t", env)()
        assert(env.y == 3 and y == nil)
    )");
    // A binary chunk, even asked for with mode "b".
    s.ok(R"(
        local binary = "\27Lua\84\0"
        local f, err = load(binary, "binary", "b")
        assert(f == nil and err:find("binary chunk"), err)
    )");
    check_error(s.run("setmetatable({}, { __gc = function() while true do end end })"), "SandboxError", "__gc");
    // Loom's metatables (whose __gc frees memory) are out of reach.
    s.ok("local a = require('loom').zeros(1, 'float32'); assert(getmetatable(a) == 'loom.Array')");
    s.ok("assert(getmetatable('').__index == string and getmetatable(setmetatable({}, { x = 1 })).x == 1)");
    s.ok("assert(coroutine.close == nil and coroutine.wrap(function(a) coroutine.yield(a + 1) end)(1) == 2)");
    s.ok("local f = coroutine.wrap(error); assert(not pcall(f, 'x') and not pcall(f))");
    // string.rep's own loop would turn 2^50 times to make "".
    s.ok("assert(string.rep('', 1 << 50) == '' and ('x'):rep(3, ',') == 'x,x,x')");
    check_error(s.run("table.move({}, 1, 1 << 40, 2)"), "SandboxError", "table.move");
    s.ok("local t = table.move({1, 2, 3}, 1, 3, 2); assert(t[4] == 3)");
    check_error(s.run("table.insert(setmetatable({}, { __len = function() return 1 << 60 end }), 1, 'x')"),
                "SandboxError", "__len");
    s.ok("local t = {1, 2}; table.insert(t, 1, 0); assert(table.remove(t) == 2 and #t == 2)");
}

TEST_CASE("loom refuses in a sandbox what reaches outside the state", "[sandbox]") {
    const Sandbox s(loom_limits{});
    s.ok(doubling_kernel(0));
    check_error(s.run("require('loom').show_dependency_graph(knl, 'graph.svg')"), "SandboxError", "writing a file");
    s.ok("assert(require('loom').show_dependency_graph(knl):find('<svg', 1, true))");
    check_error(s.run("require('loom').load_okl('/etc/passwd')"), "SandboxError", "load_okl");
    check_error(s.run("require('loom').workers(2)"), "SandboxError", "other threads");
    check_error(s.run("require('loom').parse_okl('#include \"/etc/passwd\"\\n')"), "OKLError", "reads a file");
    check_error(s.run("require('loom').set_caching_enabled(false)"), "SandboxError", "set_caching_enabled");
    check_error(s.run("require('loom').set_warnings('ignore')"), "SandboxError", "set_warnings");
    check_error(s.run("require('loom').c.executor{ cc = '/bin/sh' }"), "ArgumentError", "'cc'");
    check_error(s.run("require('loom').c.executor{ cflags = { '-fplugin=evil.so' } }"), "ArgumentError", "-fplugin");
    check_error(s.run("require('loom').c.executor{ cflags = { '-fsanitize=address' } }"), "ArgumentError", "-fsanitize");
}

TEST_CASE("a sandbox's kernels are checked: an index through data cannot reach host memory", "[sandbox]") {
    const Sandbox s(loom_limits{});
    s.ok("lp = require('loom')\n"
         "gather = lp.make_kernel('{ [i]: 0<=i<n }', 'out[i] = b[idx[i]]  {id=g}', { lp.GlobalArg('b', 'float64', "
         "{ shape = 8 }), lp.GlobalArg('idx', 'int32', { shape = 'n' }), lp.GlobalArg('out', 'float64', { shape = 'n' }), "
         "lp.ValueArg('n', 'int32') })\n"
         "assert(gather(lp.c.executor{}, { b = lp.arange(8, 'float64'), idx = lp.array({ 7 }, 'int32') }):get(0) == 7)");
    // The sandbox checks every kernel, whatever its options say.
    check_error(s.run("gather(lp.c.executor{}, { b = lp.arange(8, 'float64'), idx = lp.array({ 648 }, 'int32') })"),
                "IndexError", "reads b[idx[i]] (array 'b' of shape (8)) out of bounds: index 648");
}

// Restores an environment variable when it goes out of scope.
class EnvironmentVariable {
public:
    EnvironmentVariable(const char* name, const std::string& value) : name_(name) {
        const char* old = std::getenv(name);
        if (old) saved_ = old;
        ::setenv(name, value.c_str(), 1);
    }
    ~EnvironmentVariable() {
        if (saved_) ::setenv(name_, saved_->c_str(), 1);
        else ::unsetenv(name_);
    }

private:
    const char* name_;
    std::optional<std::string> saved_;
};

TEST_CASE("a sandbox's host chooses the compiler flags and the one directory builds write", "[sandbox]") {
    // `cc` on PATH is a wrapper that records the TMPDIR the compiler gets, where it puts its own temporary files.
    const fs::path cache = temp_dir(), bin = temp_dir();
    std::ofstream(bin / "cc") << "#!/bin/sh\nprintf '%s\\n' \"$TMPDIR\" >>\"$(dirname \"$0\")/tmpdirs\"\nexec /usr/bin/cc \"$@\"\n";
    fs::permissions(bin / "cc", fs::perms::owner_all);
    const EnvironmentVariable path("PATH", bin.string() + ":" + std::getenv("PATH"));
    const char* const flags[] = {"-O1", "-fno-fast-math", nullptr};
    loom_limits limits{};
    limits.cache_dir = cache.c_str();
    limits.compiler_flags = flags;
    {
        const Sandbox s(limits);
        s.ok(doubling_kernel(1));
        s.ok("knl(require('loom').c.executor{ cflags = { '-O1' } }, { x = x }); assert(x:get(3) == 7)");
        check_error(s.run("require('loom').c.executor{ cflags = { '-O2' } }"), "ArgumentError", "host allows");
        check_error(s.run("require('loom').set_options(knl, { build_options = { '-O3' } })"), "ArgumentError",
                    "host allows");
        s.ok("require('loom').set_options(knl, { build_options = { '-fno-fast-math' } })");
    }
    std::size_t libraries = 0;
    for (const auto& entry : fs::recursive_directory_iterator(cache)) libraries += entry.path().extension() == ".so";
    CHECK(libraries == 1);
    std::ifstream tmpdirs(bin / "tmpdirs");
    std::string tmpdir;
    REQUIRE(std::getline(tmpdirs, tmpdir));
    CHECK(tmpdir.starts_with(cache.string() + "/"));
    fs::remove_all(cache);
    fs::remove_all(bin);
}

TEST_CASE("the memory cap holds Lua's heap and Loom's arrays and code, and the state goes on", "[sandbox]") {
    loom_limits limits{};
    limits.memory = std::size_t{64} << 20;
    const Sandbox s(limits);
    // Lua allocating without bound.
    const Outcome lua = s.run("local t = {} while true do t[#t + 1] = ('x'):rep(1000) .. #t end");
    CHECK(lua.status == LUA_ERRMEM);
    CHECK(s.run("local s = ('x'):rep(1 << 30)").status == LUA_ERRMEM);
    s.ok("collectgarbage()");
    CHECK(loom_sandbox_memory(s.L) < (std::size_t{8} << 20));
    // Loom's arrays count: one of 40 MiB fits, a second one does not until the first is collected.
    s.ok("a = require('loom').zeros({10 << 20}, 'float32')");
    check_error(s.run("b = require('loom').zeros({10 << 20}, 'float32')"), "MemoryError", "memory limit");
    check_error(s.run("require('loom').zeros({1 << 40}, 'float32')"), "MemoryError", "memory limit");
    s.ok("a = nil; collectgarbage(); b = require('loom').zeros({10 << 20}, 'float32'); b = nil; collectgarbage()");
    // Lua's collector does not see an array's memory: a charge that would not fit collects the garbage first.
    s.ok("for i = 1, 5 do local a = require('loom').zeros({10 << 20}, 'float32') end");
    // A compiled kernel counts too, beyond the Lua heap it took.
    s.ok(doubling_kernel(2));
    const std::size_t before = loom_sandbox_memory(s.L);
    s.ok("heap = collectgarbage('count'); knl(require('loom').c.executor(), { x = x }); collectgarbage()"
         "; grown = (collectgarbage('count') - heap) * 1024");
    lua_getglobal(s.L, "grown");
    const double heap_growth = lua_tonumber(s.L, -1);
    lua_pop(s.L, 1);
    CHECK(static_cast<double>(loom_sandbox_memory(s.L) - before) > heap_growth + 4096);
}

TEST_CASE("the instruction budget stops a loop, however it catches the error", "[sandbox]") {
    loom_limits limits{};
    limits.instructions = 1000000;
    const Sandbox s(limits);
    check_error(s.run("while true do end"), "LimitError", "instruction limit of 1000000");
    s.ok("local n = 0 for i = 1, 1000 do n = n + i end assert(n == 500500)");  // the next run has its own budget
    check_error(s.run("while true do pcall(function() while true do end end) end"), "LimitError", "instruction");
    check_error(s.run("while true do coroutine.resume(coroutine.create(function() while true do end end)) end"),
                "LimitError", "instruction");
    check_error(s.run("while true do xpcall(function() while true do end end, function() while true do end end) end"),
                "LimitError", "instruction");
    // A coroutine ended by the limit keeps Lua's hooks off: its __close metamethods must never run.
    check_error(s.run(R"(
        local co = coroutine.wrap(function()
            local guard <close> = setmetatable({}, { __close = function() while true do end end })
            while true do end
        end)
        pcall(co)
        while true do end
    )"), "LimitError", "instruction");
    s.ok("assert(select(2, xpcall(error, function(e) return 'handled ' .. e end, 'x')) == 'handled x')");
    s.ok("assert(1 + 1 == 2)");
}

TEST_CASE("the deadline stops Lua code and kernel builds", "[sandbox]") {
    loom_limits limits{};
    limits.seconds = 0.2;
    const Sandbox s(limits);
    const auto start = std::chrono::steady_clock::now();
    check_error(s.run("while true do end"), "LimitError", "deadline of 0.2 s passed (running Lua code)");
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(2));
    s.ok("local n = 0 for i = 1, 10000 do n = n + i end");  // a new run, a new deadline
    // A kernel never built before, so that its stages and its compiler run: together they take longer than 1 ms.
    loom_limits tight{};
    tight.seconds = 0.001;
    const Sandbox quick(tight);
    const int fresh = static_cast<int>(std::chrono::system_clock::now().time_since_epoch().count() % 100000) + 3;
    const Outcome build = quick.run(doubling_kernel(fresh) + "knl(require('loom').c.executor(), { x = x })");
    check_error(build, "LimitError", "deadline of 0.001 s passed (");
    CHECK(build.message.find("running Lua code") == std::string::npos);
}

TEST_CASE("a deadline kills the program it is waiting for", "[sandbox]") {
    loom::Limits limits;
    limits.memory = std::make_shared<loom::MemoryAccount>(0);
    limits.seconds = 0.1;
    limits.deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(100);
    const loom::LimitsScope scope(&limits);
    const auto start = std::chrono::steady_clock::now();
    try {
        loom::run_process({"sleep", "10"}, "", true, "sleeping");
        FAIL("no LimitError");
    } catch (const loom::Error& e) {
        CHECK(e.kind() == "LimitError");
        CHECK(e.message() == "deadline of 0.1 s passed (sleeping)");
    }
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(2));
}

TEST_CASE("a deadline stops an isl computation in progress, and isl works again after", "[sandbox]") {
    loom::Limits limits;
    limits.memory = std::make_shared<loom::MemoryAccount>(0);
    limits.seconds = 0.1;
    limits.deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(100);
    const auto start = std::chrono::steady_clock::now();
    bool stopped = false;
    {
        const loom::LimitsScope scope(&limits);
        // One isl computation per turn, each short: only the watchdog ends the loop.
        for (int turn = 0; turn < 10'000'000 && !stopped; ++turn) {
            try {
                const isl::set s(loom::isl_util::ctx(), "{ [i, j]: 0 <= i, j < 100 and (i + 2j) mod 7 = 3 }");
                stopped = s.lexmin().is_empty() || s.is_empty();
                stopped = false;
            } catch (const isl::exception&) {
                stopped = true;
            }
        }
    }
    CHECK(stopped);
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(2));
    CHECK_FALSE(isl::set(loom::isl_util::ctx(), "{ [i]: 0 <= i < 4 }").is_empty());  // resumed with the limits gone
}

TEST_CASE("memory the account does not see (isl's) stops the engine past twice the cap", "[sandbox]") {
    loom::Limits limits;
    limits.memory = std::make_shared<loom::MemoryAccount>(8 << 20);
    bool stopped = false;
    {
        const loom::LimitsScope scope(&limits);
        std::vector<char> untracked(64 << 20, 1);  // as isl's allocations: resident, not charged
        const auto start = std::chrono::steady_clock::now();
        while (!stopped && std::chrono::steady_clock::now() - start < std::chrono::seconds(5)) {
            try {
                const isl::set s(loom::isl_util::ctx(), "{ [i, j]: 0 <= i, j < 100 and (i + 2j) mod 7 = 3 }");
                (void)s.is_empty();
            } catch (const isl::exception&) {
                stopped = true;
            }
        }
        CHECK(loom::memory_stopped());
        CHECK(untracked[12345] == 1);
    }
    CHECK(stopped);
    CHECK_FALSE(loom::memory_stopped());  // the limits gone, isl works again
    CHECK_FALSE(isl::set(loom::isl_util::ctx(), "{ [i]: 0 <= i < 4 }").is_empty());
}

TEST_CASE("a deadline ends code generation inside the stage, and its memory counts", "[sandbox]") {
    // 100 statements in a loop of 16384 unrolled copies: 40 s past a 2 s deadline and 684 MB under a 64 MiB cap
    // before, all in one stage.
    const std::string unrolled = R"(
        local lp = require('loom')
        local insns = {}
        for s = 1, 100 do insns[#insns + 1] = string.format('out%d[i] = %d*a[i]', s, s) end
        local knl = lp.make_kernel('{ [i]: 0<=i<16384 }', insns)
        knl = lp.split_iname(knl, 'i', 16384, { inner_tag = 'unr' })
        lp.generate_code(lp.add_dtypes(knl, { a = 'float32' }))
    )";
    loom_limits timed{};
    timed.seconds = 0.5;
    const Sandbox quick(timed);
    const auto start = std::chrono::steady_clock::now();
    check_error(quick.run(unrolled), "LimitError", "deadline of 0.5 s passed");
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::milliseconds(1500));
    loom_limits small{};
    small.memory = 64 << 20;
    small.seconds = 60;
    const Sandbox capped(small);
    check_error(capped.run(unrolled), "MemoryError", "generating code");
}

TEST_CASE("a deadline ends make_kernel of many statements soon after it passes", "[sandbox]") {
    loom_limits timed{};
    timed.seconds = 0.3;
    const Sandbox quick(timed);
    const std::string script = R"(
        local lp = require('loom')
        local insns = {}
        for s = 1, 20000 do insns[#insns + 1] = string.format('out[%d] = %d*a[%d]', s % 100, s, s % 100) end
        lp.make_kernel('{ [i]: 0<=i<1 }', insns)
    )";
    const auto start = std::chrono::steady_clock::now();
    check_error(quick.run(script), "LimitError", "deadline of 0.3 s passed");
    // 17 s in one stage before; the passes between two checks take well under a second.
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::milliseconds(1300));
}

TEST_CASE("kernel objects count against the memory cap", "[sandbox]") {
    loom_limits small{};
    small.memory = 16 << 20;
    const Sandbox s(small);
    // Each transformation's kernel is kept: 10,000 were 100 MB of RSS with 1.1 MB charged before.
    check_error(s.run("local lp = require('loom')\n"
                      "local k = lp.make_kernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i] + 1')\n"
                      "local kept = {}\n"
                      "for n = 1, 10000 do kept[n] = lp.tag_inames(k, { i = n % 2 == 0 and 'unr' or 'for' }) end"),
                "MemoryError", "a kernel object");
    s.ok("collectgarbage() assert(require('loom').make_kernel('{ [i]: 0<=i<4 }', 'out[i] = i'))");  // freed again
}

TEST_CASE("a sandbox runs deep kernels on a 64 MiB stack and refuses a smaller one", "[sandbox]") {
    const Sandbox s(loom_limits{});
    // The deepest expression Loom parses: a sum of 10,000 operands, lowered to C.
    const std::string deep = R"(
        local lp = require("loom")
        local terms = {}
        for i = 1, 10000 do terms[i] = "a[i]" end
        local knl = lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = " .. table.concat(terms, " + "), { "..." }, { target = "c" })
        assert(#lp.generate_code(lp.add_dtypes(knl, { a = "float32" })) > 10000)
    )";
    Outcome on_small_stack;
    std::thread([&] { on_small_stack = s.run("return 1"); }).join();  // the default 8 MiB
    check_error(on_small_stack, "LimitError", "64 MiB of stack");
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, std::size_t{65} << 20);
    struct Job {
        const Sandbox* s;
        const std::string* code;
        Outcome out;
    } job{&s, &deep, {}};
    pthread_t thread;
    REQUIRE(pthread_create(&thread, &attr, [](void* p) -> void* {
        auto* j = static_cast<Job*>(p);
        j->out = j->s->run(*j->code);
        return nullptr;
    }, &job) == 0);
    pthread_join(thread, nullptr);
    pthread_attr_destroy(&attr);
    INFO(job.out.kind << ": " << job.out.message);
    CHECK(job.out.status == LUA_OK);
}

TEST_CASE("loom_sandbox_new returns NULL when the cap cannot hold the libraries", "[sandbox]") {
    loom_limits limits{};
    limits.memory = 4096;
    CHECK(loom_sandbox_new(&limits) == nullptr);
}
