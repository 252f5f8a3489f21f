// `polyeval remote run --dry-run`, as a user types it, prints what the deployed stack costs standing
// idle on its `fixed:` line: nothing by default (no interface endpoint, no NAT gateway: the Lambda
// judges are in no VPC), five endpoints × 2 AZs with the opt-in Fargate lane (`--fargate-lane`, as
// a stack deployed with `-c fargateLane=true`), plus the alarms' $0.10 per alarm metric (4 by default:
// the watchdog keeps the work queues' alarms) and the scheduled ticks of the watchdog and the batch
// stage: $0.95, within issue 35's ≤ $1 (docs/aws.md "Idle cost").
import { describe, expect, it } from 'vitest';
import { runCli, tempHome } from '../support/cli.ts';

const DRY = ['remote', 'run', '--dry-run', '-b', 'sample/rocode', '-m', 'reference', '--language', 'python', '--limit', '2'];

function fixedLine(stdout: string): string {
  const line = stdout.split('\n').find((l) => l.trim().startsWith('fixed:'));
  if (line === undefined) throw new Error(`no fixed: line in\n${stdout}`);
  return line.trim();
}

describe('remote run --dry-run: the fixed monthly cost', () => {
  it('is at most $1 for the default stack (4 alarm metrics and the scheduled ticks), and the Fargate lane’s ~$73 only when it is deployed', async () => {
    const byDefault = await runCli([...DRY, '--home', tempHome()]);
    expect(byDefault.code, byDefault.stderr).toBe(0);
    expect(fixedLine(byDefault.stdout)).toMatch(
      /^fixed: 0 interface endpoints × 2 AZs \+ 4 alarm metrics \+ 11680 scheduled ticks \(watchdog keeping 13 queues' alarms, batch stage\) ≈ \$0\.95\/month/,
    );

    const withLane = await runCli([...DRY, '--fargate-lane', '--home', tempHome()]);
    expect(withLane.code, withLane.stderr).toBe(0);
    expect(fixedLine(withLane.stdout)).toMatch(/^fixed: 5 interface endpoints × 2 AZs \+ 24 alarm metrics \+ 11680 scheduled ticks .* ≈ \$76\.11\/month/);

    const json = await runCli([...DRY, '--json', '--home', tempHome()]);
    expect(json.code, json.stderr).toBe(0);
    const estimate = JSON.parse(json.stdout) as {
      fixed: { interface_endpoints: number; alarm_metrics: number; usd_per_month: number; scheduled_ticks: number; watched_queues: number };
      deployment: { architecture: string };
    };
    expect(estimate.fixed).toMatchObject({ interface_endpoints: 0, alarm_metrics: 4, usd_per_month: 0.95, scheduled_ticks: 11_680, watched_queues: 13 });
    expect(estimate.fixed.usd_per_month).toBeLessThanOrEqual(1);
    expect(estimate.deployment.architecture).toBe('arm64');
  }, 120_000);
});
