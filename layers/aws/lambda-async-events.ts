/**
 * The runners' `AsyncEventsReceived` (namespace AWS/Lambda, dimension FunctionName, statistic Sum),
 * read with one CloudWatch GetMetricData for all of them: what the watchdog asks before it closes a
 * stalled run (layers/app/cloud/runner-events.ts says why this metric and this window). Lambda
 * publishes it when it queues an event ("Types of metrics for Lambda functions", asynchronous
 * invocation metrics, read 2026-12-07); a minute without events has no data point. A result that
 * is not `Complete` (GetMetricData's MetricDataResult StatusCode) is followed by its NextToken, and
 * reported incomplete if it stays so (the watchdog then waits).
 */
import { GetMetricDataCommand, type CloudWatchClient, type MetricDataResult } from '@aws-sdk/client-cloudwatch';
import { HarnessError } from '#core/errors.ts';
import { awsErrorName } from './aws-errors.ts';

/** One-minute periods: Lambda sends its metrics at one-minute intervals ("Using CloudWatch metrics with Lambda"). */
export const ASYNC_EVENTS_PERIOD_SECONDS = 60;

/** One runner's reading (layers/app/cloud/runner-events.ts `AsyncEventsReading`). */
export interface AsyncEventsReading {
  functionName: string;
  points: { at: Date; count: number }[];
  complete: boolean;
}

/**
 * Each function's `AsyncEventsReceived` per minute over the `lookbackMs` before `now` (the minute
 * still running included). One request (and its next pages); billed per metric requested.
 * @throws HarnessError naming CloudWatch's error when it cannot be read (the watchdog's tick fails: nothing is closed)
 */
export async function readAsyncEventsReceived(
  client: CloudWatchClient,
  functionNames: readonly string[],
  now: Date,
  lookbackMs: number,
): Promise<AsyncEventsReading[]> {
  if (functionNames.length === 0) return [];
  const periodMs = ASYNC_EVENTS_PERIOD_SECONDS * 1000;
  const start = new Date(Math.floor((now.getTime() - lookbackMs) / periodMs) * periodMs);
  const end = new Date(Math.ceil((now.getTime() + 1) / periodMs) * periodMs);
  const results = new Map<string, { points: { at: Date; count: number }[]; complete: boolean }>(
    functionNames.map((_, i) => [`f${i}`, { points: [], complete: true }]),
  );
  try {
    let nextToken: string | undefined;
    // At most a few pages: a runner's 376 one-minute points fit one (100,800 data points a request).
    for (let page = 0; page < 10; page++) {
      const out = await client.send(
        new GetMetricDataCommand({
          StartTime: start,
          EndTime: end,
          ...(nextToken ? { NextToken: nextToken } : {}),
          MetricDataQueries: functionNames.map((name, i) => ({
            Id: `f${i}`,
            ReturnData: true,
            MetricStat: {
              Metric: { Namespace: 'AWS/Lambda', MetricName: 'AsyncEventsReceived', Dimensions: [{ Name: 'FunctionName', Value: name }] },
              Period: ASYNC_EVENTS_PERIOD_SECONDS,
              Stat: 'Sum',
            },
          })),
        }),
      );
      for (const result of out.MetricDataResults ?? []) addResult(results, result);
      nextToken = out.NextToken;
      if (nextToken === undefined) break;
    }
    if (nextToken !== undefined) for (const r of results.values()) r.complete = false;
  } catch (error) {
    throw new HarnessError(`cannot read the runners' AsyncEventsReceived from CloudWatch: ${awsErrorName(error)}`, { cause: error });
  }
  return functionNames.map((functionName, i) => ({ functionName, ...(results.get(`f${i}`) ?? { points: [], complete: false }) }));
}

function addResult(results: Map<string, { points: { at: Date; count: number }[]; complete: boolean }>, result: MetricDataResult): void {
  const entry = results.get(result.Id ?? '');
  if (entry === undefined) return;
  const values = result.Values ?? [];
  const stamps = result.Timestamps ?? [];
  values.forEach((count, i) => {
    const at = stamps[i];
    if (at !== undefined) entry.points.push({ at: new Date(at), count });
  });
  // The last page that carries a result says whether it is complete (PartialData: more on the next page).
  entry.complete = result.StatusCode === 'Complete';
}
