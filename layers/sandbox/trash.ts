/**
 * Finished directories (a test's working directory, a zygote's sample directory, a build
 * shown to a zygote) moved out of the way at once and removed in the background.
 *
 * On our ext4 machines (`/tmp` on a virtio disk) an `rmdir` waits 2.5–3.6 ms for the file
 * system's journal while using ~0.1 CPU-ms; a sample's three directories removed in place held
 * polyeval's event loop ~9 ms per Python sample, about a third of the whole command's wall
 * time on MXEval's 974 MBPP samples (measured 2026-12-06 with `strace -w -c` and
 * `node --cpu-prof`). A `rename` into the trash takes ~0.05 ms; worker threads then remove
 * what it holds.
 *
 * The trash is a directory of ours (0700, never bound into a sandbox, never a program's
 * working directory) beside what it takes, so a rename never crosses a file system and no
 * program sees what was moved there. Nothing is moved while a program that could write it
 * still runs: callers discard a directory only once its run has been reaped.
 *
 * A trash is named by the process that owns it (`trash-<pid>-…`): one a killed run left (its
 * pid no longer alive) is moved into the next run's trash and removed the same way, so they
 * do not pile up in the work root.
 */
import { mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { IsolationConfig } from './isolation.ts';

/**
 * Whether programs under `iso` cannot read a trash: bubblewrap never binds it, a dropped uid
 * cannot enter it (0700), Landlock lets a program read only its own files. Elsewhere (the
 * harness's own uid without Landlock: Lambda) a program could read what waits there — an
 * earlier sample's output, which is a test's expected output when that sample passed — and a
 * Lambda frozen after its answer keeps it for the next item: finished directories are then
 * removed in place, before the item is answered, as without a trash.
 */
export function trashOutOfReach(iso: Pick<IsolationConfig, 'level' | 'dropTo' | 'confine'>): boolean {
  return iso.level === 'bwrap' || iso.dropTo !== undefined || iso.confine.landlock >= 1;
}

/**
 * A remover: removes each path it is sent, one after another, with synchronous calls (a promise
 * call per file would cost the CPU the rename saved); answers "idle" when asked and nothing is left.
 */
const REMOVER = `
const { parentPort } = require('node:worker_threads');
const { rmSync } = require('node:fs');
parentPort.on('message', (m) => {
  if (m === 'drain') { parentPort.postMessage('idle'); return; }
  try { rmSync(m, { recursive: true, force: true }); } catch {}
});
`;

/** Removers at once: an rmdir here mostly waits for the journal (~3 ms), so two keep up with a sample's directories. */
const REMOVERS = 2;

export class Trash {
  private dir: string | undefined;
  private workers: Worker[] = [];
  private next = 0;

  /** `root`: the directory whose entries are discarded (the trash is made inside it, on the same file system). */
  constructor(private readonly root: string) {}

  /**
   * Moves `path` (an entry of the trash's root, or below it) into the trash and has it removed
   * in the background. Throws when it cannot be moved (the caller's own removal failed); a
   * path already gone is no error.
   */
  discard(path: string): void {
    if (this.dir === undefined) {
      this.dir = mkdtempSync(join(this.root, `trash-${process.pid}-`));
      this.sweep();
    }
    this.next += 1;
    const target = join(this.dir, String(this.next));
    try {
      renameSync(path, target);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    this.remover(this.next % REMOVERS).postMessage(target);
  }

  /** Moves into this trash the trashes whose process is gone (a run killed before `empty`), to be removed with it. */
  private sweep(): void {
    for (const name of readdirSync(this.root)) {
      const owner = /^trash-(\d+)-/u.exec(name);
      if (!owner || Number(owner[1]) === process.pid || alive(Number(owner[1]))) continue;
      try {
        this.discard(join(this.root, name));
      } catch {
        // Another run swept it first, or it is not ours to move: left as it is.
      }
    }
  }

  /** Waits until everything discarded is removed, then removes the trash itself. */
  async empty(): Promise<void> {
    const workers = this.workers.filter(Boolean);
    this.workers = [];
    await Promise.all(
      workers.map(async (worker) => {
        // Each answers once it has removed everything sent before (messages are handled in order).
        await new Promise<void>((resolve) => {
          worker.once('message', () => resolve());
          worker.once('exit', () => resolve());
          worker.postMessage('drain');
        });
        await worker.terminate();
      }),
    );
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
    this.dir = undefined;
  }

  private remover(i: number): Worker {
    let worker = this.workers[i];
    if (!worker) {
      const started = new Worker(REMOVER, { eval: true });
      // Idle, it never keeps the process alive; `empty` waits for it. One that dies is replaced
      // (what it had not removed yet stays in the trash until `empty` removes the trash whole).
      started.unref();
      started.on('error', () => undefined);
      started.on('exit', () => {
        if (this.workers[i] === started) delete this.workers[i];
      });
      this.workers[i] = started;
      worker = started;
    }
    return worker;
  }
}

/** Whether a process `pid` exists (one of another uid counts: EPERM). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
