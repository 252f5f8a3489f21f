/**
 * BlobStore over a directory that mirrors S3 keys (`.polyeval/store/<key>`). Writes go to
 * a temporary file and are renamed into place, so a reader (or a run killed midway) never
 * sees half an object.
 *
 * Objects are read and written with synchronous calls: they are small documents (an item, a
 * manifest, a Parquet part), written once per sample, and each promise call crosses to libuv's
 * thread pool and back — ~0.2 CPU-ms apiece on our paravirtualised 2-core machines (measured
 * 2026-12-02), several times the write itself, on the core the sandboxed programs need.
 * Those round trips were also where the event loop turned: a loop over objects (a CPU-only
 * run's records, a resume's scan, the aggregation reading every item) now lets it turn every
 * few ms instead (event-loop-turn.ts), so it never holds up the rest of the process.
 */
import { randomBytes } from 'node:crypto';
import { linkSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { HarnessError } from '#core/errors.ts';
import type { BlobStore } from '#core/ports.ts';
import { turnWhenDue } from './event-loop-turn.ts';
import { makeDirsSync } from './make-dirs.ts';

export class FsBlobStore implements BlobStore {
  readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  private path(key: string): string {
    const full = resolve(this.root, key);
    if (key === '' || key.startsWith('/') || (!full.startsWith(this.root + sep) && full !== this.root)) {
      throw new HarnessError(`blob key escapes the store: ${key}`);
    }
    return full;
  }

  async put(key: string, body: string | Uint8Array, _contentType?: string): Promise<void> {
    const target = this.path(key);
    makeDirsSync(dirname(target));
    const tmp = `${target}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
    writeFileSync(tmp, body);
    renameSync(tmp, target);
    await turnWhenDue();
  }

  /** Create-only: the temporary file is hard-linked into place, which fails (EEXIST) when the key exists, atomically. */
  async putIfAbsent(key: string, body: string | Uint8Array, _contentType?: string): Promise<boolean> {
    const target = this.path(key);
    makeDirsSync(dirname(target));
    const tmp = `${target}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
    try {
      writeFileSync(tmp, body); // a failed write (disk full) leaves no part of it behind either
      linkSync(tmp, target);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw error;
    } finally {
      rmSync(tmp, { force: true });
      await turnWhenDue();
    }
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    const bytes = readObject(this.path(key));
    await turnWhenDue();
    return bytes;
  }

  async getText(key: string): Promise<string | undefined> {
    const bytes = await this.get(key);
    return bytes === undefined ? undefined : Buffer.from(bytes).toString('utf8');
  }

  async exists(key: string): Promise<boolean> {
    try {
      return statSync(this.path(key)).isFile();
    } catch {
      return false;
    }
  }

  async list(prefix: string): Promise<string[]> {
    // Walk only the deepest directory the prefix names, then filter by the full prefix.
    const slash = prefix.lastIndexOf('/');
    const base = slash >= 0 ? prefix.slice(0, slash) : '';
    const start = base ? this.path(base) : this.root;
    const out: string[] = [];
    const walk = async (dir: string): Promise<void> => {
      let entries;
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return;
        throw error;
      }
      for (const entry of entries) {
        const full = join(dir, entry.name);
        if (entry.isDirectory()) await walk(full);
        else if (entry.isFile() && !entry.name.includes('.tmp-')) {
          const key = relative(this.root, full).split(sep).join('/');
          if (key.startsWith(prefix)) out.push(key);
        }
      }
    };
    await walk(start);
    return out.sort();
  }

  async delete(key: string): Promise<void> {
    await rm(this.path(key), { force: true });
  }

  locate(key: string): string {
    return this.path(key);
  }
}

/** The object's bytes; undefined when there is no such object. */
function readObject(path: string): Uint8Array | undefined {
  try {
    return new Uint8Array(readFileSync(path));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
