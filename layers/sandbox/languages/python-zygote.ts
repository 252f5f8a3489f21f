/**
 * Python programs without an interpreter start per sample: a long-lived `python3` in the
 * sandbox (python-zygote.py, the "zygote") that never runs model code itself forks a child
 * per program, which confines itself (rlimits, a nested Landlock domain, its own process
 * group and stdio files) before it reads and runs the program. See docs/sandbox.md, "A
 * forking interpreter".
 *
 * Each zygote serves one program at a time (under bubblewrap each lives in a sandbox of its
 * own, so programs running at once never share a PID namespace or a /tmp); the pool starts one
 * more whenever all are busy. A program's run through a zygote either answers with the
 * supervisor's facts or answers `undefined`, and the caller then runs it as a sandboxed
 * process of its own, as without a zygote: when the zygote cannot start, dies (a program
 * killed it: a program can signal it where Landlock cannot scope signals, Linux < 6.12 and
 * Lambda), hangs past the program's wall limit, reports a failed set-up or is otherwise
 * suspect. That run starts from nothing the zygote touched, so its verdict is the one the
 * sample always had.
 */
import {
  closeSync,
  constants as fs,
  copyFileSync,
  cpSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { constants } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { giveToSandbox } from '../files.ts';
import type { SandboxLimits, SandboxResult, SandboxSpec } from '../sandbox-process.ts';
import type { SandboxService } from '../sandbox-service.ts';

/** Beside this module when run from source; `layers/…` from the bundle in `dist/`. */
const SCRIPT_CANDIDATES = [new URL('./python-zygote.py', import.meta.url), new URL('../layers/sandbox/languages/python-zygote.py', import.meta.url)].map(
  (url) => fileURLToPath(url),
);
let script: string | undefined;

/** The zygote's Python source. */
export function zygoteScript(): string {
  const path = SCRIPT_CANDIDATES.find((p) => existsSync(p));
  if (!path) throw new Error(`python-zygote.py not found (looked in ${SCRIPT_CANDIDATES.join(', ')})`);
  script ??= readFileSync(path, 'utf8');
  return script;
}

/** Starts a zygote in the sandbox: `-c <script>`, with these limits and read-only paths. */
export type StartZygote = (script: string, limits: SandboxLimits) => Promise<ZygoteService>;

/**
 * A started zygote: its pipes, its working directory (the sandbox shows it at the same path)
 * and, where it sees the builds directory (`builds.path`) only in part, the host directory it
 * sees there (`builds.shown`), into which each sample's build is copied for its run.
 */
export type ZygoteService = SandboxService & { workDir: string; builds?: { path: string; shown: string } };

/** Where a program runs: whether it is under bubblewrap (its own /tmp to empty, work moved in) and Landlock. */
export interface ZygoteSetting {
  level: 'bwrap' | 'rlimits';
  landlock: boolean;
  /** Samples a zygote serves before it is replaced. */
  recycleAfter: number;
  /** Removes a finished directory of ours (in the background, once moved out of the way: trash.ts); default in place. */
  discard?: (path: string) => void;
}

/**
 * The zygote's own limits: its CPU for its whole life (forks and bookkeeping, ~1 CPU-ms per
 * sample), no address-space cap of its own (each child sets the program's), and hard limits
 * no lower than a program's, which each child lowers to its program's.
 */
export const ZYGOTE_LIMITS: SandboxLimits = {
  cpuMs: 600_000,
  wallMs: 24 * 3_600_000,
  addressSpaceMb: 0,
  fileSizeMb: 64,
  processes: 64,
  openFiles: 64,
  outputBytes: 1024 * 1024,
  tmpMb: 64,
};

const STDERR_CAP = 64 * 1024;
/** Zygotes in a row that ended without answering: at this many the pool stops starting them. */
const MAX_SILENT_DEATHS = 3;

interface Answer {
  exit: number;
  signal: number;
  wall_timeout: number;
  utime_us: number;
  stime_us: number;
  maxrss_kb: number;
  wall_ms: number;
  stage: number;
  errno: number;
  retire: boolean;
}

function signalName(n: number): string {
  const entry = Object.entries(constants.signals).find(([, v]) => v === n);
  return entry ? entry[0] : `signal ${n}`;
}

/** One zygote: one request at a time. */
class Zygote {
  private buffer = '';
  private waiting: ((answer: Answer | undefined) => void) | undefined;
  alive = true;
  served = 0;
  answered = 0;
  next = 0;

  constructor(readonly service: ZygoteService) {
    service.stdout.setEncoding('utf8');
    service.stdout.on('data', (chunk: string) => this.onData(chunk));
    void service.exited.then(() => this.end());
  }

  ask(request: object, answerMs: number): Promise<Answer | undefined> {
    this.served += 1;
    return new Promise((resolve) => {
      // A zygote that does not answer within the program's wall limit (and a margin) is hung or stopped.
      const timer = setTimeout(() => this.end(), answerMs);
      this.waiting = (answer) => {
        clearTimeout(timer);
        resolve(answer);
      };
      this.service.ref(true);
      this.service.stdin.write(`${JSON.stringify(request)}\n`);
    });
  }

  end(): void {
    this.alive = false;
    this.service.terminate();
    // The caller moves and restores the sample's directory once this settles: only after the
    // supervisor has killed and reaped every process the sample started.
    void this.service.exited.then(() => this.settle(undefined));
  }

  private settle(answer: Answer | undefined): void {
    const w = this.waiting;
    this.waiting = undefined;
    this.service.ref(false);
    w?.(answer);
  }

  private onData(chunk: string): void {
    this.buffer += chunk;
    const nl = this.buffer.indexOf('\n');
    if (nl < 0) return;
    const line = this.buffer.slice(0, nl);
    this.buffer = this.buffer.slice(nl + 1);
    let answer: Answer | undefined;
    try {
      answer = JSON.parse(line) as Answer;
    } catch {
      answer = undefined;
    }
    if (!answer || this.buffer.length > 0 || !this.waiting) {
      // Nothing is said unasked, and only one line per request: anything else is not the zygote we started.
      this.end();
      return;
    }
    this.answered += 1;
    if (answer.retire) this.end();
    this.settle(answer);
  }
}

/** The zygotes of one executor context. */
export class PythonZygotePool {
  private readonly idle: Zygote[] = [];
  private readonly all = new Set<Zygote>();
  private silentDeaths = 0;
  private closed = false;

  constructor(
    private readonly start: StartZygote,
    private readonly setting: ZygoteSetting,
  ) {}

  /** Whether programs still go through zygotes (false once they kept dying without answering). */
  get usable(): boolean {
    return !this.closed && this.silentDeaths < MAX_SILENT_DEATHS;
  }

  /**
   * Runs `spec` (`python3 -I -B <main.py> <args…>`) in a zygote's child; `undefined` when the
   * caller must run it as a sandboxed process of its own.
   */
  async run(spec: SandboxSpec): Promise<SandboxResult | undefined> {
    const [, , , file, ...args] = spec.argv;
    if (!file || !this.usable) return undefined;
    const zygote = await this.take();
    if (!zygote) return undefined;
    const dir = join(zygote.service.workDir, `s${(zygote.next += 1)}`);
    const shown = shownBuild(zygote.service, dirname(file));
    if (shown === null) {
      this.give(zygote, true);
      return undefined;
    }
    // The zygote sees (under bubblewrap) and writes (under Landlock) only its own directory: the
    // work directory moves in for the run, and back.
    const cwd = join(dir, 'work');
    let answer: Answer | undefined;
    const given = snapshot(spec.workDir);
    try {
      // Nothing an earlier sample left in the zygote's directory (where Landlock does not stop it) reaches this one.
      for (const name of readdirSync(zygote.service.workDir)) this.remove(join(zygote.service.workDir, name));
      // The sample's directory stays ours (only its stdout and stderr files are the sandbox's):
      // where Landlock lets the child write it (under bubblewrap the zygote's directory lies
      // below /tmp, which the child may write; no Landlock at all) it can still neither rename
      // nor replace the entries this process moves, reads and empties as itself.
      mkdirSync(dir, { mode: 0o755 });
      if (shown) {
        // What the zygote sees of the builds: this sample's build alone (copied as ours, read-only to it).
        for (const name of readdirSync(shown.view)) this.remove(join(shown.view, name));
        showBuild(dirname(file), shown.copy);
      }
      writeFileSync(join(dir, 'in'), spec.stdin, { mode: 0o644 });
      for (const name of ['out', 'err']) {
        writeFileSync(join(dir, name), '', { mode: 0o600 });
        await giveToSandbox(join(dir, name));
      }
      renameSync(spec.workDir, cwd);
      try {
        const l = spec.limits;
        const request = {
          dir,
          cwd,
          file,
          args,
          cpuMs: l.cpuMs,
          wallMs: l.wallMs,
          as: l.addressSpaceMb * 1024 * 1024,
          fsize: l.fileSizeMb * 1024 * 1024,
          // The zygote is one more process of the sandbox uid than the supervisor's program had beside it.
          nproc: l.processes + 1,
          nofile: l.openFiles,
          landlock: this.setting.landlock,
          reads: [dirname(file), ...spec.readOnly],
          writes: [cwd, ...(this.setting.level === 'bwrap' ? ['/tmp'] : [])],
          wipeTmp: this.setting.level === 'bwrap',
          // Under bubblewrap a program without a zygote has an IPC namespace of its own; the zygote's children share one.
          privateIpc: this.setting.level === 'bwrap',
        };
        answer = await zygote.ask(request, l.wallMs + 5000);
      } finally {
        if (!moveBack(cwd, spec.workDir)) answer = undefined;
      }
      if (!answer || answer.stage !== 0) {
        // The program runs again on its own: from the directory it was given, not the one this attempt left.
        restore(spec.workDir, given);
        return undefined;
      }
      return this.result(answer, dir, spec.limits.outputBytes);
    } finally {
      this.remove(dir);
      if (shown) this.remove(shown.copy);
      this.give(zygote, answer !== undefined && answer.stage === 0);
    }
  }

  /** A directory of ours gone from where it was (into the trash when there is one; in place otherwise). */
  private remove(path: string): void {
    if (this.setting.discard) this.setting.discard(path);
    else rmSync(path, { recursive: true, force: true });
  }

  /**
   * Ends every zygote: its stdin closed, it exits on its own and its supervisor reaps it, so
   * the CPU of its programs reaches this process's rusage as a program's does (a zygote that
   * has not ended within 2 s is ended).
   */
  async close(): Promise<void> {
    this.closed = true;
    const zygotes = [...this.all];
    this.all.clear();
    this.idle.length = 0;
    await Promise.all(
      zygotes.map(async (z) => {
        z.alive = false;
        z.service.stdin.end();
        const timer = setTimeout(() => z.end(), 2000);
        await z.service.exited;
        clearTimeout(timer);
      }),
    );
  }

  private result(a: Answer, dir: string, outputBytes: number): SandboxResult {
    if (realpathSync(dir) !== dir) throw new Error(`${dir} was replaced`);
    const stdoutSize = sizeOf(join(dir, 'out'));
    const outputExceeded = stdoutSize >= outputBytes;
    return {
      exitCode: a.exit >= 0 ? a.exit : null,
      signal: a.signal > 0 ? signalName(a.signal) : null,
      wallTimeout: a.wall_timeout === 1,
      outputExceeded,
      cpuMs: Math.round((a.utime_us + a.stime_us) / 1000),
      wallMs: a.wall_ms,
      peakMemoryKb: a.maxrss_kb,
      stdout: outputExceeded ? '' : readHead(join(dir, 'out'), outputBytes),
      stderr: readHead(join(dir, 'err'), STDERR_CAP),
      reported: true,
    };
  }

  private async take(): Promise<Zygote | undefined> {
    for (let z = this.idle.pop(); z; z = this.idle.pop()) if (z.alive) return z;
    if (!this.usable) return undefined;
    try {
      const service = await this.start(zygoteScript(), ZYGOTE_LIMITS);
      if (this.closed) {
        service.kill();
        return undefined;
      }
      const z = new Zygote(service);
      this.all.add(z);
      void service.exited.then(() => {
        this.all.delete(z);
        this.silentDeaths = z.answered === 0 ? this.silentDeaths + 1 : 0;
      });
      return z;
    } catch {
      this.silentDeaths += 1;
      return undefined;
    }
  }

  private give(z: Zygote, good: boolean): void {
    // A zygote whose sample's set-up failed, or that served its share, is not used again.
    if (!good || z.served >= this.setting.recycleAfter) z.end();
    if (z.alive && !this.closed) this.idle.push(z);
  }
}

/**
 * Where a program's build (`buildDir`) goes for a zygote that sees the builds only in part:
 * `undefined` when it sees them all (its children's Landlock domains then keep each to its
 * own), `null` when the build is not one directory of the builds (then no zygote runs it).
 */
function shownBuild(service: ZygoteService, buildDir: string): { view: string; copy: string } | undefined | null {
  const builds = service.builds;
  if (!builds || builds.shown === builds.path) return undefined;
  const name = relative(builds.path, buildDir);
  if (name === '' || name.includes(sep) || name === '..' || !isDirectory(buildDir)) return null;
  return { view: builds.shown, copy: join(builds.shown, name) };
}

/**
 * `build` as the zygote's view shows it at `copy`: its regular files hard-linked (the cache's
 * own read-only files, as a program without a zygote sees them bound read-only; a link is one
 * metadata write where a copy was ~4 ms of the event loop), copied where they cannot be linked
 * (another file system) and anything else copied as it is.
 */
function showBuild(build: string, copy: string): void {
  const entries = readdirSync(build, { withFileTypes: true });
  if (!entries.every((e) => e.isFile())) {
    cpSync(build, copy, { recursive: true, dereference: false, verbatimSymlinks: true });
    return;
  }
  mkdirSync(copy, { mode: 0o755 });
  for (const e of entries) {
    try {
      linkSync(join(build, e.name), join(copy, e.name));
    } catch {
      copyFileSync(join(build, e.name), join(copy, e.name));
    }
  }
}

/** The regular files the host put in a work directory before the run (the tests' input files). */
function snapshot(dir: string): [string, Buffer][] {
  return readdirSync(dir).flatMap((name): [string, Buffer][] => (lstatSync(join(dir, name)).isFile() ? [[name, readFileSync(join(dir, name))]] : []));
}

/**
 * The work directory back where the host made it; false when it is gone (a zygote that ended
 * takes its own directory with it), and then an empty one stands in for it.
 */
function moveBack(from: string, to: string): boolean {
  try {
    // Only the directory that moved in, never a link a program put in its place (which the
    // fallback's restore would follow to empty whatever it names).
    if (!lstatSync(from).isDirectory() || realpathSync(from) !== from) throw new Error(`${from} was replaced`);
    renameSync(from, to);
    return true;
  } catch {
    mkdirSync(to, { recursive: true, mode: 0o755 });
    void giveToSandbox(to);
    return false;
  }
}

/** `dir` holding exactly `files` again. */
function restore(dir: string, files: [string, Buffer][]): void {
  for (const name of readdirSync(dir)) rmSync(join(dir, name), { recursive: true, force: true });
  for (const [name, content] of files) writeFileSync(join(dir, name), content, { mode: 0o644 });
}

function isDirectory(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

function sizeOf(path: string): number {
  try {
    const st = lstatSync(path);
    return st.isFile() ? st.size : 0;
  } catch {
    return 0;
  }
}

/** The first `max` bytes of a regular file the program's stdio wrote (never a link), as UTF-8. */
function readHead(path: string, max: number): string {
  let fd: number | undefined;
  try {
    if (!lstatSync(path).isFile()) return '';
    fd = openSync(path, fs.O_RDONLY | fs.O_NOFOLLOW);
    const buf = Buffer.alloc(Math.min(max, sizeOf(path)));
    const n = readSync(fd, buf, 0, buf.length, 0);
    return buf.subarray(0, n).toString('utf8');
  } catch {
    return '';
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
