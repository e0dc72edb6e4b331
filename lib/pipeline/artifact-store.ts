/**
 * The artifact store (issue 9, item 4): implements the seam of ./artifact.ts.
 *
 *   <root>/<kind>/<key>/          one artifact: what its kind built + manifest.json
 *   <root>/<kind>/.<key>.lock     held while it is being built (one builder per key)
 *   <root>/<kind>/.tmp-<key>-...  a build in progress (renamed into place when done)
 *
 * root = option `root`, else $KF_ARTIFACTS, else <repo>/.kf-cache/artifacts.
 * key  = hash of kind + version + inputs + normalised settings (`artifactKey`).
 *
 * API (what a kind author needs):
 *   registerArtifactKind(kind)             a kind ({kind, version, settings(), build(), open()}); built-ins load lazily
 *   artifactKind(name) / artifactKinds()   lookups
 *   new ArtifactStore({root?})
 *     .prepare(kind, request)              the ref, building it first when absent (atomic; one lock per key)
 *     .open(kind, keyOrRequest, args)      the kind's opened value; refuses a stale (version changed) or foreign
 *                                          (other kind / other inputs) artifact, naming the reason
 *     .ref(kind, key) / .list({kind})      what is stored (list: kind, key, created, size, inputs, stale)
 * A kind's `build` gets an empty folder and `need(kind, request)` for artifacts it depends on.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { KfError, errorMessage } from '../util/errors';
import { readJson, writeJsonAtomic } from '../util/fsx';
import { gitInfo } from '../util/git';
import { canonicalJson, shortHash } from '../util/hash';
import { stateDir } from '../util/paths';
import { isPidLock, waitForPidLock } from '../util/pid-lock';
import { loadPlugins, onPlugin } from './plugins';
import { Registry } from '../util/registry';
import type { ArtifactInputs, ArtifactKind, ArtifactManifest, ArtifactRef, ArtifactRequest } from './artifact';

const kinds = new Registry<ArtifactKind<never>>('artifact kind');
/** Prepares in flight in this process, by artifact folder: a second prepare of the same key (any store object) joins the first. */
const inFlight = new Map<string, Promise<ArtifactRef>>();

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function registerArtifactKind(kind: ArtifactKind<any, any>): void {
  if (!/^[a-z0-9][a-z0-9-]*$/.test(kind.kind))
    throw new KfError('bad_artifact_kind', `artifact kind "${kind.kind}" is not a plain folder name`, 'use lower-case letters, digits and "-"');
  kinds.add(kind.kind, kind as ArtifactKind<never>);
}

/** Artifact kinds come from the plug-ins' manifests (lib/pipeline/plugins.ts). */
function loadKindModules(): void {
  loadPlugins();
}

onPlugin((p) => {
  for (const k of p.artifactKinds ?? []) if (kinds.get(k.kind) !== k) registerArtifactKind(k);
});

export function artifactKind(name: string): ArtifactKind<Record<string, unknown>> {
  loadKindModules();
  return kinds.require(name) as unknown as ArtifactKind<Record<string, unknown>>;
}

export function artifactKinds(): string[] {
  loadKindModules();
  return kinds.names().sort();
}

/** The key of an artifact: kind, version, inputs and normalised settings, hashed. */
export function artifactKey(kind: string, version: number, inputs: ArtifactInputs, settings: Record<string, unknown>): string {
  return shortHash({ kind, version, inputs, settings: JSON.parse(canonicalJson(settings)) as unknown }, 20);
}

export function defaultArtifactRoot(): string {
  return process.env.KF_ARTIFACTS ? path.resolve(process.env.KF_ARTIFACTS) : stateDir('artifacts');
}

/** One stored artifact as `kf artifacts` lists it. */
export interface ArtifactListing {
  kind: string;
  key: string;
  dir: string;
  createdAt: string;
  bytes: number;
  inputs: ArtifactInputs;
  settings: Record<string, unknown>;
  version: number;
  /** The kind's current version differs (or the kind is not registered here): `open` refuses it. */
  stale: boolean;
  staleReason?: string;
}

function dirBytes(dir: string): number {
  let n = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) n += dirBytes(p);
    else if (e.isFile()) n += fs.statSync(p).size;
  }
  return n;
}

export interface PrepareOptions {
  log?: (line: string) => void;
  signal?: AbortSignal;
}

export class ArtifactStore {
  readonly root: string;
  constructor(opts: { root?: string } = {}) {
    this.root = path.resolve(opts.root ?? defaultArtifactRoot());
  }

  /** The key a request gets (settings normalised by the kind first). */
  keyOf(kindName: string, request: Pick<ArtifactRequest, 'inputs' | 'settings'>): string {
    const kind = artifactKind(kindName);
    return artifactKey(kind.kind, kind.version, request.inputs, kind.settings(request.settings));
  }

  dirOf(kindName: string, key: string): string {
    if (!/^[A-Za-z0-9_-]+$/.test(key))
      throw new KfError('bad_artifact_key', `"${key}" is not an artifact key`, 'copy the key from kf artifacts', { concerns: key });
    return path.join(this.root, kindName, key);
  }

  /** The stored artifact, or undefined when there is none (no freshness check: `open` and `check` do that). */
  ref(kindName: string, key: string): ArtifactRef | undefined {
    const dir = this.dirOf(kindName, key);
    const file = path.join(dir, 'manifest.json');
    if (!fs.existsSync(file)) return undefined;
    return { kind: kindName, key, dir, manifest: readJson<ArtifactManifest>(file, 'artifact manifest') };
  }

  /** Why this stored artifact may not be used for `kind` (and, when given, these inputs); undefined when it may. */
  problemWith(ref: ArtifactRef, kindName: string, inputs?: ArtifactInputs): string | undefined {
    const m = ref.manifest;
    if (m.kind !== kindName) return `foreign: ${ref.dir} holds a ${m.kind} artifact, not ${kindName}`;
    if (m.key !== ref.key) return `foreign: ${ref.dir} holds the artifact ${m.key}, not ${ref.key}`;
    const kind = artifactKind(kindName);
    if (m.version !== kind.version) return `stale: built by ${kindName} version ${m.version}, the code is at version ${kind.version}`;
    if (inputs && canonicalJson(inputs) !== canonicalJson(m.inputs)) {
      const changed = Object.keys({ ...inputs, ...m.inputs }).filter((k) => inputs[k] !== m.inputs[k]);
      return `foreign: built from other inputs (${changed.join(', ')} differ)`;
    }
    return undefined;
  }

  /** The ref for a request, building the artifact first when it is not stored yet. */
  prepare(kindName: string, request: ArtifactRequest, opts: PrepareOptions = {}): Promise<ArtifactRef> {
    const key = this.keyOf(kindName, request);
    const id = this.dirOf(kindName, key);
    let p = inFlight.get(id);
    if (!p) {
      p = this.prepareLocked(kindName, key, request, opts).finally(() => inFlight.delete(id));
      inFlight.set(id, p);
    }
    return p;
  }

  private async prepareLocked(kindName: string, key: string, request: ArtifactRequest, opts: PrepareOptions): Promise<ArtifactRef> {
    const existing = this.ref(kindName, key);
    if (existing) return this.checked(existing, kindName, request.inputs);
    const kindDir = path.join(this.root, kindName);
    fs.mkdirSync(kindDir, { recursive: true });
    const lock = await waitForPidLock(path.join(kindDir, `.${key}.lock`), {
      onWait: (h) => opts.log?.(`artifact ${kindName}/${key}: waiting for pid ${h.pid}, which is building it`),
    });
    if (!isPidLock(lock))
      throw new KfError(
        'artifact_locked',
        `cannot take the build lock of artifact ${kindName}/${key}`,
        'another build of it is running: retry when it is done',
        { concerns: kindDir },
      );
    try {
      const done = this.ref(kindName, key); // built by the process we waited for
      if (done) return this.checked(done, kindName, request.inputs);
      return await this.build(kindName, key, request, opts);
    } finally {
      lock.release();
    }
  }

  private checked(ref: ArtifactRef, kindName: string, inputs?: ArtifactInputs): ArtifactRef {
    const problem = this.problemWith(ref, kindName, inputs);
    if (problem)
      throw new KfError('artifact_refused', `artifact ${kindName}/${ref.key} is ${problem}`, `rebuild it: kf prepare ${kindName} (or delete ${ref.dir})`, {
        concerns: ref.dir,
      });
    return ref;
  }

  /** Build into a temporary folder, write the manifest, then rename it into place (a crash leaves no half artifact). */
  private async build(kindName: string, key: string, request: ArtifactRequest, opts: PrepareOptions): Promise<ArtifactRef> {
    const kind = artifactKind(kindName);
    const settings = kind.settings(request.settings);
    const dir = this.dirOf(kindName, key);
    const tmp = path.join(path.dirname(dir), `.tmp-${key}-${process.pid}-${Date.now()}`);
    fs.mkdirSync(tmp, { recursive: true });
    const log = opts.log ?? (() => undefined);
    const dependsOn: { kind: string; key: string }[] = [];
    const need = async (k: string, r: ArtifactRequest) => {
      const ref = await this.prepare(k, r, opts);
      dependsOn.push({ kind: ref.kind, key: ref.key });
      return ref;
    };
    try {
      log(`artifact ${kindName}/${key}: building`);
      const out = (await kind.build({ dir: tmp, inputs: request.inputs, settings, args: request.args ?? {}, need, log, signal: opts.signal })) ?? {};
      const manifest: ArtifactManifest = {
        kind: kindName,
        version: kind.version,
        key,
        inputs: request.inputs,
        settings,
        dependsOn: out.dependsOn ?? dependsOn,
        createdAt: new Date().toISOString(),
        gitCommit: gitInfo().commit ?? undefined,
        ...(out.stats ? { stats: out.stats } : {}),
      };
      writeJsonAtomic(path.join(tmp, 'manifest.json'), manifest);
      fs.renameSync(tmp, dir);
      return { kind: kindName, key, dir, manifest };
    } catch (e) {
      fs.rmSync(tmp, { recursive: true, force: true });
      if (e instanceof KfError) throw e;
      throw new KfError('artifact_build_failed', `building artifact ${kindName}/${key} failed: ${errorMessage(e)}`, 'see the error above; nothing was stored', {
        cause: e,
      });
    }
  }

  /**
   * Open a stored artifact for use: by key (refused when stale or of another
   * kind; with `opts.inputs`, also when built from other inputs) or by request
   * (refused when built from other inputs). Missing ones are NOT built here: call prepare.
   */
  async open<V = unknown>(
    kindName: string,
    keyOrRequest: string | ArtifactRequest,
    args: Record<string, unknown> = {},
    opts: { inputs?: ArtifactInputs } = {},
  ): Promise<{ ref: ArtifactRef; value: V }> {
    const byKey = typeof keyOrRequest === 'string';
    const key = byKey ? keyOrRequest : this.keyOf(kindName, keyOrRequest);
    const ref = this.ref(kindName, key);
    if (!ref) {
      throw new KfError(
        'artifact_missing',
        `no ${kindName} artifact ${key} under ${this.root}`,
        byKey ? 'check the key (kf artifacts lists them)' : `build it: kf prepare ${kindName}`,
        { concerns: key },
      );
    }
    this.checked(ref, kindName, byKey ? opts.inputs : keyOrRequest.inputs);
    const value = (await artifactKind(kindName).open(ref, { ...(byKey ? {} : (keyOrRequest.args ?? {})), ...args })) as V;
    return { ref, value };
  }

  /** Every stored artifact (optionally of one kind), newest first. */
  list(opts: { kind?: string } = {}): ArtifactListing[] {
    if (!fs.existsSync(this.root)) return [];
    loadKindModules();
    const out: ArtifactListing[] = [];
    const kindNames = opts.kind ? [opts.kind] : fs.readdirSync(this.root).filter((n) => !n.startsWith('.'));
    for (const k of kindNames) {
      const kindDir = path.join(this.root, k);
      if (!fs.existsSync(kindDir) || !fs.statSync(kindDir).isDirectory()) continue;
      for (const key of fs.readdirSync(kindDir).filter((n) => !n.startsWith('.'))) {
        const ref = this.ref(k, key);
        if (!ref) continue;
        const m = ref.manifest;
        const registered = kinds.get(k);
        const staleReason = !registered ? `kind ${k} is not registered here` : this.problemWith(ref, k);
        out.push({
          kind: k,
          key,
          dir: ref.dir,
          createdAt: m.createdAt,
          bytes: dirBytes(ref.dir),
          inputs: m.inputs,
          settings: m.settings,
          version: m.version,
          stale: !!staleReason,
          ...(staleReason ? { staleReason } : {}),
        });
      }
    }
    return out.sort((a, b) => b.createdAt.localeCompare(a.createdAt) || a.key.localeCompare(b.key));
  }
}
