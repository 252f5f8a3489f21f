// The Kotlin programs' class-data archive is passed to a JVM only as it was checked when it
// was made, and only where no program can write it (layers/sandbox/languages/kotlin-cds.ts).
import { createHash } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { archivedClasses, outOfProgramsReach, verifiedArchive } from '../../../layers/sandbox/languages/kotlin-cds.ts';

const root = mkdtempSync(join(tmpdir(), 'pe-kotlin-cds-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A stand-in archive with the sidecar its builder writes (size and SHA-256). */
function archive(name: string, bytes = Buffer.from(`archive ${name}`)): string {
  const path = join(root, name);
  writeFileSync(path, bytes);
  writeFileSync(`${path}.sha256`, `${bytes.length} ${createHash('sha256').update(bytes).digest('hex')}\n`);
  return path;
}

describe('verifiedArchive', () => {
  it('passes the archive its sidecar describes', () => {
    const path = archive('good.jsa');
    expect(verifiedArchive(path)).toBe(path);
  });

  it('refuses an archive that differs from its sidecar (truncated or rewritten before first use)', () => {
    const path = archive('rewritten.jsa');
    writeFileSync(path, 'archive rewritteX');
    expect(verifiedArchive(path)).toBeUndefined();
  });

  it('refuses an archive changed after it was checked, and a missing one', () => {
    const path = archive('changed.jsa');
    expect(verifiedArchive(path)).toBe(path);
    writeFileSync(path, 'a longer archive than before');
    expect(verifiedArchive(path)).toBeUndefined();
    expect(verifiedArchive(join(root, 'absent.jsa'))).toBeUndefined();
  });

  it('refuses an archive without a sidecar', () => {
    const path = join(root, 'bare.jsa');
    writeFileSync(path, 'bare');
    expect(verifiedArchive(path)).toBeUndefined();
  });
});

describe('outOfProgramsReach', () => {
  const own = process.getuid?.() ?? 0;

  it('holds under bubblewrap (bound read-only) and under Landlock (writes confined to the work directory)', () => {
    const path = archive('confined.jsa');
    expect(outOfProgramsReach(path, { level: 'bwrap', landlock: false, uid: own })).toBe(true);
    expect(outOfProgramsReach(path, { level: 'rlimits', landlock: true, uid: own })).toBe(true);
  });

  it('fails where programs run as the file owner with nothing confining them', () => {
    const path = archive('own.jsa');
    chmodSync(path, 0o444);
    expect(outOfProgramsReach(path, { level: 'rlimits', landlock: false, uid: own })).toBe(false);
  });

  it('holds for another uid only when neither the file nor its directory is writable by group or others', () => {
    const path = archive('other.jsa');
    chmodSync(root, 0o755);
    chmodSync(path, 0o444);
    expect(outOfProgramsReach(path, { level: 'rlimits', landlock: false, uid: own + 1 })).toBe(true);
    chmodSync(path, 0o666);
    expect(outOfProgramsReach(path, { level: 'rlimits', landlock: false, uid: own + 1 })).toBe(false);
    chmodSync(path, 0o444);
    chmodSync(root, 0o777);
    expect(outOfProgramsReach(path, { level: 'rlimits', landlock: false, uid: own + 1 })).toBe(false);
    chmodSync(root, 0o755);
  });
});

describe('archivedClasses', () => {
  it('lists JDK and Kotlin stdlib classes without comments', () => {
    const classes = archivedClasses();
    expect(classes).toContain('kotlin/jvm/internal/Intrinsics');
    expect(classes).toContain('java/lang/Object');
    expect(classes.some((c) => c.startsWith('#'))).toBe(false);
  });
});
