// Stored documents are read through one validating reader each: documents written before
// schema_version existed still read (as version 1, every field kept), and a damaged one is a
// CorruptRecordError naming its key and field instead of a half-read record.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseWorkItem } from '#app/cloud/messages.ts';
import { CorruptRecordError, HarnessError, InputError } from '#core/errors.ts';
import { parseRunSummary } from '#core/report/aggregate.ts';
import { parseStored, parseUserDocument, SCHEMA_VERSION, storedJson } from '#core/run/documents.ts';
import { parseItemDocument } from '#core/run/engine.ts';
import { ManifestSchema, parseManifest } from '#core/run/manifest.ts';

const fixture = (name: string): string => readFileSync(join(import.meta.dirname, '..', '..', 'fixtures', 'stored', name), 'utf8');

describe('documents written before schema_version', () => {
  it.each([
    ['manifest-before-versions.json', parseManifest],
    ['item-before-versions.json', parseItemDocument],
    ['summary-before-versions.json', parseRunSummary],
  ] as const)('reads %s as version 1 with every field it holds', (name, parse) => {
    const text = fixture(name);

    const doc = parse(text, `runs/r/${name}`);

    expect(doc.schema_version).toBeUndefined();
    expect(doc).toEqual(JSON.parse(text));
  });
});

describe('writing and reading back', () => {
  it('stamps the current schema_version and reads the same document back', () => {
    const manifest = parseManifest(fixture('manifest-before-versions.json'), 'm');

    const text = storedJson(manifest, 2);

    expect(JSON.parse(text).schema_version).toBe(SCHEMA_VERSION);
    expect(parseManifest(text, 'm')).toEqual({ ...manifest, schema_version: SCHEMA_VERSION });
  });

  it('keeps a field this version does not know instead of dropping it', () => {
    const doc = { ...JSON.parse(fixture('item-before-versions.json')), reviewed_by: 'ana' };

    expect(parseItemDocument(JSON.stringify(doc), 'k').reviewed_by).toBe('ana');
  });
});

describe('damaged or foreign documents', () => {
  it('names the key and the field of an item whose verdict is not a verdict', () => {
    const doc = JSON.parse(fixture('item-before-versions.json'));
    doc.record.verdict = 'PASS';

    const read = (): unknown => parseItemDocument(JSON.stringify(doc), 'runs/r/items/astratto-1/0.json');

    expect(read).toThrow(CorruptRecordError);
    expect(read).toThrow(/runs\/r\/items\/astratto-1\/0\.json, field "record\.verdict"/);
  });

  it('names the key of a document that is not JSON, as a harness fault', () => {
    const read = (): unknown => parseRunSummary('{"run_id": ', 'runs/r/summary.json');

    expect(read).toThrow(HarnessError);
    expect(read).toThrow(/runs\/r\/summary\.json: is not JSON/);
  });

  it('refuses a document from a newer polyeval by its schema_version', () => {
    const text = JSON.stringify({ ...JSON.parse(fixture('manifest-before-versions.json')), schema_version: 2 });

    expect(() => parseStored(ManifestSchema, text, 'runs/r/manifest.json')).toThrow(/field "schema_version": schema_version 2 is not one this polyeval reads/);
  });

  it('names the file and field of a user document as an InputError', () => {
    const read = (): unknown => parseUserDocument(ManifestSchema, JSON.stringify({ run_id: 'r' }), 'my-manifest.json');

    expect(read).toThrow(InputError);
    expect(read).toThrow(/my-manifest\.json, field "created_at"/);
  });
});

describe('work item messages', () => {
  it('keep the verdict a re-run item was counted with', () => {
    const item = parseWorkItem({ runId: 'r', taskId: 't', sample: 0, previousVerdict: 'SE', part: { index: 0, slot: 3, size: 10 } });

    expect(item).toEqual({ runId: 'r', taskId: 't', sample: 0, previousVerdict: 'SE', part: { index: 0, slot: 3, size: 10 } });
  });

  it('reject a previousVerdict that is not a verdict, naming the field', () => {
    expect(() => parseWorkItem({ runId: 'r', taskId: 't', sample: 0, previousVerdict: 'MAYBE' })).toThrow(/previousVerdict/);
  });
});
