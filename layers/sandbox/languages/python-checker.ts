/**
 * Python's syntax check without a process per sample: one long-lived `python3` in the
 * sandbox (python-checker.py) compiles each source it is sent and answers in a line. A
 * separate sandboxed interpreter per sample cost about 30 ms, more than most programs' own
 * runs; an answer from the warm checker costs well under one.
 *
 * It never decides differently from the one-shot check it replaces: it answers only "it
 * compiled" or the exception compile() raised (which the caller reads exactly as it reads the
 * one-shot's stderr), and for anything else — an odd exception, a checker that died, hit a
 * limit or took too long — it answers `undefined` and the caller runs the one-shot check on
 * that source alone. The checker is replaced after `recycleAfter` sources, and its CPU
 * limit covers its whole life.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { SandboxService } from '../sandbox-service.ts';

/** What the checker said of one source. */
export type CheckAnswer = { compiled: true } | { compiled: false; exception: string };

/** Starts the checker's interpreter in the sandbox, `-c <script>`. */
export type StartChecker = (script: string) => Promise<SandboxService>;

/** Beside this module when run from source; `layers/…` from the bundle in `dist/`. */
const SCRIPT_CANDIDATES = [new URL('./python-checker.py', import.meta.url), new URL('../layers/sandbox/languages/python-checker.py', import.meta.url)].map(
  (url) => fileURLToPath(url),
);

let script: string | undefined;

/** The checker's Python source. */
export function checkerScript(): string {
  const path = SCRIPT_CANDIDATES.find((p) => existsSync(p));
  if (!path) throw new Error(`python-checker.py not found (looked in ${SCRIPT_CANDIDATES.join(', ')})`);
  script ??= readFileSync(path, 'utf8');
  return script;
}

const MAX_SILENT_DEATHS = 3;

interface Pending {
  resolve: (answer: CheckAnswer | undefined) => void;
  timer: NodeJS.Timeout;
}

/** One checker process and its queue of requests (it answers in order). */
class CheckerProcess {
  private readonly waiting: Pending[] = [];
  private buffer = '';
  alive = true;
  sent = 0;
  answered = 0;

  constructor(
    private readonly service: SandboxService,
    private readonly answerMs: number,
  ) {
    service.stdout.setEncoding('utf8');
    service.stdout.on('data', (chunk: string) => this.onData(chunk));
    void service.exited.then(() => this.fail());
  }

  check(bytes: Buffer): Promise<CheckAnswer | undefined> {
    this.sent += 1;
    return new Promise((resolve) => {
      // A source the checker chews on too long (or a checker that hangs) goes to the one-shot check.
      const timer = setTimeout(() => this.fail(), this.answerMs);
      this.waiting.push({ resolve, timer });
      this.service.ref(true);
      this.service.stdin.write(`${bytes.length}\n`);
      this.service.stdin.write(bytes);
    });
  }

  /** Ends the process; every request still waiting is answered `undefined`. */
  fail(): void {
    this.alive = false;
    this.service.kill();
    for (const w of this.waiting.splice(0)) {
      clearTimeout(w.timer);
      w.resolve(undefined);
    }
    this.service.ref(false);
  }

  /** Stops taking work; ends once its queue is empty. */
  retire(): void {
    this.alive = false;
    if (this.waiting.length === 0) this.fail();
  }

  private onData(chunk: string): void {
    this.buffer += chunk;
    for (let nl = this.buffer.indexOf('\n'); nl >= 0; nl = this.buffer.indexOf('\n')) {
      const line = this.buffer.slice(0, nl);
      this.buffer = this.buffer.slice(nl + 1);
      const w = this.waiting.shift();
      if (!w) continue;
      this.answered += 1;
      clearTimeout(w.timer);
      const [kind, text = ''] = line.split(' ');
      const decoded = Buffer.from(text, 'base64').toString('utf8');
      w.resolve(kind === 'OK' ? { compiled: true } : kind === 'EXC' ? { compiled: false, exception: decoded } : undefined);
    }
    if (this.waiting.length === 0) {
      this.service.ref(false);
      if (!this.alive) this.fail();
    }
  }
}

/** A recycled pool of one checker process. */
export class PythonSyntaxChecker {
  private current: CheckerProcess | undefined;
  private starting: Promise<CheckerProcess | undefined> | undefined;
  private closed = false;
  /** Checkers in a row that ended without answering anything; at MAX_SILENT_DEATHS the one-shot check takes over for good. */
  private silentDeaths = 0;

  constructor(
    private readonly start: StartChecker,
    private readonly opts: { recycleAfter: number; answerMs: number },
  ) {}

  /** What compile() made of `source`, or `undefined` when the caller must check it alone. */
  async check(source: Buffer): Promise<CheckAnswer | undefined> {
    const checker = await this.checker();
    return checker ? checker.check(source) : undefined;
  }

  close(): void {
    this.closed = true;
    this.current?.retire();
    this.current = undefined;
  }

  private async checker(): Promise<CheckerProcess | undefined> {
    if (this.closed || this.silentDeaths >= MAX_SILENT_DEATHS) return undefined;
    const current = this.current;
    if (current?.alive && current.sent < this.opts.recycleAfter) return current;
    if (!this.starting) {
      if (current?.alive) current.retire();
      if (current) this.silentDeaths = current.answered === 0 ? this.silentDeaths + 1 : 0;
      this.current = undefined;
      if (this.silentDeaths >= MAX_SILENT_DEATHS) return undefined;
      this.starting = Promise.resolve()
        .then(() => this.start(checkerScript()))
        .then((service) => (this.closed ? (service.kill(), undefined) : (this.current = new CheckerProcess(service, this.opts.answerMs))))
        .catch(() => undefined) // cannot start here: every source gets the one-shot check
        .finally(() => (this.starting = undefined));
    }
    return this.starting;
  }
}
