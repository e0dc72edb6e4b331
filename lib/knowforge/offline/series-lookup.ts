/**
 * Looking a series up (a data table or a chart read from OCR, see
 * evidence.ts): the cell of the asked year in the column of the asked
 * measure, the row label of the maximum / minimum, or the row labels past a
 * threshold ("In which years did X exceed 120?").
 */
import { mentions, sameName, type Fact, type Series } from './evidence';
import { wordKey } from './lexicon';
import { stripUnits } from './candidates';
import { matchesTerm, type ReadContext, type ValueType } from './reader-context';
import { numbers, tokens } from '../../util/text-rules';

/** The measure column of a series: the non-key column whose header says most question terms, else the last numeric one. */
function measureColumn(ctx: ReadContext, s: Series): number {
  let best = -1;
  let bestScore = -1;
  s.header.forEach((h, i) => {
    if (i === keyColumn(s)) return;
    const keys = new Set(tokens(h).map(wordKey));
    const score = ctx.q.terms.reduce((acc, t, ti) => acc + (matchesTerm(keys, t) ? ctx.weights[ti] : 0), 0);
    const numeric = s.rows.filter((r) => numbers(r[i] ?? '').length > 0).length >= s.rows.length / 2;
    if (!numeric) return;
    if (score > bestScore) {
      bestScore = score;
      best = i;
    }
  });
  return best;
}

/** The column holding the row labels (years, names): the first column whose cells are mostly years, else column 0. */
function keyColumn(s: Series): number {
  for (let i = 0; i < s.header.length; i++)
    if (s.rows.filter((r) => /^(?:1[0-9]{3}|20[0-9]{2})$/.test((r[i] ?? '').trim())).length >= s.rows.length / 2) return i;
  return 0;
}

export function numericValue(cell: string): number | undefined {
  const n = numbers(cell)[0];
  return n ? n.value : undefined;
}

export interface SeriesHit {
  value: string | string[];
  covered: number[];
  /** Every term the series says (covered or not). */
  all: number[];
  fact: Fact;
  bonus: number;
}

/** Look a series up for an entity: the cell of the asked year, the year of the max/min, the years above a threshold. */
export function seriesLookup(ctx: ReadContext, entity: string | undefined, covered: Set<number>, type: ValueType): SeriesHit[] {
  const out: SeriesHit[] = [];
  for (const s of ctx.ev.series) {
    const about = entity ? sameName(s.subject, entity) || mentions(s.title, entity) : true;
    // A table of several subjects (a "Company" column): the rows of this one.
    const rowsAbout = about ? s.rows : s.rows.filter((r) => r.some((c) => sameName(c, entity)));
    if (!rowsAbout.length) continue;
    const all = ctx.q.terms.map((t, i) => (matchesTerm(s.keys, t) ? i : -1)).filter((i) => i >= 0);
    const termIdx = all.filter((i) => !covered.has(i));
    if (!termIdx.length) continue;
    const mc = measureColumn(ctx, s);
    const kc = keyColumn(s);
    if (mc < 0) continue;
    const factOf = (row: string[]) => ctx.ev.facts.find((f) => f.series === s && f.text.includes(row[mc])) ?? ctx.ev.facts.find((f) => f.series === s)!;
    const q = ctx.q;
    if (q.years.length && (type === 'number' || type === 'span' || type === 'entity')) {
      const row = rowsAbout.find((r) => r.some((c) => q.years.includes(c.trim())));
      if (row) out.push({ value: stripUnits(row[mc], q.units), covered: termIdx, all, fact: factOf(row), bonus: 0.6 });
      continue;
    }
    if (q.threshold && q.type === 'list') {
      const keep = rowsAbout.filter((r) => {
        const v = numericValue(r[mc]);
        return v !== undefined && (q.threshold!.op === '>' ? v > q.threshold!.value : v < q.threshold!.value);
      });
      out.push({ value: keep.map((r) => r[kc]), covered: termIdx, all, fact: factOf(keep[0] ?? rowsAbout[0]), bonus: 0.6 });
      continue;
    }
    if (q.superlative) {
      let best: string[] | undefined;
      let bestV = 0;
      for (const r of rowsAbout) {
        const v = numericValue(r[mc]);
        if (v === undefined) continue;
        if (!best || (q.superlative.dir === 'max' ? v > bestV : v < bestV)) {
          best = r;
          bestV = v;
        }
      }
      if (best) out.push({ value: type === 'number' ? stripUnits(best[mc], q.units) : best[kc], covered: termIdx, all, fact: factOf(best), bonus: 0.6 });
    }
  }
  return out;
}
