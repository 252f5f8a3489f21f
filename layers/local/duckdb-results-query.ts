/**
 * ResultsQuery through DuckDB over the Parquet files of a local store: views `records` and
 * `metrics` read the hive-partitioned layout, so `benchmark` and `run_id` come from the path
 * exactly as in Athena's partition projection. When no file exists yet, the views are empty
 * with the right columns. DuckDB (a native library) is loaded when a query opens, never at the
 * CLI's start.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { InputError } from '#core/errors.ts';
import type { ResultsQuery, SqlStatement } from '#core/ports.ts';
import { METRIC_COLUMNS, RECORD_COLUMNS, type Column } from '#core/columns.ts';

const SQL_TYPE = { string: 'VARCHAR', int: 'INTEGER', double: 'DOUBLE' } as const;

function hasParquet(dir: string): boolean {
  if (!existsSync(dir)) return false;
  const stack = [dir];
  while (stack.length) {
    const current = stack.pop() as string;
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      if (entry.isDirectory()) stack.push(join(current, entry.name));
      else if (entry.name.endsWith('.parquet')) return true;
    }
  }
  return false;
}

function viewSql(name: string, dir: string, columns: readonly Column[]): string {
  const all = ['benchmark', 'run_id', ...columns.map((c) => c.name)];
  if (!hasParquet(dir)) {
    const empty = [
      `CAST(NULL AS VARCHAR) AS benchmark`,
      `CAST(NULL AS VARCHAR) AS run_id`,
      ...columns.map((c) => `CAST(NULL AS ${SQL_TYPE[c.type]}) AS "${c.name}"`),
    ];
    return `CREATE OR REPLACE VIEW ${name} AS SELECT ${empty.join(', ')} WHERE false`;
  }
  const glob = join(dir, '*', '*', '*.parquet').replace(/'/g, "''");
  return `CREATE OR REPLACE VIEW ${name} AS SELECT ${all.map((c) => `"${c}"`).join(', ')} FROM read_parquet('${glob}', hive_partitioning = true, hive_types_autocast = false, union_by_name = true)`;
}

export class DuckDbResultsQuery implements ResultsQuery {
  private constructor(
    private readonly instance: DuckDBInstance,
    private readonly connection: DuckDBConnection,
  ) {}

  /** Opens an in-memory database with `records` and `metrics` views over `<storeRoot>/results/`. */
  static async open(storeRoot: string): Promise<DuckDbResultsQuery> {
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const instance = await DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    await connection.run(viewSql('records', join(storeRoot, 'results', 'records'), RECORD_COLUMNS));
    await connection.run(viewSql('metrics', join(storeRoot, 'results', 'metrics'), METRIC_COLUMNS));
    return new DuckDbResultsQuery(instance, connection);
  }

  async sql(query: string | SqlStatement): Promise<Record<string, unknown>[]> {
    return (await this.sqlWithColumns(query)).rows;
  }

  /** The rows and the result's column names in order (known even when no row matched). */
  async sqlWithColumns(query: string | SqlStatement): Promise<{ columns: string[]; rows: Record<string, unknown>[] }> {
    const { text, params } = typeof query === 'string' ? { text: query, params: [] } : query;
    try {
      // Values are bound by DuckDB's prepared statement, never spliced into the text.
      const reader = await this.connection.runAndReadAll(text, params.length > 0 ? [...params] : undefined);
      return { columns: reader.columnNames(), rows: reader.getRowObjectsJS() as Record<string, unknown>[] };
    } catch (error) {
      throw new InputError(`query failed: ${(error as Error).message}`, { field: 'sql' });
    }
  }

  async close(): Promise<void> {
    this.connection.closeSync();
    this.instance.closeSync();
  }
}
