/**
 * Compilations cached by content hash (language, compiler identity and flags, source):
 * n identical samples compile once, and concurrent requests for the same build share one
 * compilation. Failed compilations are cached too (same source, same diagnostics), except
 * one that ran out of wall-clock time or whose compiler was killed by a signal: a busy or
 * shutting-down machine must not turn a source into a CE for good (every later run, in every
 * process sharing the cache, would inherit it). Such entries written by older versions are
 * compiled again. So is an entry whose meta.json is damaged, missing or foreign (not JSON, not
 * this schema, a newer schema_version): a cache miss, never a crash and never a verdict taken
 * from it; the fresh build replaces it (renamed into place whole).
 *
 * The cache's own file chores are synchronous calls: a lookup and a store touch a few small
 * files once per sample, microseconds each, while each promise call crosses to libuv's thread
 * pool and back (~0.2 CPU-ms apiece on our paravirtualised 2-core machines, measured
 * 2026-12-02) on the core the compilers and programs need.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { ToolchainOptions } from '#core/languages/index.ts';
import { schemaVersionField, storedJson } from '#core/run/index.ts';
import { COMPILER_KILLED, type LanguageRuntime, type RuntimeContext } from './runtime.ts';
import { giveToSandbox, lockDown } from './files.ts';
import { ensureSharedDir } from './supervisor.ts';

/** A finished build: `dir` holds the source and what the compiler produced. */
export interface Build {
  ok: boolean;
  diagnostics: string;
  compileMs: number;
  dir: string;
  cached: boolean;
}

const MetaSchema = z.object({ schema_version: schemaVersionField, ok: z.boolean(), diagnostics: z.string(), compileMs: z.number().min(0) });
type Meta = Omit<z.infer<typeof MetaSchema>, 'schema_version'>;

/** What a cache entry holds: its build, none (`missing`), or an entry that cannot be used (`damaged`). */
function readEntry(dir: string): Meta | 'missing' | 'damaged' {
  let text: string;
  try {
    text = readFileSync(join(dir, 'meta.json'), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return 'damaged';
    // A build is renamed into place with its meta.json: a directory without one is damaged.
    return existsSync(dir) ? 'damaged' : 'missing';
  }
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    return 'damaged';
  }
  const parsed = MetaSchema.safeParse(value);
  if (!parsed.success) return 'damaged';
  const { ok, diagnostics, compileMs } = parsed.data;
  return { ok, diagnostics, compileMs };
}

export class CompileCache {
  private readonly inFlight = new Map<string, Promise<Build>>();
  constructor(
    private readonly buildsDir: string,
    private readonly ctx: RuntimeContext,
  ) {}

  /** Returns the build of `source` with the job's toolchain `options`, compiling it only if no identical build exists. */
  async build(runtime: LanguageRuntime, source: string, options: ToolchainOptions = {}): Promise<Build> {
    // The runtime's key holds the flags the options become, so other options never share a build.
    const identity = await runtime.cacheKey(this.ctx, options);
    const key = createHash('sha256').update(`${runtime.id}\0${identity}\0${source}`).digest('hex').slice(0, 32);
    const existing = this.inFlight.get(key);
    if (existing) return existing;
    const pending = this.lookupOrCompile(runtime, source, key, options).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, pending);
    return pending;
  }

  private async lookupOrCompile(runtime: LanguageRuntime, source: string, key: string, options: ToolchainOptions): Promise<Build> {
    const dir = join(this.buildsDir, key);
    const entry = readEntry(dir);
    if (typeof entry === 'object' && (entry.ok || !entry.diagnostics.startsWith(COMPILER_KILLED))) return { ...entry, dir, cached: true };
    // A killed compilation an older version kept, or a damaged entry: compiled again, and replaced.
    if (entry !== 'missing') rmSync(dir, { recursive: true, force: true });
    await ensureSharedDir(this.buildsDir);
    const tmp = mkdtempSync(join(this.buildsDir, `${key}.tmp-`));
    try {
      writeFileSync(join(tmp, runtime.sourceFile), source);
      await giveToSandbox(tmp); // compilers run as the sandbox uid and write here
      const started = performance.now();
      const result = await runtime.compile(this.ctx, tmp, options);
      const meta: Meta = { ok: result.ok, diagnostics: result.diagnostics, compileMs: Math.round(performance.now() - started) };
      if (result.timedOut || result.killed) {
        rmSync(tmp, { recursive: true, force: true });
        return { ...meta, ok: false, dir: tmp, cached: false };
      }
      writeFileSync(join(tmp, 'meta.json'), storedJson(meta));
      await lockDown(tmp);
      try {
        renameSync(tmp, dir);
      } catch {
        // another process finished the same build first; use it
        rmSync(tmp, { recursive: true, force: true });
      }
      return { ...meta, dir, cached: false };
    } catch (error) {
      rmSync(tmp, { recursive: true, force: true });
      throw error;
    }
  }
}
