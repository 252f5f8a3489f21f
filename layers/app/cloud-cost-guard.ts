/**
 * The cloud half of the cost guard: one spend counter per run in the ledger, shared by every
 * generate container. Before each model call its upper cost (prompt tokens estimated from the
 * text, completion at max_tokens; for likelihood scoring, the prompt once per choice) is
 * reserved with `trySpend` — atomic, refused when the total would pass the run's cap — and
 * settled to the call's actual cost in one update when it ends, so the counter never drops
 * below what is spent plus what is reserved. The guard books the cost itself: the engine's
 * own booking is dropped ({@link withoutCostBooking}), or the call would count twice. So N
 * containers together never pass the cap (the local guard counts only its own process's
 * calls). A container that dies mid-call leaves its reservation counted: the run may stop a
 * little early, never late.
 */
import { RunStopped } from '#core/errors.ts';
import type { ChoiceScores, Generation, GenerateRequest, Provider, ScoreChoicesRequest } from '#core/models/provider.ts';
import { promptText } from '#core/models/prompt-text.ts';
import type { RunLedger } from '#core/ports.ts';
import type { TokenUsage } from '#core/types.ts';
import { estimateTokens } from '#providers/tokens.ts';

/** The ledger methods the guard uses (`trySpend` is the RunLedger port's shared cost counter). */
export interface SpendLedger extends Pick<RunLedger, 'addCost'> {
  trySpend(runId: string, usd: number, capUsd: number | null): Promise<boolean>;
}

export interface GuardOptions {
  ledger: SpendLedger;
  runId: string;
  capUsd: number | null;
  /** USD of a usage; null when the model has no price. */
  price: (usage: TokenUsage) => number | null;
}

/** The provider with every call reserved against the run's shared budget; unchanged without a cap. */
export function guardSpend(provider: Provider, options: GuardOptions): Provider {
  if (options.capUsd === null) return provider;
  const reserve = async <T extends { usage: TokenUsage }>(usage: TokenUsage, call: () => Promise<T>): Promise<T> => {
    const usd = options.price(usage) ?? 0;
    if (usd > 0 && !(await options.ledger.trySpend(options.runId, usd, options.capUsd))) {
      throw new RunStopped(`cost cap: the next call may cost up to $${usd.toFixed(6)}, which would pass the run's cap of $${options.capUsd} (spend shared by all containers)`);
    }
    let actual = 0;
    try {
      const out = await call();
      actual = options.price(out.usage) ?? 0;
      return out;
    } finally {
      if (actual !== usd) await options.ledger.addCost(options.runId, actual - usd);
    }
  };
  const generate = (req: GenerateRequest): Promise<Generation> =>
    reserve({ promptTokens: estimateTokens(promptText(req.prompt)), completionTokens: req.params.maxTokens }, () => provider.generate(req));
  const scoreChoices = (req: ScoreChoicesRequest): Promise<ChoiceScores> =>
    reserve({ promptTokens: estimateTokens(promptText(req.prompt)) * Math.max(1, req.choices.length), completionTokens: 0 }, () => provider.scoreChoices!(req));
  // A proxy, so every other member (present or added later) is the provider's own, bound to it.
  return new Proxy(provider, {
    get(target, property) {
      if (property === 'generate') return generate;
      if (property === 'scoreChoices' && target.scoreChoices) return scoreChoices;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** The ledger the engine books through when the guard books each call's cost itself. */
export function withoutCostBooking(ledger: RunLedger): RunLedger {
  return new Proxy(ledger, {
    get(target, property) {
      if (property === 'addCost') return () => Promise.resolve();
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
