// Sandboxed states (loom.h's loom_sandbox_new): a Lua state for untrusted scripts, with a memory cap (its
// allocator, which Loom's own allocations share through support/limits.h), an instruction budget and a deadline
// per run (a count hook, and the engine's checks between long steps), only the safe standard libraries, and
// `loom` loaded with what could reach outside the state (files, compilers' flags, process-wide settings)
// refused.
#pragma once

#include <lua.hpp>

#include <string>

#include "support/limits.h"

namespace loom::lua {

struct Sandbox;

/// While a bound function runs for L (trampoline.cpp): when L is a sandbox, puts its limits in force on the
/// thread (their reclaim collects L's garbage) and lets Lua's allocations pass its memory cap by half of it, so
/// that no Lua memory error unwinds (or longjmps) over the function's C++ frames. over_cap() then says, after a
/// collection, to fail the call with a MemoryError instead, once those frames are gone.
class BoundCall {
public:
    explicit BoundCall(lua_State* L);
    ~BoundCall();
    BoundCall(const BoundCall&) = delete;
    BoundCall& operator=(const BoundCall&) = delete;
    bool over_cap();
    /// The MemoryError's message.
    std::string cap_message() const;

private:
    Sandbox* sandbox_;
    lua_State* saved_thread_ = nullptr;
    LimitsScope scope_;
};

/// The limits of L when it is a sandboxed state (its memory account and cache directory among them), else null.
const Limits* sandbox_limits(lua_State* L);

/// Whether L is a sandboxed state.
bool is_sandboxed(lua_State* L);

/// A SandboxError when L is a sandboxed state: `what` is not available there.
void refuse_in_sandbox(lua_State* L, const std::string& what);

}  // namespace loom::lua
