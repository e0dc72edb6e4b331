/**
 * Bounded prose pieces: long text is cut at paragraph boundaries first, then at
 * sentence boundaries, then at spaces, so every piece stays under `max` chars and
 * pieces aim at `target` chars (retrieval units of ~1,000-1,500 chars).
 */

/** Sentences of a paragraph (a pragmatic splitter: ". " followed by an upper-case letter, digit or quote). */
export function splitSentences(text: string): string[] {
  const out: string[] = [];
  // Abbreviations that end with a dot but do not end a sentence.
  const abbrev = /\b(?:e\.g|i\.e|etc|vs|cf|Fig|Figs|Eq|Eqs|No|Nos|Dr|Mr|Mrs|Ms|Prof|Inc|Ltd|Co|Corp|St|Jr|Sr|al|approx|Sec|Vol|pp)\.$/i;
  const re = /[.!?。！？]["'”’)\]]*\s+(?=["'“‘([]?[A-Z0-9À-ÖØ-Þ])/g;
  let start = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) {
    const end = m.index + m[0].length;
    const candidate = text.slice(start, m.index + 1);
    if (abbrev.test(candidate)) continue;
    out.push(text.slice(start, end).trim());
    start = end;
  }
  if (start < text.length) out.push(text.slice(start).trim());
  return out.filter(Boolean);
}

/** Cut one over-long string at spaces (or hard, for a space-less run) into pieces <= max. */
function hardCut(text: string, max: number): string[] {
  const out: string[] = [];
  let rest = text.trim();
  while (rest.length > max) {
    let cut = rest.lastIndexOf(' ', max);
    if (cut < max * 0.5) cut = max;
    out.push(rest.slice(0, cut).trim());
    rest = rest.slice(cut).trim();
  }
  if (rest) out.push(rest);
  return out;
}

/** Greedy packing of units (joined by `sep`) into pieces aiming at `target`, never over `max`. */
export function pack(units: string[], target: number, max: number, sep: string): string[] {
  const out: string[] = [];
  let cur = '';
  for (const u of units) {
    if (!cur) {
      cur = u;
      continue;
    }
    const joined = cur.length + sep.length + u.length;
    // Join while under target; a small remainder may also join up to max, so we
    // do not leave crumbs of a few words as fragments of their own.
    if (joined <= target || (joined <= max && (cur.length < target * 0.25 || u.length < target * 0.15))) cur += sep + u;
    else {
      out.push(cur);
      cur = u;
    }
  }
  if (cur) out.push(cur);
  return out;
}

/** Split one paragraph (no blank lines inside) into pieces <= max. */
export function splitParagraph(para: string, target: number, max: number): string[] {
  if (para.length <= max) return [para];
  const units: string[] = [];
  for (const s of splitSentences(para)) {
    if (s.length <= max) units.push(s);
    else units.push(...hardCut(s, Math.min(max, target)));
  }
  return pack(units, target, max, ' ');
}

/** Split prose (paragraphs separated by blank lines) into bounded pieces. */
export function splitProse(text: string, target: number, max: number): string[] {
  const paras = text
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter(Boolean);
  const units: string[] = [];
  for (const p of paras) units.push(...splitParagraph(p, target, max));
  return pack(units, target, max, '\n\n');
}
