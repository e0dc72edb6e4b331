/** Shared bits of the index-build tests: fragments, temp dirs (the fake ChatModel is test/_shared/fake-model.ts). */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Fragment } from '../../lib/corpus/types';

export function tempDir(prefix = 'kf-index-build-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

let ordinal = 0;
export function frag(docId: string, text: string, extra: Partial<Fragment> = {}): Fragment {
  const n = extra.ordinal ?? ordinal++;
  return { id: `${docId}#${n}`, docId, kind: 'text', text, section: [], ordinal: n, attached: [], ...extra };
}
