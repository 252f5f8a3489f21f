/**
 * A fake Bedrock control plane for batch inference, speaking the REST JSON wire format the
 * real `@aws-sdk/client-bedrock` 3.1164 sends (its service model's HTTP bindings:
 * `POST /model-invocation-job`, `GET /model-invocation-job/{jobIdentifier}`, `POST
 * /model-invocation-job/{jobIdentifier}/stop`, `GET /model-invocation-jobs`; errors as
 * `x-amzn-errortype` + `{"message"}`), reading each job's input from S3 and writing its
 * output back to S3 (moto_server on loopback in the tests). What it reproduces, from the
 * Amazon Bedrock User Guide and API Reference (read 2026-12):
 *
 * - CreateModelInvocationJob (API Reference): `jobName`, `roleArn`, `modelId`,
 *   `inputDataConfig.s3InputDataConfig.s3Uri`, `outputDataConfig.s3OutputDataConfig.s3Uri`
 *   required; `timeoutDurationInHours` 24–168; a repeated `clientRequestToken` is ignored
 *   ("Ensuring idempotency": the first job's ARN is returned); a job name already used is a
 *   ValidationException. The answer is `{jobArn}`; the job id is the ARN's last segment.
 * - "Monitor batch inference jobs": one status step per Get — Submitted → Validating →
 *   Scheduled → InProgress → Completed, or PartiallyCompleted when some records errored;
 *   Failed with a `message` when validation refuses the input (fewer records than the
 *   account's "Minimum number of records per batch inference job" quota — default 100, an
 *   option here so small tests can lower it as an account would — or a line that is not
 *   `{recordId, modelInput}`); StopModelInvocationJob → Stopping → Stopped; past the job's
 *   timeout → Expired with a message. Counts (`totalRecordCount`, `processedRecordCount`,
 *   `successRecordCount`, `errorRecordCount`) follow the records processed.
 * - "View the results of a batch inference job": under `<output s3Uri>/<job id>/`, one
 *   `<input file>.out` whose lines are the input records with `modelOutput` (for
 *   `modelInvocationType: Converse`, the Converse response body: converseAnswer, the
 *   runtime fake's rules) or, where inference failed, an `error` object `{errorCode,
 *   errorMessage}` in its place; and `manifest.json.out` with totalRecordCount,
 *   processedRecordCount, successRecordCount, errorRecordCount, inputTokenCount,
 *   outputTokenCount. A stopped or expired job keeps the outputs of the records it processed.
 *
 * @example
 * const server = await startBedrockBatchServer({ s3: new S3Client(awsClientConfig(moto.endpoint)), minRecords: 1 });
 */
import { GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { converseAnswer } from './bedrock-server.ts';
import { startFakeServer, type FakeServer, type FaultOptions, type RecordedRequest } from './http-server.ts';

export interface BedrockBatchServerOptions extends FaultOptions {
  /** The S3 the jobs read and write (moto's). */
  s3: Pick<S3Client, 'send'>;
  /** The answer text for a record's prompt, as the runtime fake's `answer`. Default "ok". */
  answer?: (prompt: string, body: Record<string, unknown>, modelId: string) => string;
  /** A record whose inference fails: its `{errorCode, errorMessage}`. */
  reject?: (recordId: string) => { errorCode: number; errorMessage: string } | undefined;
  /** The account's minimum records per job (AWS's default 100). */
  minRecords?: number;
  /** Gets of InProgress before every record is processed (default 2); read on every Get. */
  progressPolls?: number;
  /** The job's timeout passes once this many records are processed: the job expires. */
  expireAfter?: number;
}

type Status = 'Submitted' | 'Validating' | 'Scheduled' | 'InProgress' | 'Completed' | 'PartiallyCompleted' | 'Failed' | 'Stopping' | 'Stopped' | 'Expired';

interface FakeJob {
  arn: string;
  id: string;
  name: string;
  token?: string;
  body: Record<string, unknown>;
  status: Status;
  message?: string;
  records: { recordId: string; modelInput: Record<string, unknown> }[];
  done: number;
  polls: number;
  submitTime: Date;
  stopSeen?: boolean;
}

export interface BedrockBatchServer extends FakeServer {
  jobs(): readonly { arn: string; name: string; status: string; records: number }[];
}

const ARN_PREFIX = 'arn:aws:bedrock:us-east-1:123456789012:model-invocation-job/';

export async function startBedrockBatchServer(options: BedrockBatchServerOptions): Promise<BedrockBatchServer> {
  const jobs: FakeJob[] = [];
  const error = (status: number, type: string, message: string) => ({
    status,
    headers: { 'x-amzn-errortype': `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/`, 'x-amzn-requestid': 'fake' },
    body: { message },
  });

  const server = await startFakeServer(
    async (req: RecordedRequest) => {
      const path = req.path.split('?')[0] ?? '';
      if (req.method === 'POST' && path === '/model-invocation-job') return create((req.body ?? {}) as Record<string, unknown>);
      if (req.method === 'GET' && path === '/model-invocation-jobs') {
        const name = new URL(req.path, 'http://x').searchParams.get('nameContains') ?? '';
        return { status: 200, body: { invocationJobSummaries: jobs.filter((j) => j.name.includes(name)).map(view) } };
      }
      const m = /^\/model-invocation-job\/([^/]+)(\/stop)?$/.exec(path);
      const ident = decodeURIComponent(m?.[1] ?? '');
      const job = jobs.find((j) => j.arn === ident || j.id === ident || j.name === ident);
      if (!m || !job) return error(404, 'ResourceNotFoundException', `Could not find model invocation job ${ident}`);
      if (req.method === 'GET' && !m[2]) return { status: 200, body: view(await advance(job)) };
      if (req.method === 'POST' && m[2]) {
        if (['Completed', 'PartiallyCompleted', 'Failed', 'Stopped', 'Expired'].includes(job.status))
          return error(400, 'ValidationException', `Job ${job.arn} is in ${job.status} state and cannot be stopped`);
        job.status = 'Stopping';
        return { status: 200, body: {} };
      }
      return error(405, 'ValidationException', 'method not allowed');
    },
    error,
    options,
  );

  function create(body: Record<string, unknown>) {
    const name = String(body.jobName ?? '');
    const token = typeof body.clientRequestToken === 'string' ? body.clientRequestToken : undefined;
    const again = token ? jobs.find((j) => j.token === token) : undefined;
    if (again) return { status: 200, body: { jobArn: again.arn } };
    for (const field of ['jobName', 'roleArn', 'modelId'])
      if (typeof body[field] !== 'string' || body[field] === '')
        return error(400, 'ValidationException', `1 validation error detected: Value null at '${field}' failed to satisfy constraint: Member must not be null`);
    if (!/^[a-zA-Z0-9]{1,63}(-*[a-zA-Z0-9+\-.]){0,63}$/.test(name) || name.length > 63)
      return error(400, 'ValidationException', `1 validation error detected: Value '${name}' at 'jobName' failed to satisfy constraint`);
    if (jobs.some((j) => j.name === name)) return error(400, 'ValidationException', `A model invocation job with name ${name} already exists`);
    const hours = body.timeoutDurationInHours;
    if (hours !== undefined && (typeof hours !== 'number' || hours < 24 || hours > 168))
      return error(
        400,
        'ValidationException',
        `1 validation error detected: Value '${String(hours)}' at 'timeoutDurationInHours' failed to satisfy constraint: Member must have value between 24 and 168`,
      );
    const id = `${jobs.length + 1}`.padStart(12, 'a');
    const job: FakeJob = {
      arn: `${ARN_PREFIX}${id}`,
      id,
      name,
      ...(token ? { token } : {}),
      body,
      status: 'Submitted',
      records: [],
      done: 0,
      polls: 0,
      submitTime: new Date(1_764_000_000_000 + jobs.length * 1000),
    };
    jobs.push(job);
    return { status: 200, body: { jobArn: job.arn } };
  }

  async function advance(job: FakeJob): Promise<FakeJob> {
    switch (job.status) {
      case 'Submitted':
        job.status = 'Validating';
        break;
      case 'Validating':
        await validate(job);
        break;
      case 'Scheduled':
        job.status = 'InProgress';
        break;
      case 'InProgress': {
        const total = job.records.length;
        job.polls += 1;
        job.done = Math.max(job.done, Math.min(total, Math.floor((total * job.polls) / (options.progressPolls ?? 2))));
        if (options.expireAfter !== undefined && job.done >= options.expireAfter) {
          job.done = options.expireAfter;
          job.status = 'Expired';
          job.message = `Job timed out after ${String(job.body.timeoutDurationInHours ?? 168)} hours`;
          await writeOutput(job);
        } else if (job.done === total) {
          job.status = job.records.some((r) => options.reject?.(r.recordId)) ? 'PartiallyCompleted' : 'Completed';
          await writeOutput(job);
        }
        break;
      }
      case 'Stopping':
        // Shown once as Stopping (the Stop call's own answer is empty), then Stopped.
        if (job.stopSeen) {
          job.status = 'Stopped';
          await writeOutput(job);
        }
        job.stopSeen = true;
        break;
      default:
        break;
    }
    return job;
  }

  /** Reads the input file: every line a `{recordId, modelInput}` object, at least the minimum of records. */
  async function validate(job: FakeJob): Promise<void> {
    const uri = (job.body.inputDataConfig as { s3InputDataConfig?: { s3Uri?: string } } | undefined)?.s3InputDataConfig?.s3Uri ?? '';
    const text = await getText(uri);
    if (text === undefined) return fail(job, `The input S3 location ${uri} does not exist or the role cannot read it`);
    const lines = text.split('\n').filter((l) => l.trim() !== '');
    for (const [i, line] of lines.entries()) {
      const record = JSON.parse(line) as { recordId?: unknown; modelInput?: unknown };
      if (typeof record.modelInput !== 'object' || record.modelInput === null) return fail(job, `Invalid record on line ${i + 1}: modelInput is required`);
      job.records.push({ recordId: String(record.recordId ?? `${String(i).padStart(11, '0')}`), modelInput: record.modelInput as Record<string, unknown> });
    }
    const min = options.minRecords ?? 100;
    if (job.records.length < min)
      return fail(job, `The number of records in the input (${job.records.length}) is less than the minimum of ${min} records per batch inference job`);
    job.status = 'Scheduled';
  }

  function fail(job: FakeJob, message: string): void {
    job.status = 'Failed';
    job.message = message;
  }

  async function writeOutput(job: FakeJob): Promise<void> {
    const input = (job.body.inputDataConfig as { s3InputDataConfig: { s3Uri: string } }).s3InputDataConfig.s3Uri;
    const output = (job.body.outputDataConfig as { s3OutputDataConfig: { s3Uri: string } }).s3OutputDataConfig.s3Uri.replace(/\/?$/, '/');
    const file = input.slice(input.lastIndexOf('/') + 1);
    const counts = { success: 0, error: 0, inputTokens: 0, outputTokens: 0 };
    const lines = job.records.slice(0, job.done).map((r) => {
      const rejected = options.reject?.(r.recordId);
      const out = rejected ? undefined : converseAnswer(String(job.body.modelId), r.modelInput, options.answer ?? (() => 'ok'));
      if (!out || 'invalid' in out) {
        counts.error += 1;
        return JSON.stringify({ ...r, error: rejected ?? { errorCode: 400, errorMessage: out && 'invalid' in out ? out.invalid : 'bad request' } });
      }
      counts.success += 1;
      const usage = out.response.usage as { inputTokens: number; outputTokens: number };
      counts.inputTokens += usage.inputTokens;
      counts.outputTokens += usage.outputTokens;
      return JSON.stringify({ ...r, modelOutput: out.response });
    });
    await put(`${output}${job.id}/${file}.out`, lines.length > 0 ? `${lines.join('\n')}\n` : '');
    const manifest = {
      totalRecordCount: job.records.length,
      processedRecordCount: job.done,
      successRecordCount: counts.success,
      errorRecordCount: counts.error,
      inputTokenCount: counts.inputTokens,
      outputTokenCount: counts.outputTokens,
    };
    await put(`${output}${job.id}/manifest.json.out`, JSON.stringify(manifest));
  }

  function view(job: FakeJob) {
    const processed = job.records.slice(0, job.done);
    const errors = processed.filter(
      (r) => options.reject?.(r.recordId) || 'invalid' in converseAnswer(String(job.body.modelId), r.modelInput, () => ''),
    ).length;
    const hours = typeof job.body.timeoutDurationInHours === 'number' ? job.body.timeoutDurationInHours : 168;
    return {
      jobArn: job.arn,
      jobName: job.name,
      modelId: job.body.modelId,
      roleArn: job.body.roleArn,
      ...(job.token ? { clientRequestToken: job.token } : {}),
      status: job.status,
      ...(job.message ? { message: job.message } : {}),
      submitTime: job.submitTime.toISOString(),
      lastModifiedTime: job.submitTime.toISOString(),
      inputDataConfig: job.body.inputDataConfig,
      outputDataConfig: job.body.outputDataConfig,
      timeoutDurationInHours: hours,
      jobExpirationTime: new Date(job.submitTime.getTime() + hours * 3_600_000).toISOString(),
      modelInvocationType: job.body.modelInvocationType ?? 'InvokeModel',
      totalRecordCount: job.records.length,
      processedRecordCount: job.done,
      successRecordCount: job.done - errors,
      errorRecordCount: errors,
    };
  }

  async function getText(uri: string): Promise<string | undefined> {
    const { bucket, key } = parseS3(uri);
    try {
      const out = await options.s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      return await out.Body?.transformToString('utf8');
    } catch {
      return undefined;
    }
  }

  async function put(uri: string, body: string): Promise<void> {
    const { bucket, key } = parseS3(uri);
    await options.s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
  }

  return { ...server, jobs: () => jobs.map((j) => ({ arn: j.arn, name: j.name, status: j.status, records: j.records.length })) };
}

function parseS3(uri: string): { bucket: string; key: string } {
  const m = /^s3:\/\/([^/]+)\/(.*)$/.exec(uri);
  if (!m) throw new Error(`not an s3:// URI: ${uri}`);
  return { bucket: m[1] ?? '', key: m[2] ?? '' };
}
