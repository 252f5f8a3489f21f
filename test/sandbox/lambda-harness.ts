// Runs sandbox jobs the way the execute Lambda runs them (functions/execute/container-sandbox.ts:
// the container's executor, then the after-item check), for hostile-lambda.test.ts. Bundled
// by that test and started as an unprivileged uid with AWS credentials in its environment.
// Input: a JSON file of { id, job } (argv[2]). Output: one JSON line per job, then per check.
import { readFileSync } from 'node:fs';
import type { ExecutionJob } from '#core/ports.ts';
import { ContainerSandbox } from '../../functions/execute/container-sandbox.ts';

const jobs = JSON.parse(readFileSync(process.argv[2] as string, 'utf8')) as { id: string; job: ExecutionJob }[];
const print = (line: object) => process.stdout.write(`${JSON.stringify(line)}\n`);
const sandbox = new ContainerSandbox({
  discard: (report) => {
    print({ discarded: true, report });
    process.exit(70);
  },
});
const executor = await sandbox.get();
print({ isolation: executor.isolationReport });
for (const { id, job } of jobs) {
  const outcome = await executor.execute(job);
  print({ id, outcome });
  print({ id, check: await sandbox.afterItem() });
}
await executor.close();
