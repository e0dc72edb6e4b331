/**
 * Where runs live under a results folder: run folders directly in it
 * (`kf run`), in its `runs/` (the notebooks' shared store, results/runs/) and
 * in each `<job>/runs/` (the main job's results/demo-main/runs/, suites'
 * results/<suite>/runs/). `kf runs`, `kf trace`, `kf compare` and `kf report`
 * find a run by the id any of them printed.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { recordsFileOf } from './records';

export interface StoredRun {
  runId: string;
  dir: string;
}

export function isRunDir(dir: string): boolean {
  return fs.existsSync(recordsFileOf(dir)) || fs.existsSync(path.join(dir, 'manifest.json'));
}

function subfolders(dir: string): string[] {
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
}

/** The folders that hold run folders: the results folder, its runs/, and every <job>/runs/ in it. */
export function runStores(resultsDir: string): string[] {
  const stores = [resultsDir];
  for (const name of subfolders(resultsDir)) {
    const sub = path.join(resultsDir, name);
    if (name === 'runs' && !isRunDir(sub)) stores.push(sub);
    else if (!isRunDir(sub) && fs.existsSync(path.join(sub, 'runs')) && !isRunDir(path.join(sub, 'runs'))) stores.push(path.join(sub, 'runs'));
  }
  return stores;
}

/** Every run folder of every store, by store then id. */
export function storedRuns(resultsDir: string): StoredRun[] {
  return runStores(resultsDir).flatMap((store) =>
    subfolders(store)
      .map((runId) => ({ runId, dir: path.join(store, runId) }))
      .filter((r) => isRunDir(r.dir)),
  );
}

function lastWrite(dir: string): number {
  const times = [recordsFileOf(dir), path.join(dir, 'manifest.json')].filter((f) => fs.existsSync(f)).map((f) => fs.statSync(f).mtimeMs);
  return Math.max(0, ...times);
}

/** The folder of a run id in any store; the most recently written one when several stores hold that id. */
export function findStoredRun(resultsDir: string, runId: string): string | undefined {
  const hits = storedRuns(resultsDir).filter((r) => r.runId === runId);
  return hits.sort((a, b) => lastWrite(b.dir) - lastWrite(a.dir))[0]?.dir;
}
