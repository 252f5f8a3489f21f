/**
 * Node versions: `doctor` says whether this Node is supported, and the AWS SDK's warning
 * about Node < 22 never reaches a user while real SDK errors still do.
 */
import { describe, expect, it } from 'vitest';
import { nodeSupport } from '../../bin/cli/node-support.ts';
import { parseJson, runCli, tempHome } from '../support/cli.ts';

describe('Node version support', () => {
  it('doctor reports whether this Node version is supported', async () => {
    const report = parseJson<{ node: string; node_support: { status: string; supported_majors: number[]; detail: string } }>(
      await runCli(['doctor', '--json']),
    );
    expect(report.node).toBe(process.version);
    expect(report.node_support.supported_majors).toEqual([22, 24]);
    expect(report.node_support.status).toBe(nodeSupport(process.version).status);
  });

  it.each([
    ['v22.11.0', 'supported'],
    ['v24.3.0', 'supported'],
    ['v20.19.5', 'end-of-life'],
    ['v23.1.0', 'untested'],
  ])('classifies %s as %s', (version, status) => {
    expect(nodeSupport(version).status).toBe(status);
  });

  it('shows an S3 failure without the SDK Node-version warning', async () => {
    const env = {
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
      AWS_REGION: 'us-east-1',
      AWS_ENDPOINT_URL: 'http://127.0.0.1:9',
      AWS_MAX_ATTEMPTS: '1',
      AWS_EC2_METADATA_DISABLED: 'true',
    };
    const result = await runCli(['run', '-b', 'abricot:s3://bucket/items.jsonl', '-m', 'reference', '-q', '--home', tempHome()], { env });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('cannot read s3://bucket/items.jsonl');
    expect(result.stderr).not.toContain('NodeVersionSupportWarning');
  });
});
