/**
 * Which likert mode a run uses (DESIGN §6, §8): `--likert-mode` when forced (refused before
 * any item when the server cannot do it), otherwise the best mode the provider's one-call
 * capability check finds — prompt log-probabilities, then next-token log-probabilities,
 * then a parsed digit. The answer, with its reason, is cached in the manifest.
 */
import { InputError } from '../errors.ts';
import type { LikertMode, LikertScoring, Provider } from '../models/index.ts';
import type { RunSpec } from './spec.ts';

const DIGIT_PARSE: Omit<LikertScoring, 'reason'> = { mode: 'digit-parse', method: 'generate' };

/**
 * Chooses the run's likert scoring. `probe: false` (a dry run) decides without calling the server.
 * @throws InputError when `--likert-mode` names a mode the provider cannot do.
 */
export async function chooseLikertScoring(spec: Pick<RunSpec, 'likertMode'>, provider: Provider, probe = true): Promise<LikertScoring> {
  const forced: LikertMode | undefined = spec.likertMode === 'auto' ? undefined : spec.likertMode;
  if (forced === 'digit-parse') return { ...DIGIT_PARSE, reason: 'forced by --likert-mode digit-parse' };
  if (!provider.scoreChoices) {
    if (forced) throw new InputError(`provider ${provider.id} returns no log-probabilities; use --likert-mode digit-parse`, { field: 'likertMode' });
    return { ...DIGIT_PARSE, reason: `provider ${provider.kind} returns no log-probabilities` };
  }
  if (!provider.probeLikert || !probe) {
    const mode = forced ?? 'likelihood';
    return { mode, method: provider.kind, reason: probe ? `provider ${provider.kind} scores choices itself` : 'dry run: the server was not probed' };
  }
  const found = await provider.probeLikert();
  const probeUsage = found.usage;
  const findings = found.findings.length > 0 ? found.findings.join('; ') : 'every mode supported';
  if (forced) {
    const match = found.supported.find((s) => s.mode === forced);
    if (!match) throw new InputError(`--likert-mode ${forced}: ${provider.id} cannot do it (${findings})`, { field: 'likertMode' });
    return { ...match, reason: `forced by --likert-mode ${forced}`, probeUsage };
  }
  const best = found.supported[0];
  if (!best) return { ...DIGIT_PARSE, reason: `capability check: ${findings}`, probeUsage };
  return { ...best, reason: `capability check: ${best.method} works${found.findings.length > 0 ? `; ${findings}` : ''}`, probeUsage };
}
