/**
 * Shared helpers of the corpus tests: fixture paths (found from the project root,
 * so the tests work from test/ under tsx and from dist/test/ compiled), scratch
 * folders, and structural checks every ingest result must pass.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { repoRoot } from '../../lib/util/paths';
import type { Fragment, IngestResult } from '../../lib/corpus/types';

const FIXTURES = path.join(repoRoot(), 'test', '__fixtures__', 'corpus');
export const DOCS = path.join(FIXTURES, 'docs');

const scratchDirs: string[] = [];
process.on('exit', () => {
  for (const d of scratchDirs) fs.rmSync(d, { recursive: true, force: true });
});

/** A fresh temporary folder, removed when the test process exits. */
export function scratch(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `corpus-test-${prefix}-`));
  scratchDirs.push(dir);
  return dir;
}

export function byKind(r: IngestResult, kind: Fragment['kind']): Fragment[] {
  return r.fragments.filter((f) => f.kind === kind);
}

/** Invariants of any result: ids/ordinals, the prev/next chain, attachments both ways. */
export function assertWellFormed(r: IngestResult): void {
  const ids = new Map(r.fragments.map((f) => [f.id, f]));
  assert.equal(ids.size, r.fragments.length, 'fragment ids are unique');
  r.fragments.forEach((f, i) => {
    assert.equal(f.ordinal, i);
    assert.equal(f.id, `${f.docId}#${i}`);
    if (r.doc) assert.equal(f.docId, r.doc.id);
    assert.equal(f.prev, i > 0 ? r.fragments[i - 1].id : undefined);
    assert.equal(f.next, i + 1 < r.fragments.length ? r.fragments[i + 1].id : undefined);
    assert.ok(f.text.length > 0, `${f.id} has text`);
    for (const a of f.attached) {
      const m = ids.get(a);
      assert.ok(m, `${f.id} attaches an existing fragment`);
      assert.ok(m!.kind === 'image' || m!.kind === 'table');
      assert.equal(m!.anchor, f.id);
    }
    if (f.anchor) {
      const t = ids.get(f.anchor)!;
      assert.ok(t.attached.includes(f.id));
      assert.deepEqual(t.section, f.section, 'attached media stays in its section');
    }
  });
}
