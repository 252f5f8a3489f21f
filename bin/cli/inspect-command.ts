/**
 * `polyeval inspect -b <spec>`: how a dataset's rows map to tasks — detected format, the
 * column behind each task field, rows per split, and the first task's rendered prompt and
 * test summary — without calling a model or running any code.
 */
import { Command, Option } from 'commander';
import { openHome, packageRoot } from '#app/local/home.ts';
import { inspectBenchmark, type Inspection } from '#app/local/inspect.ts';
import { InputError } from '#core/errors.ts';
import { GOLD_RULES, PROMPT_LANGUAGES, PromptStyleSchema, type GoldRule, type PromptLanguage, type PromptStyle } from '#core/benchmarks/index.ts';
import { CHAT_TEMPLATE_NAMES, type ChatTemplateName } from '#core/prompts/index.ts';
import { table, toJson } from './format.ts';
import { intOption } from './options.ts';

interface InspectFlags {
  benchmark?: string;
  split?: string;
  protocol?: string;
  rowLimits?: boolean;
  promptStyle?: PromptStyle;
  shots?: number;
  chatTemplate?: ChatTemplateName;
  gold?: GoldRule;
  shotSeed?: number;
  promptLanguage?: PromptLanguage;
  json?: boolean;
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n');
}

function printInspection(i: Inspection, out: NodeJS.WritableStream): void {
  const overrides = Object.entries(i.protocol.overrides).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
  out.write(
    `\n${i.spec} · ${i.title}\nscorer ${i.scorer} · protocol ${i.protocol.name}${overrides.length ? ` (overridden: ${overrides.join(', ')})` : ''} · headline ${i.protocol.settings.headline}\n\n`,
  );
  for (const defect of i.protocol.settings.knownDefects ?? []) out.write(`  known: ${defect}\n`);
  if (i.protocol.settings.knownDefects?.length) out.write('\n');
  out.write(`${table(i.files.map((f) => ({ file: f.source, format: `${f.format}${f.gzip ? ' (gzip)' : ''}`, split: f.split ?? '', rows: f.rows })))}\n\n`);
  out.write(`${table(i.mapping.map((m) => ({ field: m.field, column: m.column ?? (m.required ? 'MISSING (required)' : '—'), note: m.note ?? '' })))}\n\n`);
  out.write(`${table(Object.entries(i.splits).map(([split, c]) => ({ split, rows: c.rows, tasks: c.tasks })))}\n`);
  if (i.error) out.write(`\nstopped at a bad row: ${i.error}\n`);
  if (!i.first_task) return;
  const t = i.first_task;
  out.write(`\nfirst task ${t.id} (split ${t.split}) · prompt sent as ${t.prompt.style}\n`);
  if (t.prompt.style === 'completion' && t.prompt.completion !== null) out.write(`${indent(t.prompt.completion)}\n`);
  else for (const m of t.prompt.messages) out.write(`  [${m.role}]\n${indent(m.content)}\n`);
  out.write(
    `tests: ${Object.entries(t.tests)
      .map(([k, v]) => `${k} ${Array.isArray(v) ? v.join(',') : String(v)}`)
      .join(' · ')}\n`,
  );
}

export function inspectCommand(): Command {
  return new Command('inspect')
    .description("show how a dataset's rows map to tasks (format, columns, splits, first prompt) without running anything")
    .option('-b, --benchmark <spec>', 'sample | sample/<suite> | <benchmark>:<path|s3://…|hf://…> | <benchmark>')
    .option('--split <split>', 'for a published dataset, the split file to read (default: test); the first task shown is of this split')
    .option('--protocol <name>', "the benchmark's named protocol (default: its source's)")
    .option('--row-limits', "io-tests: each row's own time limit")
    .addOption(new Option('--prompt-style <style>', 'render the prompt as plain text or chat messages').choices(PromptStyleSchema.options))
    .option('--shots <count>', 'likert: solved examples before each item', intOption('--shots', 0))
    .addOption(new Option('--gold <rule>', 'likert: gold digit rule').choices([...GOLD_RULES]))
    .option('--shot-seed <seed>', "likert: seed of lm-eval's few-shot draw (default 1234)", intOption('--shot-seed', 0))
    .addOption(new Option('--chat-template <name>', 'ABRICOT: chat template for raw-text calls').choices([...CHAT_TEMPLATE_NAMES]))
    .addOption(new Option('--prompt-language <language>', "RoCode: language of the prompt's instructions").choices([...PROMPT_LANGUAGES]))
    .option('--json', 'print exactly one JSON object')
    .action(async (flags: InspectFlags, command: Command) => {
      if (!flags.benchmark) throw new InputError('missing -b/--benchmark (try: -b sample)', { field: 'benchmark' });
      const home = openHome(command.optsWithGlobals<{ home?: string }>().home);
      const choice = {
        ...(flags.protocol ? { protocol: flags.protocol } : {}),
        ...(flags.rowLimits ? { rowLimits: true } : {}),
        ...(flags.promptStyle ? { promptStyle: flags.promptStyle } : {}),
        ...(flags.shots !== undefined ? { shots: flags.shots } : {}),
        ...(flags.chatTemplate ? { chatTemplate: flags.chatTemplate } : {}),
        ...(flags.gold ? { gold: flags.gold } : {}),
        ...(flags.shotSeed !== undefined ? { shotSeed: flags.shotSeed } : {}),
        ...(flags.promptLanguage ? { promptLanguage: flags.promptLanguage } : {}),
      };
      const inspections = await inspectBenchmark(flags.benchmark, choice, {
        packageRoot: packageRoot(),
        cacheDir: home.cacheDir,
        env: process.env,
        ...(flags.split ? { split: flags.split } : {}),
      });
      if (flags.json) process.stdout.write(`${toJson(inspections.length === 1 ? inspections[0] : { sources: inspections })}\n`);
      else for (const i of inspections) printInspection(i, process.stdout);
    });
}
