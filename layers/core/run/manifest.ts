/**
 * The run manifest (DESIGN §2 plan): exactly what ran, so a result can be reproduced.
 */
import { z } from 'zod';
import { GOLD_RULES, PROMPT_LANGUAGES, TIME_CLOCKS, type ProtocolChoice, type RunProtocol } from '../benchmarks/index.ts';
import { CHAT_TEMPLATE_NAMES } from '../prompts/index.ts';
import { findBenchmark } from '../benchmarks/index.ts';
import { LikertModeSchema, type GenerationParams, type LikertScoring } from '../models/index.ts';
import type { ToolchainInfo } from '../ports.ts';
import { SCORERS } from '../scorers/index.ts';
import type { ScorerKind } from '../types.ts';
import { parseStored, schemaVersionField } from './documents.ts';

const isObject = (value: unknown): boolean => typeof value === 'object' && value !== null && !Array.isArray(value);
/** A nested shape defined (and validated where it is built) elsewhere: checked here to be an object. */
const objectOf = <T>(what: string) => z.custom<T>(isObject, { error: `expected ${what} (an object)` });

/**
 * The manifest schema (`runs/<run_id>/manifest.json`); {@link Manifest} is inferred from it.
 * Read it with `parseStored(ManifestSchema, text, key)`.
 */
export const ManifestSchema = z
  .object({
    schema_version: schemaVersionField,
    run_id: z.string().min(1),
    created_at: z.string(),
    benchmark: z
      .object({
        id: z.string().min(1),
        title: z.string(),
        spec: z.string(),
        source: z.string(),
        sha256: z.string(),
        tasks: z.number().int().min(0),
        scorer: z.custom<ScorerKind>((v) => SCORERS.some((s) => s.id === v), {
          error: `expected a scorer kind (${SCORERS.map((s) => s.id).join(', ')})`,
        }),
      })
      .loose(),
    model: z.object({ spec: z.string(), kind: z.string(), name: z.string() }).loose(),
    params: objectOf<GenerationParams>('generation parameters'),
    n: z.number().int().min(1),
    seed: z.number().int(),
    split: z.string().nullable(),
    limit: z.number().int().nullable(),
    language: z.string().nullable(),
    time_scale: z.number(),
    /** likert: which mode ran (likelihood, next-token or digit-parse). */
    likert_mode: LikertModeSchema.nullable(),
    /** likert: the mode with its wire method and why it was chosen (the capability check, cached here so a resume does not repeat it). */
    likert_scoring: objectOf<LikertScoring>('the likert scoring').nullable().optional(),
    /** What the run adapted to the model before any call (e.g. top_p dropped), one line each. */
    warnings: z.array(z.string()).optional(),
    /** How the prompt reached the model (which chat template shaped it, or that none did), one line each. */
    prompt_notes: z.array(z.string()).optional(),
    max_cost_usd: z.number().nullable(),
    /**
     * The early-stop rule (run/early-stop.ts): stop when the first `first` items of an
     * invocation all fail the same way; `stopped`: why it last stopped a run. null: off
     * (`--no-early-stop`). Absent in manifests written before it: on, with the default.
     */
    early_stop: z
      .object({ first: z.number().int().min(1), stopped: z.string().optional() })
      .nullable()
      .optional(),
    /** `batch`: generated through the provider's batch API (`--batch`, billed at the batch price); absent: one call per item. */
    generation: z.enum(['on-demand', 'batch']).optional(),
    /** The price used when the table had none (`--assume-price`), so a resume and the cloud bill the same way. */
    assumed_price: z.object({ input_per_mtok: z.number(), output_per_mtok: z.number() }).nullable().optional(),
    /**
     * The price the run bills its model at, resolved once when it was planned (the user's
     * `--prices`/`--assume-price` first, then the shipped table), with its batch price and
     * premium applied: every worker and a resume bill at it without resolving it again. null:
     * unpriced. Absent in manifests written before it was recorded.
     */
    price: z
      .object({
        input_per_mtok: z.number(),
        output_per_mtok: z.number(),
        batch_input_per_mtok: z.number().optional(),
        batch_output_per_mtok: z.number().optional(),
        source: z.string().optional(),
        note: z.string().optional(),
      })
      .nullable()
      .optional(),
    /** Prices a remote run's request gave over the shipped table (`remote run --prices`), so every worker bills as the plan checked. */
    price_overrides: z.record(z.string(), z.object({ input_per_mtok: z.number(), output_per_mtok: z.number() })).optional(),
    /**
     * The protocol the run followed: its name, its settings after overrides, and every setting
     * the user overrode (`-n`, `--temperature`, `--row-limits`, `--prompt-style`, …). Absent in
     * manifests written before protocols existed (they followed each benchmark's default).
     */
    protocol: objectOf<RunProtocol>('the run protocol').optional(),
    /** kotlinc -language-version/-api-version of the run, when set. */
    kotlin_language_version: z.string().nullable().optional(),
    /** How the provider was reached (no secrets: an API key is named by its variable), so --resume reaches it again. */
    provider_options: z
      .object({
        region: z.string().optional(),
        endpointUrl: z.string().optional(),
        apiKeyEnv: z.string().optional(),
        timeoutMs: z.number().optional(),
        concurrency: z.number().optional(),
      })
      .optional(),
    code: z.object({ version: z.string(), revision: z.string().nullable(), dirty: z.boolean().nullable() }),
    packages: z.record(z.string(), z.string()),
    toolchains: z.array(objectOf<ToolchainInfo>('a toolchain')),
    /** Work items in the plan (tasks × samples). */
    items: z.number().int().min(0),
  })
  .loose();

/** The run manifest (DESIGN §2 plan): exactly what ran, so a result can be reproduced. */
export type Manifest = z.infer<typeof ManifestSchema>;

/**
 * The one reader of a stored manifest's text (`origin`: its key or path, for the error).
 * @throws CorruptRecordError naming `origin` and the field that does not match.
 */
export function parseManifest(text: string, origin: string): Manifest {
  return parseStored(ManifestSchema, text, origin);
}

/** The protocol choice that re-creates a run's benchmark binding (resume, cloud stages). */
export function protocolChoiceOfManifest(manifest: Pick<Manifest, 'protocol'> & { benchmark?: Pick<Manifest['benchmark'], 'id'> }): ProtocolChoice {
  const p = manifest.protocol;
  // Planned before protocols existed: the benchmark says how it behaved then (its default
  // protocol when it does not say).
  const benchmark = manifest.benchmark ? findBenchmark(manifest.benchmark.id) : undefined;
  if (!p) return { ...benchmark?.legacyProtocolChoice };
  const renamed = benchmark?.renamedProtocol?.(p);
  return {
    protocol: renamed?.protocol ?? p.name,
    ...(renamed?.gold !== undefined ? { gold: renamed.gold } : {}),
    ...(isOneOf(GOLD_RULES, p.overrides.gold) ? { gold: p.overrides.gold } : {}),
    ...(typeof p.overrides.shot_seed === 'number' ? { shotSeed: p.overrides.shot_seed } : {}),
    ...(p.overrides.row_limits === true ? { rowLimits: true } : {}),
    ...(p.overrides.prompt_style === 'chat' || p.overrides.prompt_style === 'completion' ? { promptStyle: p.overrides.prompt_style } : {}),
    ...(typeof p.overrides.shots === 'number' ? { shots: p.overrides.shots } : {}),
    ...(isOneOf(CHAT_TEMPLATE_NAMES, p.overrides.chat_template) ? { chatTemplate: p.overrides.chat_template } : {}),
    ...(isOneOf(PROMPT_LANGUAGES, p.overrides.prompt_language) ? { promptLanguage: p.overrides.prompt_language } : {}),
    ...(isOneOf(TIME_CLOCKS, p.overrides.time_clock) ? { timeClock: p.overrides.time_clock } : {}),
  };
}

function isOneOf<T extends string>(values: readonly T[], value: unknown): value is T {
  return typeof value === 'string' && (values as readonly string[]).includes(value);
}
