/**
 * The sandbox of one executor container (Lambda or Fargate) and its check after each item.
 * The executor is built once, on first use, from the image's read-only prebuilt directory
 * (POLYEVAL_CACHE: the supervisor, the C++ PCH, the Kotlin server) with a writable copy of
 * its cache under /tmp. After every item the runner checks that no process of the sandbox
 * uid survived and no file outside the item's directories changed; if something did, the
 * container is discarded (the process exits: Lambda then starts a fresh environment, ECS a
 * fresh task) — the item's record is already stored, so its redelivery is a no-op.
 */
import { chmod, cp, lstat, mkdir, readdir, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HarnessError } from '#core/errors.ts';
import type { BlobStore } from '#core/ports.ts';
import type { ProgramRunner } from '#core/judging/index.ts';
import { writableCacheDir } from '../shared/runtime.ts';
import { storeTestLoader } from '#app/cloud/test-files.ts';
import type { IntegrityReport } from '#sandbox/integrity.ts';
import type { SandboxExecutor } from '#sandbox/index.ts';

export interface ContainerSandboxOptions {
  store?: BlobStore;
  env?: NodeJS.ProcessEnv;
  /** Ends the container after a failed check (default: exit the process). */
  discard?: (report: IntegrityReport) => never | void;
  log?: (message: string, detail: Record<string, unknown>) => void;
  /**
   * Where samples' programs run when this container is a judge (the language's runner
   * function); this container's own sandbox then runs checker programs only.
   */
  runner?: { runner: ProgramRunner; isolation: string };
}

export class ContainerSandbox {
  private executor: Promise<SandboxExecutor> | undefined;
  private watch: import('#sandbox/integrity.ts').ItemWatch | undefined;

  constructor(private readonly options: ContainerSandboxOptions = {}) {}

  /** The container's executor, built on first use (a failed build is retried next time). */
  get(): Promise<SandboxExecutor> {
    this.executor ??= this.build();
    this.executor.catch(() => (this.executor = undefined));
    return this.executor;
  }

  private async build(): Promise<SandboxExecutor> {
    const env = this.options.env ?? process.env;
    const cacheDir = writableCacheDir();
    await mkdir(cacheDir, { recursive: true });
    const imageCache = env.POLYEVAL_CACHE;
    if (imageCache && imageCache !== cacheDir && existsSync(imageCache)) await cp(imageCache, cacheDir, { recursive: true, force: false, errorOnExist: false });
    const { createSandboxExecutor } = await import('#sandbox/index.ts');
    const { ItemWatch } = await import('#sandbox/integrity.ts');
    const { runningAsRoot, SANDBOX_UID } = await import('#sandbox/isolation.ts');
    const executor = await createSandboxExecutor({
      cacheDir,
      ...(imageCache ? { prebuiltDir: imageCache } : {}),
      ...(this.options.store ? { loadTestFile: storeTestLoader(this.options.store) } : {}),
      ...(this.options.runner ? { runner: this.options.runner.runner, runnerIsolation: this.options.runner.isolation } : {}),
    });
    // Fail closed: without the seccomp filter and a non-dumpable (or different-uid) harness,
    // programs could reach the role's credentials or the Lambda runtime API. Files alone are
    // left to the after-item check.
    const fatal = executor.isolationReport.exposures.filter((e) => e !== 'files');
    if (fatal.length > 0) {
      await executor.close();
      throw new HarnessError(
        `this executor container cannot keep ${fatal.join(' and ')} from programs (${executor.isolationReport.label}): refusing to run model code here; ${executor.isolationReport.details.join('; ')}`,
      );
    }
    this.watch = new ItemWatch({
      roots: [tmpdir(), '/dev/shm'],
      exclude: [executor.workRoot, join(cacheDir, 'builds')],
      allowNewUnder: [cacheDir],
      uid: runningAsRoot() ? SANDBOX_UID : (process.getuid?.() ?? 0),
    });
    return executor;
  }

  /**
   * After an item: drops the builds when programs share our uid (a program could plant one
   * for a later item), then checks; a container that is not clean is discarded.
   */
  async afterItem(): Promise<IntegrityReport> {
    if (!this.executor || !this.watch) return { clean: true, survivors: [], changes: [] };
    const executor = await this.executor;
    const { runningAsRoot } = await import('#sandbox/isolation.ts');
    let emptied: string | undefined;
    if (!runningAsRoot()) {
      try {
        await emptyDir(join(executor.cacheDir, 'builds'));
      } catch (error) {
        // Whatever could not be removed stays for the next item: the builds are outside the watch, so this is the check.
        emptied = `the builds could not be emptied: ${(error as Error).message}`;
      }
    }
    const watched = this.watch.check();
    const report = emptied === undefined ? watched : { ...watched, clean: false, changes: [emptied, ...watched.changes] };
    if (!report.clean) {
      this.options.log?.('sandbox left something behind: discarding this container', { survivors: report.survivors, changes: report.changes.slice(0, 20) });
      for (const { pid } of report.survivors) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone, or not ours
        }
      }
      (this.options.discard ?? discardProcess)(report);
    }
    return report;
  }
}

/**
 * Removes what `dir` holds and keeps the directory itself: a long-lived sandboxed service that was
 * given it (Python's zygote, python.ts `zygotesFor`: `readOnly: [builds]`) holds a Landlock rule
 * on this directory's inode, and a directory made again in its place is another inode its rule
 * does not cover — every later sample's main.py would be unreadable to its program (a
 * PermissionError answered as RE).
 */
async function emptyDir(dir: string): Promise<void> {
  try {
    // Put back by a program of this uid (a link to a folder of its choosing): not ours to empty.
    if (!(await lstat(dir)).isDirectory()) throw new Error(`${dir} is no longer a directory`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return; // not made yet
    throw error;
  }
  // A program of this uid may have changed the directory's mode (0300: not listable, so a
  // failed readdir would keep what it planted; 0500: nothing removable): ours again first.
  await chmod(dir, 0o755);
  const entries = await readdir(dir);
  await Promise.all(entries.map((entry) => rm(join(dir, entry), { recursive: true, force: true })));
}

/**
 * The one way to get a fresh execution environment: Lambda replaces a runtime that exits,
 * ECS replaces a task whose essential container exits. (STYLE keeps process.exit to the
 * CLI; this is the documented exception.)
 */
function discardProcess(): never {
  process.exit(70);
}
