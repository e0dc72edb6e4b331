/**
 * The `kf` command as a user meets it, given bad input: unknown commands and
 * flags, missing or wrong arguments, missing files and folders, unwritable
 * outputs, malformed configs, damaged records, an empty corpus, benchmarks that
 * are not there. Each case runs the COMPILED CLI (bin/kf.js -> dist/) as a
 * child process and checks the exit code (2 for usage errors, 1 otherwise),
 * ONE stderr line `kf <cmd>: error: <what> -- <what to do>` (or `kf: ...` for
 * usage), no stack trace, and that nothing already written was lost.
 */
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readRecords } from '../../lib/run/records';
import { makeQuestions, tmpDir, writeBench } from '../run/helpers';
import {
  assertCommandError,
  assertNoTrace,
  assertUsageError,
  cannotRunCompiled,
  errorLines,
  kf,
  readOnlyPath,
  SLOW_PIPELINE,
  snapshot,
  type KfResult,
} from './helpers';

const skip = cannotRunCompiled();

// ---------------------------------------------------------------- fixtures
const root = tmpDir('kf-bad-input-');
const F = {
  root,
  file: path.join(root, 'a-file'),
  empty: path.join(root, 'empty-corpus'),
  results: path.join(root, 'results'),
  exp: path.join(root, 'exp.toml'),
  badToml: path.join(root, 'bad.toml'),
  badJson: path.join(root, 'bad.json'),
  unknownKey: path.join(root, 'unknown-key.toml'),
  badModels: path.join(root, 'bad-models.toml'),
  badExtends: path.join(root, 'bad-extends.toml'),
  badBench: path.join(root, 'bad-bench.toml'),
  badPipeline: path.join(root, 'bad-pipeline.toml'),
  notJsonSpec: path.join(root, 'spec.json'),
  notSqlite: path.join(root, 'cache.sqlite'),
  nowhere: path.join(root, 'no', 'such', 'thing'),
};
fs.writeFileSync(F.file, 'I am a file, not a folder\n');
fs.mkdirSync(F.empty);
fs.writeFileSync(path.join(F.empty, 'notes.docx'), 'not a supported document');
writeBench(root, makeQuestions(12));
const EXP_BODY = `seed = 5\nconcurrency = 2\n[benchmark]\nname = "demo"\npaths = { questions = "questions.json", corpus = "corpus" }\n[pipeline]\nname = "slow-fake"\n`;
fs.writeFileSync(F.exp, EXP_BODY);
fs.writeFileSync(F.badToml, 'seed = 5\n[benchmark\nname = "demo"\n');
fs.writeFileSync(F.badJson, '{"seed": 5,\n "benchmark": {"name": "demo"},\n}\n');
fs.writeFileSync(F.unknownKey, EXP_BODY.replace('seed = 5', 'sede = 5'));
fs.writeFileSync(F.badModels, `${EXP_BODY}[models.defaults]\nmodle = "qwen3"\n`);
fs.writeFileSync(F.badExtends, `extends = "no-such-base.toml"\n${EXP_BODY}`);
fs.writeFileSync(F.badBench, EXP_BODY.replace('name = "demo"', 'name = "no-such-bench"'));
fs.writeFileSync(F.badPipeline, EXP_BODY.replace('slow-fake', 'no-such-pipeline'));
fs.writeFileSync(F.notJsonSpec, 'not json\nat all\n');
fs.writeFileSync(F.notSqlite, 'not a database');
const env = { KF_PLUGINS: SLOW_PIPELINE };
const runA = path.join(F.results, 'A');
const runB = path.join(F.results, 'B');
const ro = readOnlyPath();

let beforeRuns: Record<string, string> = {};

before(async () => {
  if (skip) return;
  const [a, b] = await Promise.all([
    kf(['run', F.exp, '--out', F.results, '--run-id', 'A'], { env, cwd: root }),
    kf(['run', F.exp, '--out', F.results, '--run-id', 'B', '-o', 'seed=6'], { env, cwd: root }),
  ]);
  assert.equal(a.code, 0, `setup run A: ${a.stderr}`);
  assert.equal(b.code, 0, `setup run B: ${b.stderr}`);
  beforeRuns = snapshot(F.results);
});

// ---------------------------------------------------------------- cases
interface Case {
  name: string;
  args: () => string[];
  env?: Record<string, string>;
  /** Usage error (exit 2, `kf: ...`); otherwise a command error of this command. */
  usage?: boolean;
  cmd?: string;
  /** What the one line must say (the "what" part, or the whole usage line). */
  what?: RegExp;
  /** What it must tell the user to do. */
  todo?: RegExp;
  /** Extra checks (nothing written, nothing lost). */
  check?: (r: KfResult) => void;
}

const notCreated = (p: string) => () => assert.ok(!fs.existsSync(p), `${p} must not be created`);

const cases: Case[] = [
  // Unknown commands and flags
  { name: 'unknown command', args: () => ['frobnicate'], usage: true, what: /unknown command 'frobnicate'/ },
  {
    name: 'unknown subcommand of a group',
    args: () => ['cache', 'nuke'],
    usage: true,
    what: /unknown command 'cache nuke'.*did you mean: cache clear, cache stats/,
  },
  { name: 'a group without its subcommand', args: () => ['eval'], usage: true, what: /'eval' needs a subcommand: eval retrieval/ },
  { name: 'an option before any command', args: () => ['--bogus'], usage: true, what: /unknown option '--bogus'/ },
  { name: 'help for an unknown command', args: () => ['help', 'frob'], usage: true, what: /unknown command 'frob'/ },
  { name: 'unknown flag', args: () => ['runs', '--bogus'], usage: true, what: /unknown option '--bogus' for 'kf runs'/ },
  { name: 'unknown short flag', args: () => ['run', F.exp, '-z'], usage: true, what: /unknown option '-z' for 'kf run'/ },
  { name: 'unexpected argument', args: () => ['doctor', 'now'], usage: true, what: /unexpected argument "now" for 'kf doctor'/ },
  // Missing required flags and arguments
  {
    name: 'missing required flag',
    args: () => ['subset', '--n', '3', '--out', path.join(root, 'x.json')],
    usage: true,
    what: /missing --bench for 'kf subset'/,
  },
  { name: 'missing second run', args: () => ['compare', 'A'], usage: true, what: /missing <runB> for 'kf compare'/ },
  { name: 'missing runs', args: () => ['report'], usage: true, what: /missing <runs> for 'kf report'/ },
  { name: 'missing --out', args: () => ['index', 'build', '--corpus', F.empty], usage: true, what: /missing --out for 'kf index build'/ },
  { name: 'missing experiment', args: () => ['run'], usage: true, what: /missing <experiment> for 'kf run'/ },
  { name: 'flag without its value', args: () => ['runs', '--results'], usage: true, what: /option '--results' of 'kf runs' needs a value/ },
  // Wrong value types and choices
  {
    name: 'zero where a positive integer is needed',
    args: () => ['run', F.exp, '--limit', '0'],
    usage: true,
    what: /--limit: expected a positive integer, got "0"/,
  },
  {
    name: 'a negative number (parsed as a flag)',
    args: () => ['run', F.exp, '--limit', '-3'],
    usage: true,
    what: /option '--limit' of 'kf run' is followed by a value starting with a dash.*--limit=<value>/,
  },
  { name: 'not a number', args: () => ['compare', 'A', 'B', '--margin', 'wide'], usage: true, what: /--margin: expected a number, got "wide"/ },
  {
    name: 'not one of the choices',
    args: () => ['compare', 'A', 'B', '--errors', 'maybe'],
    usage: true,
    what: /--errors must be one of zero\|drop, got "maybe"/,
  },
  {
    name: 'unknown benchmark name',
    args: () => ['subset', '--bench', 'no-such-bench', '--n', '3', '--out', path.join(root, 'x.json')],
    usage: true,
    what: /--bench must be one of .*demo\|own, got "no-such-bench"/,
  },
  {
    name: 'bad list of cut-offs',
    args: () => ['eval', 'retrieval', '--bench', 'demo', '--k', 'a,b'],
    usage: true,
    what: /--k.*comma-separated list of positive integers/,
  },
  { name: 'a value given to a switch', args: () => ['runs', '--json=yes'], usage: true, what: /option '--json' of 'kf runs' takes no value/ },
  // Missing files and folders
  {
    name: 'missing corpus folder (index build)',
    args: () => ['index', 'build', '--corpus', F.nowhere, '--out', path.join(root, 'idx-1'), '--offline'],
    cmd: 'index build',
    what: /--corpus .*no\/such\/thing does not exist/,
    todo: /pass a folder of documents/,
    check: notCreated(path.join(root, 'idx-1')),
  },
  {
    name: 'missing path (ingest)',
    args: () => ['ingest', F.nowhere],
    cmd: 'ingest',
    what: /no\/such\/thing does not exist/,
    todo: /pass a file or a corpus folder/,
  },
  {
    name: 'missing corpus (eval retrieval)',
    args: () => [
      'eval',
      'retrieval',
      '--bench',
      'demo',
      '--corpus',
      F.nowhere,
      '--questions',
      path.join(root, 'questions.json'),
      '--cache',
      path.join(root, 'idx-cache'),
    ],
    cmd: 'eval retrieval',
    what: /no\/such\/thing does not exist/,
    check: notCreated(path.join(root, 'idx-cache')),
  },
  {
    name: 'missing questions file',
    args: () => ['subset', '--bench', 'demo', '--n', '3', '--questions', F.nowhere, '--out', path.join(root, 'x.json')],
    cmd: 'subset',
    what: /questions file .*no\/such\/thing does not exist/,
    todo: /--questions/,
    check: notCreated(path.join(root, 'x.json')),
  },
  {
    name: 'missing experiment file',
    args: () => ['run', F.nowhere + '.toml'],
    cmd: 'run',
    what: /no experiment file/,
    todo: /\.toml or \.json experiment file/,
  },
  {
    name: 'missing run (compare)',
    args: () => ['compare', 'no-such-run', 'A', '--results', F.results],
    cmd: 'compare',
    what: /no run "no-such-run"/,
    todo: /kf runs lists the 2 run\(s\)/,
  },
  {
    name: 'a misspelt run id gets a did-you-mean',
    args: () => ['report', 'AA', '--results', F.results],
    cmd: 'report',
    what: /no run "AA"/,
    todo: /did you mean "A"\?/,
  },
  {
    name: 'missing results folder',
    args: () => ['runs', '--results', F.nowhere],
    cmd: 'runs',
    what: /--results .*no\/such\/thing does not exist/,
    todo: /folder that holds run folders/,
  },
  { name: 'a file as results folder', args: () => ['runs', '--results', F.file], cmd: 'runs', what: /is a file, not a folder/ },
  {
    name: 'missing notebook folder',
    args: () => ['notebooks', '--dir', F.nowhere, '--out', path.join(root, 'nb')],
    cmd: 'notebooks',
    what: /notebook folder .*cannot be read/,
    check: notCreated(path.join(root, 'nb')),
  },
  {
    name: 'missing model cache',
    args: () => ['cache', 'stats', '--file', F.nowhere],
    cmd: 'cache stats',
    what: /model cache .* does not exist/,
    todo: /--file/,
  },
  {
    name: 'a file that is not a model cache',
    args: () => ['cache', 'clear', '--file', F.notSqlite, '--yes'],
    cmd: 'cache clear',
    what: /not a database/,
    check: () => assert.equal(fs.readFileSync(F.notSqlite, 'utf8'), 'not a database'),
  },
  { name: 'missing figure spec', args: () => ['figures', 'render', F.nowhere + '.json'], cmd: 'figures render', what: /figure spec .* cannot be read/ },
  {
    name: 'a figure spec that is not JSON (message quotes it: still one line)',
    args: () => ['figures', 'render', F.notJsonSpec, '--out', path.join(root, 'figs')],
    cmd: 'figures render',
    what: /is not valid JSON/,
  },
  // Empty corpus
  { name: 'empty corpus folder (ingest)', args: () => ['ingest', F.empty], cmd: 'ingest', what: /holds no document/, todo: /check the path/ },
  {
    name: 'empty corpus folder (index build)',
    args: () => ['index', 'build', '--corpus', F.empty, '--out', path.join(root, 'idx-2'), '--offline'],
    cmd: 'index build',
    what: /holds no document/,
    check: notCreated(path.join(root, 'idx-2')),
  },
  // Benchmarks that are not there (KF_SHARED pointing nowhere)
  {
    name: 'benchmark defaults missing (subset)',
    env: { KF_SHARED: F.nowhere },
    args: () => ['subset', '--bench', '2wiki', '--n', '3', '--out', path.join(root, 'x.json')],
    cmd: 'subset',
    what: /no\/such\/thing\/bench\/.* does not exist/,
    todo: /--questions/,
  },
  {
    name: 'benchmark defaults missing (eval retrieval)',
    env: { KF_SHARED: F.nowhere },
    args: () => ['eval', 'retrieval', '--bench', 'musique', '--cache', path.join(root, 'idx-cache')],
    cmd: 'eval retrieval',
    what: /no\/such\/thing\/bench\/.*cannot be read/,
    todo: /benchmarks live in/,
  },
  {
    name: 'benchmark defaults missing (index build)',
    env: { KF_SHARED: F.nowhere },
    args: () => ['index', 'build', '--bench', 'hotpotqa', '--out', path.join(root, 'idx-3'), '--offline'],
    cmd: 'index build',
    what: /no\/such\/thing\/bench\/.* does not exist/,
    check: notCreated(path.join(root, 'idx-3')),
  },
  // Unwritable outputs: a path under a file, and a read-only location
  {
    name: 'run: --out under a file',
    args: () => ['run', F.exp, '--out', path.join(F.file, 'sub')],
    cmd: 'run',
    what: /a-file\/sub\/.* is not writable \(ENOTDIR\)/,
    todo: /a part of the path is a file/,
  },
  { name: 'report: --out under a file', args: () => ['report', runA, '--out', path.join(F.file, 'sub')], cmd: 'report', what: /a-file\/sub is not writable/ },
  {
    name: 'ingest: --out under a file',
    args: () => ['ingest', path.join(root, 'corpus'), '--out', path.join(F.file, 'sub')],
    cmd: 'ingest',
    what: /--out folder .*a-file\/sub is not writable/,
  },
  {
    name: 'subset: --out under a file',
    args: () => ['subset', '--bench', 'demo', '--n', '3', '--questions', path.join(root, 'questions.json'), '--out', path.join(F.file, 'sub', 'x.json')],
    cmd: 'subset',
    what: /cannot write .*a-file\/sub\/x\.json \(ENOTDIR\)/,
  },
  {
    name: 'index build: --out under a file',
    args: () => ['index', 'build', '--corpus', path.join(root, 'corpus'), '--out', path.join(F.file, 'idx'), '--offline', '--quiet'],
    cmd: 'index build',
    what: /index directory .*a-file\/idx is not writable/,
  },
  {
    name: 'eval retrieval: --out under a file fails before any index is built',
    args: () => [
      'eval',
      'retrieval',
      '--bench',
      'demo',
      '--corpus',
      path.join(root, 'corpus'),
      '--questions',
      path.join(root, 'questions.json'),
      '--out',
      path.join(F.file, 'out'),
      '--cache',
      path.join(root, 'idx-cache-2'),
      '--offline',
      '--quiet',
    ],
    cmd: 'eval retrieval',
    what: /--out folder .*a-file\/out is not writable/,
    check: notCreated(path.join(root, 'idx-cache-2')),
  },
  {
    name: 'demo generate: --out under a file',
    args: () => ['demo', 'generate', '--preset', 'tiny', '--out', path.join(F.file, 'world')],
    cmd: 'demo generate',
    what: /is a file, not a directory/,
  },
  {
    name: 'notebooks: --out under a file',
    args: () => ['notebooks', '--dir', path.join(root, 'no-notebooks-here'), '--out', path.join(F.file, 'nb')],
    cmd: 'notebooks',
    what: /cannot be read|not writable/,
  },
  ...(ro
    ? [
        {
          name: 'run: --out on a read-only location',
          args: () => ['run', F.exp, '--out', ro],
          cmd: 'run',
          what: /is not writable \((EPERM|EACCES|EROFS)\)/,
          todo: /writable directory/,
        } as Case,
        {
          name: 'report: --out on a read-only location',
          args: () => ['report', runA, '--out', ro],
          cmd: 'report',
          what: /is not writable \((EPERM|EACCES|EROFS)\)/,
        } as Case,
      ]
    : []),
  // Malformed configs
  {
    name: 'experiment: bad TOML names the line',
    args: () => ['run', F.badToml, '--dry-run'],
    cmd: 'run',
    what: /bad\.toml:2:\d+: invalid TOML/,
    todo: /fix the syntax at that line/,
  },
  {
    name: 'experiment: bad JSON',
    args: () => ['run', F.badJson, '--dry-run'],
    cmd: 'run',
    what: /bad\.json:\d+:\d+: invalid JSON/,
    todo: /JSON has no comments or trailing commas/,
  },
  {
    name: 'experiment: unknown key gets a did-you-mean',
    args: () => ['run', F.unknownKey, '--dry-run'],
    cmd: 'run',
    what: /field "sede" is not a known field/,
    todo: /seed/,
  },
  {
    name: 'experiment: unknown key in [models]',
    args: () => ['run', F.badModels, '--dry-run'],
    cmd: 'run',
    what: /models\.defaults: unknown field "modle"/,
    todo: /known fields: .*model/,
  },
  {
    name: 'experiment: extends a missing file',
    args: () => ['run', F.badExtends, '--dry-run'],
    cmd: 'run',
    what: /"extends" names .*no-such-base\.toml, which does not exist/,
  },
  {
    name: 'experiment: benchmark that does not exist',
    args: () => ['run', F.badBench, '--dry-run'],
    cmd: 'run',
    what: /"benchmark\.name" must be one of/,
    todo: /pick one of the listed values/,
  },
  {
    name: 'experiment: pipeline that does not exist (dry run checks it too)',
    env,
    args: () => ['run', F.badPipeline, '--dry-run'],
    cmd: 'run',
    what: /no pipeline named "no-such-pipeline"/,
    todo: /slow-fake/,
  },
  {
    name: 'experiment: override of an unknown field',
    args: () => ['run', F.exp, '-o', 'limits.maxErors=3', '--dry-run'],
    cmd: 'run',
    what: /override "limits\.maxErors=3"/,
    todo: /maxErrors/,
  },
  {
    name: 'experiment: override of the wrong type',
    args: () => ['run', F.exp, '-o', 'concurrency=many', '--dry-run'],
    cmd: 'run',
    what: /override concurrency: expected integer >= 1, got "many"/,
  },
  {
    name: 'experiment: run id that escapes the results folder',
    args: () => ['run', F.exp, '--run-id', '../evil', '--dry-run'],
    cmd: 'run',
    what: /run id "\.\.\/evil" is not a plain folder name/,
  },
  { name: 'models config: bad TOML', args: () => ['models', '--config', F.badToml], cmd: 'models', what: /bad\.toml:\d+:\d+ is not valid TOML/ },
  { name: 'models config: unknown key', args: () => ['models', '--config', F.badModels], cmd: 'models', what: /unknown field "modle"/ },
  {
    name: 'models: an endpoint URL that is not a URL',
    env: { OPENAI_BASE_URL: 'not a url', KF_MODEL: 'm' },
    args: () => ['models', '--stage', 'judge'],
    cmd: 'models',
    what: /1 stage\(s\) have a bad setting \(judge\)/,
    todo: /fix the setting each ERROR line names/,
    check: (r) => assert.match(r.stdout, /judge .*ERROR .*OPENAI_BASE_URL: must be an http\(s\) URL/),
  },
  {
    name: 'models --check: an endpoint that does not answer',
    env: { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', KF_MODEL: 'm' },
    args: () => ['models', '--check', '--stage', 'judge'],
    cmd: 'models',
    what: /1 endpoint\(s\) did not answer \(http:\/\/127\.0\.0\.1:9\/v1\)/,
    todo: /start the server/,
  },
  // Runs: wrong names, damaged files; the runs themselves are left alone
  { name: 'compare a run with itself', args: () => ['compare', runA, runA], cmd: 'compare', what: /both arguments name the run A/ },
  {
    name: 'compare on a misspelt metric',
    args: () => ['compare', runA, runB, '--metric', 'f2'],
    cmd: 'compare',
    what: /has no metric "f2"/,
    todo: /did you mean "f1"\?/,
  },
  {
    name: 'compare by a field no question has',
    args: () => ['compare', runA, runB, '--by', 'modalty'],
    cmd: 'compare',
    what: /no question of A, B has a value for the bucket field "modalty"/,
    todo: /did you mean "modality"\?/,
  },
  {
    name: 'report on a misspelt metric writes nothing',
    args: () => ['report', runA, runB, '--metric', 'f2', '--out', path.join(root, 'rep-1')],
    cmd: 'report',
    what: /has no metric "f2"/,
    todo: /did you mean "f1"\?/,
    check: notCreated(path.join(root, 'rep-1')),
  },
  {
    name: 'report by a field no question has writes nothing',
    args: () => ['report', runA, '--by', 'hopz'],
    cmd: 'report',
    what: /bucket field "hopz"/,
    todo: /did you mean "hops"\?/,
    check: notCreated(path.join(runA, 'report')),
  },
  {
    name: 'report naming a run twice',
    args: () => ['report', runA, runA, '--out', path.join(root, 'rep-2')],
    cmd: 'report',
    what: /named twice/,
    check: notCreated(path.join(root, 'rep-2')),
  },
  {
    name: 'report with a reference not among the runs',
    args: () => ['report', runA, '--ref', runB, '--out', path.join(root, 'rep-3')],
    cmd: 'report',
    what: /reference run "B" is not among the reported runs/,
    todo: /pass one of: A/,
  },
];

test('kf with bad input: exit code, one line saying what and what to do, no stack trace, nothing written', { concurrency: 2, skip }, async (t) => {
  await Promise.all(
    cases.map((c) =>
      t.test(c.name, async () => {
        const r = await kf(c.args(), { cwd: root, env: c.env });
        const label = `${c.name}: kf ${c.args().join(' ')}`;
        if (c.usage) {
          const line = assertUsageError(r, label);
          if (c.what) assert.match(line, c.what, label);
        } else {
          const [what, todo] = assertCommandError(r, c.cmd!, label);
          if (c.what) assert.match(what, c.what, label);
          if (c.todo) assert.match(todo, c.todo, label);
        }
        c.check?.(r);
      }),
    ),
  );
  // None of the failures above touched the two runs.
  assert.deepEqual(snapshot(F.results), beforeRuns, 'the runs are unchanged');
});

test('kf --version and kf help <command> work from the compiled CLI', { skip }, async () => {
  const v = await kf(['--version']);
  assert.equal(v.code, 0, v.stderr);
  assert.match(v.stdout.trim(), /^\d+\.\d+\.\d+/);
  const h = await kf(['help', 'compare']);
  assert.equal(h.code, 0, h.stderr);
  assert.match(h.stdout, /^Usage: kf compare <runA> <runB>/);
});

test('a run whose manifest is damaged: compare and report fail with one line naming the manifest; the records stay as they were', { skip }, async () => {
  const dir = path.join(root, 'damaged-manifest');
  fs.cpSync(runA, dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'manifest.json'), '{"kind": "kf-run", "runId": ');
  const before = snapshot(dir);
  const [c, r] = await Promise.all([kf(['compare', dir, runB], { cwd: root }), kf(['report', dir, '--out', path.join(root, 'rep-dm')], { cwd: root })]);
  for (const [res, cmd] of [
    [c, 'compare'],
    [r, 'report'],
  ] as const) {
    const [what, todo] = assertCommandError(res, cmd);
    assert.match(what, /run manifest .*damaged-manifest\/manifest\.json is not valid JSON/);
    assert.match(todo, /records beside it are intact/);
  }
  assert.deepEqual(snapshot(dir), before);
  assert.ok(!fs.existsSync(path.join(root, 'rep-dm')));
});

test('a run with no records: compare says so and how to run it', { skip }, async () => {
  const dir = path.join(root, 'no-records');
  fs.mkdirSync(dir);
  fs.copyFileSync(path.join(runA, 'manifest.json'), path.join(dir, 'manifest.json'));
  const r = await kf(['compare', dir, runB], { cwd: root });
  const [what, todo] = assertCommandError(r, 'compare');
  assert.match(what, /run A has no records \(.*no-records\/records\.jsonl is missing or empty\)/);
  assert.match(todo, /run it first: kf run .*--run-id A/);
});

test(
  'damaged records.jsonl: compare and report warn (one line each) and use the readable records; a resume keeps a copy and completes the run',
  { skip },
  async () => {
    const dir = path.join(root, 'results-damaged');
    fs.mkdirSync(dir);
    fs.cpSync(runA, path.join(dir, 'A'), { recursive: true });
    const recFile = path.join(dir, 'A', 'records.jsonl');
    const lines = fs.readFileSync(recFile, 'utf8').split('\n').filter(Boolean);
    assert.equal(lines.length, 12);
    const damaged = `${lines[4].slice(0, 30)}<<damaged>>`;
    lines[4] = damaged;
    fs.writeFileSync(recFile, lines.join('\n') + '\n');

    const [c, r] = await Promise.all([
      kf(['compare', 'A', runB, '--results', dir], { cwd: root }),
      kf(['report', 'A', '--results', dir, '--out', path.join(root, 'rep-dr')], { cwd: root }),
    ]);
    for (const res of [c, r]) {
      assertNoTrace(res, 'damaged records');
      assert.equal(res.code, 0, res.stderr);
      const warn = res.stderr.split('\n').filter((l) => /unreadable line/.test(l));
      assert.equal(warn.length, 1, res.stderr);
      assert.match(warn[0], /^WARNING: run A: 1 unreadable line\(s\) in .*records\.jsonl were skipped/);
    }
    assert.match(c.stdout, /n=11 /, 'the 11 readable records are compared');

    // Resume: the damaged question is answered again; the file as it was is kept beside it.
    const res = await kf(['run', F.exp, '--out', dir, '--run-id', 'A'], { cwd: root, env });
    assert.equal(res.code, 0, res.stderr);
    assertNoTrace(res, 'resume');
    assert.match(res.stderr, /records compacted \(1 cut line\(s\) dropped\); the file as it was is kept as records\.jsonl\..*\.bak/);
    const copies = fs.readdirSync(path.join(dir, 'A')).filter((f) => /^records\.jsonl\..*\.bak$/.test(f));
    assert.equal(copies.length, 1);
    assert.ok(fs.readFileSync(path.join(dir, 'A', copies[0]), 'utf8').includes(damaged));
    const final = readRecords(recFile);
    assert.equal(final.badLines, 0);
    assert.equal(final.records.length, 12);
    assert.deepEqual(final.duplicates, []);
  },
);

const noProc = fs.existsSync('/proc/self/fd') ? undefined : 'no /proc/self/fd here: the simulated full disk cannot tell which file a write goes to';

test(
  'a full disk during kf run: one line naming the file, "free space" and the resume command; the printed command completes the run',
  { skip: skip ?? noProc },
  async () => {
    const dir = path.join(root, 'results-full');
    const runDir = path.join(dir, 'F');
    // Preloaded into the CLI process: after 4 records, every write under the run folder fails with ENOSPC.
    const preload = path.join(root, 'enospc-preload.js');
    fs.writeFileSync(
      preload,
      `'use strict';
const fs = require('node:fs');
const dir = ${JSON.stringify(runDir + path.sep)};
const rec = ${JSON.stringify(path.join(runDir, 'records.jsonl'))};
let records = 0;
const full = () => records >= 4;
const enospc = () => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', errno: -28, syscall: 'write' });
const fileOf = (fd) => { try { return fs.readlinkSync('/proc/self/fd/' + fd); } catch { return ''; } };
const writeSync = fs.writeSync;
fs.writeSync = function (fd, ...rest) {
  const f = fileOf(fd);
  if (f.startsWith(dir) && full()) throw enospc();
  const n = writeSync.call(this, fd, ...rest);
  if (f === rec) records++;
  return n;
};
const writeFileSync = fs.writeFileSync;
fs.writeFileSync = function (file, ...rest) {
  if (typeof file === 'string' && file.startsWith(dir) && full()) throw enospc();
  return writeFileSync.call(this, file, ...rest);
};
`,
    );
    const r = await kf(['run', F.exp, '--out', dir, '--run-id', 'F'], { cwd: root, env, nodeArgs: ['--require', preload] });
    const [what, todo] = assertCommandError(r, 'run', 'kf run on a full disk', { afterProgress: true });
    assert.match(what, /cannot .* \(ENOSPC\)/);
    assert.ok(what.includes(runDir), `names a file of the run: ${what}`);
    assert.match(todo, /the disk is full: free space and rerun; finished work was kept; resume with: kf run /);
    const kept = readRecords(path.join(runDir, 'records.jsonl'));
    assert.equal(kept.records.length, 4, 'the records written before the disk filled are kept');
    assert.equal(kept.badLines, 0);

    const resume = /resume with: (kf run .*)$/.exec(errorLines(r.stderr).slice(-1)[0])![1];
    const argv = resume
      .split(' ')
      .slice(1)
      .map((a) => a.replace(/^'(.*)'$/, '$1'));
    const again = await kf(argv, { cwd: root, env });
    assert.equal(again.code, 0, `${resume}\n${again.stderr}`);
    const final = readRecords(path.join(runDir, 'records.jsonl'));
    assert.equal(final.records.length, 12);
    assert.equal(final.badLines, 0);
    assert.deepEqual(final.duplicates, []);
  },
);

test('a native addon that does not load: kf doctor still runs and says so; the commands that need it fail with one line', { skip }, async () => {
  const preload = path.join(root, 'no-native-preload.js');
  fs.writeFileSync(
    preload,
    `'use strict';
const Module = require('node:module');
const load = Module._load;
Module._load = function (request, ...rest) {
  if (request === 'hnswlib-node' || request === 'better-sqlite3') throw new Error("Cannot find module '" + request + "' (not built)");
  return load.call(this, request, ...rest);
};
`,
  );
  const nodeArgs = ['--require', preload];
  const [doctor, build, help] = await Promise.all([
    kf(['doctor', '--no-kernel'], { cwd: root, nodeArgs }),
    kf(['index', 'build', '--corpus', path.join(root, 'corpus'), '--out', path.join(root, 'idx-nn')], { cwd: root, nodeArgs }),
    kf(['--help'], { cwd: root, nodeArgs }),
  ]);
  assert.equal(doctor.code, 0, doctor.stderr);
  assert.match(doctor.stdout, /hnswlib\s+missing: Cannot find module 'hnswlib-node'/);
  assertNoTrace(build, 'index build without its addons');
  assert.equal(build.code, 1);
  const lines = errorLines(build.stderr);
  assert.equal(lines.length, 1, build.stderr);
  assert.match(
    lines[0],
    /^kf: 'kf index build' is unavailable: index-build\.js failed to load \(Cannot find module '(better-sqlite3|hnswlib-node)' \(not built\)\) -- run `kf doctor`/,
  );
  assert.ok(!fs.existsSync(path.join(root, 'idx-nn')));
  assert.equal(help.code, 0, help.stderr);
  assert.match(help.stdout, /Unavailable here .*\n(.*\n)*\s+index build\s+Cannot find module/);
});
