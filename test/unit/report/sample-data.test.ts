import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { renderReport } from '#core/report/html.ts';
import { DETAIL_BUDGET, clipText, sampleData } from '#core/report/sample-data.ts';
import { packedJson } from '#core/report/sample-browser.ts';
import { compareOutputs } from '#core/judging/compare.ts';
import { excerpt } from '#core/judging/excerpt.ts';
import { syntheticRun } from '../../../sim/synthetic-report.ts';

describe('first difference of two outputs', () => {
  it('gives the offsets of the first differing token in each text', () => {
    const c = compareOutputs('1 2\n3 4\n', '1  2\n3 5\n');
    expect(c.equal).toBe(false);
    expect(c.at).toEqual({ expected: 6, actual: 7 });
  });

  it('points past the last common token when one output is shorter', () => {
    expect(compareOutputs('1 2 3\n', '1 2\n').at).toEqual({ expected: 4, actual: 3 });
  });
});

describe('excerpt', () => {
  it('keeps a small text whole with its size in UTF-8 bytes', () => {
    expect(excerpt('două')).toEqual({ text: 'două', start: 0, bytes: 5, complete: true });
  });

  it('places the window of a large text around the marked offset', () => {
    const text = `${'7 '.repeat(5000)}X ${'8 '.repeat(5000)}`;
    const e = excerpt(text, 10_000, 100);
    expect(e.complete).toBe(false);
    expect(e.text).toHaveLength(100);
    expect(e.text[e.mark ?? -1]).toBe('X');
    expect(e.start + (e.mark ?? 0)).toBe(10_000);
  });
});

describe('sample browser data', () => {
  it('says how much of a long text it cut', () => {
    expect(clipText('abcdef', 4)).toBe('abcd\n… [2 more characters not shown]');
  });

  it('keeps 20,000 samples within the detail budget and every first difference visible', () => {
    const docs = syntheticRun(20_000, { rawChars: 30_000 });
    const data = sampleData(docs);
    expect(data.index).toHaveLength(20_000);
    const size = JSON.stringify(data.details).length;
    expect(size).toBeLessThan(DETAIL_BUDGET * 1.1);
    for (const d of data.details) {
      const io = d.tests?.find((t) => t.io)?.io;
      if (!io?.expected) continue;
      expect(io.expected.text.slice(io.expected.mark)).toMatch(/^-?\d/);
    }
  }, 300_000);

  it('stores an extracted program that is a span of the raw answer as its offsets, not a second copy', () => {
    const docs = syntheticRun(6);
    const data = sampleData(docs);
    for (const [i, d] of data.details.entries()) {
      expect(d.program).toBeUndefined();
      expect(d.raw.slice(...(d.program_at ?? [0, 0]))).toBe(docs[i]!.record.answer);
    }
  });

  it('stores each task prompt once, taken from its sample 0', () => {
    const data = sampleData(syntheticRun(30, { samplesPerTask: 3 }));
    expect(Object.keys(data.tasks)).toHaveLength(10);
    expect(data.tasks['rocode-synth/0003']?.prompt).toContain('problema 3');
  });
});

describe('report page', () => {
  it('cannot be closed early by a model answer that contains a script end tag', () => {
    const docs = syntheticRun(2);
    docs[0]!.raw = '</script><script>document.title="pwned"</script><!--';
    const html = renderReport({ manifest: syntheticManifest(), metrics: [], docs, summary: { items: 2, verdicts: { WA: 2 } } });
    expect(html).not.toContain('</script><script>document.title');
    expect(JSON.parse(gunzipSync(Buffer.from(packedJson(docs[0]!.raw), 'base64')).toString('utf8'))).toBe(docs[0]!.raw);
  });

  it('is static HTML up to the manifest: the sample data and the script come after every section', () => {
    const docs = syntheticRun(2_000, { rawChars: 3_000 });
    const html = renderReport({ manifest: syntheticManifest(), metrics: [], docs, summary: { items: 2_000, verdicts: { OK: 2_000 } } });
    const firstScript = html.indexOf('<script');
    for (const id of ['headline', 'pe-browser', 'manifest']) {
      expect(html.indexOf(`id="${id}"`), id).toBeGreaterThan(0);
      expect(html.indexOf(`id="${id}"`), id).toBeLessThan(firstScript);
    }
    // What paints first is a few kilobytes, however many samples the run has.
    expect(firstScript).toBeLessThan(64 * 1024);
    expect(html.slice(firstScript)).toMatch(/^<script type="application\/gzip" id="pe-index">[A-Za-z0-9+/=]+<\/script>/);
  });

  it('packs a 2,000-item run of 3,000-character answers into a page of under 4 MiB', () => {
    const docs = syntheticRun(2_000, { rawChars: 3_000 });
    const html = renderReport({ manifest: syntheticManifest(), metrics: [], docs, summary: { items: 2_000, verdicts: { OK: 2_000 } } });
    expect(html.length).toBeLessThan(4 * 1024 * 1024);
  });
});

function syntheticManifest() {
  return syntheticRun.manifest();
}
