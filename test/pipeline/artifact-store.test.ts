/**
 * The artifact store: keys are stable hashes of kind + version + inputs +
 * normalised settings; builds are atomic (a failed build stores nothing); one
 * build per key (in process and across processes via the pid lock); stale and
 * foreign artifacts are refused with the reason; kf prepare + kf artifacts work
 * on the demo tiny index, and an experiment runs on the prepared artifact.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { kfInProcess as kf } from '../_shared/cli-in-process';
import { ensureDemoWorld } from '../../lib/demo';
import type { ArtifactKind } from '../../lib/pipeline/artifact';
import { ArtifactStore, artifactKey, registerArtifactKind } from '../../lib/pipeline/artifact-store';
import { KfError } from '../../lib/util/errors';

const tmp = (p: string) => fs.mkdtempSync(path.join(os.tmpdir(), p));

let builds = 0;
let failNext = false;
const echoKind: ArtifactKind<{ word: string }, string> & { version: number } = {
  kind: 'test-echo',
  version: 1,
  description: 'writes its word into word.txt',
  settings: (raw) => ({ word: String(raw.word ?? 'hello') }),
  async build(ctx) {
    builds++;
    fs.writeFileSync(path.join(ctx.dir, 'word.txt'), ctx.settings.word);
    await new Promise((r) => setTimeout(r, 20));
    if (failNext) throw new Error('boom in the middle of a build');
    return { stats: { chars: ctx.settings.word.length } };
  },
  open: async (ref) => fs.readFileSync(path.join(ref.dir, 'word.txt'), 'utf8'),
};
registerArtifactKind(echoKind);

function refused(e: unknown, reason: RegExp): boolean {
  return e instanceof KfError && e.code === 'artifact_refused' && reason.test(e.message);
}

test('keys are stable over key order and change with kind, version, inputs and settings', () => {
  const a = artifactKey('k', 1, { corpus: 'c1', models: 'm' }, { x: 1, y: { b: 2, a: 1 } });
  assert.equal(a, artifactKey('k', 1, { models: 'm', corpus: 'c1' }, { y: { a: 1, b: 2 }, x: 1 }));
  const others = [
    artifactKey('k2', 1, { corpus: 'c1', models: 'm' }, { x: 1, y: { b: 2, a: 1 } }),
    artifactKey('k', 2, { corpus: 'c1', models: 'm' }, { x: 1, y: { b: 2, a: 1 } }),
    artifactKey('k', 1, { corpus: 'c2', models: 'm' }, { x: 1, y: { b: 2, a: 1 } }),
    artifactKey('k', 1, { corpus: 'c1', models: 'm' }, { x: 2, y: { b: 2, a: 1 } }),
  ];
  assert.equal(new Set([a, ...others]).size, 5);
  const store = new ArtifactStore({ root: tmp('kf-art-') });
  assert.equal(
    store.keyOf('test-echo', { inputs: {}, settings: {} }),
    store.keyOf('test-echo', { inputs: {}, settings: { word: 'hello' } }),
    'settings are normalised (defaults) before hashing',
  );
});

test('prepare builds once (concurrent calls share one build), atomically; open refuses stale and foreign artifacts', async () => {
  const root = tmp('kf-art-');
  const store = new ArtifactStore({ root });
  const req = { inputs: { corpus: 'abc' }, settings: { word: 'hi' } };
  builds = 0;
  const refs = await Promise.all([store.prepare('test-echo', req), store.prepare('test-echo', req), new ArtifactStore({ root }).prepare('test-echo', req)]);
  assert.equal(builds, 1, 'one build for three concurrent prepares of the same key');
  assert.equal(new Set(refs.map((r) => r.dir)).size, 1);
  const m = JSON.parse(fs.readFileSync(path.join(refs[0].dir, 'manifest.json'), 'utf8'));
  assert.deepEqual([m.kind, m.version, m.key, m.inputs, m.settings, m.stats], ['test-echo', 1, refs[0].key, { corpus: 'abc' }, { word: 'hi' }, { chars: 2 }]);
  assert.equal((await store.open<string>('test-echo', refs[0].key)).value, 'hi');
  assert.equal((await store.prepare('test-echo', req)).key, refs[0].key);
  assert.equal(builds, 1, 'a stored artifact is not rebuilt');

  // A failing build stores nothing and leaves no temporary folder.
  failNext = true;
  await assert.rejects(store.prepare('test-echo', { inputs: { corpus: 'abc' }, settings: { word: 'other' } }), /boom/);
  failNext = false;
  assert.deepEqual(
    fs.readdirSync(path.join(root, 'test-echo')).filter((n) => !n.endsWith('.lock')),
    [refs[0].key],
  );

  // Foreign: other inputs than asked; another kind's folder.
  await assert.rejects(store.open('test-echo', refs[0].key, {}, { inputs: { corpus: 'xyz' } }), (e) =>
    refused(e, /foreign: built from other inputs \(corpus differ\)/),
  );
  fs.cpSync(refs[0].dir, path.join(root, 'test-other', refs[0].key), { recursive: true });
  registerArtifactKind({ ...echoKind, kind: 'test-other' });
  await assert.rejects(store.open('test-other', refs[0].key), (e) => refused(e, /foreign: .* holds a test-echo artifact/));

  // Stale: the kind's version moved on.
  echoKind.version = 2;
  try {
    await assert.rejects(store.open('test-echo', refs[0].key), (e) => refused(e, /stale: built by test-echo version 1, the code is at version 2/));
    const listed = store.list({ kind: 'test-echo' });
    assert.equal(listed.length, 1);
    assert.equal(listed[0].stale, true);
    assert.ok(listed[0].bytes > 0);
  } finally {
    echoKind.version = 1;
  }
});

test('a build lock held by another live process is waited for, and taken over once that process is gone', async () => {
  const root = tmp('kf-art-');
  const store = new ArtifactStore({ root });
  const req = { inputs: { corpus: 'lock' }, settings: {} };
  const key = store.keyOf('test-echo', req);
  fs.mkdirSync(path.join(root, 'test-echo'), { recursive: true });
  const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
  fs.writeFileSync(path.join(root, 'test-echo', `.${key}.lock`), JSON.stringify({ pid: holder.pid, hostname: os.hostname(), startedAt: 'x' }));
  const waits: string[] = [];
  builds = 0;
  const p = store.prepare('test-echo', req, { log: (l) => waits.push(l) });
  await new Promise((r) => setTimeout(r, 400));
  assert.equal(builds, 0, 'no build while another process holds the lock');
  assert.ok(
    waits.some((l) => l.includes(`waiting for pid ${holder.pid}`)),
    waits.join('\n'),
  );
  const exited = new Promise((r) => holder.once('exit', r));
  holder.kill('SIGKILL');
  await exited;
  const ref = await p;
  assert.equal(builds, 1);
  assert.equal(ref.key, key);
  assert.ok(!fs.existsSync(path.join(root, 'test-echo', `.${key}.lock`)), 'the lock is released');
});

test('kf prepare + kf artifacts on the demo tiny index; an experiment runs on the prepared kp-index artifact', async () => {
  const dir = tmp('kf-art-cli-');
  const world = await ensureDemoWorld({ preset: 'tiny', dir: path.join(dir, 'world') });
  const root = path.join(dir, 'artifacts');
  const corpus = path.join(world.dir, 'corpus');
  const prep = [
    'prepare',
    'kp-index',
    '--set',
    `corpus=${corpus}`,
    '--set',
    'embedder=hash',
    '--set',
    'ocr=off',
    '--set',
    'benchmark=demo',
    '--root',
    root,
    '--json',
    '--quiet',
  ];
  const first = await kf(prep);
  assert.equal(first.code, 0, first.err);
  const [built] = JSON.parse(first.out);
  assert.equal(built.built, true);
  assert.equal(built.kind, 'kp-index');
  assert.ok(fs.existsSync(path.join(built.dir, 'index', 'CURRENT')), 'the index lives inside the artifact folder');
  const again = JSON.parse((await kf(prep)).out)[0];
  assert.deepEqual([again.built, again.key], [false, built.key]);

  const listed = await kf(['artifacts', '--root', root, '--json']);
  assert.equal(listed.code, 0, listed.err);
  const arts = JSON.parse(listed.out);
  assert.equal(arts.length, 1);
  assert.deepEqual([arts[0].kind, arts[0].key, arts[0].stale], ['kp-index', built.key, false]);
  assert.ok(arts[0].bytes > 0 && typeof arts[0].inputs.corpus === 'string' && arts[0].createdAt);
  const text = await kf(['artifacts', '--root', root]);
  assert.match(text.out, new RegExp(`kp-index\\s+${built.key}`));

  // An experiment over the same corpus and settings finds the same key; kf run uses it.
  const exp = path.join(dir, 'exp.toml');
  const questions = path.join(world.dir, 'questions.json');
  const body = (artifact: string) =>
    [
      'name = "art-S3"',
      'seed = 0',
      '[benchmark]',
      'name = "demo"',
      `paths = { questions = ${JSON.stringify(questions)}, corpus = ${JSON.stringify(corpus)} }`,
      '[pipeline]',
      'name = "S3"',
      '[index]',
      `artifact = "${artifact}"`,
      'embedder = "hash"',
      'options = { ingest = { ocr = "off" } }',
      '[models.cache]',
      'mode = "off"',
    ].join('\n');
  fs.writeFileSync(exp, body('auto'));
  const before = process.env.KF_ARTIFACTS;
  process.env.KF_ARTIFACTS = root;
  try {
    const p = await kf(['prepare', exp, '--json', '--quiet']);
    assert.equal(p.code, 0, p.err);
    assert.deepEqual(
      JSON.parse(p.out).map((x: { key: string; built: boolean }) => [x.key, x.built]),
      [[built.key, false]],
    );
    fs.writeFileSync(exp, body(built.key));
    const run = await kf(['run', exp, '--out', path.join(dir, 'results'), '--run-id', 'art', '--limit', '3', '--json']);
    assert.equal(run.code, 0, run.err);
    const m = JSON.parse(fs.readFileSync(path.join(dir, 'results', 'art', 'manifest.json'), 'utf8'));
    assert.equal(m.index.artifact, `kp-index/${built.key}`);
    assert.equal(m.counts.recorded, 3);
    fs.writeFileSync(exp, body('0000000000'));
    const missing = await kf(['run', exp, '--out', path.join(dir, 'results'), '--run-id', 'art2', '--limit', '1']);
    assert.equal(missing.code, 1);
    assert.match(missing.err, /no kp-index artifact 0000000000/);
  } finally {
    if (before === undefined) delete process.env.KF_ARTIFACTS;
    else process.env.KF_ARTIFACTS = before;
  }
});
