import { it } from 'vitest';
import { synthPolyeval } from './synth.ts';
it('count', () => {
  const { template } = synthPolyeval({ 'aws:cdk:bundling-stacks': [] });
  const json = template.toJSON() as { Resources: Record<string, { Type: string; Properties: Record<string, unknown> }> };
  const counts: Record<string, number> = {};
  for (const r of Object.values(json.Resources)) counts[r.Type] = (counts[r.Type] ?? 0) + 1;
  console.log(JSON.stringify(counts, null, 1));
  for (const [id, r] of Object.entries(json.Resources)) if (r.Type === 'AWS::CloudWatch::Alarm') console.log(id, JSON.stringify(r.Properties.MetricName ?? r.Properties.Metrics));
}, 300000);
