/**
 * A tiny in-memory knowledge base for the agent tests: two documents with a
 * text bridge ("directed by Bob Stone" -> "Bob Stone was born in Paris"), a
 * figure with OCR text and a table. Search = word overlap (deterministic).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Fragment } from '../../lib/corpus/types';
import type { SearchHit } from '../../lib/index/types';
import type { KbMedia, KnowledgeBase } from '../../lib/pipeline/knowledge-base';
import { docScoresFromHits } from '../../lib/pipeline/ranked-evidence';

const f = (id: string, docId: string, ordinal: number, kind: Fragment['kind'], text: string, extra: Partial<Fragment> = {}): Fragment => ({
  id,
  docId,
  kind,
  text,
  ordinal,
  section: [],
  attached: [],
  page: 1,
  ...extra,
});

export const TOY_FRAGMENTS: Fragment[] = [
  f('alpha#0', 'alpha', 0, 'text', 'Alpha Quest is a 1950 film directed by Bob Stone. It was shot in Lisbon.', { attached: ['alpha#1'] }),
  f('alpha#1', 'alpha', 1, 'image', 'Figure 1: box office of Alpha Quest by year', {
    label: 'Figure 1',
    caption: 'Box office of Alpha Quest',
    ocrText: '1950: 12\n1951: 30',
    anchor: 'alpha#0',
  }),
  f('alpha#2', 'alpha', 2, 'table', 'Table 1: cast of Alpha Quest', {
    label: 'Table 1',
    table: {
      header: ['Actor', 'Role'],
      rows: [
        ['Ann Lee', 'Captain'],
        ['Tom Hart', 'Pilot'],
      ],
    },
  }),
  f('bob#0', 'bob', 0, 'text', 'Bob Stone was a film director born in Paris in 1910.'),
  f('other#0', 'other', 0, 'text', 'Gamma Ray is a 1960 film about the sea.'),
];

/** A 1x1 PNG: the file of alpha#1's chart. */
const CHART_PNG = Buffer.from(
  '89504e470d0a1a0a0000000d4948445200000001000000010806000000' + '1f15c4890000000d4944415478da63f8cfc0f01f0005000201a0e4ab3b0000000049454e44ae426082',
  'hex',
);

/** The toy fragments with alpha#1's chart stored as the file img/chart.png of the corpus (see toyIndexWithChart). */
export function toyFragmentsWithChartFile(): Fragment[] {
  return TOY_FRAGMENTS.map((x) => (x.id === 'alpha#1' ? { ...x, media: { path: 'img/chart.png', mime: 'image/png', origin: 'file' as const } } : x));
}

/**
 * A fake index folder under `root` (CURRENT -> build-000001/manifest.json naming the corpus root) whose corpus
 * holds alpha#1's chart image: what the vision stage reads an image file through. `id` is the view id
 * `<index>#build-000001`.
 */
export function toyIndexWithChart(root: string): { id: string; index: string; corpus: string } {
  const index = path.join(root, 'index');
  const corpus = path.join(root, 'corpus');
  fs.mkdirSync(path.join(index, 'build-000001'), { recursive: true });
  fs.mkdirSync(path.join(corpus, 'img'), { recursive: true });
  fs.writeFileSync(path.join(index, 'CURRENT'), 'build-000001');
  fs.writeFileSync(path.join(index, 'build-000001', 'manifest.json'), JSON.stringify({ kind: 'kf-index', corpus: { kind: 'directory', path: corpus } }));
  fs.writeFileSync(path.join(corpus, 'img', 'chart.png'), CHART_PNG);
  return { id: `${index}#build-000001`, index, corpus };
}

const words = (s: string) => s.toLowerCase().match(/[a-z0-9]+/g) ?? [];

export function toyKb(fragments: Fragment[] = TOY_FRAGMENTS): KnowledgeBase & { searches: string[] } {
  const byId = new Map(fragments.map((x) => [x.id, x]));
  const titles: Record<string, string> = { alpha: 'Alpha Quest', bob: 'Bob Stone', other: 'Gamma Ray' };
  const media = (x: Fragment): KbMedia => ({
    fragmentId: x.id,
    docId: x.docId,
    kind: x.kind,
    page: x.page,
    label: x.label,
    caption: x.caption,
    section: x.section,
  });
  const searches: string[] = [];
  return {
    id: 'toy',
    searches,
    async search(query, opts = {}) {
      searches.push(query);
      const q = new Set(words(query));
      const scored = fragments
        .map((x) => ({ x, s: words(x.text).filter((w) => q.has(w)).length }))
        .filter((r) => r.s > 0)
        .sort((a, b) => b.s - a.s || a.x.id.localeCompare(b.x.id));
      const hits: SearchHit[] = scored.slice(0, opts.k ?? 8).map((r, i) => ({
        fragmentId: r.x.id,
        docId: r.x.docId,
        kind: r.x.kind,
        rank: i + 1,
        score: r.s,
        scores: {},
        via: 'hybrid',
        text: r.x.text,
        page: r.x.page,
        section: r.x.section,
        media: r.x.attached.map((id) => ({ fragmentId: id, kind: byId.get(id)!.kind, label: byId.get(id)!.label, caption: byId.get(id)!.caption })),
      }));
      return { query, retriever: String(opts.mode ?? 'toy'), hits, docs: docScoresFromHits(hits), timings: { totalMs: 0 } };
    },
    fragment: (id) => byId.get(id),
    neighbours: (id, window = 1) => {
      const x = byId.get(id);
      if (!x) return [];
      return fragments.filter((y) => y.docId === x.docId && y.id !== id && Math.abs(y.ordinal - x.ordinal) <= window);
    },
    documents: (kw) =>
      Object.entries(titles)
        .filter(([, t]) => !kw || t.toLowerCase().includes(kw.toLowerCase()))
        .map(([id, title]) => ({ id, title, fragments: fragments.filter((x) => x.docId === id).length })),
    title: (d) => titles[d],
    toc: () => [],
    tables: () =>
      fragments
        .filter((x) => x.table)
        .map((x) => ({ fragmentId: x.id, docId: x.docId, page: x.page, label: x.label, header: x.table!.header, rowCount: x.table!.rows.length })),
    queryTable: () => [],
    table: (id) => byId.get(id)?.table,
    media: () => fragments.filter((x) => x.kind === 'image' || x.kind === 'table').map(media),
    findFigure: (label) => fragments.filter((x) => x.label?.toLowerCase() === label.toLowerCase()).map(media),
    asset: () => undefined,
  };
}
