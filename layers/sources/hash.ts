/** Content hashes of files and streams. */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';

/** Hex sha256 of every byte of `bytes`. */
export async function sha256OfStream(bytes: AsyncIterable<Uint8Array>): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of bytes) hash.update(chunk);
  return hash.digest('hex');
}

/** Hex sha256 of the file at `path`, read as a stream. */
export function sha256OfFile(path: string): Promise<string> {
  return sha256OfStream(createReadStream(path));
}

/** True when `etag` (quotes allowed) is a 64-hex sha256, as the Hub's LFS etags are. */
export function sha256FromEtag(etag: string | null | undefined): string | undefined {
  if (!etag) return undefined;
  const bare = etag.replace(/^W\//, '').replace(/"/g, '').trim().toLowerCase();
  return /^[0-9a-f]{64}$/.test(bare) ? bare : undefined;
}
