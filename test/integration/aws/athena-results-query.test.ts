// AthenaResultsQuery: polling, header skipping and typing against moto's Athena (results preset
// through moto's API), and failure states and paging against a scripted loopback endpoint
// that speaks Athena's JSON protocol (moto never fails a query and never pages results).
import { createServer, type Server } from 'node:http';
import { AthenaClient, CreateWorkGroupCommand } from '@aws-sdk/client-athena';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HarnessError } from '#core/errors.ts';
import { AthenaResultsQuery } from '#aws/index.ts';
import { awsClientConfig, motoApi, startMoto, type Moto } from '../../support/moto.ts';

let moto: Moto;
let athena: AthenaClient;
const calls: string[] = [];

beforeAll(async () => {
  moto = await startMoto();
  athena = new AthenaClient(awsClientConfig(moto.endpoint));
  athena.middlewareStack.add((next, context) => async (args) => {
    calls.push(String(context.commandName));
    return next(args);
  });
  await athena.send(new CreateWorkGroupCommand({ Name: 'polyeval', Configuration: {} }));
});

afterAll(async () => {
  athena?.destroy();
  await moto?.stop();
});

const cell = (value?: string) => (value === undefined ? {} : { VarCharValue: value });
const column = (Name: string, Type: string) => ({
  Name,
  Label: Name,
  Type,
  CatalogName: 'hive',
  SchemaName: '',
  TableName: '',
  Nullable: 'UNKNOWN',
  CaseSensitive: false,
  Precision: 0,
  Scale: 0,
});

describe('AthenaResultsQuery on moto', () => {
  it('polls until the query succeeds, skips the header row and types every value by its column', async () => {
    const columns = [
      column('model', 'varchar'),
      column('n', 'integer'),
      column('big', 'bigint'),
      column('small', 'bigint'),
      column('value', 'double'),
      column('ok', 'boolean'),
      column('at', 'timestamp'),
      column('reason', 'varchar'),
    ];
    const header = { Data: columns.map((c) => cell(c.Name)) };
    const row = { Data: [cell('m1'), cell('40'), cell('9007199254740993'), cell('12'), cell('0.625'), cell('true'), cell('2025-05-01 12:30:00.123'), cell()] };
    await motoApi(moto.endpoint, '/moto-api/static/athena/query-results', { results: [{ rows: [header, row], column_info: columns }] });
    // Each execution stays QUEUED, then RUNNING, for two GetQueryExecution calls each.
    await motoApi(moto.endpoint, '/moto-api/state-manager/set-transition', {
      model_name: 'athena::execution',
      transition: { progression: 'manual', times: 2 },
    });
    calls.length = 0;
    const query = new AthenaResultsQuery({ client: athena, workGroup: 'polyeval', database: 'polyeval', outputLocation: 's3://results/athena/', pollMs: 1 });

    const rows = await query.sql("SELECT * FROM metrics WHERE run_id = 'r1'");

    expect(rows).toEqual([{ model: 'm1', n: 40, big: 9007199254740993n, small: 12, value: 0.625, ok: true, at: '2025-05-01T12:30:00.123Z', reason: null }]);
    expect(calls.filter((name) => name === 'GetQueryExecutionCommand').length).toBeGreaterThan(1);
    expect(calls.at(-1)).toBe('GetQueryResultsCommand');
  });
});

/** A loopback Athena that answers each operation from a script. */
async function scriptedAthena(script: Record<string, (input: Record<string, unknown>) => unknown>): Promise<{
  client: AthenaClient;
  requests: { operation: string; input: Record<string, unknown> }[];
  close(): Promise<void>;
}> {
  const requests: { operation: string; input: Record<string, unknown> }[] = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const operation = String(request.headers['x-amz-target'] ?? '').replace('AmazonAthena.', '');
      const input = JSON.parse(body || '{}') as Record<string, unknown>;
      requests.push({ operation, input });
      const answer = script[operation];
      response.setHeader('content-type', 'application/x-amz-json-1.1');
      if (answer === undefined) {
        response.statusCode = 400;
        response.end(JSON.stringify({ __type: 'InvalidRequestException', Message: `unscripted ${operation}` }));
        return;
      }
      response.end(JSON.stringify(answer(input)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  const client = new AthenaClient({ ...awsClientConfig(`http://127.0.0.1:${port}`), maxAttempts: 1 });
  return {
    client,
    requests,
    close: async () => {
      client.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const started = () => ({ QueryExecutionId: 'q-1' });
const inState =
  (State: string, extra: Record<string, unknown> = {}) =>
  () => ({
    QueryExecution: { QueryExecutionId: 'q-1', StatementType: 'DML', Status: { State, ...extra } },
  });

describe('AthenaResultsQuery on a scripted endpoint', () => {
  it("raises a HarnessError carrying Athena's reason when the query fails", async () => {
    const athenaFake = await scriptedAthena({
      StartQueryExecution: started,
      GetQueryExecution: inState('FAILED', { StateChangeReason: "COLUMN_NOT_FOUND: line 1:8: Column 'nope' cannot be resolved" }),
    });
    const query = new AthenaResultsQuery({ client: athenaFake.client, workGroup: 'wg', database: 'db', pollMs: 1 });

    const running = query.sql('SELECT nope FROM metrics');

    await expect(running).rejects.toBeInstanceOf(HarnessError);
    await expect(running).rejects.toThrow(/FAILED: COLUMN_NOT_FOUND: line 1:8: Column 'nope' cannot be resolved/);
    await athenaFake.close();
  });

  it('raises a HarnessError when the query is cancelled', async () => {
    const athenaFake = await scriptedAthena({ StartQueryExecution: started, GetQueryExecution: inState('CANCELLED') });
    const query = new AthenaResultsQuery({ client: athenaFake.client, workGroup: 'wg', database: 'db', pollMs: 1 });

    await expect(query.sql('SELECT 1')).rejects.toThrow(/CANCELLED/);
    await athenaFake.close();
  });

  it('stops a query that outlives its timeout', async () => {
    const athenaFake = await scriptedAthena({ StartQueryExecution: started, GetQueryExecution: inState('RUNNING'), StopQueryExecution: () => ({}) });
    const query = new AthenaResultsQuery({ client: athenaFake.client, workGroup: 'wg', database: 'db', pollMs: 1, maxPollMs: 2, timeoutMs: 20 });

    await expect(query.sql('SELECT 1')).rejects.toThrow(/did not finish/);
    expect(athenaFake.requests.at(-1)).toEqual({ operation: 'StopQueryExecution', input: { QueryExecutionId: 'q-1' } });
    await athenaFake.close();
  });

  it('sends the workgroup, database and output location, and reads every page with the header skipped once', async () => {
    const metadata = { ColumnInfo: [column('metric', 'varchar'), column('n', 'integer')] };
    const rowOf = (metric: string, n: string) => ({ Data: [cell(metric), cell(n)] });
    const athenaFake = await scriptedAthena({
      StartQueryExecution: started,
      GetQueryExecution: inState('SUCCEEDED'),
      GetQueryResults: (input) =>
        input.NextToken === undefined
          ? { NextToken: 'page-2', ResultSet: { ResultSetMetadata: metadata, Rows: [rowOf('metric', 'n'), rowOf('pass@1', '1'), rowOf('pass@10', '2')] } }
          : { ResultSet: { ResultSetMetadata: metadata, Rows: [rowOf('accuracy', '3')] } },
    });
    const query = new AthenaResultsQuery({ client: athenaFake.client, workGroup: 'wg', database: 'db', outputLocation: 's3://b/athena/', pollMs: 1 });

    const rows = await query.sql('SELECT metric, n FROM metrics');

    expect(rows).toEqual([
      { metric: 'pass@1', n: 1 },
      { metric: 'pass@10', n: 2 },
      { metric: 'accuracy', n: 3 },
    ]);
    expect(athenaFake.requests[0]?.input).toMatchObject({
      QueryString: 'SELECT metric, n FROM metrics',
      WorkGroup: 'wg',
      QueryExecutionContext: { Database: 'db' },
      ResultConfiguration: { OutputLocation: 's3://b/athena/' },
    });
    expect(athenaFake.requests.filter((r) => r.operation === 'GetQueryResults').map((r) => r.input.NextToken)).toEqual([undefined, 'page-2']);
    await athenaFake.close();
  });

  it('sends statement values as ExecutionParameters, each a quoted string literal, never in the query text', async () => {
    const athenaFake = await scriptedAthena({
      StartQueryExecution: started,
      GetQueryExecution: inState('SUCCEEDED'),
      GetQueryResults: () => ({ ResultSet: { ResultSetMetadata: { ColumnInfo: [column('n', 'integer')] }, Rows: [{ Data: [cell('n')] }] } }),
    });
    const query = new AthenaResultsQuery({ client: athenaFake.client, workGroup: 'wg', database: 'db', pollMs: 1 });

    await query.sql({ text: 'SELECT n FROM metrics WHERE run_id = ? AND model = ?', params: ['r1', "o'brien"] });

    expect(athenaFake.requests[0]?.input).toMatchObject({
      QueryString: 'SELECT n FROM metrics WHERE run_id = ? AND model = ?',
      ExecutionParameters: ["'r1'", "'o''brien'"],
    });
    await athenaFake.close();
  });
});
