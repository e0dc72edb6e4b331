/**
 * Test helpers for the demo world: a shared tiny world per test process, and
 * text extraction from the rendered files (Markdown/HTML source text; PDF text
 * per page through pdfjs, as environment.md prescribes).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import assert from 'node:assert/strict';
import { generateWorld, NEVER_STATED, NOT_ANSWERABLE, writeDemoWorld } from '../../lib/demo';
import type { DemoManifest, DemoOptions, DemoWorld, Entity } from '../../lib/demo';

interface ChainStep {
  entity: string;
  doc: string;
  key: string;
  value: string | string[];
}

export interface WrittenWorld {
  dir: string;
  world: DemoWorld;
  manifest: DemoManifest;
}

export async function writeTemp(opts: Partial<DemoOptions>, label = 'demo'): Promise<WrittenWorld> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `kf-${label}-`));
  const world = generateWorld(opts);
  const manifest = await writeDemoWorld(world, dir);
  return { dir, world, manifest };
}

/** Every file under dir, relative paths, sorted. */
export function listFiles(dir: string, base = dir): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...listFiles(p, base));
    else out.push(path.relative(base, p).split(path.sep).join('/'));
  }
  return out.sort();
}

/** Collapse whitespace (PDF text breaks lines inside names). */
function norm(s: string): string {
  return s.replace(/\s+/g, ' ');
}

function pdfjsRoot(): string {
  return path.dirname(require.resolve('pdfjs-dist/package.json')) + '/';
}

/** Text of each page of a PDF (index 0 = page 1). */
export async function pdfPageTexts(file: string): Promise<string[]> {
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const root = pdfjsRoot();
  const doc = await pdfjs.getDocument({
    data: new Uint8Array(fs.readFileSync(file)),
    standardFontDataUrl: root + 'standard_fonts/',
    cMapUrl: root + 'cmaps/',
    cMapPacked: true,
    wasmUrl: root + 'wasm/',
    iccUrl: root + 'iccs/',
    isEvalSupported: false,
    verbosity: 0,
  } as Parameters<typeof pdfjs.getDocument>[0]).promise;
  const pages: string[] = [];
  for (let p = 1; p <= doc.numPages; p++) {
    const page = await doc.getPage(p);
    const tc = await page.getTextContent();
    pages.push(norm(tc.items.map((i) => ('str' in i ? i.str : '')).join(' ')));
  }
  await doc.destroy();
  return pages;
}

/** Whole-word, case-sensitive containment (so "Novrem" is not found inside "Novremik"). */
export function containsWord(hay: string, needle: string): boolean {
  const esc = needle.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[^A-Za-z0-9])${esc}($|[^A-Za-z0-9])`).test(hay);
}

/** Assert that every question of the world with these options is answerable from its rendered gold evidence. */
export async function checkAnswerable(opts: Partial<DemoOptions>): Promise<number> {
  const { dir, world, manifest } = await writeTemp(opts, 'answer');
  const names = new Map<string, string>(world.entities.map((e: Entity) => [e.id, e.name]));
  const text = new Map<string, { whole: string; pages?: string[] }>();
  for (const d of world.docs) {
    const ext = { markdown: 'md', html: 'html', pdf: 'pdf' }[d.format];
    const file = path.join(dir, 'corpus', `${d.id}.${ext}`);
    if (d.format === 'pdf') {
      const pages = await pdfPageTexts(file);
      assert.equal(pages.length, d.sections.length, `${d.id}: one PDF page per section`);
      text.set(d.id, { whole: pages.join(' '), pages });
    } else {
      text.set(d.id, { whole: norm(fs.readFileSync(file, 'utf8')) });
    }
  }
  const drawn = (doc: string, page?: number) =>
    manifest.images
      .filter((im) => im.doc === doc && (page === undefined || im.page === page))
      .map((im) => im.drawnText.join(' '))
      .join(' ');

  // The attributes unanswerable questions ask for appear nowhere in the corpus.
  const everything = [...text.values()].map((t) => t.whole).join(' ') + manifest.images.map((i) => i.drawnText.join(' ')).join(' ');
  for (const w of NEVER_STATED) assert.ok(!new RegExp(`\\b${w}\\b`, 'i').test(everything), `"${w}" must never be stated in the corpus`);

  for (const q of world.questions) {
    const chain = q.meta.chain as ChainStep[];
    const where = (i: number) => {
      const ev = q.evidence[i];
      const t = text.get(ev.doc)!;
      if (ev.page !== undefined) assert.ok(t.pages && ev.page >= 1 && ev.page <= t.pages.length, `${q.id}: page ${ev.page} of ${ev.doc} exists`);
      if (ev.modality === 'image') return drawn(ev.doc, ev.page);
      return ev.page !== undefined ? t.pages![ev.page - 1] : t.whole;
    };
    const goldText: string[] = [];
    chain.forEach((step, i) => {
      assert.equal(q.evidence[i].doc, step.doc, `${q.id}: evidence ${i} is the chain's document`);
      const at = where(i);
      goldText.push(at);
      for (const v of ([] as string[]).concat(step.value)) {
        assert.ok(
          containsWord(at, v),
          `${q.id} (${q.question}): "${v}" (${step.key}) not found at ${step.doc} p.${q.evidence[i].page ?? '-'} [${q.evidence[i].modality}]`,
        );
      }
    });
    assert.deepEqual(q.goldDocs, [...new Set(q.evidence.map((e) => e.doc))], `${q.id}: gold documents = evidence documents`);
    const single = q.goldDocs.length === 1 && q.evidence[0].page !== undefined;
    assert.equal(q.goldPages !== undefined, single, `${q.id}: goldPages set exactly for single-PDF questions`);
    assert.ok(q.hops! >= 1 && q.hops! <= 3);

    if (q.format === 'unanswerable') {
      assert.equal(q.answer, NOT_ANSWERABLE);
      assert.ok(NEVER_STATED.includes(q.meta.missingAttribute as string));
    } else if (q.format === 'yes-no') {
      assert.ok(q.answer === 'Yes' || q.answer === 'No');
    } else {
      const answers = ([] as string[]).concat(q.answer as string | string[]);
      if (q.format === 'list') assert.ok(Array.isArray(q.answer) && answers.length >= 2, `${q.id}: a list answer has several elements`);
      for (const a of answers)
        assert.ok(
          goldText.some((t) => containsWord(t, a)),
          `${q.id}: answer "${a}" is in its gold evidence`,
        );
    }

    if (q.meta.reasoning === 'bridge') {
      // Step i's value names step i+1's entity (or the entity missing the attribute).
      const next = [...chain.slice(1).map((s) => s.entity), ...(q.meta.missingFrom ? [q.meta.missingFrom as string] : [])];
      next.forEach((entity, i) => {
        const name = names.get(entity)!;
        assert.equal(chain[i].value, name, `${q.id}: hop ${i + 1} names the next entity`);
        assert.ok(!containsWord(q.question, name), `${q.id}: the question must not name the bridge entity "${name}"`);
        assert.ok(containsWord(text.get(chain[i].doc)!.whole + ' ' + drawn(chain[i].doc), name), `${q.id}: "${name}" is learnable from ${chain[i].doc}`);
      });
      assert.equal(q.hops, next.length + 1);
    }
  }
  fs.rmSync(dir, { recursive: true, force: true });
  return world.questions.length;
}
