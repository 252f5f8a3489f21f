/**
 * Encodes the records and metrics tables as Parquet bytes (pure: the caller stores them
 * through the BlobStore, so local and cloud write identical files).
 */
import { parquetWriteBuffer } from 'hyparquet-writer';
import type { MetricRow, RunRecord } from '../types.ts';
import { METRIC_COLUMNS, RECORD_COLUMNS, type Column } from '../columns.ts';

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

/**
 * Decodes a records part written by {@link encodeRecords}; `run_id` and `benchmark` are the
 * hive partition columns, so the caller supplies them (they are not in the file).
 */
export async function decodeRecords(bytes: Uint8Array, partition: { run_id: string; benchmark: string }): Promise<RunRecord[]> {
  // The reader is loaded here: a local run writes Parquet but never reads it back, so its start skips it.
  const { parquetReadObjects } = await import('hyparquet');
  const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  const rows = (await parquetReadObjects({ file, columns: RECORD_COLUMNS.map((c) => c.name) })) as Record<string, unknown>[];
  return rows.map((row) => {
    const record: Record<string, unknown> = { run_id: partition.run_id, benchmark: partition.benchmark };
    for (const column of RECORD_COLUMNS) {
      const value = row[column.name];
      record[column.name] = value === undefined || value === null ? null : column.type === 'string' ? String(value) : Number(value);
    }
    // Columns the writer never leaves empty keep their non-null types.
    record.answer = record.answer ?? '';
    return record as unknown as RunRecord;
  });
}
