/**
 * `kf train gnn --preset paper` over REAL HTTP against the scripted server: the paper's GNN (6 x 512, Enc(q) from
 * the embeddings stage, no prior) trained and compared under the same k-fold as the cpu preset, on a tiny corpus
 * of our own in the 2Wiki file format. Every query text goes to the endpoint once; the report, the table heading
 * and the checkpoint name the preset and the embedding model; without an endpoint the command refuses before any
 * work, naming the variables to set; `kf train gnn pool` refuses to pool two presets.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { kfInProcess } from '../_shared/cli-in-process';
import { ownScratch } from '../_shared/scratch';
import { PAINTER_PASSAGES, PAINTER_QUESTIONS } from './painter-world.helper';
import { ScriptedServer } from '../../lib/models/testing/scripted-server';
import { checkpointIdentity } from '../../lib/dualg/gnn/identity';
import { SECRET } from '../models/helpers';

const PASSAGES = PAINTER_PASSAGES;
const QUESTIONS = [
  ...PAINTER_QUESTIONS.map((q, i) => ({ _id: `q${i + 1}`, ...q })),
  { _id: 'q4', question: 'When did Joris Amsel die?', gold_titles: ['Joris Amsel'] },
];
/** Endpoint settings this test sets or clears (restored after). */
const ENV = ['KF_EMBED_BASE_URL', 'KF_EMBEDDING_BASE_URL', 'OPENAI_BASE_URL', 'KF_EMBED_MODEL', 'KF_EMBEDDING_MODEL', 'OPENAI_API_KEY', 'KF_TF_BACKEND'];

/** One deterministic 8-d vector per text (character statistics), so texts differ. */
const vectorOf = (t: string) => [t.length, (t.match(/[aeiou]/g) ?? []).length, (t.match(/ /g) ?? []).length, t.charCodeAt(0), t.charCodeAt(1) || 0, 1, 2, 3];

test('kf train gnn --preset paper: Enc(q) from the endpoint (each text once), paper 6x512 in report and checkpoint; refused without an endpoint', async () => {
  const dir = ownScratch('kf-paper-train-');
  const saved = Object.fromEntries(ENV.map((k) => [k, process.env[k]]));
  for (const k of ENV) delete process.env[k];
  const server = await ScriptedServer.start();
  server.on({ kind: 'embeddings', reply: (req) => ({ embeddings: (req.body.input as string[]).map(vectorOf) }) });
  try {
    const data = path.join(dir, 'data');
    fs.mkdirSync(data);
    fs.writeFileSync(path.join(data, '2wiki_corpus.json'), JSON.stringify(PASSAGES));
    fs.writeFileSync(path.join(data, '2wiki_questions.dev.json'), JSON.stringify(QUESTIONS));
    const index = path.join(dir, 'index');
    const files = ['--corpus', path.join(data, '2wiki_corpus.json'), '--questions', path.join(data, '2wiki_questions.dev.json')];
    const built = await kfInProcess([
      'eval',
      'retrieval',
      '--bench',
      '2wiki',
      ...files,
      '--index',
      index,
      '--embedder',
      'hash',
      '--mode',
      'hybrid',
      '--k',
      '2',
      '--quiet',
    ]);
    assert.equal(built.code, 0, built.err);
    const out = path.join(dir, 'out');
    const ck = path.join(dir, 'ck');
    const train = ['train', 'gnn', '--preset', 'paper', '--bench', '2wiki', '--data', data, '--index', index, '--out', out, '--checkpoints', ck];
    const tiny = ['--kg', '8', '--generated', '40', '--epochs', '1', '--folds', '2', '--fold-epochs', '1', '--replay', '1'];

    // No endpoint: refused before any data is read or any model trained, naming what to set.
    const refused = await kfInProcess([...train, ...tiny]);
    assert.notEqual(refused.code, 0);
    assert.match(refused.err, /KF_EMBED_BASE_URL/);
    assert.match(refused.err, /KF_EMBED_MODEL/);
    assert.ok(!fs.existsSync(ck) && !fs.existsSync(out), 'nothing trained or written');
    assert.equal(server.requests.length, 0);

    process.env.KF_EMBED_BASE_URL = server.url;
    process.env.KF_EMBED_MODEL = 'sentence-encoder';
    process.env.OPENAI_API_KEY = SECRET;
    const kgRefused = await kfInProcess([...train, ...tiny, '--pretrain-epochs', '1']);
    assert.notEqual(kgRefused.code, 0);
    assert.match(kgRefused.err, /cannot KG-pretrain/);

    const r = await kfInProcess([...train, ...tiny]);
    assert.equal(r.code, 0, r.err);
    const sent = server.requests.filter((q) => q.kind === 'embeddings').flatMap((q) => q.body.input as string[]);
    for (const q of QUESTIONS) assert.ok(sent.includes(q.question), `dev question embedded: ${q.question}`);
    assert.equal(new Set(sent).size, sent.length, 'each text embedded once');
    assert.ok(sent.length > QUESTIONS.length, 'the generated training queries are embedded too');

    const report = JSON.parse(fs.readFileSync(path.join(out, '2wiki-gnn.json'), 'utf8'));
    assert.equal(report.gnn.preset, 'paper');
    assert.equal(report.gnn.label, 'paper 6x512');
    assert.equal(report.gnn.queryEncoder, 'embeddings');
    assert.match(report.gnn.embeddingModel, /sentence-encoder/);
    assert.match(report.gnn.prior, /hybrid-rank feature does not apply/);
    assert.equal(report.gnn.tfBackend, report.backend);
    // A world this small yields fewer generated questions than the 20 kept for validation: the fold models are what train here.
    assert.ok(report.counts.baseVal > 0 && report.counts.dev === QUESTIONS.length, JSON.stringify(report.counts));
    for (const f of [0, 1]) {
      const fold = checkpointIdentity(path.join(ck, 'kfold', `2wiki-fold-${f}`, 'last'));
      assert.deepEqual([fold.preset, fold.queryEncoder], ['paper', 'embeddings'], `fold ${f}`);
      assert.match(fold.trainedOn, /dev questions outside fold/);
    }
    assert.deepEqual([report.config.layers, report.config.hidden, report.config.inputDim, report.config.prior], [6, 512, 8, false]);
    assert.ok(report.perQuestion['dualg-gnn-kfold'].length === QUESTIONS.length, 'the retriever level ran with the paper model');
    const md = fs.readFileSync(path.join(out, '2wiki-gnn.md'), 'utf8');
    assert.match(md, /GNN paper 6x512, Enc\(q\) embeddings \([^)]*sentence-encoder\), no prior/);
    assert.match(md, /no prior \(the paper preset\) reads neither the heuristic nor the hybrid rank/);
    const base = fs.existsSync(path.join(ck, '2wiki-base', 'best')) ? path.join(ck, '2wiki-base', 'best') : path.join(ck, '2wiki-base', 'last');
    const id = checkpointIdentity(base);
    assert.deepEqual([id.preset, id.layers, id.hidden, id.queryEncoder, id.prior], ['paper', 6, 512, 'embeddings', 'none']);
    assert.match(id.trainedOn, /queries embedded by [^,]*sentence-encoder/);

    // Pooling: the paper report alone pools; with a report of another preset it is refused.
    const pooled = await kfInProcess(['train', 'gnn', 'pool', path.join(out, '2wiki-gnn.json'), '--out', path.join(dir, 'pooled')]);
    assert.equal(pooled.code, 0, pooled.err);
    assert.match(pooled.out, /GNN paper 6x512/);
    const cpu = path.join(dir, 'cpu-gnn.json');
    fs.writeFileSync(cpu, JSON.stringify({ ...report, bench: 'other', gnn: { ...report.gnn, preset: 'cpu', label: 'cpu 2x64' } }));
    const mixed = await kfInProcess(['train', 'gnn', 'pool', path.join(out, '2wiki-gnn.json'), cpu, '--out', path.join(dir, 'pooled')]);
    assert.notEqual(mixed.code, 0);
    assert.match(mixed.err, /different GNN presets \(paper, cpu\)/);
  } finally {
    await server.close();
    for (const k of ENV)
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
