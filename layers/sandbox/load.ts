/**
 * How busy this machine is, as a factor for wall-clock safety nets. A wall limit only
 * guards against programs that never end (sleeping, blocked); what a program or compiler
 * is charged is its CPU time. On a machine whose run queue is k times longer than its
 * cores, a process gets about 1/k of a core, so a wall limit sized for an idle machine
 * would turn slow-but-fair work into TLE or SE: every wall limit is stretched by this factor.
 */
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';

/** Largest stretch: beyond it a wall limit would stop being a safety net at all. */
const MAX_SCALE = 16;

/**
 * Runnable tasks right now (the 4th field of /proc/loadavg, minus the caller itself): reacts
 * at once to a load that has just started, which the 1-minute average only shows after a while.
 */
function runnableNow(): number {
  try {
    const running = readFileSync('/proc/loadavg', 'utf8').split(' ')[3]?.split('/')[0];
    return Math.max(0, Number(running ?? 0) - 1);
  } catch {
    return 0;
  }
}

/**
 * `max(1, (max(1-minute load average, runnable now) + extraRunnable) / cores)`, capped at
 * 16; `extraRunnable` is work the caller is about to start itself.
 * @example
 * const wallMs = baseWallMs * loadScale();
 */
export function loadScale(extraRunnable = 0): number {
  const cores = availableParallelism();
  const [one = 0] = loadavg();
  return Math.min(MAX_SCALE, Math.max(1, (Math.max(one, runnableNow()) + extraRunnable) / cores));
}
