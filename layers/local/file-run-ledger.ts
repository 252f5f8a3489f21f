/**
 * RunLedger as one append-only journal per run (`<dir>/<run>.jsonl`). Each line is an
 * event; the state is the fold of the journal. Appends of a few hundred bytes are atomic
 * on local filesystems, and a torn last line (SIGKILL mid-write) is ignored on load, so a
 * killed run resumes with exact counts. `recordItem` is the conditional write: an item id
 * already in the journal is not counted again.
 *
 * Every line is validated (journal-events.ts). A torn line is a fragment of one of our own
 * appends: the last line when the file does not end in a newline, or such a fragment that a
 * resumed run then appended past. Any other damaged line (a hand edit, a foreign file) is a
 * CorruptRecordError naming the file, the line and the field: a run is never folded from a
 * journal it cannot read.
 */
import { appendFileSync, closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { readFile, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { CorruptRecordError } from '#core/errors.ts';
import type { CostBooking, ItemCount, RunLedger, RunStatus, RunSummary } from '#core/ports.ts';
import type { Verdict } from '#core/types.ts';
import { statusMayChange, withinCap } from '#core/run/index.ts';
import { readJournalLine, type Event } from './journal-events.ts';
import { makeDirsSync } from './make-dirs.ts';

interface State {
  summary: RunSummary;
  /** Counted items and the verdict each is counted with. */
  items: Map<string, Verdict>;
  /** Booking ids of the spend booked (addCost/trySpend with an id). */
  bookings: Set<string>;
}

function safeName(runId: string): string {
  return runId.replace(/[^A-Za-z0-9._-]/g, '_');
}

export class FileRunLedger implements RunLedger {
  private readonly states = new Map<string, State>();
  /** Serialises appends per run so the in-memory check-and-set is atomic within this process. */
  private readonly chains = new Map<string, Promise<unknown>>();
  constructor(private readonly dir: string) {}

  private file(runId: string): string {
    return join(this.dir, `${safeName(runId)}.jsonl`);
  }

  private serial<T>(runId: string, fn: () => Promise<T>): Promise<T> {
    const next = (this.chains.get(runId) ?? Promise.resolve()).then(fn, fn);
    this.chains.set(
      runId,
      next.catch(() => undefined),
    );
    return next;
  }

  private async load(runId: string): Promise<State | undefined> {
    const cached = this.states.get(runId);
    if (cached) return cached;
    let text: string;
    try {
      text = await readFile(this.file(runId), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    let state: State | undefined;
    const lines = text.split('\n');
    for (const [index, line] of lines.entries()) {
      if (!line.trim()) continue;
      // The segment after the last newline is a line still being written when the process died.
      const event = readJournalLine(line, this.file(runId), index + 1, index === lines.length - 1);
      if (event !== undefined) state = apply(state, event);
    }
    if (state) this.states.set(runId, state);
    return state;
  }

  private async append(runId: string, event: Event): Promise<void> {
    makeDirsSync(this.dir);
    // After a torn last line the next event starts on a fresh line. Asked of the file itself, not
    // of what this instance loaded: setStatus and addCost append without loading the journal.
    // Synchronous calls on purpose: one append is a few syscalls on a line of a few hundred
    // bytes (microseconds), while each promise call crosses to libuv's thread pool and back
    // (~0.2 CPU-ms apiece on our paravirtualised 2-core machines, measured 2026-12-02), and a
    // run appends once per sample. The order and content of what reaches the file are the same.
    const file = this.file(runId);
    const lead = endsTorn(file) ? '\n' : '';
    appendFileSync(file, `${lead}${JSON.stringify(event)}\n`);
    this.states.set(runId, apply(this.states.get(runId), event) as State);
  }

  /** The journal file of a run (for `polyeval rm`, which removes it with the run's files). */
  journalPath(runId: string): string {
    return this.file(runId);
  }

  /** Forgets a run: its journal is removed. Not part of the port (the cloud ledger keeps history). */
  async removeRun(runId: string): Promise<void> {
    await this.serial(runId, async () => {
      await rm(this.file(runId), { force: true });
      this.states.delete(runId);
    });
  }

  async createRun(run: Omit<RunSummary, 'recorded' | 'verdicts' | 'costUsd' | 'updatedAt'>): Promise<void> {
    await this.serial(run.runId, async () => {
      if (await this.load(run.runId)) return;
      await this.append(run.runId, { e: 'create', run, at: run.createdAt });
    });
  }

  async getRun(runId: string): Promise<RunSummary | undefined> {
    const state = await this.load(runId);
    return state ? { ...state.summary, verdicts: { ...state.summary.verdicts } } : undefined;
  }

  async runStatus(runId: string): Promise<RunStatus | undefined> {
    return (await this.load(runId))?.summary.status;
  }

  async listRuns(): Promise<RunSummary[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch {
      return [];
    }
    const runs: RunSummary[] = [];
    for (const name of names.filter((n) => n.endsWith('.jsonl'))) {
      const text = await readFile(join(this.dir, name), 'utf8');
      const newline = text.indexOf('\n');
      // A file whose first line is no creation is no journal of ours (or one torn while the run was being created): skipped.
      let event: Event | undefined;
      try {
        event = readJournalLine(newline < 0 ? text : text.slice(0, newline), join(this.dir, name), 1, newline < 0);
      } catch {
        continue;
      }
      if (event?.e !== 'create') continue;
      // A journal of ours damaged further down is never a run silently left out, nor a list
      // the other runs vanish from: it is listed as failed, the reason naming file, line and
      // field (resuming it refuses with the same message; nothing is rewritten).
      try {
        const summary = await this.getRun(event.run.runId);
        if (summary) runs.push(summary);
      } catch (error) {
        if (!(error instanceof CorruptRecordError)) throw error;
        const { runId, benchmark, model, items, createdAt } = event.run;
        runs.push({
          runId,
          benchmark,
          model,
          items,
          createdAt,
          updatedAt: createdAt,
          status: 'failed',
          recorded: 0,
          verdicts: {},
          costUsd: 0,
          reason: `damaged journal: ${error.message}`,
        });
      }
    }
    return runs.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  async recordItem(runId: string, itemId: string, verdict: Verdict): Promise<boolean> {
    return this.serial(runId, async () => {
      const state = await this.load(runId);
      if (state?.items.has(itemId)) return false;
      await this.append(runId, { e: 'item', id: itemId, v: verdict, at: new Date().toISOString() });
      return true;
    });
  }

  /** One load and one lock for the batch; each new item is its own journal line, as recordItem's. */
  async recordItems(runId: string, items: readonly ItemCount[]): Promise<boolean[]> {
    return this.serial(runId, async () => {
      const state = await this.load(runId);
      const seen = new Set(state?.items.keys() ?? []);
      const counted: boolean[] = [];
      for (const { itemId, verdict } of items) {
        if (seen.has(itemId)) {
          counted.push(false);
          continue;
        }
        await this.append(runId, { e: 'item', id: itemId, v: verdict, at: new Date().toISOString() });
        seen.add(itemId);
        counted.push(true);
      }
      return counted;
    });
  }

  async reviseItem(runId: string, itemId: string, from: Verdict, to: Verdict): Promise<boolean> {
    return this.serial(runId, async () => {
      const state = await this.load(runId);
      if (state?.items.get(itemId) !== from) return false;
      if (from !== to) await this.append(runId, { e: 'revise', id: itemId, from, v: to, at: new Date().toISOString() });
      return true;
    });
  }

  async recordedItems(runId: string): Promise<Set<string>> {
    return new Set((await this.load(runId))?.items.keys() ?? []);
  }

  async addCost(runId: string, usd: number, bookingId?: string): Promise<void> {
    await this.trySpend(runId, usd, null, bookingId);
  }

  /** One load and one lock for the batch; each new booking is its own journal line, as addCost's. */
  async addCosts(runId: string, bookings: readonly CostBooking[]): Promise<void> {
    await this.serial(runId, async () => {
      const state = await this.load(runId);
      const seen = new Set(state?.bookings ?? []);
      for (const { bookingId, usd } of bookings) {
        if (seen.has(bookingId)) continue;
        await this.append(runId, { e: 'cost', usd, booking: bookingId, at: new Date().toISOString() });
        seen.add(bookingId);
      }
    });
  }

  async trySpend(runId: string, usd: number, capUsd: number | null, bookingId?: string): Promise<boolean> {
    return this.serial(runId, async () => {
      const state = await this.load(runId);
      if (bookingId !== undefined && state?.bookings.has(bookingId)) return true;
      if (!withinCap(state?.summary.costUsd ?? 0, usd, capUsd)) return false;
      await this.append(runId, { e: 'cost', usd, ...(bookingId !== undefined ? { booking: bookingId } : {}), at: new Date().toISOString() });
      return true;
    });
  }

  async setStatus(runId: string, status: RunStatus, reason?: string): Promise<void> {
    await this.serial(runId, () => this.append(runId, { e: 'status', status, ...(reason ? { reason } : {}), at: new Date().toISOString() }));
  }

  async claimStatus(runId: string, from: readonly RunStatus[], status: RunStatus, reason?: string): Promise<boolean> {
    return this.serial(runId, async () => {
      const now = (await this.load(runId))?.summary.status;
      if (now === undefined || !from.includes(now)) return false;
      await this.append(runId, { e: 'status', status, ...(reason ? { reason } : {}), at: new Date().toISOString() });
      return true;
    });
  }
}

/** Whether `file` exists and does not end with a newline (its last append was cut short). */
function endsTorn(file: string): boolean {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
  try {
    const { size } = fstatSync(fd);
    if (size === 0) return false;
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    return last[0] !== 0x0a;
  } finally {
    closeSync(fd);
  }
}

function apply(state: State | undefined, event: Event): State | undefined {
  if (event.e === 'create') {
    return state ?? { summary: { ...event.run, recorded: 0, verdicts: {}, costUsd: 0, updatedAt: event.at }, items: new Map(), bookings: new Set() };
  }
  if (!state) return state;
  const s = state.summary;
  switch (event.e) {
    case 'item':
      if (state.items.has(event.id)) return state;
      state.items.set(event.id, event.v);
      s.recorded++;
      s.verdicts[event.v] = (s.verdicts[event.v] ?? 0) + 1;
      break;
    case 'revise': {
      if (state.items.get(event.id) !== event.from) return state;
      state.items.set(event.id, event.v);
      const left = (s.verdicts[event.from] ?? 1) - 1;
      if (left > 0) s.verdicts[event.from] = left;
      else delete s.verdicts[event.from];
      s.verdicts[event.v] = (s.verdicts[event.v] ?? 0) + 1;
      break;
    }
    case 'cost':
      if (event.booking !== undefined) {
        if (state.bookings.has(event.booking)) return state;
        state.bookings.add(event.booking);
      }
      s.costUsd += event.usd;
      break;
    case 'status':
      if (!statusMayChange(s.status)) break;
      s.status = event.status;
      if (event.reason) s.reason = event.reason;
      else delete s.reason;
      break;
    default: {
      const never: never = event;
      return never;
    }
  }
  s.updatedAt = event.at;
  return state;
}
