/**
 * ensureDemoWorld: generate on first use, reuse when the options hash matches,
 * never expose or reuse a half-written world, survive concurrent callers.
 * Plus the conventions the ingester relies on, checked on the written files,
 * and the `kf demo generate` command.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { defaultDemoDir, ensureDemoWorld, resolveDemoOptions } from '../../lib/demo';
import { repoRoot } from '../../lib/util/paths';
import { parseFor } from '../../lib/cli/main';
import { command as demoGenerate } from '../../lib/cli/commands/demo-generate';
import { isKfError } from '../../lib/util/errors';
import { listFiles, pdfPageTexts } from './helpers';
import { nonEmpty } from '../_shared/non-empty';
import { commandContext } from '../../lib/cli/command-context';

const tmp = (label: string) => fs.mkdtempSync(path.join(os.tmpdir(), `kf-ensure-${label}-`));

test('generates once, then reuses; different options regenerate; --force regenerates', async () => {
  const root = tmp('reuse');
  const dir = path.join(root, 'world');
  const first = await ensureDemoWorld({ preset: 'tiny', dir });
  assert.equal(first.generated, true);
  assert.equal(first.dir, dir);
  const second = await ensureDemoWorld({ preset: 'tiny', dir });
  assert.equal(second.generated, false);
  assert.deepEqual(second.manifest, first.manifest);
  // A deleted file makes the world incomplete: regenerate.
  fs.unlinkSync(path.join(dir, 'questions.json'));
  assert.equal((await ensureDemoWorld({ preset: 'tiny', dir })).generated, true);
  // A world written by another version of the generator is not reused.
  const mf = path.join(dir, 'manifest.json');
  fs.writeFileSync(mf, JSON.stringify({ ...JSON.parse(fs.readFileSync(mf, 'utf8')), generatorHash: 'v1:older-code' }));
  assert.equal((await ensureDemoWorld({ preset: 'tiny', dir })).generated, true);
  const other = await ensureDemoWorld({ preset: 'tiny', seed: 'x', dir });
  assert.equal(other.generated, true);
  assert.notEqual(other.manifest.optionsHash, first.manifest.optionsHash);
  assert.equal((await ensureDemoWorld({ preset: 'tiny', seed: 'x', dir, force: true })).generated, true);
  // Nothing but the world is left in the parent (no temp or old copies).
  assert.deepEqual(fs.readdirSync(root), ['world']);
  fs.rmSync(root, { recursive: true, force: true });
});

test('concurrent callers both get the complete world; leftovers of an interrupted run are ignored and cleaned', async () => {
  const root = tmp('race');
  const dir = path.join(root, 'w');
  // A generation killed half-way leaves only a hidden temp dir (no manifest at the target).
  const stale = path.join(root, '.w.tmp-999999-1-0');
  fs.mkdirSync(path.join(stale, 'corpus'), { recursive: true });
  fs.writeFileSync(path.join(stale, 'corpus', 'half.md'), '# half');
  const [a, b] = await Promise.all([ensureDemoWorld({ preset: 'tiny', dir }), ensureDemoWorld({ preset: 'tiny', dir })]);
  assert.equal(a.manifest.optionsHash, b.manifest.optionsHash);
  assert.ok(fs.existsSync(path.join(dir, 'manifest.json')));
  for (const rel of nonEmpty(Object.keys(a.manifest.files), 'manifest files')) assert.ok(fs.existsSync(path.join(dir, rel)), `${rel} exists`);
  assert.ok(!fs.existsSync(stale), 'stale temp dir of a dead process is removed');
  assert.deepEqual(fs.readdirSync(root), ['w']);
  fs.rmSync(root, { recursive: true, force: true });
});

test('refuses to overwrite a non-empty directory that is not a demo world', async () => {
  const dir = tmp('foreign');
  fs.writeFileSync(path.join(dir, 'notes.txt'), 'keep me');
  await assert.rejects(ensureDemoWorld({ preset: 'tiny', dir }), (e: unknown) => isKfError(e) && /no manifest\.json/.test((e as Error).message));
  assert.equal(fs.readFileSync(path.join(dir, 'notes.txt'), 'utf8'), 'keep me');
  fs.rmSync(dir, { recursive: true, force: true });
});

test('default directories: data/demo/<preset> (or $KF_DEMO_DIR/<preset>), or <preset>-<hash> for customised options', () => {
  const saved = process.env.KF_DEMO_DIR;
  try {
    delete process.env.KF_DEMO_DIR;
    assert.equal(defaultDemoDir(resolveDemoOptions({ preset: 'tiny' })), path.join(repoRoot(), 'data', 'demo', 'tiny'));
    process.env.KF_DEMO_DIR = path.join(os.tmpdir(), 'kf-demo-elsewhere');
    assert.equal(defaultDemoDir(resolveDemoOptions({ preset: 'tiny' })), path.join(os.tmpdir(), 'kf-demo-elsewhere', 'tiny'));
  } finally {
    if (saved === undefined) delete process.env.KF_DEMO_DIR;
    else process.env.KF_DEMO_DIR = saved;
  }
  assert.match(path.basename(defaultDemoDir(resolveDemoOptions({ preset: 'tiny', seed: 3 }))), /^tiny-[0-9a-f]{12}$/);
  assert.throws(() => resolveDemoOptions({ preset: 'huge' as never }), /unknown demo preset/);
  assert.throws(() => resolveDemoOptions({ documents: 5 }), /core documents/);
});

test('written files follow the ingestion conventions (ids, images, captions, tables, examples, headings)', async () => {
  const root = tmp('conv');
  const { dir, manifest } = await ensureDemoWorld({ preset: 'tiny', dir: path.join(root, 'w') });
  const world = JSON.parse(fs.readFileSync(path.join(dir, 'world.json'), 'utf8')) as {
    documents: { id: string; file: string; format: string; pages: number }[];
  };
  const files = listFiles(path.join(dir, 'corpus'));
  for (const d of world.documents) {
    // id = path relative to the corpus root without extension.
    assert.equal(d.file, `corpus/${d.id}.${{ markdown: 'md', html: 'html', pdf: 'pdf' }[d.format]}`);
    assert.ok(files.includes(d.file.slice('corpus/'.length)));
  }
  for (const im of nonEmpty(manifest.images, 'manifest images')) assert.ok(files.includes(im.path), `${im.path} written`);
  let mdFigures = 0,
    htmlFigures = 0,
    pdfFigures = 0,
    examples = 0;
  for (const d of world.documents) {
    const file = path.join(dir, d.file);
    if (d.format === 'markdown') {
      const lines = fs.readFileSync(file, 'utf8').split('\n');
      assert.match(lines[0], /^# \S/);
      lines.forEach((l, i) => {
        const m = /^!\[([^\]]+)\]\((assets\/[^)]+\.png)\)$/.exec(l);
        if (m) {
          mdFigures++;
          assert.match(lines[i + 1], new RegExp(`^\\*Figure \\d+: ${m[1].replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\*$`));
        }
        if (/^\| /.test(l) && !/^\| /.test(lines[i - 1])) assert.match(lines[i - 2], /^\*Table \d+: .+\*$/, `${d.id}: table caption line`);
        if (l.startsWith('Worked example:')) examples++;
      });
    } else if (d.format === 'html') {
      const html = fs.readFileSync(file, 'utf8');
      assert.match(html, /<h1>[^<]+<\/h1>/);
      htmlFigures += (html.match(/<figure><img src="assets\/[^"]+\.png" alt="[^"]+"><figcaption>Figure \d+: [^<]+<\/figcaption><\/figure>/g) ?? []).length;
      assert.equal((html.match(/<figure>/g) ?? []).length, (html.match(/<figcaption>Figure \d+: /g) ?? []).length);
      assert.equal((html.match(/<table>/g) ?? []).length, (html.match(/<caption>Table \d+: /g) ?? []).length);
      examples += (html.match(/<div class="example"><p>Worked example:/g) ?? []).length;
    } else {
      const pages = await pdfPageTexts(file);
      assert.equal(pages.length, d.pages);
      const figs = manifest.images.filter((im) => im.doc === d.id);
      for (const im of figs) {
        assert.ok(im.page && pages[im.page - 1].includes(`${im.label}: ${im.caption}`), `${d.id}: caption line "${im.label}: ..." on page ${im.page}`);
        pdfFigures++;
      }
      examples += pages.filter((p) => p.includes('Worked example:')).length;
    }
  }
  assert.ok(
    mdFigures > 0 && htmlFigures > 0 && pdfFigures > 0 && examples > 0,
    `figures md ${mdFigures} html ${htmlFigures} pdf ${pdfFigures}, examples ${examples}`,
  );
  // Captions never give away the values drawn into the chart.
  for (const im of nonEmpty(manifest.images, 'manifest images'))
    for (const t of im.drawnText) if (/^\d[\d,]*$/.test(t)) assert.ok(!im.caption.includes(t), `${im.path}: caption leaks ${t}`);
  fs.rmSync(root, { recursive: true, force: true });
});

test('kf demo generate writes a world and reports where and how much', async () => {
  const root = tmp('cli');
  const out = path.join(root, 'w');
  const logs: string[] = [];
  const orig = console.log;
  console.log = (...a: unknown[]) => {
    logs.push(a.join(' '));
  };
  const origErr = console.error;
  const errs: string[] = [];
  console.error = (...a: unknown[]) => {
    errs.push(a.join(' '));
  };
  // Through the CLI's own parser, but only this command (other people's commands are not loaded).
  const run = async (argv: string[]): Promise<number> => {
    let args;
    try {
      args = parseFor(demoGenerate, argv);
    } catch (e) {
      console.error((e as Error).message);
      return 2;
    }
    try {
      await demoGenerate.run(args, commandContext());
      return 0;
    } catch (e) {
      console.error((e as Error).message);
      return 1;
    }
  };
  try {
    assert.equal(await run(['--preset', 'tiny', '--questions', '12', '--out', out]), 0);
    assert.equal(await run(['--documents', 'x']), 2);
    assert.equal(await run(['--documents', '4', '--out', path.join(root, 'bad')]), 1);
  } finally {
    console.log = orig;
    console.error = origErr;
  }
  assert.ok(
    logs.some((l) => l.includes(`wrote demo world to ${out}`)),
    logs.join('\n'),
  );
  assert.ok(logs.some((l) => /questions 12/.test(l)));
  assert.ok(errs.some((l) => /--documents: expected a positive integer/.test(l)));
  assert.ok(errs.some((l) => /core documents/.test(l)));
  assert.equal(JSON.parse(fs.readFileSync(path.join(out, 'questions.json'), 'utf8')).length, 12);
  fs.rmSync(root, { recursive: true, force: true });
});
