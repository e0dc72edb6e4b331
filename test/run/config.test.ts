import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { configHash, expandPath, experimentFromObject, loadExperiment, parseOverride, portablePath } from '../../lib/run/config';
import { didYouMean, schemaFields } from '../../lib/run/schema';
import { KfError } from '../../lib/util/errors';
import { benchDir, repoRoot } from '../../lib/util/paths';
import { tmpDir } from './helpers';

function write(dir: string, name: string, text: string): string {
  const f = path.join(dir, name);
  fs.mkdirSync(path.dirname(f), { recursive: true });
  fs.writeFileSync(f, text);
  return f;
}

/** Assert a KfError whose message contains every fragment (file, field, ...). */
function throwsKf(fn: () => unknown, ...fragments: (string | RegExp)[]): KfError {
  let err: unknown;
  try {
    fn();
  } catch (e) {
    err = e;
  }
  assert.ok(err instanceof KfError, `expected a KfError, got ${err}`);
  const text = `${err.message} -- ${err.hint}`;
  for (const f of fragments) {
    if (typeof f === 'string') assert.ok(text.includes(f), `"${text}" should mention "${f}"`);
    else assert.match(text, f);
  }
  return err;
}

const BASE = `
seed = 3
concurrency = 2
[benchmark]
name = "multihop-rag"
subset = "smoke"
[pipeline]
name = "S4"
settings = { template = "ours" }
[models.defaults]
temperature = 0
`;

test('TOML + extends: deep merge, child wins, defaults applied, name from the file', () => {
  const dir = tmpDir();
  write(dir, '_base.toml', BASE);
  // A pipeline that is not a configuration (no typed settings): free settings merge as they are.
  const child = write(dir, 'mhr-m5.toml', `extends = "_base.toml"\n[pipeline]\nname = "my-m5"\n[pipeline.settings]\nrounds = 4\n[limits]\nmaxErrors = 5\n`);
  const exp = loadExperiment(child);
  const c = exp.config;
  assert.equal(c.name, 'mhr-m5');
  assert.equal(c.seed, 3);
  assert.equal(c.concurrency, 2);
  assert.equal(c.pipeline.name, 'my-m5');
  assert.deepEqual(c.pipeline.settings, { template: 'ours', rounds: 4 });
  assert.equal(c.limits.maxErrors, 5);
  assert.equal(c.limits.timeoutMs, 600000);
  assert.equal(c.output.traces, 'files');
  assert.deepEqual(c.scoring.ks, [1, 2, 3, 5, 8]);
  assert.equal(c.benchmark.split, 'dev');
  assert.deepEqual(c.models.defaults, { temperature: 0 });
  assert.deepEqual(exp.files, [path.join(dir, '_base.toml'), child]);
  assert.match(exp.hash, /^[0-9a-f]{12}$/);
});

test('JSON configs load the same way; by name from an experiments folder', () => {
  const dir = tmpDir();
  write(dir, 'x.json', JSON.stringify({ benchmark: { name: 'demo' }, pipeline: { name: 'S0' } }));
  const exp = loadExperiment('x', { experimentsDir: dir });
  assert.equal(exp.config.name, 'x');
  assert.equal(exp.config.concurrency, 4);
  throwsKf(() => loadExperiment('nothing-here', { experimentsDir: dir }), 'no experiment file "nothing-here"', 'available: x');
  throwsKf(() => loadExperiment('xx', { experimentsDir: dir }), 'did you mean "x"');
});

test('unknown keys are errors naming the file and field, with a did-you-mean', () => {
  const dir = tmpDir();
  const f = write(dir, 'bad.toml', `concurency = 2\n[benchmark]\nname = "demo"\n[pipeline]\nname = "S0"\n`);
  throwsKf(() => loadExperiment(f), 'bad.toml', 'field "concurency"', 'did you mean "concurrency"');
  const g = write(dir, 'bad2.toml', `[benchmark]\nnmae = "demo"\n[pipeline]\nname = "S0"\n`);
  throwsKf(() => loadExperiment(g), 'bad2.toml', 'field "benchmark.nmae"', 'did you mean "benchmark.name"');
  const h = write(dir, 'bad3.toml', `[benchmark]\nname = "demo"\npaths = { question = "q.json" }\n[pipeline]\nname = "S0"\n`);
  throwsKf(() => loadExperiment(h), 'bad3.toml', 'benchmark.paths.question', 'did you mean "benchmark.paths.questions"');
  const i = write(dir, 'bad4.toml', `[benchmark]\nname = "demo"\n[pipeline]\nname = "S0"\n[models.stages.judge]\nmodle = "x"\n`);
  throwsKf(() => loadExperiment(i), 'bad4.toml', 'unknown field "modle"', 'model');
});

test('wrong types and values are errors naming the field and the expected type', () => {
  const dir = tmpDir();
  const cases: [string, string[]][] = [
    ['concurrency = "four"', ['field "concurrency"', 'integer >= 1', '"four"']],
    ['concurrency = 0', ['field "concurrency"', 'integer >= 1']],
    ['seed = 1.5', ['field "seed"', 'integer or string']],
    ['[limits]\ntimeoutMs = true', ['field "limits.timeoutMs"', 'integer']],
    ['[output]\ntraces = "file"', ['field "output.traces"', 'did you mean "files"']],
    ['[scoring]\nks = [1, "3"]', ['field "scoring.ks[1]"']],
    ['[models.defaults]\napiKey = "sk-123"', ['never read from config files']],
    ['[caps]\ntopk = "8"', ['field "caps.topk"', 'number']],
  ];
  for (const [extra, frags] of cases) {
    const f = write(dir, 'typed.toml', `[benchmark]\nname = "demo"\n[pipeline]\nname = "S0"\n${extra}\n`);
    // Top-level keys must come before tables in TOML: put them first when they are plain assignments.
    if (!extra.startsWith('[')) fs.writeFileSync(f, `${extra}\n[benchmark]\nname = "demo"\n[pipeline]\nname = "S0"\n`);
    throwsKf(() => loadExperiment(f), 'typed.toml', ...frags);
  }
  const e = write(dir, 'enum.toml', `[benchmark]\nname = "mmlongbench"\n[pipeline]\nname = "S0"\n`);
  throwsKf(() => loadExperiment(e), 'field "benchmark.name"', 'did you mean "mmlongbench-doc"');
});

test('required fields, bad extends (missing, cycle), syntax errors', () => {
  const dir = tmpDir();
  const a = write(dir, 'noname.toml', `[benchmark]\nname = "demo"\n`);
  throwsKf(() => loadExperiment(a), 'noname.toml', 'field "pipeline" is required');
  const b = write(dir, 'nopipe.toml', `[benchmark]\nname = "demo"\n[pipeline]\nsettings = {}\n`);
  throwsKf(() => loadExperiment(b), 'field "pipeline.name" is required');
  const c = write(dir, 'ext.toml', `extends = "missing.toml"\n`);
  throwsKf(() => loadExperiment(c), 'ext.toml', 'field "extends"', 'does not exist');
  write(dir, 'c1.toml', `extends = "c2.toml"\n`);
  const c2 = write(dir, 'c2.toml', `extends = "c1.toml"\n`);
  throwsKf(() => loadExperiment(c2), 'makes a cycle', 'c1.toml -> ', 'c2.toml');
  const d = write(dir, 'syntax.toml', `[benchmark]\nname = "demo\n`);
  throwsKf(() => loadExperiment(d), /syntax\.toml:2:\d+: invalid TOML/);
  const e = write(dir, 'list.json', '[1,2]');
  throwsKf(() => loadExperiment(e), 'list.json', 'top level must be a table');
  const f = write(dir, 'caps.toml', `[benchmark]\nname = "demo"\n[pipeline]\nname = "S0"\nsettings = { topk = 5 }\n[caps]\ntopk = 8\n`);
  throwsKf(() => loadExperiment(f), 'caps.topk', 'also set in pipeline.settings.topk');
});

test('paths: relative to the declaring file; ${bench}/${repo} prefixes are kept portable', () => {
  const dir = tmpDir();
  write(dir, 'sub/base.toml', `[benchmark]\nname = "demo"\npaths = { questions = "data/q.json", corpus = "\${bench}/demo/corpus" }\n[pipeline]\nname = "S0"\n`);
  const child = write(dir, 'top.toml', `extends = "sub/base.toml"\n[index]\ndir = "idx"\n`);
  const c = loadExperiment(child).config;
  assert.equal(c.benchmark.paths.questions, path.join(dir, 'sub', 'data', 'q.json'));
  assert.equal(c.benchmark.paths.corpus, '${bench}/demo/corpus');
  assert.equal(expandPath(c.benchmark.paths.corpus), benchDir('demo', 'corpus'));
  assert.equal(c.index?.dir, path.join(dir, 'idx'));
  assert.equal(portablePath(path.join(repoRoot(), 'experiments', 'x.json')), '${repo}/experiments/x.json');
  // Subset keywords stay words; a subset file is a path.
  const s = write(dir, 'subset.toml', `[benchmark]\nname = "demo"\nsubset = "ids.json"\n[pipeline]\nname = "S0"\n`);
  assert.equal(loadExperiment(s).config.benchmark.subset, path.join(dir, 'ids.json'));
  throwsKf(() => experimentFromObject({ benchmark: { name: 'demo', paths: { questions: '${nope}/q.json' } }, pipeline: { name: 'S0' } }), 'unknown prefix');
});

test('overrides are typed by the schema; unknown paths get a did-you-mean', () => {
  assert.deepEqual(parseOverride('limits.maxErrors=5'), { path: 'limits.maxErrors', value: 5, text: 'limits.maxErrors=5' });
  assert.equal(parseOverride('scoring.judge=true').value, true);
  assert.equal(parseOverride('scoring.judge=no').value, false);
  assert.equal(parseOverride('seed=12').value, 12);
  assert.equal(parseOverride('seed=paper-a').value, 'paper-a');
  assert.equal(parseOverride('pipeline.settings.template=ours').value, 'ours');
  assert.equal(parseOverride('pipeline.settings.rounds=4').value, 4);
  assert.deepEqual(parseOverride('pipeline.settings.caps={"a":1}').value, { a: 1 });
  assert.deepEqual(parseOverride('output.buckets=type,hops').value, ['type', 'hops']);
  assert.deepEqual(parseOverride('scoring.ks=1,5').value, [1, 5]);
  assert.equal(parseOverride('caps.poolChars=12000').value, 12000);
  assert.equal(parseOverride('benchmark.subset=mid').value, 'mid');
  assert.deepEqual(parseOverride('models.defaults.base_url=http://localhost:8000/v1'), {
    path: 'models.defaults.baseUrl',
    value: 'http://localhost:8000/v1',
    text: 'models.defaults.base_url=http://localhost:8000/v1',
  });
  assert.equal(parseOverride('models.stages.judge.temperature=0.3').value, 0.3);
  assert.equal(parseOverride('models.stages.judge.model=7').value, '7');
  assert.deepEqual(parseOverride('models.defaults.extraBody={"x":1}').value, { x: 1 });
  throwsKf(() => parseOverride('limits.maxErrors=many'), 'override limits.maxErrors', 'expected integer >= 1', '"many"');
  throwsKf(() => parseOverride('limits.maxErorrs=3'), 'not a known field', 'did you mean "limits.maxErrors"');
  throwsKf(() => parseOverride('concurrency'), 'is not key.path=value');
  throwsKf(() => parseOverride('seed.x=1'), 'has no field "x"');
  throwsKf(() => parseOverride('extends=a.toml'), 'cannot be overridden');
});

test('overrides apply after the files, with the same validation; the hash ignores non-result fields', () => {
  const raw = { benchmark: { name: 'demo' }, pipeline: { name: 'S0' } };
  const a = experimentFromObject(raw);
  const b = experimentFromObject(raw, { overrides: ['concurrency=8', 'limits.maxQuestions=3', 'benchmark.subset=smoke', 'output.traces=off'] });
  assert.equal(b.config.concurrency, 8);
  assert.equal(b.config.limits.maxQuestions, 3);
  assert.equal(a.hash, b.hash, 'concurrency/limits/subset/output do not change answers');
  const c = experimentFromObject(raw, { overrides: ['pipeline.settings.template=ours'] });
  assert.notEqual(a.hash, c.hash);
  const d = experimentFromObject(raw, { overrides: ['seed=9'] });
  assert.notEqual(a.hash, d.hash);
  assert.equal(configHash(d.config), d.hash);
  throwsKf(() => experimentFromObject(raw, { overrides: ['output.traces=all'] }), '--override output.traces=all', 'must be one of files, jsonl, off');
  throwsKf(() => experimentFromObject(raw, { overrides: ['models.defaults.temperature=3'] }), '--override', 'temperature');
  throwsKf(() => experimentFromObject(raw, { overrides: ['benchmark.paths.nope=x'] }), 'benchmark.paths.nope');
});

test('did-you-mean and the field reference cover the schema', () => {
  assert.equal(didYouMean('concurency', ['concurrency', 'seed']), 'concurrency');
  assert.equal(didYouMean('xyz', ['concurrency', 'seed']), undefined);
  const doc = fs.readFileSync(path.join(repoRoot(), 'experiments', '_schema.md'), 'utf8');
  const missing = schemaFields()
    .map((f) => f.path)
    .filter((p) => !doc.includes(`\`${p}\``));
  assert.deepEqual(missing, [], 'every schema field is documented in experiments/_schema.md');
});
