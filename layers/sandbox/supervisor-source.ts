/**
 * C source of `pe-supervisor`, the tiny process that runs inside the sandbox between the
 * isolation layer (bubblewrap, or nothing) and the untrusted program. It exists because
 * Node cannot set rlimits on a child, read a child's rusage, or adopt orphaned
 * grandchildren. Compiled once per machine into the cache directory (see supervisor.ts).
 *
 * Usage: pe-supervisor <cpu_ms> <wall_ms> <as_bytes|0> <fsize_bytes> <nproc> <nofile> <uid|-1> -- argv…
 *
 * It becomes a child subreaper (orphans of the program re-parent to it), forks the program
 * with the rlimits applied and, when <uid> is not -1 (the rlimits level started by root),
 * as uid/gid <uid> with no supplementary groups — so the supervisor itself stays out of the
 * program's reach (it cannot be signalled by the program's kill(-1)). It waits for it (killing it at the wall-clock deadline), then kills
 * and reaps every remaining descendant, and finally writes one report line on fd 3:
 *   `exit=<code> signal=<n> wall_timeout=<0|1> utime_us=<n> stime_us=<n> maxrss_kb=<n> wall_ms=<n> exec_errno=<n>`
 * fd 3 is close-on-exec, so the program cannot write a report itself, and the supervisor is
 * non-dumpable, so the program cannot reach it through /proc/<pid>/fd.
 */
export const SUPERVISOR_SOURCE = String.raw`
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

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

int main(int argc, char **argv) {
  if (argc < 10 || strcmp(argv[8], "--") != 0) { fprintf(stderr, "pe-supervisor: bad arguments\n"); return 125; }
  long long cpu_ms = atoll(argv[1]), wall_ms = atoll(argv[2]);
  unsigned long long as = strtoull(argv[3], 0, 10), fsize = strtoull(argv[4], 0, 10);
  unsigned long long nproc = strtoull(argv[5], 0, 10), nofile = strtoull(argv[6], 0, 10);
  long uid = atol(argv[7]);
  fcntl(3, F_SETFD, FD_CLOEXEC);
  unsetenv("PWD"); /* bubblewrap sets it; the program's environment is exactly what we pass */
  prctl(PR_SET_DUMPABLE, 0);
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  struct sigaction sa; memset(&sa, 0, sizeof sa); sa.sa_handler = on_alarm; sigaction(SIGALRM, &sa, 0);
  sa.sa_handler = on_term; sigaction(SIGTERM, &sa, 0); sigaction(SIGINT, &sa, 0);
  signal(SIGPIPE, SIG_IGN);
  int errpipe[2]; if (pipe2(errpipe, O_CLOEXEC) != 0) return 125;
  long long start = now_ms();
  pid_t child = fork();
  if (child < 0) return 125;
  if (child == 0) {
    close(errpipe[0]);
    signal(SIGPIPE, SIG_DFL); signal(SIGTERM, SIG_DFL); signal(SIGINT, SIG_DFL); signal(SIGALRM, SIG_DFL);
    setpgid(0, 0);
    /* Drop first: execve refuses (EAGAIN) a process that became its uid while already over
       that uid's RLIMIT_NPROC, and the count is machine-wide at the rlimits level. */
    if (uid >= 0 && (setgroups(0, 0) != 0 || setgid((gid_t)uid) != 0 || setuid((uid_t)uid) != 0)) {
      int e = errno; if (write(errpipe[1], &e, sizeof e) < 0) {} _exit(127);
    }
    unsigned long long cpu_s = (unsigned long long)((cpu_ms + 999) / 1000);
    set_limit(RLIMIT_CPU, cpu_s, cpu_s + 1);
    if (as > 0) set_limit(RLIMIT_AS, as, as);
    set_limit(RLIMIT_FSIZE, fsize, fsize);
    set_limit(RLIMIT_NPROC, nproc, nproc);
    set_limit(RLIMIT_NOFILE, nofile, nofile);
    set_limit(RLIMIT_CORE, 0, 0);
    execv(argv[9], argv + 9);
    int e = errno; if (write(errpipe[1], &e, sizeof e) < 0) {} _exit(127);
  }
  close(errpipe[1]);
  int exec_errno = 0; if (read(errpipe[0], &exec_errno, sizeof exec_errno) <= 0) exec_errno = 0;
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
  dprintf(3, "exit=%d signal=%d wall_timeout=%d utime_us=%lld stime_us=%lld maxrss_kb=%ld wall_ms=%lld exec_errno=%d\n",
          code, sig, (int)(deadline_hit || stop_requested), (long long)ru.ru_utime.tv_sec * 1000000 + ru.ru_utime.tv_usec,
          (long long)ru.ru_stime.tv_sec * 1000000 + ru.ru_stime.tv_usec, ru.ru_maxrss, wall, exec_errno);
  return 0;
}
`;
