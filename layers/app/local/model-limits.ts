/**
 * One limit on calls in flight per model, shared by every run of a sweep that uses it: two
 * benchmarks on one endpoint do not double its load. Keyed by the model spec as given
 * (`openai:http://host/v1#m`); the first run of a model sets the size (its `--concurrency`,
 * else its provider's own default: 4 for network providers). Each provider's adaptive
 * (AIMD) limit still acts inside it, per run, on throttling.
 */
import pLimit, { type LimitFunction } from 'p-limit';
import type { Provider } from '#core/models/index.ts';

export class ModelLimits {
  readonly #limits = new Map<string, LimitFunction>();

  /** The model's shared limit (created with `size` on first use). */
  limitOf(spec: string, size: number): LimitFunction {
    let limit = this.#limits.get(spec);
    if (!limit) {
      limit = pLimit(Math.max(1, size));
      this.#limits.set(spec, limit);
    }
    return limit;
  }

  /** `provider` with every model call (generate, scoreChoices, probeLikert) under its model's shared limit. */
  wrap(spec: string, provider: Provider, concurrency: number | undefined): Provider {
    const limit = this.limitOf(spec, concurrency ?? provider.concurrency ?? 4);
    const { scoreChoices, probeLikert, adaptParams, prepare, samplesFor, languageFor, close } = provider;
    return {
      id: provider.id,
      kind: provider.kind,
      model: provider.model,
      ...(provider.concurrency !== undefined ? { concurrency: provider.concurrency } : {}),
      ...(provider.details ? { details: provider.details } : {}),
      generate: (req) => limit(() => provider.generate(req)),
      ...(scoreChoices ? { scoreChoices: (req) => limit(() => scoreChoices.call(provider, req)) } : {}),
      ...(probeLikert ? { probeLikert: (signal) => limit(() => probeLikert.call(provider, signal)) } : {}),
      ...(adaptParams ? { adaptParams: adaptParams.bind(provider) } : {}),
      ...(prepare ? { prepare: prepare.bind(provider) } : {}),
      ...(samplesFor ? { samplesFor: samplesFor.bind(provider) } : {}),
      ...(languageFor ? { languageFor: languageFor.bind(provider) } : {}),
      ...(close ? { close: close.bind(provider) } : {}),
    };
  }
}
