/**
 * The block formats of the released runner's evidence pool, read from the user's
 * checkout of kfbench/materials.py at import time (never part of this project):
 * the f-strings that write a material block, its neighbour and figure lines, a
 * search's figure lines, example lines, the media name, page tag and id note,
 * and the plain literals of the two group headers, the graph tag and the
 * no-caption text. Each becomes a `block-*` template of the pack
 * (lib/answer/block-format.ts fills them).
 *
 * An f-string is recognised by the Python expressions in its fields (what it
 * writes), not by its wording, and each field becomes a named placeholder; a
 * field the importer cannot place fails the import naming the template, so a
 * changed runner cannot silently send a half-filled block.
 */
import { KfError } from '../../util/errors';
import { pythonStringConstants } from './python-strings';

type Part = string | { expr: string };

const ESC: Record<string, string> = { n: '\n', t: '\t', '\\': '\\', '"': '"', "'": "'" };

/** Read the f-string whose quote opens at `i` (just after the f prefix); returns its parts and the end index. */
function readFString(src: string, i: number): { parts: Part[]; end: number } | undefined {
  const quote = src[i];
  const parts: Part[] = [];
  let lit = '';
  for (let j = i + 1; j < src.length;) {
    const c = src[j];
    if (c === '\n') return undefined;
    if (c === quote) return { parts: lit ? [...parts, lit] : parts, end: j + 1 };
    if (c === '\\') {
      lit += ESC[src[j + 1]] ?? `\\${src[j + 1]}`;
      j += 2;
    } else if ((c === '{' || c === '}') && src[j + 1] === c) {
      lit += c;
      j += 2;
    } else if (c === '{') {
      if (lit) parts.push(lit);
      lit = '';
      let depth = 0;
      let k = j + 1;
      let inner: string | undefined;
      for (; k < src.length && !(depth === 0 && src[k] === '}'); k++) {
        const d = src[k];
        if (inner) inner = d === inner ? undefined : inner;
        else if (d === "'" || d === '"') inner = d;
        else if ('([{'.includes(d)) depth++;
        else if (')]}'.includes(d)) depth--;
      }
      parts.push({
        expr: src
          .slice(j + 1, k)
          .replace(/![rsa]$/, '')
          .trim(),
      });
      j = k + 1;
    } else {
      lit += c;
      j++;
    }
  }
  return undefined;
}

/** Every one-line f-string of a source file, in order. */
function fStrings(src: string): Part[][] {
  const out: Part[][] = [];
  for (const m of src.matchAll(/(?<![\w'"])[fF](?=["'])/g)) {
    const r = readFString(src, (m.index ?? 0) + 1);
    if (r) out.push(r.parts);
  }
  return out;
}

const exprs = (parts: Part[]): string[] => parts.filter((p): p is { expr: string } => typeof p !== 'string').map((p) => p.expr);

/** One block template: which f-string it is (by its fields) and what each field becomes. */
export interface FStringRule {
  template: string;
  role: string;
  match: (e: string[]) => boolean;
  fields: [RegExp, string][];
  /** Which of the f-strings that match, in module order (default the first): for fields several materializers share. */
  nth?: number;
}

export const BLOCK_FSTRING_RULES: FStringRule[] = [
  {
    template: 'block-material',
    role: 'pool: a numbered text block (number, source label, graph tag, text)',
    match: (e) => e.includes('cid') && e.includes('text') && e.some((x) => /label/.test(x)),
    fields: [
      [/^cid$/, 'n'],
      [/label/, 'source'],
      [/^tag$/, 'tag'],
      [/^text$/, 'text'],
    ],
  },
  {
    template: 'block-context',
    role: 'pool: a neighbouring passage line of a text block',
    match: (e) => e.length === 1 && e[0] === 'seg',
    fields: [[/^seg$/, 'text']],
  },
  {
    template: 'block-media-attached',
    role: 'pool: a figure or table line attached to a text block',
    match: (e) => e.includes('cfid_note') && e.some((x) => /emitted\[0\]/.test(x)),
    fields: [
      [/emitted\[0\]/, 'name'],
      [/_page_tag/, 'page'],
      [/fid_note/, 'idNote'],
      [/emitted\[1\]/, 'caption'],
    ],
  },
  {
    template: 'block-media-hit',
    role: 'pool: a figure or table line of a search (under the figure group header)',
    match: (e) => e.includes('fid_note') && e.some((x) => /emitted\[0\]/.test(x)),
    fields: [
      [/emitted\[0\]/, 'name'],
      [/_page_tag/, 'page'],
      [/fid_note/, 'idNote'],
      [/emitted\[1\]/, 'caption'],
    ],
  },
  { template: 'block-id-note', role: "pool: note naming a figure's fragment id", match: (e) => e.length === 1 && e[0] === 'cfid', fields: [[/^cfid$/, 'id']] },
  { template: 'block-page', role: "pool: a figure's page tag", match: (e) => e.length === 1 && /group\(1\)/.test(e[0]), fields: [[/group\(1\)/, 'page']] },
  {
    template: 'block-media-name',
    role: 'pool: the name of media number N (cited in brackets)',
    match: (e) => e.length === 1 && /len\(self\.images\)/.test(e[0]),
    fields: [[/len\(self\.images\)/, 'n']],
  },
  {
    template: 'block-example',
    role: 'pool: an example line',
    match: (e) => e.length === 1 && /\be\.get\(["']text["']\)/.test(e[0]),
    fields: [[/\be\.get/, 'text']],
  },
];

export const LIT = `(?:[rRuU]?"(?:[^"\\\\\\n]|\\\\.)*"\\s*)+`;

/** Plain literals (not f-strings) of the layout, by the code around them. */
/** A plain literal of a layout, found by the code around it (group 1: the literal, adjacent parts allowed). */
export interface LiteralRule {
  template: string;
  role: string;
  re: RegExp;
  trimEnd?: boolean;
}

export const BLOCK_LITERAL_RULES: LiteralRule[] = [
  {
    template: 'block-media-header',
    role: "pool: header of a search's figure and table lines",
    re: new RegExp(`\\.append\\(\\s*(${LIT})\\+\\s*"\\\\n"\\.join\\(hit_lines\\)`),
    trimEnd: true,
  },
  {
    template: 'block-examples-header',
    role: "pool: header of a search's example lines",
    re: new RegExp(`\\.append\\(\\s*(${LIT})\\+\\s*"\\\\n"\\.join\\(ex_lines\\)`),
    trimEnd: true,
  },
  {
    template: 'block-graph-tag',
    role: 'pool: tag of a block reached through the graph',
    re: new RegExp(`tag\\s*=\\s*(${LIT})if\\s+\\w+\\.get\\(\\s*["']from_graph`),
  },
  { template: 'block-no-caption', role: 'pool: caption of a figure that has none', re: new RegExp(`\\(n,\\s*caption\\s+or\\s+(${LIT})\\)`) },
];

function toTemplate(rule: FStringRule, parts: Part[]): string {
  return parts
    .map((p) => {
      if (typeof p === 'string') return p;
      const f = rule.fields.find(([re]) => re.test(p.expr));
      if (!f)
        throw new KfError(
          'prompt_pack_source',
          `kfbench/materials.py: ${rule.template} has a field {${p.expr}} the importer cannot place`,
          'report the runner version',
          {
            concerns: rule.template,
          },
        );
      return `{{${f[1]}}}`;
    })
    .join('');
}

/**
 * The templates a set of rules finds in a materials.py: template -> {text, role, from}; fails naming
 * every template not found (`what` names the group in the message).
 */
export function layoutTemplates(
  source: string,
  rules: { fStrings: readonly FStringRule[]; literals: readonly LiteralRule[]; what: string; hint: string },
): Map<string, { text: string; role: string; from: string }> {
  const src = source.replace(/\r\n/g, '\n');
  const all = fStrings(src);
  const out = new Map<string, { text: string; role: string; from: string }>();
  for (const rule of rules.fStrings) {
    const parts = all.filter((p) => rule.match(exprs(p)))[rule.nth ?? 0];
    if (parts) out.set(rule.template, { text: toTemplate(rule, parts), role: rule.role, from: `f-string with fields ${exprs(parts).join(', ')}` });
  }
  for (const rule of rules.literals) {
    const m = rule.re.exec(src);
    const text = m ? pythonStringConstants(`X = (${m[1].trim()})\n`).get('X') : undefined;
    if (text !== undefined) out.set(rule.template, { text: rule.trimEnd ? text.trimEnd() : text, role: rule.role, from: 'string literal' });
  }
  const missing = [...rules.fStrings, ...rules.literals].map((r) => r.template).filter((t) => !out.has(t));
  if (missing.length)
    throw new KfError('prompt_pack_source', `kfbench/materials.py: ${rules.what} ${missing.join(', ')} were not found`, rules.hint, {
      concerns: 'kfbench/materials.py',
    });
  return out;
}

/** The block templates of a materials.py: template -> {text, role, from}; fails naming what is missing. */
export function runnerBlockTemplates(source: string): Map<string, { text: string; role: string; from: string }> {
  return layoutTemplates(source, {
    fStrings: BLOCK_FSTRING_RULES,
    literals: BLOCK_LITERAL_RULES,
    what: 'the block formats',
    hint: 'check out a release of knowforge-bench whose MaterialBuilder writes them',
  });
}
