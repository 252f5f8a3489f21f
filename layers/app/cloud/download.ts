/**
 * Downloads a presigned URL to a file, streamed (a report can be far larger than anything the
 * API itself may answer): into `<file>.part` beside the target, renamed over it only once the
 * whole body has arrived, so an interrupted download never leaves a truncated page under the
 * name the user asked for.
 */
import { createWriteStream, mkdirSync, renameSync, rmSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { dirname } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { HarnessError, InputError } from '#core/errors.ts';

/** What S3 says in the body of an error (its `<Code>` and `<Message>`), for the error message. */
async function errorText(res: IncomingMessage): Promise<string> {
  let text = '';
  res.setEncoding('utf8');
  for await (const chunk of res) {
    if (text.length < 4096) text += String(chunk);
  }
  const code = /<Code>([^<]*)<\/Code>/.exec(text)?.[1];
  const message = /<Message>([^<]*)<\/Message>/.exec(text)?.[1];
  return code ? `${code}${message ? `: ${message}` : ''}` : text.slice(0, 200);
}

/** GETs `url` into `file`; resolves with the bytes written. */
export async function downloadTo(url: string, file: string, timeoutMs = 120_000): Promise<number> {
  const target = new URL(url);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    const req = send(target, { method: 'GET', timeout: timeoutMs }, resolve);
    req.on('timeout', () => req.destroy(new HarnessError(`no answer from ${target.origin} within ${timeoutMs} ms`)));
    req.on('error', (error) =>
      reject(error instanceof HarnessError ? error : new HarnessError(`cannot reach ${target.origin}: ${error.message}`, { cause: error })),
    );
    req.end();
  });
  if (res.statusCode !== 200) throw new HarnessError(`the report download answered ${res.statusCode ?? 0}: ${await errorText(res)}`);
  const part = `${file}.part`;
  try {
    mkdirSync(dirname(file), { recursive: true });
  } catch (error) {
    res.destroy();
    throw new InputError(`cannot write ${file}: ${(error as Error).message}`, { field: 'output' }, { cause: error });
  }
  let bytes = 0;
  res.on('data', (chunk: Buffer) => (bytes += chunk.length));
  try {
    await pipeline(res, createWriteStream(part));
  } catch (error) {
    rmSync(part, { force: true });
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'ENOTDIR' || code === 'EISDIR' || code === 'EROFS' || code === 'ENOENT')
      throw new InputError(`cannot write ${file}: ${(error as Error).message}`, { field: 'output' }, { cause: error });
    throw new HarnessError(`the report download broke off: ${(error as Error).message}`, { cause: error });
  }
  renameSync(part, file);
  return bytes;
}
