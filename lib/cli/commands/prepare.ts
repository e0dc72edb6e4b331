/**
 * `kf prepare <experiment|kind>`: build ahead what an experiment needs (its
 * index or kp-index artifact, and the artifacts of its pipeline family), or one
 * artifact of a kind from --set options. Prints one line per artifact (or JSON).
 */
import * as path from 'node:path';
import { bool, list, str, type CommandSpec } from '../command';
import { KfError } from '../../util/errors';
import { ArtifactStore, artifactKinds } from '../../pipeline/artifact-store';
import { loadExperiment } from '../../run/config';
import { resolveExperimentName } from '../experiment-catalog';
import { prepareExperiment, prepareKind, type Prepared } from '../../run/prepare';

function setOptions(values: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const v of values) {
    const eq = v.indexOf('=');
    if (eq <= 0) throw new KfError('bad_flag', `--set ${v} is not key=value`, 'e.g. --set corpus=data/demo/tiny/corpus');
    out[v.slice(0, eq)] = v.slice(eq + 1);
  }
  return out;
}

export const command: CommandSpec = {
  name: 'prepare',
  group: 'run',
  summary: 'Build ahead what an experiment needs (index / artifacts), or one artifact of a kind',
  positionals: [{ name: 'target', description: 'experiment file or name, or an artifact kind (kf artifacts --kinds lists them)' }],
  options: {
    set: { type: 'string', multiple: true, description: 'for a kind: its request options, key=value (kp-index: corpus, embedder, benchmark, seed, ocr)' },
    override: { type: 'string', short: 'o', multiple: true, description: 'for an experiment: config override key.path=value' },
    root: { type: 'string', description: 'artifact store folder (default $KF_ARTIFACTS or .kf-cache/artifacts)' },
    yes: { type: 'boolean', description: 'go ahead with an index build that calls a model above the estimate threshold (the estimate is printed first)' },
    json: { type: 'boolean', description: 'print one JSON list' },
    quiet: { type: 'boolean', description: 'no progress lines on stderr' },
  },
  examples: ['kf prepare experiments/demo/S4.toml', 'kf prepare kp-index --set corpus=data/demo/tiny/corpus --set embedder=hash --set ocr=off'],
  async run(args) {
    const target = args.positionals[0];
    if (!target) {
      console.error("kf: missing <target> for 'kf prepare': an experiment file or name, or an artifact kind");
      return 2;
    }
    const root = str(args, 'root');
    const store = new ArtifactStore(root ? { root: path.resolve(root) } : {});
    const log = bool(args, 'quiet') ? undefined : (l: string) => console.error(l);
    let done: Prepared[];
    if (artifactKinds().includes(target)) done = [await prepareKind(target, setOptions(list(args, 'set')), { store, log })];
    else {
      // An experiment by file or by its short name, as kf run takes it (demo/S4, M5, dualg/demo/DG).
      const file = resolveExperimentName(target, (line) => console.error(`note: ${line}`)) ?? target;
      done = await prepareExperiment(loadExperiment(file, { overrides: list(args, 'override') }), { store, log, yes: bool(args, 'yes') });
    }
    if (bool(args, 'json')) console.log(JSON.stringify(done));
    else for (const d of done) console.log(`${d.what.padEnd(10)} ${d.built ? 'built  ' : 'present'} ${d.kind && d.key ? `${d.kind}/${d.key} ` : ''}${d.dir}`);
    return 0;
  },
};
