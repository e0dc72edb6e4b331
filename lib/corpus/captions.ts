/**
 * Figure and table captions: "Figure 3: Sales by region", "Fig. 2. ...",
 * "Table 2 | ...". The label ("Figure 3", "Table 2") is what find_figure matches,
 * so "Fig." is normalised to "Figure"; the number is kept as printed ("3", "2.1", "S4").
 */

export interface Caption {
  /** 'figure' or 'table': decides whether the caption belongs to an image or a table. */
  kind: 'figure' | 'table';
  /** Normalised label, e.g. "Figure 3". */
  label: string;
  /** The whole caption line as printed (markup removed). */
  text: string;
}

const WORDS: Record<string, 'figure' | 'table'> = {
  figure: 'figure',
  fig: 'figure',
  chart: 'figure',
  diagram: 'figure',
  exhibit: 'figure',
  plate: 'figure',
  image: 'figure',
  photo: 'figure',
  graph: 'figure',
  table: 'table',
  tab: 'table',
};

// Word, number, then a separator (":", ".", "|", dash) or the end. "Figure 3 shows ..." is a
// reference in prose, not a caption, which is why a separator is required.
const CAPTION_RE =
  /^(Figure|Fig|Chart|Diagram|Exhibit|Plate|Image|Photo|Graph|Table|Tab)\.?\s*((?:[A-Z]?\d+|[IVXLC]+)(?:[.\-–]\d+)*[a-z]?)\s*(?:[:.|\-–—]\s*|$)/i;

/** Strip the emphasis markers a Markdown caption line is written with (`*...*`, `_..._`, `**...**`). */
export function stripEmphasis(s: string): string {
  let t = s.trim();
  for (;;) {
    const m = /^(\*\*|__|\*|_)([\s\S]+)\1$/.exec(t);
    if (!m) break;
    t = m[2].trim();
  }
  return t;
}

/**
 * Parse a caption at the start of a line/paragraph. Returns undefined for prose.
 * `loose` accepts a missing separator ("Figure 3 Sales") -- used where the layout
 * already says "this is a caption" (an italic line right under an image).
 */
export function parseCaption(line: string, loose = false): Caption | undefined {
  const text = stripEmphasis(line).replace(/\s+/g, ' ').trim();
  if (!text || text.length > 1000) return undefined;
  let m = CAPTION_RE.exec(text);
  if (!m && loose) m = /^(Figure|Fig|Chart|Diagram|Exhibit|Plate|Image|Photo|Graph|Table|Tab)\.?\s*((?:[A-Z]?\d+)(?:[.\-–]\d+)*[a-z]?)\b/i.exec(text);
  if (!m) return undefined;
  const word = m[1].toLowerCase();
  const kind = WORDS[word];
  if (!kind) return undefined;
  // Roman numerals only for tables ("Table IV"); "Figure I" is too often a word.
  if (/^[IVXLC]+$/.test(m[2]) && kind !== 'table') return undefined;
  const printed = word === 'fig' ? 'Figure' : word === 'tab' ? 'Table' : m[1][0].toUpperCase() + m[1].slice(1).toLowerCase();
  return { kind, label: `${printed} ${m[2]}`, text };
}

/**
 * A worked example starts with "Worked example:" (also "Worked example 2:", or in
 * bold in Markdown). A bare "Worked example" line is a heading, not an example.
 */
const EXAMPLE_START = /^\s*(?:\*\*|__)?\s*worked example(?:\s+\d+)?\s*(?:\*\*|__)?\s*[:.\-–—]/i;

export function isWorkedExample(text: string): boolean {
  return EXAMPLE_START.test(text);
}
