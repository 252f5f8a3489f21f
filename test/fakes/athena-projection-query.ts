/**
 * A ResultsQuery that refuses, as Athena does, a query over a table whose `run_id` partition is
 * projected as `injected` unless the query names run ids with static equality, then runs the
 * SQL on DuckDB over the same hive layout.
 *
 * Copies Athena engine version 3's documented rule (Athena user guide, "Use dynamic ID
 * partitioning", as of 2025): the WHERE clause must hold at least one static equality
 * condition on the injected column (`run_id = 'x'` or `run_id IN ('x', 'y')`, literals only),
 * else the query fails with
 * `CONSTRAINT_VIOLATION: For the injected projected partition column run_id, the WHERE clause
 * must contain only static equality conditions, and at least one such condition must be present.`
 * The check is textual (we do not parse SQL), on the statement with its ExecutionParameters bound
 * (see bound-sql.ts): enough for the queries we ship.
 */
import type { ResultsQuery, SqlStatement } from '#core/ports.ts';
import { boundSql } from './bound-sql.ts';

const PROJECTED_TABLE = /\bFROM\s+(metrics|records)\b/i;
const STATIC_EQUALITY = /\brun_id\s*(=\s*'(?:[^']|'')*'|IN\s*\(\s*'(?:[^']|'')*'(?:\s*,\s*'(?:[^']|'')*')*\s*\))/i;

export class AthenaProjectionRuleQuery implements ResultsQuery {
  readonly queries: string[] = [];

  constructor(private readonly inner: ResultsQuery) {}

  async sql(query: string | SqlStatement): Promise<Record<string, unknown>[]> {
    const text = boundSql(query);
    this.queries.push(text);
    if (PROJECTED_TABLE.test(text) && !STATIC_EQUALITY.test(text)) {
      throw new Error(
        'CONSTRAINT_VIOLATION: For the injected projected partition column run_id, the WHERE clause must contain only static equality conditions, and at least one such condition must be present.',
      );
    }
    return this.inner.sql(query);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
