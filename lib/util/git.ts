import { execFileSync } from 'node:child_process';
import { repoRoot } from './paths';

export interface GitInfo {
  commit: string | null;
  dirty: boolean | null;
}

let cached: GitInfo | undefined;

/** The commit the harness runs from (and whether the tree had uncommitted changes): stamped into every result. */
export function gitInfo(): GitInfo {
  if (cached) return cached;
  const run = (args: string[]) =>
    execFileSync('git', args, { cwd: repoRoot(), stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
  try {
    const commit = run(['rev-parse', 'HEAD']);
    let dirty: boolean | null = null;
    try {
      dirty = run(['status', '--porcelain', '--untracked-files=no']).length > 0;
    } catch {
      dirty = null;
    }
    cached = { commit, dirty };
  } catch {
    cached = { commit: process.env.KF_GIT_COMMIT ?? null, dirty: null };
  }
  return cached;
}
