// The `loom` executable: Lua 5.4.4's stand-alone interpreter (lua.c) with the loom module preloaded, Loom
// error objects reported with their kind and position, and the `okl` command.
//
// Only plain C types live in these frames. Whether a Lua error is a longjmp (C Lua) or a C++ exception (the
// Debian C++ build we link), no destructor of ours can then be skipped, and we throw nothing that Lua's
// catch(...) would swallow.
#include <lua.hpp>

#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>

#include "loom.h"
#include "support/big_stack.h"

namespace {

constexpr const char* usage_text =
    "usage: loom [options] [script [args]]\n"
    "       loom okl FILE.okl [--target opencl|c|cuda] [-D NAME[=VALUE]]... [--run [--size N]]\n"
    "Available options are:\n"
    "  -e stat    execute string 'stat'\n"
    "  -i         enter interactive mode after executing 'script'\n"
    "  -l mod     require library 'mod' into global 'mod'\n"
    "  -l g=mod   require library 'mod' into global 'g'\n"
    "  -v         show version information (also --version)\n"
    "  -W         turn warnings on\n"
    "  -E         ignore environment variables (LUA_INIT, LUA_PATH, LUA_CPATH)\n"
    "  --help     show this text\n"
    "  --         stop handling options\n"
    "  -          stop handling options and execute stdin\n"
    "Without a script or -e, loom reads a REPL from a terminal and runs stdin otherwise.\n"
    "'loom okl' prints the code generated for each kernel of an OKL file (default target: opencl); -D defines\n"
    "a macro; --run runs each kernel instead, with integer arguments N (default 64) and random arrays, and\n"
    "prints the sum of each array after the run.\n";

// Error messages carry this prefix, except in the REPL (as in lua.c, where the prompt says who speaks).
const char* progname = "loom";

void message(const char* msg) {
    if (progname) std::fprintf(stderr, "%s: ", progname);
    std::fprintf(stderr, "%s\n", msg);
    std::fflush(stderr);
}

// Prints the error message on top of the stack after a failed load or call, and pops it.
int report(lua_State* L, int status) {
    if (status == LUA_OK) return status;
    const char* msg = lua_tostring(L, -1);
    // A status outside Lua's own codes is a C++ exception that some bound function let through; Lua's
    // catch(...) kept no message for it.
    const bool known = status == LUA_ERRRUN || status == LUA_ERRSYNTAX || status == LUA_ERRMEM ||
                            status == LUA_ERRERR || status == LUA_ERRFILE;
    if (!known) msg = "internal error: a C++ exception escaped into Lua";
    message(msg ? msg : "(error object is not a string)");
    lua_pop(L, 1);
    return status;
}

/// Pushes field `k` of the table at `idx` without metamethods (the handler must not fail on odd tables).
int rawfield(lua_State* L, int idx, const char* k) {
    lua_pushstring(L, k);
    return lua_rawget(L, idx);
}

// For a Loom error object at index 1 pushes "where KIND: message" (what its __tostring gives; the message
// states a position within the parsed text itself) and returns it; else nullptr.
const char* loom_error_message(lua_State* L) {
    if (!lua_istable(L, 1) || rawfield(L, 1, "kind") != LUA_TSTRING || rawfield(L, 1, "message") != LUA_TSTRING)
        return nullptr;
    const char* where = rawfield(L, 1, "where") == LUA_TSTRING ? lua_tostring(L, -1) : "";
    return lua_pushfstring(L, "%s%s: %s", where, lua_tostring(L, -3), lua_tostring(L, -2));
}

// Message handler of every protected call: the error as text plus a traceback. Unlike lua.c, an object with
// __tostring also gets the traceback, since SPEC promises one with every error.
int msghandler(lua_State* L) {
    const char* msg = lua_tostring(L, 1);
    if (!msg) msg = loom_error_message(L);
    if (!msg) {
        if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING)
            msg = lua_tostring(L, -1);
        else
            msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    }
    luaL_traceback(L, L, msg, 1);
    return 1;
}

// Ctrl-C while Lua code runs: a signal handler may only set a hook; the hook raises the error at the next
// safe point, so a long computation in the REPL can be interrupted without leaving the REPL.
lua_State* globalL = nullptr;

void lstop(lua_State* L, lua_Debug*) {
    lua_sethook(L, nullptr, 0, 0);
    luaL_error(L, "interrupted!");
}

void laction(int sig) {
    std::signal(sig, SIG_DFL);  // a second Ctrl-C before the hook runs kills the process
    lua_sethook(globalL, lstop, LUA_MASKCALL | LUA_MASKRET | LUA_MASKLINE | LUA_MASKCOUNT, 1);
}

// Calls the function below `narg` arguments with msghandler; the message handler is removed afterwards.
int docall(lua_State* L, int narg, int nres) {
    const int base = lua_gettop(L) - narg;
    lua_pushcfunction(L, msghandler);
    lua_insert(L, base);
    globalL = L;
    std::signal(SIGINT, laction);
    const int status = lua_pcall(L, narg, nres, base);
    std::signal(SIGINT, SIG_DFL);
    lua_remove(L, base);
    return status;
}

void print_version() {
    std::printf("loom %s (%s)\n", LOOM_VERSION, LUA_RELEASE);
    std::fflush(stdout);
}

int dochunk(lua_State* L, int status) {
    if (status == LUA_OK) status = docall(L, 0, 0);
    return report(L, status);
}

int dostring(lua_State* L, const char* s, const char* name) {
    return dochunk(L, luaL_loadbuffer(L, s, std::strlen(s), name));
}

int dofile(lua_State* L, const char* name) { return dochunk(L, luaL_loadfile(L, name)); }

// LUA_INIT_5_4 (else LUA_INIT) runs before anything else: "@file" runs that file, anything else is Lua code.
int handle_luainit(lua_State* L) {
    const char* name = "=LUA_INIT" LUA_VERSUFFIX;
    const char* init = std::getenv(name + 1);
    if (!init) {
        name = "=LUA_INIT";
        init = std::getenv(name + 1);
    }
    if (!init) return LUA_OK;
    return init[0] == '@' ? dofile(L, init + 1) : dostring(L, init, name);
}

// `-l mod` sets global mod = require("mod"); `-l g=mod` sets global g.
int dolibrary(lua_State* L, const char* spec) {
    const char* eq = std::strchr(spec, '=');
    lua_getglobal(L, "require");
    lua_pushstring(L, eq ? eq + 1 : spec);
    const int status = docall(L, 1, 1);
    if (status == LUA_OK) {
        lua_pushlstring(L, spec, eq ? static_cast<size_t>(eq - spec) : std::strlen(spec));
        lua_insert(L, -2);
        lua_setglobal(L, lua_tostring(L, -2));
        lua_pop(L, 1);
    }
    return report(L, status);
}

// Pushes the positive entries of the global `arg` as the script's `...`.
int pushargs(lua_State* L) {
    if (lua_getglobal(L, "arg") != LUA_TTABLE) luaL_error(L, "'arg' is not a table");
    const int n = static_cast<int>(luaL_len(L, -1));
    luaL_checkstack(L, n + 3, "too many arguments to script");
    int i;
    for (i = 1; i <= n; i++) lua_rawgeti(L, -i, i);
    lua_remove(L, -i);
    return n;
}

int handle_script(lua_State* L, char** argv) {
    const char* fname = argv[0];
    if (std::strcmp(fname, "-") == 0 && std::strcmp(argv[-1], "--") != 0) fname = nullptr;  // stdin
    int status = luaL_loadfile(L, fname);
    if (status == LUA_OK) status = docall(L, pushargs(L), LUA_MULTRET);
    return report(L, status);
}

enum Flags { has_error = 1, has_i = 2, has_v = 4, has_e = 8, has_E = 16, has_help = 32 };

// lua.c's option scan: returns the Flags seen and sets *first to the script's index (argc when there is
// none, or the index of the bad option on has_error).
int collectargs(char** argv, int* first) {
    int args = 0;
    int i;
    for (i = 1; argv[i] != nullptr; i++) {
        *first = i;
        if (argv[i][0] != '-') return args;  // the script
        switch (argv[i][1]) {
        case '-':
            if (std::strcmp(argv[i], "--help") == 0) return has_help;
            if (std::strcmp(argv[i], "--version") == 0) {
                args |= has_v;
                break;
            }
            if (argv[i][2] != '\0') return has_error;
            *first = i + 1;
            return args;
        case '\0':
            return args;  // the script is stdin
        case 'W':
            if (argv[i][2] != '\0') return has_error;
            break;
        case 'E':
            if (argv[i][2] != '\0') return has_error;
            args |= has_E;
            break;
        case 'i':
            args |= has_i;  // -i implies -v
            [[fallthrough]];
        case 'v':
            if (argv[i][2] != '\0') return has_error;
            args |= has_v;
            break;
        case 'e':
            args |= has_e;
            [[fallthrough]];
        case 'l':  // both need an argument, attached or next
            if (argv[i][2] == '\0') {
                i++;
                if (argv[i] == nullptr || argv[i][0] == '-') return has_error;
            }
            break;
        default:
            return has_error;
        }
    }
    *first = i;
    return args;
}

// Runs -e, -l and -W in command-line order, up to the script.
bool runargs(lua_State* L, char** argv, int n) {
    for (int i = 1; i < n; i++) {
        const char option = argv[i][1];
        if (option == 'e' || option == 'l') {
            const char* extra = argv[i][2] != '\0' ? argv[i] + 2 : argv[++i];
            const int status = option == 'e' ? dostring(L, extra, "=(command line)") : dolibrary(L, extra);
            if (status != LUA_OK) return false;
        } else if (option == 'W') {
            lua_warning(L, "@on", 0);
        }
    }
    return true;
}

// arg[0] is the script, arg[1..] its arguments, and the interpreter and options get negative indices.
void createargtable(lua_State* L, char** argv, int argc, int script) {
    if (script == argc) script = 0;  // no script: arg[0] is the interpreter
    lua_createtable(L, argc - (script + 1), script + 1);
    for (int i = 0; i < argc; i++) {
        lua_pushstring(L, argv[i]);
        lua_rawseti(L, -2, i - script);
    }
    lua_setglobal(L, "arg");
}

// ---- REPL --------------------------------------------------------------------------------------------------

constexpr const char* prompt1 = "> ";
constexpr const char* prompt2 = ">> ";

// Pushes one input line of any length without its newline; false (nothing pushed) at end of input.
bool pushline(lua_State* L, bool firstline) {
    std::fputs(firstline ? prompt1 : prompt2, stdout);
    std::fflush(stdout);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    bool got = false;
    while (char* p = std::fgets(luaL_prepbuffer(&b), LUAL_BUFFERSIZE, stdin)) {
        got = true;
        size_t n = std::strlen(p);
        const bool eol = n > 0 && p[n - 1] == '\n';
        luaL_addsize(&b, eol ? n - 1 : n);
        if (eol) break;
    }
    luaL_pushresult(&b);
    if (!got) lua_pop(L, 1);
    return got;
}

// A syntax error at <eof> means the chunk is incomplete: read a continuation line instead of failing.
bool incomplete(lua_State* L, int status) {
    constexpr char eofmark[] = "<eof>";
    constexpr size_t marklen = sizeof(eofmark) - 1;
    if (status != LUA_ERRSYNTAX) return false;
    size_t lmsg;
    const char* msg = lua_tolstring(L, -1, &lmsg);
    if (lmsg < marklen || std::strcmp(msg + lmsg - marklen, eofmark) != 0) return false;
    lua_pop(L, 1);
    return true;
}

// Tries the line as an expression ("return LINE;") so that `1+1` prints 2.
int addreturn(lua_State* L) {
    const char* retline = lua_pushfstring(L, "return %s;", lua_tostring(L, -1));
    const int status = luaL_loadbuffer(L, retline, std::strlen(retline), "=stdin");
    if (status == LUA_OK)
        lua_remove(L, -2);
    else
        lua_pop(L, 2);
    return status;
}

// Compiles the statement at index 1, appending continuation lines while it is incomplete.
int multiline(lua_State* L) {
    for (;;) {
        size_t len;
        const char* line = lua_tolstring(L, 1, &len);
        const int status = luaL_loadbuffer(L, line, len, "=stdin");
        if (!incomplete(L, status) || !pushline(L, false)) return status;
        lua_pushliteral(L, "\n");
        lua_insert(L, -2);
        lua_concat(L, 3);
    }
}

// Reads and compiles one REPL entry, leaving the function (or error message) alone on the stack; -1 at EOF.
int loadline(lua_State* L) {
    lua_settop(L, 0);
    if (!pushline(L, true)) return -1;
    if (lua_tostring(L, 1)[0] == '=') {  // 5.2-style "=expr"
        lua_pushfstring(L, "return %s", lua_tostring(L, 1) + 1);
        lua_replace(L, 1);
    }
    int status = addreturn(L);
    if (status != LUA_OK) status = multiline(L);
    lua_remove(L, 1);
    return status;
}

// Prints the values left on the stack by a REPL entry, with the global print.
void l_print(lua_State* L) {
    const int n = lua_gettop(L);
    if (n == 0) return;
    luaL_checkstack(L, LUA_MINSTACK, "too many results to print");
    lua_getglobal(L, "print");
    lua_insert(L, 1);
    if (lua_pcall(L, n, 0, 0) != LUA_OK)
        message(lua_pushfstring(L, "error calling 'print' (%s)", lua_tostring(L, -1)));
}

void repl(lua_State* L) {
    const char* oldprogname = progname;
    progname = nullptr;
    int status;
    while ((status = loadline(L)) != -1) {
        if (status == LUA_OK) status = docall(L, 0, LUA_MULTRET);
        if (status == LUA_OK)
            l_print(L);
        else
            report(L, status);
    }
    lua_settop(L, 0);
    std::fputs("\n", stdout);
    std::fflush(stdout);
    progname = oldprogname;
}

// ---- commands ----------------------------------------------------------------------------------------------

void print_usage(const char* badoption) {
    if (badoption[1] == 'e' || badoption[1] == 'l')
        std::fprintf(stderr, "%s: '%s' needs argument\n", progname, badoption);
    else
        std::fprintf(stderr, "%s: unrecognized option '%s'\n", progname, badoption);
    std::fputs(usage_text, stderr);
}

// The Lua modules shipped with Loom (stdlib/loom/*.lua: require("loom.tune")) beside this executable: in
// `stdlib/` next to it in a build tree or a bundle, and in the directory they were installed in, relative to
// the executable, wherever the prefix lies. After the paths from LUA_PATH or Lua's defaults.
void add_stdlib_dirs(lua_State* L) {
    char exe[4096];
    const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return;
    exe[n] = '\0';
    char* slash = std::strrchr(exe, '/');
    if (!slash) return;
    *slash = '\0';
    lua_getglobal(L, "package");
    lua_getfield(L, -1, "path");
    const char* dir = lua_pushfstring(L, "%s/%s", exe, LOOM_LUA_DIR_FROM_BIN);
    lua_pushfstring(L, "%s;%s/stdlib/?.lua;%s/?.lua;%s/?/init.lua", lua_tostring(L, -2), exe, dir, dir);
    lua_setfield(L, -4, "path");
    lua_pop(L, 3);
}

// The standard libraries, and require("loom") answered by the module linked into this executable (it wins
// over any loom.so on package.cpath, so the executable and its engine always match).
void open_libraries(lua_State* L) {
    luaL_openlibs(L);
    add_stdlib_dirs(L);
    lua_gc(L, LUA_GCGEN, 0, 0);
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_PRELOAD_TABLE);
    lua_pushcfunction(L, luaopen_loom);
    lua_setfield(L, -2, "loom");
    lua_pop(L, 1);
}

// `loom [options] [script [args]]`, as lua.c.
bool lua_command(lua_State* L, int argc, char** argv) {
    int script = argc;
    const int args = collectargs(argv, &script);
    if (args == has_error) {
        print_usage(argv[script]);
        return false;
    }
    if (args == has_help) {
        std::fputs(usage_text, stdout);
        return true;
    }
    if (args & has_v) print_version();
    if (args & has_E) {  // read by the package library as it opens: LUA_PATH and LUA_CPATH are then ignored
        lua_pushboolean(L, 1);
        lua_setfield(L, LUA_REGISTRYINDEX, "LUA_NOENV");
    }
    open_libraries(L);
    createargtable(L, argv, argc, script);
    if (!(args & has_E) && handle_luainit(L) != LUA_OK) return false;
    if (!runargs(L, argv, script)) return false;
    if (script < argc && handle_script(L, argv + script) != LUA_OK) return false;
    if (args & has_i) {
        repl(L);
    } else if (script == argc && !(args & (has_e | has_v))) {
        if (isatty(STDIN_FILENO)) {
            print_version();
            repl(L);
        } else if (dofile(L, nullptr) != LUA_OK) {
            return false;
        }
    }
    return true;
}

// `loom okl FILE.okl ...` is this program over the public API: load the file, print each kernel's generated
// code in file order, or (--run) run each one, its integer arguments fixed (so that its arrays' extents
// follow from its accesses) and its arrays random, as `occa translate` does.
constexpr const char* okl_program = R"(
local path, target, defines, run, size = ...
local lp = require("loom")
local function retarget(knl) return target and lp.set_options(knl, {target = target}) or knl end
for _, knl in ipairs(lp.load_okl(path, {defines = defines})) do
  if not run then
    print((lp.generate_code(retarget(knl))))
  else
    local fixed, args = {}, {}
    for _, a in ipairs(knl.args) do
      if a.kind == "ValueArg" then args[a.name] = a.dtype:match("int") and size or 1.5 end
      if a.kind == "ValueArg" and a.dtype:match("int") then fixed[a.name] = size end
    end
    local sized = retarget(lp.load_okl(path, {defines = defines, auto_shapes = true, parameters = fixed})[knl.name])
    for k, a in ipairs(sized.args) do
      if a.kind ~= "ValueArg" then
        if type(a.shape) ~= "table" or #a.shape == 0 then
          error("loom okl --run: the extent of argument '" .. a.name .. "' does not follow from its accesses")
        end
        local array = lp.zeros(a.shape, a.dtype)
        for i = 0, #array - 1 do array:set(i, a.dtype:match("float") and ((i * 7 + k) % 13) / 13 or (i * 7 + k) % 13) end
        args[a.name] = array
      end
    end
    sized(args)
    print(knl.name .. ":")
    for _, a in ipairs(sized.args) do
      if a.kind ~= "ValueArg" then
        local sum, array = 0, args[a.name]
        for i = 0, #array - 1 do sum = sum + array:get(i) end
        print(string.format("  %s: %d elements, sum %.9g", a.name, #array, sum))
      end
    end
  end
end
)";

bool okl_usage(const char* problem, const char* what) {
    std::fprintf(stderr, "%s: ", progname);
    std::fprintf(stderr, problem, what);
    std::fprintf(stderr, "\nusage: loom okl FILE.okl [--target opencl|c|cuda] [-D NAME[=VALUE]]... [--run [--size N]]\n");
    return false;
}

// `-D NAME=VALUE` (or `-DNAME`, which defines NAME as 1) into the table on top of the stack.
void okl_define(lua_State* L, const char* text) {
    const char* eq = std::strchr(text, '=');
    lua_pushlstring(L, text, eq ? static_cast<std::size_t>(eq - text) : std::strlen(text));
    lua_pushstring(L, eq ? eq + 1 : "1");
    lua_settable(L, -3);
}

bool okl_command(lua_State* L, int argc, char** argv) {
    const char* path = nullptr;
    const char* target = nullptr;
    bool run = false;
    long size = 64;
    lua_newtable(L);  // the defines
    const int defines = lua_gettop(L);
    for (int i = 2; i < argc; i++) {
        if (std::strcmp(argv[i], "--target") == 0) {
            if (++i == argc) return okl_usage("'%s' needs argument", "--target");
            target = argv[i];
        } else if (std::strncmp(argv[i], "-D", 2) == 0) {
            const char* def = argv[i][2] ? argv[i] + 2 : (++i < argc ? argv[i] : nullptr);
            if (!def || !*def || *def == '=') return okl_usage("'%s' needs NAME[=VALUE]", "-D");
            okl_define(L, def);
        } else if (std::strcmp(argv[i], "--run") == 0) {
            run = true;
        } else if (std::strcmp(argv[i], "--size") == 0) {
            char* end = nullptr;
            size = ++i < argc ? std::strtol(argv[i], &end, 10) : 0;
            if (!end || *end || size < 1 || size > 1 << 20) return okl_usage("'%s' needs a size from 1 to 1048576", "--size");
        } else if (argv[i][0] == '-' || path) {
            return okl_usage("unexpected argument '%s'", argv[i]);
        } else {
            path = argv[i];
        }
    }
    if (!path) return okl_usage("%s", "missing OKL file");
    if (target && std::strcmp(target, "opencl") != 0 && std::strcmp(target, "c") != 0 &&
        std::strcmp(target, "cuda") != 0)
        return okl_usage("unknown target '%s' (expected opencl, c or cuda)", target);
    int status = luaL_loadbuffer(L, okl_program, std::strlen(okl_program), "=(okl)");
    if (status == LUA_OK) {
        lua_pushstring(L, path);
        if (target)
            lua_pushstring(L, target);
        else
            lua_pushnil(L);
        lua_pushvalue(L, defines);
        lua_pushboolean(L, run);
        lua_pushinteger(L, size);
        status = docall(L, 5, 0);
    }
    return report(L, status) == LUA_OK;
}

// Everything runs in protected mode so that even errors while opening the libraries are reported.
int pmain(lua_State* L) {
    const int argc = static_cast<int>(lua_tointeger(L, 1));
    char** argv = static_cast<char**>(lua_touserdata(L, 2));
    luaL_checkversion(L);
    const bool okl = argc > 1 && std::strcmp(argv[1], "okl") == 0;
    if (okl) open_libraries(L);  // `loom [options]` opens them itself, after -E
    const bool ok = okl ? okl_command(L, argc, argv) : lua_command(L, argc, argv);
    lua_pushboolean(L, ok);
    return 1;
}

int run(int argc, char** argv) {
    lua_State* L = luaL_newstate();
    if (!L) {
        message("cannot create state: not enough memory");
        return EXIT_FAILURE;
    }
    lua_pushcfunction(L, pmain);
    lua_pushinteger(L, argc);
    lua_pushlightuserdata(L, argv);
    const int status = lua_pcall(L, 2, 1, 0);
    const bool ok = lua_toboolean(L, -1);
    report(L, status);
    lua_close(L);
    return ok && status == LUA_OK ? EXIT_SUCCESS : EXIT_FAILURE;
}

// Lua reports its own allocation failures as errors; this catches C++ ones outside any Lua call, so that they
// end with a message and status 1 instead of std::terminate.
int run_reporting(int argc, char** argv) {
    try {
        return run(argc, argv);
    } catch (const std::bad_alloc&) {
        message("not enough memory");
    } catch (const std::exception& e) {
        message(e.what());
    }
    return EXIT_FAILURE;
}

}  // namespace

int main(int argc, char** argv) {
    return loom::run_on_big_stack(run_reporting, argc, argv);
}
