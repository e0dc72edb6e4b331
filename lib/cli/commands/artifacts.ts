/** `kf artifacts`: the stored artifacts (kind, key, created, size, inputs, stale flag), newest first. */
import * as path from 'node:path';
import { bool, str, type CommandSpec } from '../command';
import { ArtifactStore, artifactKind, artifactKinds } from '../../pipeline/artifact-store';

function size(bytes: number): string {
  return bytes >= 1 << 30 ? `${(bytes / (1 << 30)).toFixed(1)}G` : bytes >= 1 << 20 ? `${(bytes / (1 << 20)).toFixed(1)}M` : `${Math.ceil(bytes / 1024)}K`;
}

export const command: CommandSpec = {
  name: 'artifacts',
  group: 'run',
  summary: 'List stored artifacts (kp-index, dualg-graph, ...) with key, creation time, size, inputs and a stale flag',
  options: {
    kind: { type: 'string', description: 'only this kind' },
    kinds: { type: 'boolean', description: 'list the registered kinds instead' },
    root: { type: 'string', description: 'artifact store folder (default $KF_ARTIFACTS or .kf-cache/artifacts)' },
    json: { type: 'boolean', description: 'print one JSON list' },
  },
  async run(args) {
    if (bool(args, 'kinds')) {
      const ks = artifactKinds().map((k) => ({ kind: k, version: artifactKind(k).version, description: artifactKind(k).description }));
      if (bool(args, 'json')) console.log(JSON.stringify(ks));
      else for (const k of ks) console.log(`${k.kind.padEnd(16)} v${k.version}  ${k.description}`);
      return 0;
    }
    const root = str(args, 'root');
    const store = new ArtifactStore(root ? { root: path.resolve(root) } : {});
    const all = store.list({ kind: str(args, 'kind') });
    if (bool(args, 'json')) {
      console.log(JSON.stringify(all));
      return 0;
    }
    if (!all.length) {
      console.log(`no artifacts in ${store.root} (kf prepare <experiment|kind> builds them)`);
      return 0;
    }
    for (const a of all) {
      const inputs = Object.entries(a.inputs)
        .map(([k, v]) => `${k}=${v.length > 14 ? v.slice(0, 12) + '..' : v}`)
        .join(' ');
      const created = a.createdAt.replace('T', ' ').slice(0, 16);
      const state = a.stale ? `STALE (${a.staleReason})` : 'ok';
      console.log(`${a.kind.padEnd(14)} ${a.key}  ${created}  ${size(a.bytes).padStart(7)}  ${state}  ${inputs}`);
    }
    return 0;
  },
};
