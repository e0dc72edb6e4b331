/**
 * "Did you mean" for a path that does not exist: the first missing part of the
 * path is matched against the entries of the folder above it (a typo such as
 * experiments/suites/demo-mian.toml -> demo-main.toml, or knowforg/ -> knowforge/).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { didYouMean } from '../util/did-you-mean';

/** The path with its first missing part replaced by the nearest existing name, when that name exists; else undefined. */
export function nearestPath(p: string): string | undefined {
  const parts = path.normalize(p).split(path.sep);
  for (let i = 0; i < parts.length; i++) {
    const upTo = parts.slice(0, i + 1).join(path.sep) || path.sep;
    if (fs.existsSync(upTo)) continue;
    const parent = parts.slice(0, i).join(path.sep) || (path.isAbsolute(p) ? path.sep : '.');
    let entries: string[];
    try {
      entries = fs.readdirSync(parent);
    } catch {
      return undefined;
    }
    const near = didYouMean(parts[i], entries);
    if (!near) return undefined;
    const fixed = [...parts.slice(0, i), near, ...parts.slice(i + 1)].join(path.sep);
    return i === parts.length - 1 || fs.existsSync(fixed) ? fixed : (nearestPath(fixed) ?? undefined);
  }
  return undefined;
}

/** ` (did you mean <path>?)` for a missing path, or ''. */
export function pathHint(p: string): string {
  const near = nearestPath(p);
  return near ? ` (did you mean ${near}?)` : '';
}
