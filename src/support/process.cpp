#include "support/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "support/error.h"
#include "support/limits.h"

extern char** environ;

namespace loom {

namespace {

class FileDescriptor {
public:
    explicit FileDescriptor(int fd = -1) : fd_(fd) {}
    FileDescriptor(const FileDescriptor&) = delete;
    FileDescriptor& operator=(const FileDescriptor&) = delete;
    ~FileDescriptor() { reset(); }
    int get() const { return fd_; }
    void reset(int fd = -1) {
        if (fd_ >= 0) ::close(fd_);
        fd_ = fd;
    }

private:
    int fd_;
};

class SpawnActions {
public:
    SpawnActions() { posix_spawn_file_actions_init(&actions_); }
    SpawnActions(const SpawnActions&) = delete;
    SpawnActions& operator=(const SpawnActions&) = delete;
    ~SpawnActions() { posix_spawn_file_actions_destroy(&actions_); }
    posix_spawn_file_actions_t* get() { return &actions_; }

private:
    posix_spawn_file_actions_t actions_;
};

// Close-on-exec, so that the child's only copies are the ones it is given (else no end of file).
void make_pipe(FileDescriptor& read_end, FileDescriptor& write_end) {
    int ends[2];
    if (::pipe2(ends, O_CLOEXEC) != 0) user_error(error_kind::RuntimeError, "pipe failed: ", std::strerror(errno));
    read_end.reset(ends[0]);
    write_end.reset(ends[1]);
}

// The child's standard input is a socket, not a pipe: send() with MSG_NOSIGNAL cannot raise SIGPIPE in the host
// when the program exits without reading all of it.
void make_input_socket(FileDescriptor& ours, FileDescriptor& theirs) {
    int ends[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0)
        user_error(error_kind::RuntimeError, "socketpair failed: ", std::strerror(errno));
    ours.reset(ends[0]);
    theirs.reset(ends[1]);
    ::fcntl(ours.get(), F_SETFL, O_NONBLOCK);
}

// Milliseconds poll() may wait: until the deadline, or without end.
int poll_timeout() {
    const auto left = time_left();
    if (!left) return -1;
    return static_cast<int>(std::chrono::ceil<std::chrono::milliseconds>(*left).count());
}

// Feeds `input` and drains stdout (and stderr) until both outputs are closed; false when the deadline passed.
bool exchange(FileDescriptor& in, const std::string& input, int out_fd, int err_fd, ProcessResult& result) {
    std::size_t sent = 0;
    if (input.empty()) in.reset();
    struct Stream {
        int fd;
        std::string* text;
    } streams[] = {{out_fd, &result.output}, {err_fd, &result.errors}};
    for (;;) {
        pollfd fds[3];
        Stream* polled[2];
        nfds_t n = 0;
        for (Stream& s : streams)
            if (s.fd >= 0) {
                polled[n] = &s;
                fds[n++] = {s.fd, POLLIN, 0};
            }
        if (n == 0) return true;
        const nfds_t outputs = n;
        if (in.get() >= 0) fds[n++] = {in.get(), POLLOUT, 0};
        const int ready = ::poll(fds, n, poll_timeout());
        if (ready < 0 && errno == EINTR) continue;
        if (ready < 0) user_error(error_kind::RuntimeError, "poll failed: ", std::strerror(errno));
        if (ready == 0) return false;
        if (outputs < n && fds[outputs].revents) {
            const ssize_t k = ::send(in.get(), input.data() + sent, input.size() - sent, MSG_NOSIGNAL);
            if (k > 0) sent += static_cast<std::size_t>(k);
            if (k < 0 && errno != EAGAIN && errno != EINTR) sent = input.size();  // the program stopped reading
            if (sent == input.size()) in.reset();
        }
        for (nfds_t i = 0; i < outputs; ++i) {
            if (!fds[i].revents) continue;
            char chunk[4096];
            const ssize_t k = ::read(fds[i].fd, chunk, sizeof chunk);
            if (k > 0) polled[i]->text->append(chunk, static_cast<std::size_t>(k));
            else if (k == 0 || errno != EINTR) polled[i]->fd = -1;
        }
    }
}

// environ with `overrides` ("NAME=value") in place of the entries of the same names.
std::vector<std::string> environment_with(const std::vector<std::string>& overrides) {
    std::vector<std::string> out;
    const auto name_of = [](const std::string& entry) { return entry.substr(0, entry.find('=') + 1); };
    for (char** e = environ; *e; ++e) {
        const std::string entry = *e;
        const bool replaced = std::any_of(overrides.begin(), overrides.end(),
                                          [&](const std::string& o) { return name_of(o) == name_of(entry); });
        if (!replaced) out.push_back(entry);
    }
    out.insert(out.end(), overrides.begin(), overrides.end());
    return out;
}

std::vector<char*> pointers_to(const std::vector<std::string>& strings) {
    std::vector<char*> out;
    for (const std::string& s : strings) out.push_back(const_cast<char*>(s.c_str()));
    out.push_back(nullptr);
    return out;
}

int wait_for(pid_t pid) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) user_error(error_kind::RuntimeError, "waitpid failed: ", std::strerror(errno));
    return status;
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv, const std::string& input, bool merge_errors,
                          const char* step, const std::vector<std::string>& environment) {
    FileDescriptor in, child_in, out_read, out_write, err_read, err_write;
    make_input_socket(in, child_in);
    make_pipe(out_read, out_write);
    if (!merge_errors) make_pipe(err_read, err_write);
    SpawnActions actions;
    posix_spawn_file_actions_adddup2(actions.get(), child_in.get(), STDIN_FILENO);
    posix_spawn_file_actions_adddup2(actions.get(), out_write.get(), STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(actions.get(), merge_errors ? out_write.get() : err_write.get(), STDERR_FILENO);
    std::vector<char*> args = pointers_to(argv);
    const std::vector<std::string> env_strings = environment_with(environment);
    std::vector<char*> env = pointers_to(env_strings);
    // Under a deadline, its own process group, so that the deadline stops the programs it starts too (a
    // compiler's cc1, as, ld); otherwise the caller's, which a terminal's Ctrl-C reaches.
    const bool under_deadline = time_left().has_value();
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    if (under_deadline) posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
    pid_t pid = 0;
    ProcessResult result;
    result.spawn_error = posix_spawnp(&pid, args[0], actions.get(), &attributes, args.data(), env.data());
    posix_spawnattr_destroy(&attributes);
    child_in.reset();
    out_write.reset();
    err_write.reset();
    if (result.spawn_error != 0) return result;
    if (!exchange(in, input, out_read.get(), err_read.get(), result)) {
        ::kill(-pid, SIGKILL);  // only reached under a deadline: the group is the program's own
        wait_for(pid);
        throw Error(error_kind::LimitError, deadline_message(*current_limits(), step));
    }
    const int status = wait_for(pid);
    result.succeeded = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    return result;
}

}  // namespace loom
