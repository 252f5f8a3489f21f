/**
 * The run manifest (DESIGN §2 plan): exactly what ran, so a result can be reproduced.
 */
import type { ProtocolChoice, RunProtocol } from '../benchmarks/protocol.ts';
import { findBenchmark } from '../benchmarks/registry.ts';
import type { GenerationParams, LikertScoring } from '../models/provider.ts';
import type { ToolchainInfo } from '../ports.ts';
import type { ScorerKind } from '../types.ts';

export interface Manifest {
  run_id: string;
  created_at: string;
  benchmark: {
    id: string;
    title: string;
    spec: string;
    source: string;
    sha256: string;
    tasks: number;
    scorer: ScorerKind;
  };
  model: { spec: string; kind: string; name: string };
  params: GenerationParams;
  n: number;
  seed: number;
  split: string | null;
  limit: number | null;
  language: string | null;
  time_scale: number;
  /** likert: which mode ran (likelihood, next-token or digit-parse). */
  likert_mode: 'likelihood' | 'next-token' | 'digit-parse' | null;
  /** likert: the mode with its wire method and why it was chosen (the capability check, cached here so a resume does not repeat it). */
  likert_scoring?: LikertScoring | null;
  /** What the run adapted to the model before any call (e.g. top_p dropped), one line each. */
  warnings?: string[];
  max_cost_usd: number | null;
  /** The price used when the table had none (`--assume-price`), so a resume and the cloud bill the same way. */
  assumed_price?: { input_per_mtok: number; output_per_mtok: number } | null;
  /**
   * The protocol the run followed: its name, its settings after overrides, and every setting
   * the user overrode (`-n`, `--temperature`, `--row-limits`, `--prompt-style`, …). Absent in
   * manifests written before protocols existed (they followed each benchmark's default).
   */
  protocol?: RunProtocol;
  /** kotlinc -language-version/-api-version of the run, when set. */
  kotlin_language_version?: string | null;
  /** How the provider was reached (no secrets: an API key is named by its variable), so --resume reaches it again. */
  provider_options?: { region?: string; endpointUrl?: string; apiKeyEnv?: string; timeoutMs?: number; concurrency?: number };
  code: { version: string; revision: string | null; dirty: boolean | null };
  packages: Record<string, string>;
  toolchains: ToolchainInfo[];
  /** Work items in the plan (tasks × samples). */
  items: number;
}

/** The protocol choice that re-creates a run's benchmark binding (resume, cloud stages). */
export function protocolChoiceOfManifest(manifest: Pick<Manifest, 'protocol'> & { benchmark?: Pick<Manifest['benchmark'], 'id'> }): ProtocolChoice {
  const p = manifest.protocol;
  // Planned before protocols existed: the benchmark says how it behaved then (its default
  // protocol when it does not say).
  if (!p) return { ...(manifest.benchmark ? findBenchmark(manifest.benchmark.id)?.legacyProtocolChoice : undefined) };
  return {
    protocol: p.name,
    ...(p.overrides.row_limits === true ? { rowLimits: true } : {}),
    ...(p.overrides.prompt_style === 'chat' || p.overrides.prompt_style === 'completion' ? { promptStyle: p.overrides.prompt_style } : {}),
  };
}
