import { describe, expect, it } from 'vitest';
import {
  concurrencyBudget,
  ConcurrencyBudgetError,
  judgeMaxConcurrency,
  UNQUEUED_ALLOWANCE,
  type ConcurrencySettings,
} from '../../../layers/app/cloud/concurrency-budget.ts';

/** What cdk.json deploys: the default account, 100 per runner, generate 5, 4 Fargate tasks, 5 images. */
const DEFAULTS: ConcurrencySettings = { accountConcurrency: 1000, runnerReservedConcurrency: 100, generateMaxConcurrency: 5, fargateMaxTasks: 4, images: 5 };

/** Everything that draws on the unreserved pool at once, at every cap. */
function unreservedDemand(budget: ReturnType<typeof concurrencyBudget>, images: number): number {
  return budget.generate + budget.plan + budget.aggregate + UNQUEUED_ALLOWANCE + images * (budget.judge ?? 0);
}

describe('the concurrency budget', () => {
  it('keeps the default deployment as it was: 92 per Lambda judge, 501 reserved', () => {
    const budget = concurrencyBudget(DEFAULTS);
    expect(budget).toMatchObject({ reserved: 501, unreserved: 499, generate: 5, judge: 92 });
    expect(unreservedDemand(budget, 5)).toBeLessThanOrEqual(budget.unreserved);
  });

  it("counts generate's maxConcurrency: at 300 the judges get what generate, plan and aggregate leave", () => {
    const budget = concurrencyBudget({ ...DEFAULTS, generateMaxConcurrency: 300 });
    expect(budget.judge).toBe(33);
    expect(unreservedDemand(budget, 5)).toBeLessThanOrEqual(budget.unreserved);
  });

  it.each([5, 50, 200, 300, 400, 459])('fits every function into the unreserved pool at generate %i', (generate) => {
    const budget = concurrencyBudget({ ...DEFAULTS, generateMaxConcurrency: generate });
    expect(budget.judge).toBeGreaterThanOrEqual(2);
    expect(unreservedDemand(budget, 5)).toBeLessThanOrEqual(budget.unreserved);
  });

  it('refuses a generate concurrency that leaves the judges less than a mapping takes, naming the setting and its most', () => {
    const refuse = () => concurrencyBudget({ ...DEFAULTS, generateMaxConcurrency: 460 });
    expect(refuse).toThrow(ConcurrencyBudgetError);
    expect(refuse).toThrow(/generateMaxConcurrency 460 .* lower generateMaxConcurrency to at most 459/);
    expect(() => refuse()).toThrow(expect.objectContaining({ key: 'generateMaxConcurrency' }));
  });

  it('lets a larger account quota hold a wider generate stage', () => {
    expect(concurrencyBudget({ ...DEFAULTS, accountConcurrency: 3000, generateMaxConcurrency: 800 }).judge).toBe(92);
  });

  it('refuses a reservation that leaves fewer than 100 unreserved, naming runnerReservedConcurrency', () => {
    const refuse = () => concurrencyBudget({ ...DEFAULTS, runnerReservedConcurrency: 180 });
    expect(refuse).toThrow(expect.objectContaining({ key: 'runnerReservedConcurrency' }));
    expect(refuse).toThrow(/use at most 179/);
    expect(concurrencyBudget({ ...DEFAULTS, runnerReservedConcurrency: 179 }).unreserved).toBe(104);
  });

  it('caps no judge when runners reserve nothing, but still fits what is capped into the account', () => {
    expect(concurrencyBudget({ ...DEFAULTS, runnerReservedConcurrency: 0 })).toMatchObject({ reserved: 0, unreserved: 1000, judge: undefined });
    expect(() => concurrencyBudget({ ...DEFAULTS, runnerReservedConcurrency: 0, accountConcurrency: 100, generateMaxConcurrency: 80 })).toThrow(
      expect.objectContaining({ key: 'generateMaxConcurrency' }),
    );
  });
});

describe('a small runner reservation', () => {
  it.each([1, 5, 9])('of %i beside 4 Fargate tasks is refused: the judge mapping takes at least 2 and Fargate holds 8', (reserved) => {
    const refuse = () => judgeMaxConcurrency(4, reserved);
    expect(refuse).toThrow(expect.objectContaining({ key: 'runnerReservedConcurrency' }));
    expect(refuse).toThrow(/reserve at least 10, lower fargateMaxTasks, or 0 to reserve nothing/);
    expect(() => concurrencyBudget({ ...DEFAULTS, runnerReservedConcurrency: reserved })).toThrow(ConcurrencyBudgetError);
  });

  it('of 10 gives the Lambda judge 2, and with no Fargate lane 2 gives it all 2', () => {
    expect(judgeMaxConcurrency(4, 10)).toBe(2);
    expect(concurrencyBudget({ ...DEFAULTS, runnerReservedConcurrency: 2, fargateMaxTasks: 0 }).judge).toBe(2);
    expect(() => concurrencyBudget({ ...DEFAULTS, runnerReservedConcurrency: 1, fargateMaxTasks: 0 })).toThrow(/reserve at least 2/);
  });
});
