/**
 * Batched Kotlin compilations: the one-file programs queued while the compile server is busy
 * go to it as ONE kotlinc invocation, each in its own directory and its own package, so that
 * top-level names of different samples cannot clash. A warm K2JVMCompiler invocation costs
 * ~0.7 CPU-s whatever it compiles (measured on MBKP's programs, 2 cores: 54 programs alone
 * ~50 CPU-s, in batches of 6 ~17), so n samples in one invocation cost little more than one.
 *
 * The package goes on the SAME line as the sample's first line (`package pe_<hash>; <line 1>`,
 * valid Kotlin whatever line 1 holds: an import, a comment, a declaration), so every line
 * number — in diagnostics and in stack traces — is the sample's own. What is never batched,
 * and so compiles alone exactly as before: a source that declares its own package or has
 * file annotations (`@file:` must precede `package`), starts with `#!` or a byte-order mark,
 * or could see its classes' names (`javaClass`, `::class`, `Class.forName`, stack traces,
 * its own exception classes, whose `toString` carries the class name): see `batchPackage`.
 *
 * A batch that fails: every sample with an error located in its file compiles alone (its
 * CE and diagnostics exactly as alone), the others go back to the queue's front to batch
 * again; a failure located in no file, a timeout, a dead server or an internal error sends
 * every sample of the batch to compile alone. A batch of one compiles alone, without a
 * package, as before batching existed.
 */
import { createHash } from 'node:crypto';
import { cp, mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { LimitFunction } from 'p-limit';

/** One program: its source (a file named Main.kt alone), where its classes go, its kotlinc flags. */
export interface UnitCompileRequest {
  source: string;
  outDir: string;
  flags: string[];
}

/** The outcome; `package` is set when the classes are in that package (compiled in a batch). */
export interface UnitCompileResult {
  ok: boolean;
  diagnostics: string;
  ms: number;
  path: 'warm' | 'cold';
  timedOut?: boolean;
  package?: string;
}

/** A batch's outcome from the warm server (undefined: no warm server answered; every sample then compiles alone). */
export interface BatchOutcome {
  exitCode: string;
  /** Compiler messages with full paths. */
  diagnostics: string;
}

export interface BatcherDeps {
  /** Compilations at once (the compile server's threads); also bounds batches in flight. */
  slots: LimitFunction;
  /** Largest batch. */
  maxBatch: number;
  /** Whether batches are possible now (warm mode with a server). */
  warm(): boolean;
  /** One warm kotlinc invocation of `args`; undefined when it could not be judged (timeout, dead or missing server). */
  compileWarm(args: string[]): Promise<BatchOutcome | undefined>;
  /** Compiles one program alone, exactly as without batching (caller holds a slot). */
  compileAlone(req: UnitCompileRequest): Promise<UnitCompileResult>;
  implicitFlags: readonly string[];
}

interface Queued extends UnitCompileRequest {
  pkg: string | undefined;
  alone: boolean;
  flagsKey: string;
  resolve(r: UnitCompileResult): void;
  reject(e: unknown): void;
}

/**
 * Names of a JVM class, its package or its stack frames that a program can observe besides
 * printing them (printed ones are taken out of its output, see kotlin.ts): such sources compile alone.
 */
const SEES_CLASS_NAMES = /javaClass|::class|\.class\b|getClass|Class\s*\.\s*forName|Class\s*</u;
const SEES_FRAMES = /stackTrace|StackTrace|qualifiedName|canonicalName|classLoader|ClassLoader|\bPackage\b/u;
/** A class of its own deriving from an exception: its `toString()` is `<class name>: <message>`. */
const OWN_THROWABLE = /:\s*(?:[\w.]+\.)?\w*(?:Exception|Error|Throwable)\s*\(/u;
/** A `package` or file annotation anywhere at the start of a line (conservative: comments included). */
const OWN_PACKAGE = /(?:^|\n)[ \t]*(?:package\b|@file\s*:)/u;

/** The package a source compiles in within a batch, or undefined when it must compile alone. */
export function batchPackage(source: string): string | undefined {
  if (source.startsWith('#!') || source.startsWith('\uFEFF')) return undefined;
  if (OWN_PACKAGE.test(source) || SEES_CLASS_NAMES.test(source) || SEES_FRAMES.test(source) || OWN_THROWABLE.test(source)) return undefined;
  return `pe_${createHash('sha256').update(source).digest('hex').slice(0, 24)}`;
}

/** The source as a batch compiles it: the package on line 1, so no line number moves. */
export function packagedSource(pkg: string, source: string): string {
  return `package ${pkg}; ${source}`;
}

/**
 * Splits kotlinc's messages (with full paths) among the batch's directories: a message starts
 * at a line that begins with a path or a severity; the lines after it are its continuation.
 * Messages naming no batch file go to every sample. Paths are made relative to each sample's directory.
 */
export function splitDiagnostics(diagnostics: string, dirs: readonly string[]): { text: string; errors: boolean }[] {
  const out = dirs.map(() => ({ lines: [] as string[], errors: false }));
  let owners: number[] = [];
  for (const line of diagnostics.split('\n')) {
    const owner = dirs.findIndex((d) => line.startsWith(`${d}/`));
    if (owner >= 0) owners = [owner];
    else if (/^(?:error|warning|info|logging|exception|strong warning):/u.test(line)) owners = dirs.map((_, i) => i);
    for (const i of owners) {
      const entry = out[i] as { lines: string[]; errors: boolean };
      const dir = dirs[i] as string;
      const text = owner >= 0 ? line.slice(dir.length + 1) : line;
      if (owner >= 0 && /^[^:]*:\d+:\d+: error: /u.test(text)) entry.errors = true;
      entry.lines.push(text);
    }
  }
  return out.map((o) => ({ text: o.lines.join('\n').trimEnd(), errors: o.errors }));
}

export class KotlinBatcher {
  private readonly queue: Queued[] = [];
  constructor(private readonly deps: BatcherDeps) {}

  /** Queues one program; the next free compile slot takes it with whatever else is queued. */
  compile(req: UnitCompileRequest): Promise<UnitCompileResult> {
    return new Promise((resolve, reject) => {
      const pkg = batchPackage(req.source);
      this.enqueue([{ ...req, pkg, alone: pkg === undefined, flagsKey: JSON.stringify(req.flags), resolve, reject }], false);
    });
  }

  /** Queues `items` (at the front: work already started goes first) with one slot task each. */
  private enqueue(items: Queued[], front: boolean): void {
    if (front) this.queue.unshift(...items);
    else this.queue.push(...items);
    for (let i = 0; i < items.length; i++) void this.deps.slots(() => this.drain());
  }

  /** Runs in a slot: takes the queue's head and every batchable program with its flags (up to maxBatch). */
  private async drain(): Promise<void> {
    const head = this.queue[0];
    if (!head) return; // an earlier slot task took it into its batch
    const group = [head];
    if (!head.alone && this.deps.warm()) {
      for (let i = 1; i < this.queue.length && group.length < this.deps.maxBatch; i++) {
        const next = this.queue[i] as Queued;
        if (!next.alone && next.flagsKey === head.flagsKey) group.push(next);
      }
    }
    for (const item of group) this.queue.splice(this.queue.indexOf(item), 1);
    if (group.length === 1) return this.alone(head);
    // A batch compiles in one compiler thread: each slot takes what is queued, so the server's threads all work.
    await this.batch(group).catch((error: unknown) => group.forEach((item) => item.reject(error)));
  }

  private async alone(item: Queued): Promise<void> {
    try {
      item.resolve(await this.deps.compileAlone({ source: item.source, outDir: item.outDir, flags: item.flags }));
    } catch (error) {
      item.reject(error);
    }
  }

  private async batch(group: Queued[]): Promise<void> {
    const started = performance.now();
    const srcDir = await mkdtemp(join(tmpdir(), 'polyeval-ktbatch-'));
    try {
      const dirs = group.map((_, i) => join(srcDir, String(i)));
      const outRoot = join(srcDir, 'out');
      await Promise.all(
        group.map(async (item, i) => {
          await mkdir(dirs[i] as string);
          await writeFile(join(dirs[i] as string, 'Main.kt'), packagedSource(item.pkg as string, item.source), 'utf8');
        }),
      );
      const flags = group[0]?.flags ?? [];
      const implicit = this.deps.implicitFlags.filter((flag) => !flags.includes(flag));
      const args = [...implicit, ...flags, '-d', outRoot, ...dirs.map((d) => join(d, 'Main.kt'))];
      const outcome = await this.deps.compileWarm(args);
      // Each sample's share of the batch's wall: a run's compile times then sum to the compiler's time, as unbatched.
      const ms = Math.round((performance.now() - started) / group.length);
      if (outcome?.exitCode === 'OK') {
        const own = splitDiagnostics(outcome.diagnostics, dirs);
        for (const [i, item] of group.entries()) {
          await moveTree(join(outRoot, item.pkg as string), join(item.outDir, item.pkg as string));
          item.resolve({ ok: true, diagnostics: own[i]?.text ?? '', ms, path: 'warm', package: item.pkg });
        }
        return;
      }
      const split = outcome?.exitCode === 'COMPILATION_ERROR' ? splitDiagnostics(outcome.diagnostics, dirs) : undefined;
      const errored = split ? group.filter((_, i) => split[i]?.errors) : [];
      if (errored.length === 0) return this.enqueue(group.map(soloOf), true);
      // The failing samples alone (their CE exactly as alone), the others batched again.
      this.enqueue([...errored.map(soloOf), ...group.filter((item) => !errored.includes(item))], true);
    } finally {
      await rm(srcDir, { recursive: true, force: true });
    }
  }
}

function soloOf(item: Queued): Queued {
  return { ...item, alone: true };
}

/** Moves a directory tree, copying where a rename cannot (another file system). */
async function moveTree(from: string, to: string): Promise<void> {
  await mkdir(join(to, '..'), { recursive: true });
  try {
    await rename(from, to);
  } catch {
    await cp(from, to, { recursive: true });
  }
}
