// Hostile programs aimed at the executor's own long-lived Python syntax checker
// (layers/sandbox/languages/python-checker.ts). Without namespaces (the rlimits level) a
// program runs as the same uid as the checker, so it can open the checker's pipes through
// /proc/<pid>/fd and kill it. Each program only touches checkers working under `workRoot`
// (their `service-…` folders), so a test never reaches another test run's executor.

/** Python that runs `action` (Python statements over `pid`) on each checker under `workRoot`, then answers the sum task. */
function onCheckers(workRoot: string, action: string): string {
  return [
    'import os, signal',
    `root = ${JSON.stringify(workRoot)}`,
    'for pid in [int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) != os.getpid()]:',
    '    try:',
    '        if not os.readlink(f"/proc/{pid}/cwd").startswith(os.path.join(root, "service-")):',
    '            continue',
    ...action.split('\n').map((line) => `        ${line}`),
    '    except OSError:',
    '        pass',
    'a, b = map(int, input().split())',
    'print(a + b)',
    '',
  ].join('\n');
}

/**
 * Forges the checker's answers: its pipes are sockets (no reopening through /proc/<pid>/fd),
 * but /proc/<pid>/mem of a process of the same uid opens for writing. Every `EXC` string of
 * its writable memory (the literal its answer is built from) becomes `OK `, so a source that
 * does not compile is answered `OK  <exception>`, which reads as compiled.
 */
export function forgeCheckerAnswer(workRoot: string): string {
  return onCheckers(
    workRoot,
    [
      'mem = os.open(f"/proc/{pid}/mem", os.O_RDWR)',
      'for line in open(f"/proc/{pid}/maps"):',
      '    span, perms = line.split()[:2]',
      '    if not perms.startswith("rw"):',
      '        continue',
      '    lo, hi = (int(x, 16) for x in span.split("-"))',
      '    try:',
      '        data = os.pread(mem, hi - lo, lo)',
      '    except OSError:',
      '        continue',
      '    at = data.find(b"EXC\\x00")',
      '    while at >= 0:',
      '        os.pwrite(mem, b"OK ", lo + at)',
      '        at = data.find(b"EXC\\x00", at + 1)',
    ].join('\n'),
  );
}

/** Kills the checker (the same uid may signal it). */
export function killChecker(workRoot: string): string {
  return onCheckers(workRoot, 'os.kill(pid, signal.SIGKILL)');
}

/** A source compile() rejects: its verdict is CE, and only a forged answer makes it anything else. */
export const NOT_PYTHON = 'a, b = map(int, input().split(\nprint(a + b)\n';
