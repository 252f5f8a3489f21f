/**
 * `polyeval remote selftest`: on a deployed stack, runs each executor image's reference suite
 * and the hostile suite through every language's judge and runner (POST /selftest), waits for them
 * (GET /selftest/{id}) and prints, per executor image, the isolation its runner reported,
 * whether the reference suite passed and whether each hostile probe was held. The exit code
 * is 1 when anything escaped, a probe could not be judged or a reference item failed.
 */
import { Command } from 'commander';
import { HarnessError, InputError } from '#core/errors.ts';
import type { ImageReport, ProbeReport, SelftestReport } from '#core/selftest/index.ts';
import type { RemoteClient } from '#app/cloud/remote-client.ts';
import type { SelftestView } from '#app/cloud/selftest.ts';
import { table, toJson } from './format.ts';
import { intOption } from './options.ts';

export interface SelftestFlags {
  id?: string;
  language?: string;
  pollSeconds: number;
  timeoutMinutes: number;
}

/** How a probe reached its image, by the judge it went through. */
const ROUTES: Record<ProbeReport['scorer'], string> = {
  'io-tests': 'as RoCode answers (io-tests judge)',
  'unit-tests': 'as MXEval answers (unit-tests judge)',
};

function imageText(image: ImageReport): string {
  const head = `image ${image.image} (${image.languages.join(', ')})`;
  if (image.untested) return `${head}\n  not tested: this self-test sent nothing to this image (see --language)`;
  const lines = [`${head} · isolation: ${image.isolation.length > 0 ? image.isolation.join(', ') : 'not reported'}`];
  if (image.reference)
    lines.push(
      `  reference suite: ${image.reference.passed}/${image.reference.total} passed${image.reference.failed.length > 0 ? ` · FAILED ${image.reference.failed.join('; ')}` : ''}`,
    );
  else lines.push('  reference suite: none bundled for these languages');
  for (const run of image.incomplete) lines.push(`  run did not complete: ${run}`);
  if (image.probes.length === 0) lines.push('  hostile suite: none bundled for these languages');
  else {
    const judged = Object.entries(ROUTES).flatMap(([scorer, route]) => {
      const count = image.probes.filter((p) => p.scorer === scorer).length;
      return count > 0 ? [`${count} ${route}`] : [];
    });
    lines.push(`  hostile suite: ${image.probes.length} probe(s), ${judged.join(', ')}`);
    const rows = image.probes.map((p) => ({
      probe: p.attack,
      language: p.language,
      verdict: p.verdict ?? '—',
      result: p.result.toUpperCase(),
      detail: p.error ?? '',
    }));
    lines.push(
      table(rows, ['probe', 'language', 'verdict', 'result', 'detail'])
        .split('\n')
        .map((l) => `  ${l}`)
        .join('\n'),
    );
  }
  lines.push(`  ${image.ok ? 'ok' : 'FAILED'}`);
  return lines.join('\n');
}

/** The report as the terminal shows it: one block per image, then the totals. */
export function selftestText(id: string, report: SelftestReport): string {
  const summary = `${report.escaped} escaped, ${report.errors} not judged, ${report.referenceFailed} reference item(s) failed`;
  return [`self-test ${id}`, '', ...report.images.map(imageText).flatMap((b) => [b, '']), `${report.ok ? 'PASSED' : 'FAILED'}: ${summary}`].join('\n');
}

type Done = Extract<SelftestView, { status: 'done' }>;

/** Polls until every run of the self-test has ended; `sleep` and `now` are passed in for tests. */
export async function waitForSelftest(
  client: Pick<RemoteClient, 'selftest'>,
  id: string,
  options: { pollMs: number; timeoutMs: number; progress: (line: string) => void; sleep?: (ms: number) => Promise<void>; now?: () => number },
): Promise<Done> {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const now = options.now ?? Date.now;
  const deadline = now() + options.timeoutMs;
  for (;;) {
    let view: SelftestView | undefined;
    try {
      view = await client.selftest(id);
    } catch (error) {
      // A poll that gets no answer (a 5xx, a timeout) is asked again; a 4xx is the caller's and ends the wait.
      if (!(error instanceof HarnessError)) throw error;
      options.progress(`${id}: ${error.message}; asking again`);
    }
    if (view?.status === 'done') return view;
    if (view) {
      const ended = view.runs.filter((r) => !['planned', 'running', 'aggregating'].includes(r.status)).length;
      options.progress(`${id}: ${ended}/${view.runs.length} runs ended`);
    }
    if (now() >= deadline)
      throw new HarnessError(`self-test ${id} still running after the timeout; look again later with: polyeval remote selftest --id ${id}`);
    await sleep(options.pollMs);
  }
}

async function start(client: RemoteClient, language: string | undefined): Promise<string> {
  const languages = language
    ?.split(',')
    .map((l) => l.trim())
    .filter(Boolean);
  try {
    return (await client.startSelftest(languages)).selftest_id;
  } catch (error) {
    // A stack deployed before the self-test existed has no such route.
    if (error instanceof InputError && /answered 404/u.test(error.message))
      throw new InputError('the deployed API has no /selftest route: deploy this version first (npx cdk deploy)', { field: 'api' });
    throw error;
  }
}

export function selftestCommand(clientOf: (command: Command) => { client: RemoteClient; json: boolean }): Command {
  return new Command('selftest')
    .description(
      "run each image's reference suite and the hostile suite through every language's deployed judge and runner; print each image's isolation and whether any probe escaped (exit 1 if so)",
    )
    .option('--language <list>', 'only these languages, comma-separated (default: every language of every executor image)')
    .option('--id <selftest-id>', 'look at a self-test already started instead of starting one')
    .option('--poll-seconds <s>', 'seconds between status requests', intOption('--poll-seconds', 1), 15)
    .option('--timeout-minutes <m>', 'give up waiting after this long (the runs go on)', intOption('--timeout-minutes', 1), 60)
    .action(async (flags: SelftestFlags, command: Command) => {
      const { client, json } = clientOf(command);
      const id = flags.id ?? (await start(client, flags.language));
      if (!json) process.stderr.write(`polyeval: self-test ${id} started; waiting for its runs\n`);
      const report = await waitForSelftest(client, id, {
        pollMs: flags.pollSeconds * 1000,
        timeoutMs: flags.timeoutMinutes * 60_000,
        progress: (line) => process.stderr.write(`polyeval: ${line}\n`),
      });
      process.stdout.write(`${json ? toJson(report) : selftestText(id, report)}\n`);
      if (!report.ok) process.exitCode = 1;
    });
}
