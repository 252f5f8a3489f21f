/**
 * ResultsQuery on Amazon Athena (DESIGN §4): start the query, poll its state with capped
 * exponential backoff, page through the results and type each value by its column's type,
 * so callers get the same row objects as from DuckDB locally.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import {
  GetQueryExecutionCommand,
  GetQueryResultsCommand,
  StartQueryExecutionCommand,
  StopQueryExecutionCommand,
  type AthenaClient,
  type ColumnInfo,
  type Row as AthenaRow,
} from '@aws-sdk/client-athena';
import type { ResultsQuery, SqlStatement } from '../core/ports.ts';
import { HarnessError } from '../core/errors.ts';
import { awsErrorName } from './aws-errors.ts';
import { sqlString } from './athena-sql.ts';

export interface AthenaResultsQueryOptions {
  client: AthenaClient;
  workGroup: string;
  database: string;
  /** `s3://…/` for results; omit when the workgroup enforces its own. */
  outputLocation?: string;
  /** First polling interval; doubles up to `maxPollMs`. Default 200 ms. */
  pollMs?: number;
  maxPollMs?: number;
  /** Give up (and stop the query) after this long. Default 10 minutes. */
  timeoutMs?: number;
}

/**
 * Athena-backed {@link ResultsQuery}.
 * @example
 * const query = new AthenaResultsQuery({ client: new AthenaClient({}), workGroup: 'polyeval', database: 'polyeval' });
 * const rows = await query.sql(leaderboardSql('rocode', { runIds: ['r1'] }));
 */
export class AthenaResultsQuery implements ResultsQuery {
  readonly #options: AthenaResultsQueryOptions;

  constructor(options: AthenaResultsQueryOptions) {
    this.#options = options;
  }

  async sql(query: string | SqlStatement): Promise<Record<string, unknown>[]> {
    const id = await this.#start(typeof query === 'string' ? { text: query, params: [] } : query);
    const statementType = await this.#waitForSuccess(id);
    return this.#results(id, statementType);
  }

  /** Nothing to release: the SDK client belongs to the caller. */
  async close(): Promise<void> {}

  async #start({ text, params }: SqlStatement): Promise<string> {
    const { client, workGroup, database, outputLocation } = this.#options;
    const out = await this.#call('StartQueryExecution', undefined, () =>
      client.send(
        new StartQueryExecutionCommand({
          QueryString: text,
          // Athena reads each execution parameter as a SQL literal: a string value goes quoted.
          ExecutionParameters: params.length > 0 ? params.map(sqlString) : undefined,
          WorkGroup: workGroup,
          QueryExecutionContext: { Database: database },
          ResultConfiguration: outputLocation === undefined ? undefined : { OutputLocation: outputLocation },
        }),
      ),
    );
    if (out.QueryExecutionId === undefined) throw new HarnessError('Athena StartQueryExecution returned no QueryExecutionId');
    return out.QueryExecutionId;
  }

  /** Polls until SUCCEEDED (returns the statement type) or throws with Athena's reason. */
  async #waitForSuccess(id: string): Promise<string | undefined> {
    const { client } = this.#options;
    const deadline = Date.now() + (this.#options.timeoutMs ?? 600_000);
    let delay = this.#options.pollMs ?? 200;
    for (;;) {
      const out = await this.#call('GetQueryExecution', id, () => client.send(new GetQueryExecutionCommand({ QueryExecutionId: id })));
      const status = out.QueryExecution?.Status;
      const state = status?.State;
      switch (state) {
        case 'SUCCEEDED':
          return out.QueryExecution?.StatementType;
        case 'FAILED':
        case 'CANCELLED':
          throw new HarnessError(`Athena query ${id} ${state}: ${status?.StateChangeReason ?? status?.AthenaError?.ErrorMessage ?? 'no reason given'}`);
        case 'QUEUED':
        case 'RUNNING':
        case undefined:
          break;
        default: {
          const unexpected: never = state;
          throw new HarnessError(`Athena query ${id} is in an unknown state ${String(unexpected)}`);
        }
      }
      if (Date.now() + delay > deadline) {
        await client.send(new StopQueryExecutionCommand({ QueryExecutionId: id })).catch(() => undefined);
        throw new HarnessError(`Athena query ${id} did not finish within ${this.#options.timeoutMs ?? 600_000} ms; stopped it`);
      }
      await sleep(delay);
      delay = Math.min(delay * 2, this.#options.maxPollMs ?? 5_000);
    }
  }

  async #results(id: string, statementType: string | undefined): Promise<Record<string, unknown>[]> {
    const { client } = this.#options;
    const rows: Record<string, unknown>[] = [];
    let columns: ColumnInfo[] | undefined;
    let token: string | undefined;
    let first = true;
    do {
      const page = await this.#call('GetQueryResults', id, () =>
        client.send(new GetQueryResultsCommand({ QueryExecutionId: id, NextToken: token, MaxResults: 1000 })),
      );
      columns ??= page.ResultSet?.ResultSetMetadata?.ColumnInfo ?? [];
      let data: AthenaRow[] = page.ResultSet?.Rows ?? [];
      // A SELECT's first page starts with the header row (the column labels); DDL has none.
      if (first && statementType !== 'DDL' && statementType !== 'UTILITY') data = data.slice(1);
      first = false;
      for (const row of data) rows.push(toRowObject(row, columns));
      token = page.NextToken;
    } while (token !== undefined);
    return rows;
  }

  async #call<R>(operation: string, id: string | undefined, send: () => Promise<R>): Promise<R> {
    try {
      return await send();
    } catch (error) {
      const which = id === undefined ? '' : ` for query ${id}`;
      throw new HarnessError(`Athena ${operation} failed${which}: ${awsErrorName(error)}: ${errorMessage(error)}`, { cause: error });
    }
  }
}

function toRowObject(row: AthenaRow, columns: ColumnInfo[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  columns.forEach((column, index) => {
    const cell = row.Data?.[index];
    out[column.Name ?? `_col${index}`] = convertAthenaValue(cell?.VarCharValue, column.Type ?? 'varchar');
  });
  return out;
}

/**
 * Types one Athena cell (always text on the wire) by its column type. A missing value is
 * SQL NULL. bigint beyond 2^53 stays exact as a bigint; timestamps become ISO-8601 UTC text.
 */
export function convertAthenaValue(value: string | undefined, type: string): unknown {
  if (value === undefined) return null;
  const base = type.toLowerCase().replace(/\(.*$/, '').trim();
  switch (base) {
    case 'tinyint':
    case 'smallint':
    case 'integer':
    case 'int':
      return Number.parseInt(value, 10);
    case 'bigint': {
      const big = BigInt(value);
      return big <= BigInt(Number.MAX_SAFE_INTEGER) && big >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(big) : big;
    }
    case 'double':
    case 'float':
    case 'real':
    case 'decimal':
      return parseFloating(value);
    case 'boolean':
      return value === 'true';
    case 'timestamp':
    case 'timestamp with time zone':
      return toIsoTimestamp(value);
    default:
      return value;
  }
}

function parseFloating(value: string): number {
  if (value === 'NaN') return Number.NaN;
  if (value === 'Infinity') return Number.POSITIVE_INFINITY;
  if (value === '-Infinity') return Number.NEGATIVE_INFINITY;
  return Number.parseFloat(value);
}

/** `2024-05-01 12:30:00.123` (UTC, as Athena prints it) → `2024-05-01T12:30:00.123Z`. */
function toIsoTimestamp(value: string): string {
  const match = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(\.\d+)?(?: UTC|Z)?$/.exec(value.trim());
  if (match === null) return value;
  const fraction = (match[3] ?? '.000').slice(0, 4).padEnd(4, '0');
  return `${match[1]}T${match[2]}${fraction}Z`;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
