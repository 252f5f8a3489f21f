/*
 * `pe-supervisor`, the tiny process that runs inside the sandbox between the
 * isolation layer (bubblewrap, or nothing) and the untrusted program. It exists because
 * Node cannot set rlimits on a child, read a child's rusage, adopt orphaned grandchildren,
 * or confine a child with seccomp and Landlock. Built into every executor image (see
 * layers/images), or once per machine into the cache directory (see supervisor.ts).
 *
 * Usage: pe-supervisor <cpu_ms> <wall_ms> <as_bytes|0> <fsize_bytes> <nproc> <nofile> <uid|-1> <confine> [-r path]… [-w path]… -- argv…
 *        pe-supervisor --probe        prints `seccomp=<0|1> landlock=<abi|0>`
 *
 * <confine> is `-` or letters: `s` installs the seccomp filter, `l` the Landlock ruleset.
 * The seccomp filter (no_new_privs, native ABI only) refuses socket() (no network at all:
 * not loopback, not the Lambda runtime API, not the ECS credentials endpoint), io_uring,
 * ptrace and process_vm_* (no reading another process's memory), namespaces and mounts,
 * keyrings, bpf and perf, and kill(-1). The Landlock ruleset allows reading and executing
 * only under the `-r` paths, the system directories, /dev and the program's own /proc/<pid>
 * (never another process's /proc/<pid>/environ), writing only under the `-w` paths, no TCP
 * (ABI ≥ 4), and no signals or abstract sockets out of the sandbox (ABI ≥ 6). A requested
 * confinement that cannot be applied fails the run (fail closed), reported as setup stage.
 *
 * It becomes a child subreaper (orphans of the program re-parent to it), forks the program
 * with the rlimits applied and, when <uid> is not -1 (the rlimits level started by root),
 * as uid/gid <uid> with no supplementary groups — so the supervisor itself stays out of the
 * program's reach (it cannot be signalled by the program's kill(-1)). It waits for it (killing it at the wall-clock deadline), then kills
 * and reaps every remaining descendant, and finally writes one report line on fd 3:
 *   `exit=<code> signal=<n> wall_timeout=<0|1> utime_us=<n> stime_us=<n> maxrss_kb=<n> wall_ms=<n> exec_errno=<n> stage=<n>`
 * (stage: 0 ran, 1 uid drop, 2 Landlock, 3 seccomp, 4 exec failed with exec_errno).
 * fd 3 is close-on-exec, so the program cannot write a report itself, and the supervisor is
 * non-dumpable, so the program cannot reach it through /proc/<pid>/fd.
 *
 * Compiled with gcc -O2 by supervisor.ts (once per machine) or at image build time
 * (layers/images/prebuild.ts); test/sandbox/supervisor-source.test.ts keeps it warning-free.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Landlock, declared here so that older kernel headers (Amazon Linux 2023 ships 6.1) build it. */
#define LL_CREATE_RULESET 444
#define LL_ADD_RULE 445
#define LL_RESTRICT_SELF 446
struct ll_ruleset_attr { uint64_t fs; uint64_t net; uint64_t scoped; };
struct ll_path_beneath { uint64_t allowed; int32_t parent_fd; } __attribute__((packed));
#define LL_EXECUTE (1ULL << 0)
#define LL_WRITE_FILE (1ULL << 1)
#define LL_READ_FILE (1ULL << 2)
#define LL_READ_DIR (1ULL << 3)
#define LL_TRUNCATE (1ULL << 14)
#define LL_IOCTL_DEV (1ULL << 15)

#if defined(__x86_64__)
#define NATIVE_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#else
#error "pe-supervisor: unsupported architecture for the seccomp filter"
#endif

static volatile sig_atomic_t deadline_hit = 0;
static volatile sig_atomic_t stop_requested = 0;
static void on_alarm(int s) { (void)s; deadline_hit = 1; }
static void on_term(int s) { (void)s; stop_requested = 1; }

static long long now_ms(void) {
  struct timespec ts; clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void set_limit(int res, unsigned long long soft, unsigned long long hard) {
  struct rlimit rl; rl.rlim_cur = soft; rl.rlim_max = hard; setrlimit(res, &rl);
}

/* Kills every direct child listed by the kernel; returns how many were listed. */
static int kill_children(void) {
  char path[64]; snprintf(path, sizeof path, "/proc/self/task/%d/children", (int)getpid());
  FILE *f = fopen(path, "r"); if (!f) return 0;
  int n = 0, pid;
  while (fscanf(f, "%d", &pid) == 1) { kill(pid, SIGKILL); n++; }
  fclose(f); return n;
}

#define DENY(nr) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM)

static int install_seccomp(void) {
  struct sock_filter f[] = {
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NATIVE_ARCH, 1, 0),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
#if defined(__x86_64__)
    /* x32 system calls would bypass the numbers below. */
    BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1), BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
#endif
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_socket, 0, 1), BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EACCES),
    /* glibc falls back to clone(2), whose flags the filter can read. */
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone3, 0, 1), BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
    DENY(__NR_io_uring_setup), DENY(__NR_io_uring_enter), DENY(__NR_io_uring_register),
    DENY(__NR_ptrace), DENY(__NR_process_vm_readv), DENY(__NR_process_vm_writev),
#ifdef __NR_pidfd_getfd
    DENY(__NR_pidfd_getfd),
#endif
    DENY(__NR_bpf), DENY(__NR_perf_event_open), DENY(__NR_userfaultfd),
    DENY(__NR_keyctl), DENY(__NR_add_key), DENY(__NR_request_key),
    DENY(__NR_unshare), DENY(__NR_setns), DENY(__NR_mount), DENY(__NR_umount2), DENY(__NR_pivot_root),
    DENY(__NR_chroot), DENY(__NR_open_by_handle_at), DENY(__NR_kexec_load), DENY(__NR_init_module), DENY(__NR_finit_module),
#ifdef __NR_fsopen
    DENY(__NR_fsopen), DENY(__NR_fsmount), DENY(__NR_open_tree), DENY(__NR_move_mount),
#endif
    /* kill(-1, …) would reach every process of this uid (the harness included). */
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_kill, 0, 3),
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0xffffffffU, 0, 1), BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone, 0, 3),
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
    BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP, 0, 1),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog prog = { (unsigned short)(sizeof f / sizeof f[0]), f };
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
  return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

static long landlock_abi(void) {
  long abi = syscall(LL_CREATE_RULESET, NULL, 0, 1U /* LANDLOCK_CREATE_RULESET_VERSION */);
  return abi < 0 ? 0 : abi;
}

static uint64_t fs_rights(long abi) {
  uint64_t all = (1ULL << 13) - 1; /* ABI 1: EXECUTE … MAKE_SYM */
  if (abi >= 2) all |= 1ULL << 13; /* REFER */
  if (abi >= 3) all |= LL_TRUNCATE;
  if (abi >= 5) all |= LL_IOCTL_DEV;
  return all;
}

/* Adds a rule for path (skipped when absent); a file gets only the file rights. */
static int allow(int ruleset, const char *path, uint64_t rights, uint64_t handled) {
  int fd = open(path, O_PATH | O_CLOEXEC);
  if (fd < 0) return 0;
  struct stat st; if (fstat(fd, &st) != 0) { close(fd); return -1; }
  uint64_t file_rights = LL_EXECUTE | LL_WRITE_FILE | LL_READ_FILE | LL_TRUNCATE | LL_IOCTL_DEV;
  struct ll_path_beneath rule; rule.allowed = (S_ISDIR(st.st_mode) ? rights : rights & file_rights) & handled; rule.parent_fd = fd;
  int r = rule.allowed ? (int)syscall(LL_ADD_RULE, ruleset, 1 /* LANDLOCK_RULE_PATH_BENEATH */, &rule, 0) : 0;
  close(fd); return r;
}

static const char *SYSTEM_READ[] = { "/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/etc", "/sys",
  "/proc/meminfo", "/proc/cpuinfo", "/proc/stat", "/proc/loadavg", "/proc/filesystems", "/proc/sys", 0 };

static int install_landlock(char **reads, int nreads, char **writes, int nwrites) {
  long abi = landlock_abi(); if (abi < 1) { errno = EOPNOTSUPP; return -1; }
  struct ll_ruleset_attr attr; memset(&attr, 0, sizeof attr);
  attr.fs = fs_rights(abi);
  if (abi >= 4) attr.net = 3; /* BIND_TCP | CONNECT_TCP, with no rule: none allowed */
  if (abi >= 6) attr.scoped = 3; /* ABSTRACT_UNIX_SOCKET | SIGNAL */
  int rs = (int)syscall(LL_CREATE_RULESET, &attr, sizeof attr, 0); if (rs < 0) return -1;
  uint64_t read = LL_EXECUTE | LL_READ_FILE | LL_READ_DIR, h = attr.fs;
  char self[64]; snprintf(self, sizeof self, "/proc/%d", (int)getpid());
  int bad = 0;
  for (int i = 0; SYSTEM_READ[i]; i++) bad |= allow(rs, SYSTEM_READ[i], read, h);
  bad |= allow(rs, self, read, h);
  bad |= allow(rs, "/proc", LL_READ_DIR, h); /* listing pids is harmless; reading their files is not */
  bad |= allow(rs, "/dev", read | LL_WRITE_FILE | LL_IOCTL_DEV | LL_TRUNCATE, h);
  for (int i = 0; i < nreads; i++) bad |= allow(rs, reads[i], read, h);
  for (int i = 0; i < nwrites; i++) bad |= allow(rs, writes[i], h, h);
  if (bad || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || syscall(LL_RESTRICT_SELF, rs, 0) != 0) { int e = errno; close(rs); errno = e ? e : EINVAL; return -1; }
  close(rs); return 0;
}

static int probe_seccomp(void) {
  pid_t p = fork();
  if (p == 0) _exit(install_seccomp() == 0 ? 0 : 1);
  int st = 0; if (p < 0 || waitpid(p, &st, 0) != p) return 0;
  return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

static void fail_setup(int fd, int stage) {
  int msg[2] = { stage, errno }; if (write(fd, msg, sizeof msg) < 0) {} _exit(127);
}

/* What the program's process needs from main (clone passes one pointer). */
struct child_args {
  int errfd; long uid; long long cpu_ms; unsigned long long as, fsize, nproc, nofile;
  int want_landlock, want_seccomp; char **reads; int nreads; char **writes; int nwrites; char **prog;
  sigset_t mask; /* the supervisor's signal mask before it blocked every signal around clone */
};

/* The program's stack until it execs: the child shares the supervisor's memory (CLONE_VM)
   while the supervisor waits (CLONE_VFORK), so it must not run on the supervisor's stack. */
static char child_stack[64 * 1024] __attribute__((aligned(16)));

/*
 * Runs in the program's process, started by clone(CLONE_VM | CLONE_VFORK) rather than fork():
 * no copy of the supervisor's page tables and no copy-on-write faults before the exec (on our
 * paravirtualised machines each fault and TLB flush is a trip to the hypervisor). Everything
 * set here is the new process's own — its rlimits, process group, signal dispositions, uid,
 * no_new_privs, Landlock domain and seccomp filter are per process or per task, not shared
 * through CLONE_VM — and only system calls and stack memory are used: no malloc, no stdio.
 */
static int start_program(void *arg) {
  struct child_args *c = arg;
  struct sigaction dfl; memset(&dfl, 0, sizeof dfl); dfl.sa_handler = SIG_DFL;
  /* Signals stay blocked until the supervisor's handlers are gone from this process: a
     handler run here would write the supervisor's flags through the shared memory. */
  sigaction(SIGPIPE, &dfl, 0); sigaction(SIGTERM, &dfl, 0); sigaction(SIGINT, &dfl, 0); sigaction(SIGALRM, &dfl, 0);
  sigprocmask(SIG_SETMASK, &c->mask, 0);
  setpgid(0, 0);
  /* Drop first: execve refuses (EAGAIN) a process that became its uid while already over
     that uid's RLIMIT_NPROC, and the count is machine-wide at the rlimits level. Raw system
     calls: glibc's wrappers would try to apply the change to every thread of the (shared) process. */
  if (c->uid >= 0 && (syscall(SYS_setgroups, 0, 0) != 0 || syscall(SYS_setgid, (gid_t)c->uid) != 0 || syscall(SYS_setuid, (uid_t)c->uid) != 0)) fail_setup(c->errfd, 1);
  unsigned long long cpu_s = (unsigned long long)((c->cpu_ms + 999) / 1000);
  set_limit(RLIMIT_CPU, cpu_s, cpu_s + 1);
  if (c->as > 0) set_limit(RLIMIT_AS, c->as, c->as);
  set_limit(RLIMIT_FSIZE, c->fsize, c->fsize);
  set_limit(RLIMIT_NPROC, c->nproc, c->nproc);
  set_limit(RLIMIT_NOFILE, c->nofile, c->nofile);
  set_limit(RLIMIT_CORE, 0, 0);
  if (c->want_landlock && install_landlock(c->reads, c->nreads, c->writes, c->nwrites) != 0) fail_setup(c->errfd, 2);
  if (c->want_seccomp && install_seccomp() != 0) fail_setup(c->errfd, 3);
  execv(c->prog[0], c->prog);
  fail_setup(c->errfd, 4);
  return 127;
}

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "--probe") == 0) { printf("seccomp=%d landlock=%ld\n", probe_seccomp(), landlock_abi()); return 0; }
  if (argc < 10) { fprintf(stderr, "pe-supervisor: bad arguments\n"); return 125; }
  long long cpu_ms = atoll(argv[1]), wall_ms = atoll(argv[2]);
  unsigned long long as = strtoull(argv[3], 0, 10), fsize = strtoull(argv[4], 0, 10);
  unsigned long long nproc = strtoull(argv[5], 0, 10), nofile = strtoull(argv[6], 0, 10);
  long uid = atol(argv[7]);
  int want_seccomp = strchr(argv[8], 's') != 0, want_landlock = strchr(argv[8], 'l') != 0;
  char *reads[256], *writes[16]; int nreads = 0, nwrites = 0, a = 9;
  for (; a + 1 < argc && strcmp(argv[a], "--") != 0; a += 2) {
    if (strcmp(argv[a], "-r") == 0 && nreads < 256) reads[nreads++] = argv[a + 1];
    else if (strcmp(argv[a], "-w") == 0 && nwrites < 16) writes[nwrites++] = argv[a + 1];
    else { fprintf(stderr, "pe-supervisor: bad option %s\n", argv[a]); return 125; }
  }
  if (a + 1 >= argc || strcmp(argv[a], "--") != 0) { fprintf(stderr, "pe-supervisor: bad arguments\n"); return 125; }
  char **prog = argv + a + 1;
  fcntl(3, F_SETFD, FD_CLOEXEC);
  unsetenv("PWD"); /* bubblewrap sets it; the program's environment is exactly what we pass */
  prctl(PR_SET_DUMPABLE, 0);
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  struct sigaction sa; memset(&sa, 0, sizeof sa); sa.sa_handler = on_alarm; sigaction(SIGALRM, &sa, 0);
  sa.sa_handler = on_term; sigaction(SIGTERM, &sa, 0); sigaction(SIGINT, &sa, 0);
  signal(SIGPIPE, SIG_IGN);
  int errpipe[2]; if (pipe2(errpipe, O_CLOEXEC) != 0) return 125;
  long long start = now_ms();
  struct child_args ca = { errpipe[1], uid, cpu_ms, as, fsize, nproc, nofile, want_landlock, want_seccomp, reads, nreads, writes, nwrites, prog, { { 0 } } };
  sigset_t all; sigfillset(&all); sigprocmask(SIG_BLOCK, &all, &ca.mask);
  /* The parent is suspended until the child execs (or fails), so the shared memory is never
     touched by both at once; the child writes only its own stack and the error pipe. */
  pid_t child = clone(start_program, child_stack + sizeof child_stack, CLONE_VM | CLONE_VFORK | SIGCHLD, &ca);
  sigprocmask(SIG_SETMASK, &ca.mask, 0);
  if (child < 0) return 125;
  close(errpipe[1]);
  int setup[2] = { 0, 0 }; if (read(errpipe[0], setup, sizeof setup) != (ssize_t)sizeof setup) { setup[0] = 0; setup[1] = 0; }
  close(errpipe[0]);
  struct itimerval it; memset(&it, 0, sizeof it);
  it.it_value.tv_sec = wall_ms / 1000; it.it_value.tv_usec = (wall_ms % 1000) * 1000;
  setitimer(ITIMER_REAL, &it, 0);
  int status = 0, got = 0;
  while (!got) {
    pid_t r = waitpid(child, &status, 0);
    if (r == child) { got = 1; break; }
    if (r < 0 && errno != EINTR) break;
    if (deadline_hit || stop_requested) { kill(-child, SIGKILL); kill(child, SIGKILL); }
  }
  long long wall = now_ms() - start;
  memset(&it, 0, sizeof it); setitimer(ITIMER_REAL, &it, 0);
  /* Reap everything the program left behind: orphans re-parent to us (subreaper). */
  for (;;) {
    kill_children();
    pid_t r = waitpid(-1, 0, 0);
    if (r < 0 && errno == ECHILD) break;
  }
  struct rusage ru; getrusage(RUSAGE_CHILDREN, &ru);
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  dprintf(3, "exit=%d signal=%d wall_timeout=%d utime_us=%lld stime_us=%lld maxrss_kb=%ld wall_ms=%lld exec_errno=%d stage=%d\n",
          code, sig, (int)(deadline_hit || stop_requested), (long long)ru.ru_utime.tv_sec * 1000000 + ru.ru_utime.tv_usec,
          (long long)ru.ru_stime.tv_sec * 1000000 + ru.ru_stime.tv_usec, ru.ru_maxrss, wall, setup[1], setup[0]);
  return 0;
}
