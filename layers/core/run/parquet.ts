/**
 * Encodes the records and metrics tables as Parquet bytes (pure: the caller stores them
 * through the BlobStore, so local and cloud write identical files).
 */
import { parquetWriteBuffer } from 'hyparquet-writer';
import type { MetricRow, RunRecord } from '../types.ts';
import { METRIC_COLUMNS, RECORD_COLUMNS, type Column } from './columns.ts';

const PARQUET_TYPE = { string: 'STRING', int: 'INT32', double: 'DOUBLE' } as const;

function encode<T extends object>(rows: readonly T[], columns: readonly Column[]): Uint8Array {
  const columnData = columns.map((column) => ({
    name: column.name,
    type: PARQUET_TYPE[column.type],
    nullable: true,
    data: rows.map((row) => {
      const value = (row as Record<string, unknown>)[column.name];
      if (value === undefined || value === null) return null;
      if (column.type === 'string') return String(value);
      return typeof value === 'number' && Number.isFinite(value) ? value : null;
    }),
  }));
  return new Uint8Array(parquetWriteBuffer({ columnData, createdBy: 'polyeval' }));
}

export function encodeRecords(records: readonly RunRecord[]): Uint8Array {
  return encode(records, RECORD_COLUMNS);
}

export function encodeMetrics(rows: readonly MetricRow[]): Uint8Array {
  return encode(rows, METRIC_COLUMNS);
}
