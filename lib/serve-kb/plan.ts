/**
 * What `kf serve kb` serves, from its flags: which indexes (given, or the benchmark's usual folder),
 * and which packages over them (a package map such as the runner's data/kb_packages.json, one package
 * per document, or the whole index under one uuid).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { benchmarkSpec } from '../bench/registry';
import { isBenchmarkName, type BenchmarkName } from '../bench/names';
import { openIndex, type IndexModels } from '../index/open';
import { readPackageMap, type PackageEntry } from '../remote-kb/package-map';
import { KfError } from '../util/errors';
import { corpusOfIndex, type ServedCorpus } from './corpus';
import { packagesFromMap, perDocumentPackages, wholePackage, type ServedPackage } from './packages';

/** The runner's short benchmark names, and the section of its packages file each one reads. */
const RUNNER_NAMES: Record<string, BenchmarkName> = { mmlb: 'mmlongbench-doc', m3d: 'm3docvqa', mhr: 'multihop-rag' };
const SECTIONS: Partial<Record<BenchmarkName, string>> = { 'mmlongbench-doc': 'mmlongbench_doc', m3docvqa: 'm3docvqa', 'multihop-rag': 'multihop_rag' };

export interface ServePlanOptions {
  /** Index folders (one shared index, or one per document). */
  indexes: string[];
  /** A benchmark name (the harness's or the runner's: mmlb, m3d, mhr). */
  bench?: string;
  /** A package map file; `section` picks its section (default: the benchmark's). */
  packages?: string;
  section?: string;
  /** One package per document (uuids made from the ids) instead of the whole index. */
  perDocument?: boolean;
  /** The uuid of the whole index (default "local"). */
  uuid?: string;
  /** Retrieval mode every search uses (default the view's, hybrid+graph). */
  mode?: string;
  models?: IndexModels;
  log?: (line: string) => void;
}

export interface ServePlan {
  packages: ServedPackage[];
  /** Map entries no served document answers for. */
  unmatched: PackageEntry[];
  /** The section name a written packages file uses. */
  section: string;
  corpora: ServedCorpus[];
}

/** `mmlb` -> `mmlongbench-doc`; a harness name as it is; anything else refused. */
export function benchName(name: string): BenchmarkName {
  const n = RUNNER_NAMES[name] ?? name;
  if (!isBenchmarkName(n))
    throw new KfError('bench_unknown', `unknown benchmark "${name}"`, `use a harness name or the runner's (${Object.keys(RUNNER_NAMES).join(', ')})`, {
      concerns: name,
    });
  return n;
}

/** Where `kf index build --bench <name>` is told to write (the README's commands): .kf-cache/index/<name>. */
export function benchIndexDir(bench: BenchmarkName): string {
  return path.resolve('.kf-cache', 'index', bench);
}

export async function planServe(o: ServePlanOptions): Promise<ServePlan> {
  const bench = o.bench ? benchName(o.bench) : undefined;
  const dirs = o.indexes.length ? o.indexes : bench ? [benchIndexDir(bench)] : [];
  if (!dirs.length) throw new KfError('no_index', 'nothing to serve', 'give --index <folder> (built by kf index build) or --bench <name>');
  for (const d of dirs)
    if (!fs.existsSync(d))
      throw new KfError(
        'no_index',
        `no index folder ${d}`,
        `build it first: kf index build ${bench ? `--bench ${bench}` : '--corpus <dir>'} --out ${d} (add --offline for no model)`,
        { concerns: d },
      );
  const corpora: ServedCorpus[] = [];
  for (const d of dirs) {
    const t0 = Date.now();
    corpora.push(corpusOfIndex(await openIndex(d, { models: o.models }), { mode: o.mode }));
    o.log?.(`opened ${d} (${corpora.at(-1)!.documents().length} documents) in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
  const section = o.section ?? (bench ? SECTIONS[bench] : undefined) ?? bench ?? 'packages';
  if (o.packages) {
    const entries = readPackageMap(o.packages, o.section ?? (bench ? SECTIONS[bench] : undefined));
    return { ...packagesFromMap(corpora, entries, o.packages), section, corpora };
  }
  const perDocument = o.perDocument ?? (corpora.length > 1 || benchmarkSpec(bench)?.relationsScope === 'document');
  if (perDocument) return { packages: perDocumentPackages(corpora), unmatched: [], section, corpora };
  return { packages: [wholePackage(corpora[0], o.uuid ?? 'local')], unmatched: [], section, corpora };
}
