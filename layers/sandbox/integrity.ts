/**
 * The runner's check after each item (DESIGN §7): no process of the sandbox's uid survived
 * it, and no file outside the item's own directories changed. Where programs run as the
 * harness's own uid (Lambda) and the kernel has no Landlock, nothing else stops a program
 * from leaving a process or a planted file for the next invocation of a warm container; a
 * failed check makes the handler exit so the environment is discarded.
 */
import { readdirSync, readFileSync, lstatSync } from 'node:fs';
import { join } from 'node:path';

/** Size, mtime, inode, mode and owner of one path: any change of these is a change. */
type Signature = string;

/** Paths under the watched roots and their signatures. */
export type Snapshot = Map<string, Signature>;

const MAX_ENTRIES = 200_000;

/**
 * Walks `roots` (not following links), skipping `exclude` prefixes (the item's own work
 * and build directories, which the harness removes itself).
 */
export function snapshot(roots: readonly string[], exclude: readonly string[] = []): Snapshot {
  const out: Snapshot = new Map();
  const skip = (path: string) => exclude.some((e) => path === e || path.startsWith(`${e}/`));
  const walk = (path: string): void => {
    if (out.size >= MAX_ENTRIES || skip(path)) return;
    let st;
    try {
      st = lstatSync(path);
    } catch {
      return; // vanished meanwhile, or not ours to see
    }
    // A directory's own size and mtime change with its entries, which are compared one by one.
    out.set(path, st.isDirectory() ? `dir:${st.ino}:${st.mode}:${st.uid}` : `${st.size}:${st.mtimeMs}:${st.ino}:${st.mode}:${st.uid}`);
    if (!st.isDirectory()) return;
    let entries: string[];
    try {
      entries = readdirSync(path);
    } catch {
      return;
    }
    for (const entry of entries) walk(join(path, entry));
  };
  for (const root of roots) walk(root);
  return out;
}

/** What changed between two snapshots: new (except under `allowNewUnder`), changed and removed paths. */
export function changes(before: Snapshot, after: Snapshot, allowNewUnder: readonly string[] = []): string[] {
  const found: string[] = [];
  for (const [path, sig] of after) {
    const was = before.get(path);
    if (was === undefined) {
      if (!allowNewUnder.some((dir) => path.startsWith(`${dir}/`))) found.push(`new ${path}`);
    } else if (was !== sig) found.push(`changed ${path}`);
  }
  for (const path of before.keys()) if (!after.has(path)) found.push(`removed ${path}`);
  return found;
}

interface ProcInfo {
  pid: number;
  ppid: number;
  uid: number;
  state: string;
  command: string;
}

function procInfo(pid: number): ProcInfo | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = stat.lastIndexOf(')');
    const fields = stat.slice(close + 2).split(' ');
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const uid = Number(/^Uid:\s+(\d+)/mu.exec(status)?.[1] ?? -1);
    return { pid, ppid: Number(fields[1]), uid, state: fields[0] ?? '?', command: stat.slice(stat.indexOf('(') + 1, close) };
  } catch {
    return undefined; // exited meanwhile
  }
}

/**
 * Live processes of `uid` that are neither this process, its ancestors nor its
 * descendants (the harness's own helpers, such as the Kotlin compile server). A program
 * whose supervisor died is re-parented away from us, so it shows here.
 */
export function survivors(uid: number, self: number = process.pid): { pid: number; command: string }[] {
  const all = new Map<number, ProcInfo>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/u.test(entry)) continue;
    const info = procInfo(Number(entry));
    if (info) all.set(info.pid, info);
  }
  const ancestors = new Set<number>();
  for (let p = all.get(self); p && !ancestors.has(p.pid); p = all.get(p.ppid)) ancestors.add(p.pid);
  const isDescendant = (info: ProcInfo): boolean => {
    const seen = new Set<number>();
    for (let p: ProcInfo | undefined = info; p && !seen.has(p.pid); p = all.get(p.ppid)) {
      if (p.ppid === self) return true;
      seen.add(p.pid);
    }
    return false;
  };
  return [...all.values()]
    .filter((p) => p.uid === uid && p.state !== 'Z' && !ancestors.has(p.pid) && !isDescendant(p))
    .map((p) => ({ pid: p.pid, command: p.command }));
}

/** The outcome of one check: clean, or what was left behind. */
export interface IntegrityReport {
  clean: boolean;
  survivors: { pid: number; command: string }[];
  changes: string[];
}

/**
 * Watches the writable places a same-uid program could use between items.
 * @example
 * const watch = new ItemWatch({ roots: ['/tmp'], exclude: [workRoot, buildsDir] });
 * // … run one item …
 * const report = watch.check(); // { clean: false, survivors: [...], changes: ['new /tmp/x'] }
 */
export class ItemWatch {
  private baseline: Snapshot;
  /**
   * roots: the writable places to watch; exclude: the item's own directories (removed by
   * the harness); allowNewUnder: directories where the harness itself adds files during an
   * item (the cache: a PCH or stdlib copy made on first use) — there, only changes to
   * existing files count.
   */
  constructor(private readonly options: { roots: readonly string[]; exclude: readonly string[]; allowNewUnder?: readonly string[]; uid?: number }) {
    this.baseline = snapshot(options.roots, options.exclude);
  }

  /** Compares with the previous check (or construction) and moves the baseline forward. */
  check(): IntegrityReport {
    const now = snapshot(this.options.roots, this.options.exclude);
    const found = changes(this.baseline, now, this.options.allowNewUnder);
    this.baseline = now;
    const left = survivors(this.options.uid ?? process.getuid?.() ?? 0);
    return { clean: found.length === 0 && left.length === 0, survivors: left, changes: found };
  }
}
