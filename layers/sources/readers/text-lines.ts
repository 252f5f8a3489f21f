/**
 * Splits a byte stream into text lines with flat memory: only the current line is held.
 * A failure of the stream itself (missing file, corrupt gzip, dropped connection) becomes an
 * `InputError` naming the file and the line reached.
 */
import { StringDecoder } from 'node:string_decoder';
import { InputError, PolyevalError } from '../../core/errors.ts';

/** One line of text, without its terminator, with its 1-based number. */
export interface TextLine {
  text: string;
  line: number;
}

/** Yields every line of `bytes` (UTF-8; a leading BOM is dropped; `\r\n` and `\n` both end a line). */
export async function* textLines(bytes: AsyncIterable<Uint8Array | string>, label: string): AsyncGenerator<TextLine> {
  const decoder = new StringDecoder('utf8');
  let rest = '';
  let line = 0;
  let first = true;
  try {
    for await (const chunk of bytes) {
      let text = typeof chunk === 'string' ? chunk : decoder.write(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      if (first && text.length > 0) {
        if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
        first = false;
      }
      rest += text;
      let start = 0;
      let nl = rest.indexOf('\n', start);
      while (nl >= 0) {
        line += 1;
        yield { text: stripCr(rest.slice(start, nl)), line };
        start = nl + 1;
        nl = rest.indexOf('\n', start);
      }
      rest = rest.slice(start);
    }
  } catch (err) {
    throw streamError(err, label, line + 1);
  }
  rest += decoder.end();
  if (rest.length > 0) {
    line += 1;
    yield { text: stripCr(rest), line };
  }
}

function stripCr(s: string): string {
  return s.endsWith('\r') ? s.slice(0, -1) : s;
}

/** Turns a failure while reading `label` into an error that names it. */
export function streamError(err: unknown, label: string, line?: number): PolyevalError {
  if (err instanceof PolyevalError) return err;
  const code = (err as { code?: string }).code;
  const detail = err instanceof Error ? err.message : String(err);
  const reason =
    code === 'ENOENT'
      ? 'file not found'
      : code === 'EACCES'
        ? 'permission denied'
        : code === 'EISDIR'
          ? 'is a directory, not a file'
          : code === 'Z_DATA_ERROR' || code === 'Z_BUF_ERROR'
            ? `corrupt gzip data (${detail})`
            : `cannot read (${detail})`;
  return new InputError(reason, line !== undefined && line > 1 ? { file: label, line } : { file: label }, { cause: err });
}
