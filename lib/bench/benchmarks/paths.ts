/** Small helpers the entries' defaultPaths share. */
import * as fs from 'node:fs';
import { benchDir } from '../../util/paths';

/** The path when it exists (optional parts: PDF folders, corpora absent here). */
export const existing = (p: string): string | undefined => (fs.existsSync(p) ? p : undefined);

/** A file under ../shared/bench; `holdout` swaps `.dev.` for `.holdout.` (the held-back part ships in the same format). */
export function benchFile(split: 'dev' | 'holdout' | undefined, ...parts: string[]): string {
  const p = benchDir(...parts);
  return split === 'holdout' ? p.replace(/\.dev\./, '.holdout.') : p;
}
