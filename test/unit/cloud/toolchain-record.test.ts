// The judge's toolchain records (layers/app/cloud/toolchain-record.ts) over the local store: one per
// run and language whatever the number of jobs, with the options the jobs carried; failures never
// reach the item; readers skip what they cannot read; the report says what was not recorded.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FsBlobStore } from '#local/index.ts';
import type { BlobStore, ExecutionJob, Executor, ToolchainInfo } from '#core/ports.ts';
import type { Manifest } from '#core/run/index.ts';
import { manifestTable } from '#core/report/report-manifest.ts';
import {
  RECORD_ATTEMPTS,
  ToolchainRecorder,
  keepRecordedToolchains,
  readRecordedToolchains,
  toolchainKeys,
  withRecordedToolchains,
} from '#app/cloud/toolchain-record.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function store(): FsBlobStore {
  const dir = mkdtempSync(join(tmpdir(), 'polyeval-toolchains-'));
  dirs.push(dir);
  return new FsBlobStore(dir);
}

const clock = () => new Date('2026-12-07T12:00:00Z');

/** An executor whose toolchains say which options they were asked with (as kotlin.ts puts -language-version in its flags). */
function echoingExecutor(): Executor & { asked: { options: unknown; languages: string[] }[]; ran: number } {
  const self = {
    asked: [] as { options: unknown; languages: string[] }[],
    ran: 0,
    execute: (_job: ExecutionJob) => {
      self.ran += 1;
      return Promise.resolve({ verdict: 'OK' as const, testsPassed: 1, testsTotal: 1 });
    },
    toolchains: (options: Readonly<Record<string, { languageVersion?: string }>> = {}, languages?: ReadonlySet<string>): Promise<ToolchainInfo[]> => {
      self.asked.push({ options, languages: [...(languages ?? [])] });
      return Promise.resolve(
        [...(languages ?? [])].map((language) => {
          const version = options[language]?.languageVersion;
          return { language, compiler: `${language}c`, version: '1.0', flags: version ? ['-language-version', version] : [], available: true };
        }),
      );
    },
    close: () => Promise.resolve(),
  };
  return self;
}

function job(language: string, languageVersion?: string): ExecutionJob {
  return {
    scorer: 'io-tests',
    task: { id: 't1' } as ExecutionJob['task'],
    language,
    code: 'x',
    ...(languageVersion ? { toolchain: { languageVersion } } : {}),
  };
}

describe('ToolchainRecorder', () => {
  it('records each language of a run once, with the options its jobs carried, however many jobs run', async () => {
    const blobs = store();
    const executor = echoingExecutor();
    const recorder = new ToolchainRecorder({ store: blobs, clock, image: 'kotlin', recordedBy: 'execute-kotlin' });
    const judged = recorder.over(executor, 'r1');

    for (let i = 0; i < 5; i++) await judged.execute(job('kotlin', '2.0'));
    await judged.execute(job('java'));

    expect(executor.ran).toBe(6);
    expect(executor.asked).toEqual([
      { options: { kotlin: { languageVersion: '2.0' } }, languages: ['kotlin'] },
      { options: { java: {} }, languages: ['java'] },
    ]);
    const { records, problems } = await readRecordedToolchains(blobs, 'r1');
    expect(problems).toEqual([]);
    expect(records).toEqual([
      expect.objectContaining({ language: 'java', run_id: 'r1' }),
      {
        schema_version: 1,
        run_id: 'r1',
        language: 'kotlin',
        recorded_at: '2026-12-07T12:00:00.000Z',
        image: 'kotlin',
        recorded_by: 'execute-kotlin',
        toolchain: { language: 'kotlin', compiler: 'kotlinc', version: '1.0', flags: ['-language-version', '2.0'], available: true },
      },
    ]);
  });

  it('records again for another run, and leaves a record another container wrote in place', async () => {
    const blobs = store();
    await new ToolchainRecorder({ store: blobs, clock }).over(echoingExecutor(), 'r1').execute(job('kotlin', '1.9'));
    await new ToolchainRecorder({ store: blobs, clock }).over(echoingExecutor(), 'r1').execute(job('kotlin', '2.0'));
    await new ToolchainRecorder({ store: blobs, clock }).over(echoingExecutor(), 'r2').execute(job('kotlin', '2.0'));

    const flags = async (run: string) => (await readRecordedToolchains(blobs, run)).records.map((r) => r.toolchain.flags);
    expect(await flags('r1')).toEqual([['-language-version', '1.9']]);
    expect(await flags('r2')).toEqual([['-language-version', '2.0']]);
  });

  it('never fails the job when the record cannot be written, and tries a few times only', async () => {
    const blobs = store();
    let attempts = 0;
    const failing: BlobStore = Object.assign(Object.create(blobs) as FsBlobStore, {
      putIfAbsent: () => {
        attempts += 1;
        return Promise.reject(new Error('AccessDenied'));
      },
    });
    const logged: string[] = [];
    const executor = echoingExecutor();
    const judged = new ToolchainRecorder({ store: failing, clock, log: (message) => logged.push(message) }).over(executor, 'r1');

    for (let i = 0; i < 10; i++) expect(await judged.execute(job('python'))).toMatchObject({ verdict: 'OK' });

    expect(executor.ran).toBe(10);
    expect(attempts).toBe(RECORD_ATTEMPTS);
    expect(logged).toHaveLength(RECORD_ATTEMPTS);
  });

  it('never records what a failed probe reports, and never fails the job: a judge whose probe works records the toolchain', async () => {
    const blobs = store();
    const logged: string[] = [];
    const recorder = () => new ToolchainRecorder({ store: blobs, clock, log: (message) => logged.push(message) });
    // No javac here (the runtime's own answer, java.ts), and an interpreter whose probe throws.
    const broken = Object.assign(echoingExecutor(), {
      toolchains: (_options: unknown, languages?: ReadonlySet<string>): Promise<ToolchainInfo[]> =>
        languages?.has('python')
          ? Promise.reject(new Error('python3: Exec format error'))
          : Promise.resolve([{ language: 'java', available: false, detail: '/usr/bin/javac not found' }]),
    });
    const judged = recorder().over(broken, 'r1');
    for (let i = 0; i < 5; i++) {
      expect(await judged.execute(job('java'))).toMatchObject({ verdict: 'OK' });
      expect(await judged.execute(job('python'))).toMatchObject({ verdict: 'OK' });
    }
    expect(broken.ran).toBe(10);
    expect(logged).toHaveLength(2 * RECORD_ATTEMPTS);
    expect((await readRecordedToolchains(blobs, 'r1')).records).toEqual([]);

    await recorder().over(echoingExecutor(), 'r1').execute(job('java'));
    expect((await readRecordedToolchains(blobs, 'r1')).records.map((r) => r.toolchain)).toEqual([
      { language: 'java', compiler: 'javac', version: '1.0', flags: [], available: true },
    ]);
  });
});

describe('reading the records', () => {
  it('skips a damaged record or one that is not this run’s, naming it, and keeps the rest', async () => {
    const blobs = store();
    await new ToolchainRecorder({ store: blobs, clock }).over(echoingExecutor(), 'r1').execute(job('python'));
    await blobs.put(toolchainKeys.language('r1', 'cpp'), 'not json');
    await new ToolchainRecorder({ store: blobs, clock }).over(echoingExecutor(), 'r2').execute(job('java'));
    await blobs.put(toolchainKeys.language('r1', 'java'), (await blobs.getText(toolchainKeys.language('r2', 'java'))) ?? '');

    const { records, problems } = await readRecordedToolchains(blobs, 'r1');
    expect(records.map((r) => r.language)).toEqual(['python']);
    expect(problems).toEqual([
      expect.stringMatching(/toolchains\/cpp\.json.*not JSON/),
      expect.stringMatching(/toolchains\/java\.json: holds the record of r2\/java/),
    ]);
  });

  it('reads the kept copy once the judges’ records are gone (runs/ expired)', async () => {
    const blobs = store();
    await new ToolchainRecorder({ store: blobs, clock }).over(echoingExecutor(), 'r1').execute(job('python'));
    await keepRecordedToolchains(blobs, 'r1', await readRecordedToolchains(blobs, 'r1'));
    await blobs.delete(toolchainKeys.language('r1', 'python'));

    const kept = await readRecordedToolchains(blobs, 'r1');
    expect(kept).toMatchObject({ kept: true, problems: [] });
    expect(kept.records.map((r) => r.toolchain)).toEqual([{ language: 'python', compiler: 'pythonc', version: '1.0', flags: [], available: true }]);
  });
});

describe('the manifest readers show', () => {
  const manifest = (toolchains: ToolchainInfo[]) =>
    ({
      run_id: 'r1',
      created_at: '2026-12-07T12:00:00Z',
      benchmark: { title: 'T', id: 'rocode', spec: 'sample/rocode', source: 's', sha256: '0'.repeat(64), tasks: 1, scorer: 'io-tests' },
      model: { spec: 'reference', kind: 'reference', name: 'reference' },
      n: 1,
      params: { temperature: 0, topP: 1, maxTokens: 10, stop: [] },
      seed: 1,
      time_scale: 1,
      code: { version: '0.1.0', revision: null, dirty: null },
      toolchains,
    }) as unknown as Manifest;
  const python: ToolchainInfo = { language: 'python', compiler: '/usr/bin/python3.11', version: '3.11.9', flags: ['-I', '-B'], available: true };

  it("keeps a local run's own toolchains and adds only the languages it lacks", () => {
    const local = manifest([{ ...python, version: '3.12.1' }]);
    expect(withRecordedToolchains(local, [python])).toBe(local);
    expect(withRecordedToolchains(manifest([]), [python]).toolchains).toEqual([python]);
  });

  it('lists a recorded toolchain as a local run does, and says so for a language with none recorded', () => {
    const html = manifestTable(withRecordedToolchains(manifest([]), [python]), new Set(['python', 'cpp']));
    expect(html).toContain('<tr><th>toolchain python</th><td>/usr/bin/python3.11 3.11.9 -I -B</td></tr>');
    expect(html).toContain('<tr><th>toolchain cpp</th><td>not recorded</td></tr>');
  });
});
