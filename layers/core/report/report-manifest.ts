/**
 * The report's manifest: what ran, listing only what the run used — the toolchains of the
 * languages its samples ran in (none for ABRICOT), the Likert mode only for a Likert run.
 */
import type { Manifest } from '../run/index.ts';
import { escapeHtml } from '../html/index.ts';

function protocolRow(p: NonNullable<Manifest['protocol']>): [string, string] {
  const overrides = Object.entries(p.overrides).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
  return [
    'protocol',
    `${p.name} · headline ${p.settings.headline} · prompt ${p.settings.promptStyle}${overrides.length ? ` · overridden: ${overrides.join(', ')}` : ' · no overrides'}`,
  ];
}

const LIKERT_MODES: Record<NonNullable<Manifest['likert_mode']>, string> = {
  likelihood: 'likelihood — the choice 1–5 with the highest log-likelihood',
  'next-token': 'next-token — the choice 1–5 with the highest next-token log-probability ("1" and " 1" merged; a choice outside the top-k gets the floor)',
  'digit-parse': 'digit-parse — the provider returns no log-probabilities; a strictly parsed digit, unparseable = wrong',
};

/**
 * The manifest as a key/value table. `languages` are the languages the run's samples ran in:
 * a manifest written before manifests kept only the used toolchains lists every language,
 * and the report still shows only these.
 */
export function manifestTable(m: Manifest, languages: ReadonlySet<string>): string {
  const rows: [string, string][] = [
    ['run', m.run_id],
    ['created', m.created_at],
    ['benchmark', `${m.benchmark.title} (${m.benchmark.id}, ${m.benchmark.spec})`],
    ['dataset', `${m.benchmark.source} · sha256 ${m.benchmark.sha256.slice(0, 16)}… · ${m.benchmark.tasks} tasks`],
    ['model', `${m.model.spec} (${m.model.kind})`],
    ...(m.protocol ? [protocolRow(m.protocol)] : []),
    ['samples per task', String(m.n)],
    [
      'parameters',
      `temperature ${m.params.temperature}, top_p ${m.params.topP}, max_tokens ${m.params.maxTokens}, stop ${JSON.stringify(m.params.stop)}, seed ${m.seed}`,
    ],
    ['split / limit / language', `${m.split ?? 'all'} / ${m.limit ?? 'none'} / ${m.language ?? (languages.size > 0 ? 'per task' : 'none (no code)')}`],
    ['time scale', String(m.time_scale)],
    ['code', `polyeval ${m.code.version}${m.code.revision ? ` @ ${m.code.revision.slice(0, 12)}${m.code.dirty ? ' (dirty)' : ''}` : ''}`],
  ];
  if (m.likert_mode) {
    const why = m.likert_scoring ? ` · method ${m.likert_scoring.method} · ${m.likert_scoring.reason}` : '';
    rows.push(['likert mode', `${LIKERT_MODES[m.likert_mode]}${why}`]);
  }
  for (const w of m.warnings ?? []) rows.push(['adapted to the model', w]);
  for (const note of m.prompt_notes ?? []) rows.push(['prompt', note]);
  for (const t of m.toolchains.filter((x) => languages.has(x.language)))
    rows.push([`toolchain ${t.language}`, `${t.compiler ?? ''} ${t.version ?? ''} ${(t.flags ?? []).join(' ')}`.trim()]);
  // A cloud run's toolchains are recorded by its judges (layers/app/cloud/toolchain-record.ts): one missing is said so, never left blank.
  const known = new Set(m.toolchains.map((t) => t.language));
  for (const language of [...languages].filter((l) => !known.has(l)).sort()) rows.push([`toolchain ${language}`, 'not recorded']);
  return `<table class="kv" id="manifest">${rows.map(([k, v]) => `<tr><th>${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`).join('')}</table>`;
}
