/**
 * A runner function's process for the cloud harness's hand-off lane (cloud-harness.ts,
 * CloudOptions.handoff): the runner's own invocation code (functions/runner/serve.ts and the
 * Runtime API loop, runtime-api.ts) over this machine's sandbox, as the cloud harness's judge
 * runs programs. Not functions/runner/main.ts: its clean start empties /tmp and kills every
 * other process of its uid, which on a test machine is the test's own; the real runner bundle
 * as the Lambda user is test/sandbox/runner-lambda.test.ts's. The after-item check is the
 * sandbox suite's as well: here it reports clean.
 */
import { ContainerSandbox } from '../../../functions/execute/container-sandbox.ts';
import { serveLoop } from '../../../functions/runner/runtime-api.ts';
import { serveInvocation } from '../../../functions/runner/serve.ts';

const api = process.env['AWS_LAMBDA_RUNTIME_API'];
if (!api) throw new Error('AWS_LAMBDA_RUNTIME_API is not set');
const sandbox = new ContainerSandbox({ env: {}, discard: () => undefined });
await serveLoop(api, (event) =>
  serveInvocation(event, { get: () => sandbox.get(), afterItem: () => Promise.resolve({ clean: true, survivors: [], changes: [] }) }),
);
process.exit(75);
