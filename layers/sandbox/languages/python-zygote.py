# polyeval's Python zygote (python-zygote.ts starts it in the sandbox, like any program: under
# bubblewrap where it is used, the supervisor's rlimits, seccomp filter and Landlock ruleset).
# It never runs, compiles or reads a sample's program: per request it forks a child that sets
# up the sample's own confinement (process group, stdio, rlimits, a nested Landlock domain that
# reads only the sample's build and writes only its working directory, and from Linux 6.12 can
# signal nothing outside itself) and only then reads and runs the program as `python3 -I -B
# main.py` would. The zygote waits for it under the wall-clock deadline, kills and reaps every
# process the sample left (it is their subreaper), empties the sandbox's /tmp, and answers.
#
# Protocol, one request at a time: a JSON line on stdin; one JSON line back on stdout, the
# supervisor's report fields (exit, signal, wall_timeout, utime_us, stime_us, maxrss_kb,
# wall_ms, stage, errno) plus "retire" when this zygote must not serve another sample.
import ctypes
import errno
import json
import os
import resource
import select
import signal
import sys
import time

# Modules programs commonly import, loaded once here (each child then finds them loaded).
import atexit  # noqa: F401
import builtins
import bisect  # noqa: F401
import collections  # noqa: F401
import copy  # noqa: F401
import functools  # noqa: F401
import heapq  # noqa: F401
import importlib.machinery
import itertools  # noqa: F401
import math  # noqa: F401
import operator  # noqa: F401
import re  # noqa: F401
import string  # noqa: F401
import traceback  # noqa: F401
import types
import typing  # noqa: F401

LIBC = ctypes.CDLL(None, use_errno=True)
LIBC.syscall.restype = ctypes.c_long
PR_SET_DUMPABLE, PR_SET_CHILD_SUBREAPER = 4, 36
LL_CREATE_RULESET, LL_ADD_RULE, LL_RESTRICT_SELF = 444, 445, 446
LL_EXECUTE, LL_WRITE_FILE, LL_READ_FILE, LL_READ_DIR = 1, 2, 4, 8
LL_TRUNCATE, LL_IOCTL_DEV = 1 << 14, 1 << 15
# What pe-supervisor.c lets every program read (SYSTEM_READ there).
SYSTEM_READ = ["/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/etc", "/sys", "/proc/meminfo", "/proc/cpuinfo",
               "/proc/stat", "/proc/loadavg", "/proc/filesystems", "/proc/sys"]


class RulesetAttr(ctypes.Structure):
    _fields_ = [("fs", ctypes.c_uint64), ("net", ctypes.c_uint64), ("scoped", ctypes.c_uint64)]


class PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


class SetupError(Exception):
    def __init__(self, stage, code):
        super().__init__(stage, code)
        self.stage, self.code = stage, code


def fail(stage):
    raise SetupError(stage, ctypes.get_errno() or errno.EINVAL)


def landlock(reads, writes):
    # The same rights as pe-supervisor.c's install_landlock, as a domain nested in the zygote's.
    abi = LIBC.syscall(LL_CREATE_RULESET, None, 0, 1)
    if abi < 1:
        fail(2)
    fs = (1 << 13) - 1
    if abi >= 2:
        fs |= 1 << 13
    if abi >= 3:
        fs |= LL_TRUNCATE
    if abi >= 5:
        fs |= LL_IOCTL_DEV
    attr = RulesetAttr(fs, 3 if abi >= 4 else 0, 3 if abi >= 6 else 0)
    rs = LIBC.syscall(LL_CREATE_RULESET, ctypes.byref(attr), ctypes.sizeof(attr), 0)
    if rs < 0:
        fail(2)
    read = LL_EXECUTE | LL_READ_FILE | LL_READ_DIR
    file_rights = LL_EXECUTE | LL_WRITE_FILE | LL_READ_FILE | LL_TRUNCATE | LL_IOCTL_DEV

    def allow(path, rights):
        try:
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
        except OSError:
            return
        try:
            isdir = os.fstat(fd).st_mode & 0o170000 == 0o040000
            rule = PathBeneath((rights if isdir else rights & file_rights) & fs, fd)
            if rule.allowed and LIBC.syscall(LL_ADD_RULE, rs, 1, ctypes.byref(rule), 0) != 0:
                fail(2)
        finally:
            os.close(fd)

    for path in SYSTEM_READ:
        allow(path, read)
    allow(f"/proc/{os.getpid()}", read)
    allow("/proc", LL_READ_DIR)
    allow("/dev", read | LL_WRITE_FILE | LL_IOCTL_DEV | LL_TRUNCATE)
    for path in reads:
        allow(path, read)
    for path in writes:
        allow(path, fs)
    if LIBC.syscall(LL_RESTRICT_SELF, rs, 0) != 0:
        fail(2)
    os.close(rs)


def exit_status(error):
    # As CPython's handle_system_exit: None is 0, an int is itself, anything else is printed, 1.
    # An int is PyLong_AsLong'ed (CPython 3.11 Python/pythonrun.c, _Py_HandleSystemExit): one
    # that does not fit a C long is -1 (status 255), one that does is cast to a C int; the exit
    # status is its low byte (os._exit would raise OverflowError outside a C int).
    code = error.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF if -(1 << 63) <= code < (1 << 63) else 0xFF
    try:
        sys.stderr.write(f"{code}\n")
    except BaseException:  # noqa: BLE001
        pass
    return 1


def run_program(path, args, depth):
    # `python3 -I -B <path> <args>`: a fresh __main__, the file's bytes compiled as the
    # interpreter compiles a script (its coding cookie honoured), its exceptions printed as an
    # uncaught exception is (without this function's frame), then what Py_FinalizeEx does.
    main = types.ModuleType("__main__")
    main.__dict__.update(__file__=path, __cached__=None, __builtins__=builtins, __package__=None, __spec__=None,
                         __loader__=importlib.machinery.SourceFileLoader("__main__", path))
    sys.modules["__main__"] = main
    sys.argv = [path, *args]
    # As deep a recursion as in a fresh interpreter: the probe, run from the same call site as
    # the program, measures how far it gets here; the zygote measured it in a fresh one.
    limit = sys.getrecursionlimit()
    if FRESH_DEPTH is not None:
        probe = {"__builtins__": builtins}
        exec(PROBE, probe)
        sys.setrecursionlimit(limit + FRESH_DEPTH - probe["r"])
    else:
        # A fresh script's module frame is the first; ours sits about `depth` frames deeper.
        sys.setrecursionlimit(limit + depth)
    status = 0
    interrupted = False
    try:
        with open(path, "rb") as f:
            source = f.read()
        exec(compile(source, path, "exec", dont_inherit=True), main.__dict__)
        del source
    except SystemExit as error:
        status = exit_status(error)
    except BaseException as error:  # noqa: BLE001 - printed as the interpreter prints it
        try:
            if error.__traceback__ is not None:
                error.__traceback__ = error.__traceback__.tb_next
            sys.excepthook(type(error), error, error.__traceback__)
        except BaseException:  # noqa: BLE001
            pass
        status = 1
        # CPython 3.11 Modules/main.c (Py_RunMain, exit_sigint): an uncaught KeyboardInterrupt
        # ends the process by SIGINT once finalised, not with status 1.
        interrupted = isinstance(error, KeyboardInterrupt)
    try:
        threading = sys.modules.get("threading")
        if threading is not None:
            threading._shutdown()
    except BaseException:  # noqa: BLE001
        pass
    try:
        atexit._run_exitfuncs()
    except SystemExit as error:
        status = exit_status(error)
    except BaseException:  # noqa: BLE001
        pass
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:  # noqa: BLE001
            if stream is sys.stdout:
                status = 120
    if interrupted:
        try:
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGINT)
        except BaseException:  # noqa: BLE001
            pass
        status = 130
    os._exit(status)


def child(req, setup_fd):
    stage = 5
    try:
        os.setpgid(0, 0)
        d = req["dir"]
        fds = [os.open(f"{d}/in", os.O_RDONLY), os.open(f"{d}/out", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600),
               os.open(f"{d}/err", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)]
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        os.closerange(3, setup_fd)
        os.closerange(setup_fd + 1, 1 << 16)
        os.chdir(req["cwd"])
        cpu_s = (req["cpuMs"] + 999) // 1000
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s + 1))
        if req["as"] > 0:
            resource.setrlimit(resource.RLIMIT_AS, (req["as"], req["as"]))
        resource.setrlimit(resource.RLIMIT_FSIZE, (req["fsize"], req["fsize"]))
        resource.setrlimit(resource.RLIMIT_NPROC, (req["nproc"], req["nproc"]))
        resource.setrlimit(resource.RLIMIT_NOFILE, (req["nofile"], req["nofile"]))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if req.get("privateIpc"):
            resource.setrlimit(resource.RLIMIT_MSGQUEUE, (0, 0))
        if req["landlock"]:
            stage = 2
            landlock(req["reads"], req["writes"])
    except SetupError as error:
        os.write(setup_fd, f"{error.stage} {error.code}".encode())
        os._exit(127)
    except BaseException as error:  # noqa: BLE001
        os.write(setup_fd, f"{stage} {getattr(error, 'errno', None) or errno.EINVAL}".encode())
        os._exit(127)
    os.close(setup_fd)
    depth = 0
    frame = sys._getframe()
    while frame is not None:
        depth += 1
        frame = frame.f_back
    run_program(req["file"], req["args"], depth)


# How deep a function recurses from a module's top level before RecursionError.
PROBE_SOURCE = """def f(n):
    try:
        return f(n + 1)
    except RecursionError:
        return n
r = f(0)
"""
PROBE = compile(PROBE_SOURCE, "<probe>", "exec", dont_inherit=True)
FRESH_DEPTH = None


def fresh_depth():
    # The probe's depth in a fresh `python3 -I -B` (once per zygote, before any sample); None
    # when that cannot be measured (each child then counts its own frames instead).
    r, w = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(r)
        os.close(w)
        return None
    if pid == 0:
        try:
            os.dup2(w, 1)
            os.execv(sys.executable, [sys.executable, "-I", "-B", "-c", PROBE_SOURCE + "print(r)\n"])
        finally:
            os._exit(127)
    os.close(w)
    out = b""
    while True:
        chunk = os.read(r, 64)
        if not chunk:
            break
        out += chunk
    os.close(r)
    _, status = os.waitpid(pid, 0)
    try:
        return int(out) if status == 0 else None
    except ValueError:
        return None


def sweep():
    # Every process the sample left re-parented to us (subreaper): kill and reap until none.
    path = f"/proc/self/task/{os.getpid()}/children"
    while True:
        try:
            with open(path) as f:
                for pid in f.read().split():
                    try:
                        os.kill(int(pid), signal.SIGKILL)
                    except OSError:
                        pass
        except OSError:
            pass
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return
        except InterruptedError:
            continue


def tmp_entries(top, device, found):
    # Everything under `top` on /tmp's own file system (never across a mount point: bubblewrap
    # binds the service's directory, and the host paths on the way to it, below /tmp).
    try:
        names = os.listdir(top)
    except OSError:
        return found
    for name in names:
        path = os.path.join(top, name)
        try:
            st = os.lstat(path)
        except OSError:
            continue
        if st.st_dev != device:
            continue
        found[path] = st.st_mode
        if st.st_mode & 0o170000 == 0o040000:
            tmp_entries(path, device, found)
    return found


def tmp_state():
    try:
        device = os.lstat("/tmp").st_dev
    except OSError:
        return None
    return device, os.lstat("/tmp").st_mode, tmp_entries("/tmp", device, {})


def wipe_tmp(baseline):
    # The sandbox's private /tmp, brought back to what it held when the zygote started (the
    # mount points' parents bubblewrap made): what the next sample finds is what a fresh sandbox
    # has. Returns whether that worked.
    if baseline is None:
        return False
    device, top_mode, kept = baseline
    for path, mode in [("/tmp", top_mode), *kept.items()]:
        try:
            os.chmod(path, mode & 0o7777)
        except OSError:
            return False
    now = tmp_entries("/tmp", device, {})
    for path in sorted(now, key=len, reverse=True):
        if path in kept:
            continue
        try:
            if now[path] & 0o170000 == 0o040000:
                os.chmod(path, 0o700)
                for name in os.listdir(path):
                    os.unlink(os.path.join(path, name))
                os.rmdir(path)
            else:
                os.unlink(path)
        except OSError:
            pass
    after = tmp_entries("/tmp", device, {})
    return after == kept


def ipc_ids(kind):
    # The ids of the SysV IPC objects of one kind in our IPC namespace (None: unreadable).
    try:
        with open(f"/proc/sysvipc/{kind}") as f:
            return [int(line.split()[1]) for line in f.read().splitlines()[1:] if line.strip()]
    except (OSError, ValueError, IndexError):
        return None


def wipe_ipc():
    # The SysV shared memory, message queues and semaphores samples left in the sandbox's own
    # IPC namespace (bubblewrap's --unshare-all: without a zygote each program has one of its
    # own), removed; whether none is left. (POSIX message queues cannot be listed: each child
    # may create none, RLIMIT_MSGQUEUE 0.)
    remove = {
        "shm": lambda i: LIBC.shmctl(i, 0, None),
        "msg": lambda i: LIBC.msgctl(i, 0, None),
        "sem": lambda i: LIBC.semctl(i, 0, 0),
    }
    for kind, rm in remove.items():
        for i in ipc_ids(kind) or []:
            rm(i)
    return all(ipc_ids(kind) == [] for kind in remove)


def serve(req, baseline):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    setup_r, setup_w = os.pipe2(os.O_CLOEXEC)
    start = time.monotonic()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(setup_r)
            child(req, setup_w)
        finally:
            os._exit(127)
    os.close(setup_w)
    timed_out = False
    pidfd = os.pidfd_open(pid)
    try:
        poller = select.poll()
        poller.register(pidfd, select.POLLIN)
        deadline = start + req["wallMs"] / 1000
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                for target in (-pid, pid):
                    try:
                        os.kill(target, signal.SIGKILL)
                    except OSError:
                        pass
                break
            if poller.poll(max(1, int(left * 1000))):
                break
    finally:
        os.close(pidfd)
    _, status, usage = os.wait4(pid, 0)
    wall_ms = int((time.monotonic() - start) * 1000)
    os.set_blocking(setup_r, False)
    try:
        setup = os.read(setup_r, 64).decode().split()
    except OSError:
        setup = []
    os.close(setup_r)
    sweep()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    clean = wipe_tmp(baseline) if req.get("wipeTmp") else True
    if req.get("privateIpc"):
        clean = wipe_ipc() and clean
    return {
        "exit": os.WEXITSTATUS(status) if os.WIFEXITED(status) else -1,
        "signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else 0,
        "wall_timeout": 1 if timed_out else 0,
        "utime_us": round((after.ru_utime - before.ru_utime) * 1e6),
        "stime_us": round((after.ru_stime - before.ru_stime) * 1e6),
        "maxrss_kb": usage.ru_maxrss,
        "wall_ms": wall_ms,
        "stage": int(setup[0]) if setup else 0,
        "errno": int(setup[1]) if len(setup) > 1 else 0,
        "retire": not clean,
    }


def main():
    LIBC.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    if LIBC.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        return
    parent = os.getppid()
    # /tmp's start state, taken before the first sample and only where it is the sandbox's own
    # (a walk of the host's /tmp would cost time and memory every child then carries).
    baseline = False
    global FRESH_DEPTH
    FRESH_DEPTH = fresh_depth()
    pending = b""
    while True:
        while b"\n" not in pending:
            chunk = os.read(0, 65536)
            if not chunk:
                return
            pending += chunk
        line, pending = pending.split(b"\n", 1)
        req = json.loads(line)
        # Re-parented (the supervisor above us is gone): not what we were started as, so stop.
        if os.getppid() != parent:
            return
        if req.get("wipeTmp") and baseline is False:
            baseline = tmp_state()
        answer = serve(req, baseline)
        os.write(1, json.dumps(answer).encode() + b"\n")
        if answer["retire"]:
            return


main()
