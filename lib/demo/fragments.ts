/**
 * The scaling path: build `Fragment`s straight from the world's document trees,
 * with no file rendering, so the retrieval benchmark can grow the corpus to the
 * paper's 3,368 documents / 200K fragments in seconds.
 *
 * Fragments mirror what ingesting the rendered files yields: one fragment per
 * paragraph (text), worked example (example), table (table) and figure (image);
 * ids `${docId}#${ordinal}` in reading order; section path [title, heading]; PDF
 * page numbers for PDF documents; media attached to the text fragment before them
 * in the same section; image fragments carry the chart's drawn text as `ocrText`
 * and an offline description built from caption + drawn text.
 *
 * The fact-bearing sections (and so the questions, gold documents and pages) are
 * those of generateWorld with the same seed/documents/distractors/questions; only
 * the amount of filler differs, spread so the total is exactly `fragments`.
 */
import type { Question } from '../bench/types';
import type { Fragment } from '../corpus/types';
import { KfError } from '../util/errors';
import { makeRng } from '../util/rng';
import { drawnTextOf, layoutChart } from './chart-layout';
import { appendFiller, fillerSubject } from './document';
import { planWorld } from './generate';
import { PRESETS, resolveDemoOptions } from './options';
import type { ChartSpec, DemoDoc, DemoOptions } from './types';

export interface DemoFragmentsOptions {
  /** Total fragments wanted (exact). */
  fragments: number;
  seed?: string | number;
  /** Documents; default scales with fragments so that 200,000 fragments -> 3,368 documents (the paper's corpus). */
  documents?: number;
  /** Default: the scale preset's share (2,441 questions at 3,368 documents), at least 10. */
  questions?: number;
  /** Default: the scale preset's share of distractor documents. */
  distractors?: number;
}

export interface DemoFragments {
  fragments: Fragment[];
  questions: Question[];
  /** The world options the fragments were built from (documents, distractors, questions, seed). */
  options: DemoOptions;
  /** Every document; `pages` = PDF page count (= sections, for Markdown/HTML too). */
  documents: { id: string; title: string; format: DemoDoc['format']; pages: number; role: DemoDoc['role'] }[];
}

const SCALE = PRESETS.scale;
/** Fragments per document in the paper's large corpus (200K over 3,368). */
export const FRAGMENTS_PER_DOC = 200000 / SCALE.documents;
/** Smallest world the default sizing makes (keeps enough core documents after the distractor share). */
const MIN_DOCS = 16;

/** Fragments of the fact-bearing part of a document (filler excluded). */
function blockCount(d: DemoDoc): number {
  let n = 0;
  for (const s of d.sections) n += s.blocks.length;
  return n;
}

/** Offline description of a chart: what a careful reader (or a VLM) would write from the image. */
export function describeChart(label: string, caption: string, chart: ChartSpec): string {
  if (chart.kind === 'diagram') return `${label}: ${caption}. Diagram "${chart.title}" of ${chart.center} with labels: ${chart.labels.join('; ')}.`;
  const pairs = chart.points.map((p) => `${p.label}: ${p.text}`).join('; ');
  return `${label}: ${caption}. ${chart.kind === 'bar' ? 'Bar' : 'Line'} chart "${chart.title}", ${chart.yLabel} by ${chart.xLabel.toLowerCase()}: ${pairs}.`;
}

/** Convert one document tree to fragments (appending to `out`). */
export function documentFragments(doc: DemoDoc, out: Fragment[] = []): Fragment[] {
  const pdf = doc.format === 'pdf';
  let ordinal = 0;
  const first = out.length;
  for (const s of doc.sections) {
    const section = [doc.title, s.heading];
    let lastText: Fragment | undefined;
    const pendingMedia: Fragment[] = [];
    for (const b of s.blocks) {
      const id = `${doc.id}#${ordinal}`;
      const f: Fragment = { id, docId: doc.id, kind: 'text', text: '', section, ordinal, attached: [] };
      if (pdf) f.page = s.page;
      switch (b.kind) {
        case 'paragraph':
          f.text = b.text;
          break;
        case 'example':
          f.kind = 'example';
          f.text = b.text;
          break;
        case 'table':
          f.kind = 'table';
          f.table = { header: b.header, rows: b.rows };
          f.caption = b.caption;
          f.label = b.label;
          f.describedBy = 'offline';
          f.text = `${b.label}: ${b.caption}\n${b.header.join(' | ')}\n${b.rows.map((r) => r.join(' | ')).join('\n')}`;
          break;
        case 'figure': {
          const lay = layoutChart(b.chart);
          const drawn = drawnTextOf(b.chart);
          f.kind = 'image';
          f.media = { path: b.asset, mime: 'image/png', width: lay.width, height: lay.height, origin: 'generated' };
          f.caption = b.caption;
          f.label = b.label;
          f.ocrText = drawn.join('\n');
          f.describedBy = 'offline';
          f.text = describeChart(b.label, b.caption, b.chart);
          break;
        }
      }
      if (f.kind === 'text' || f.kind === 'example') {
        lastText = f;
        // Media that opened a section before any text attach to its first text.
        for (const m of pendingMedia.splice(0)) {
          m.anchor = f.id;
          f.attached.push(m.id);
        }
      } else if (lastText) {
        f.anchor = lastText.id;
        lastText.attached.push(f.id);
      } else {
        pendingMedia.push(f);
      }
      out.push(f);
      ordinal++;
    }
  }
  for (let i = first; i < out.length; i++) {
    if (i > first) out[i].prev = out[i - 1].id;
    if (i < out.length - 1) out[i].next = out[i + 1].id;
  }
  return out;
}

/**
 * Exactly `fragments` fragments over the world's documents, plus its questions.
 * Memory: the fragments themselves; each document's filler lives only while it is converted.
 */
export function demoFragments(opts: DemoFragmentsOptions): DemoFragments {
  const n = opts.fragments;
  if (!Number.isInteger(n) || n < 1) {
    throw new KfError('demo_bad_option', `demoFragments: fragments=${n} must be a positive integer`, 'pass e.g. {fragments: 200000}', {
      concerns: 'fragments',
    });
  }
  let documents = opts.documents ?? Math.max(MIN_DOCS, Math.round(n / FRAGMENTS_PER_DOC));
  for (;;) {
    const world = planWorld(
      resolveDemoOptions({
        preset: 'scale',
        seed: opts.seed ?? SCALE.seed,
        documents,
        ...(opts.distractors !== undefined ? { distractors: opts.distractors } : {}),
        questions: opts.questions ?? Math.max(10, Math.round((documents * SCALE.questions) / SCALE.documents)),
        paragraphs: 0,
      }),
      false,
    );
    const { docs } = world.world;
    const structural = docs.reduce((a, d) => a + blockCount(d), 0);
    if (structural > n) {
      if (opts.documents !== undefined) {
        throw new KfError(
          'demo_bad_option',
          `demoFragments: ${opts.documents} documents need at least ${structural} fragments, asked for ${n}`,
          `ask for at least ${structural} fragments or fewer documents`,
          { concerns: 'fragments' },
        );
      }
      const fewer = Math.floor(documents * (n / structural));
      if (fewer >= documents || fewer < MIN_DOCS) {
        throw new KfError(
          'demo_bad_option',
          `demoFragments: ${n} fragments is too few for a demo world (the smallest needs ${structural})`,
          `ask for at least ${structural} fragments`,
          { concerns: 'fragments' },
        );
      }
      documents = fewer;
      continue;
    }
    // Filler spread evenly; the first (n - structural) % D documents get one more.
    const spare = n - structural;
    const base = Math.floor(spare / docs.length);
    const extra = spare % docs.length;
    const out: Fragment[] = [];
    const documentsOut: DemoFragments['documents'] = [];
    const root = makeRng(String(world.world.options.seed)).fork('documents');
    docs.forEach((d, i) => {
      const count = base + (i < extra ? 1 : 0);
      const sections = d.sections.slice();
      if (count > 0) {
        appendFiller(sections, count, root.fork(`filler/${d.id}`), fillerSubject(d, world.model));
      }
      documentFragments({ ...d, sections }, out);
      documentsOut.push({ id: d.id, title: d.title, format: d.format, pages: sections.length, role: d.role });
    });
    return {
      fragments: out,
      questions: world.world.questions,
      options: world.world.options,
      documents: documentsOut,
    };
  }
}
