/**
 * A small, forgiving HTML tokenizer and tree builder (no HTML library is
 * installed). Good enough for documents: quoted attributes containing '>',
 * comments, CDATA, raw-text elements (script/style), void elements, and the
 * implicit end tags real pages rely on (<p>, <li>, <td>, <tr>, <option>...).
 * Mismatched end tags are ignored unless the element is open; nothing throws.
 */
import { decodeEntities } from './html-entities';

export interface HtmlElement {
  name: string;
  attrs: Record<string, string>;
  children: HtmlNode[];
  parent?: HtmlElement;
}
export type HtmlNode = HtmlElement | string;

export type HtmlToken =
  { type: 'text'; text: string } | { type: 'start'; name: string; attrs: Record<string, string>; selfClosing: boolean } | { type: 'end'; name: string };

const RAW_TEXT = new Set(['script', 'style', 'xmp', 'iframe', 'noembed', 'noframes', 'plaintext']);
const RCDATA = new Set(['title', 'textarea']);
export const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param', 'source', 'track', 'wbr', 'keygen']);

function isNameStart(c: string | undefined): boolean {
  return !!c && /[A-Za-z]/.test(c);
}

/** HTML text -> tokens. Text tokens are entity-decoded; raw-text element bodies are not. */
/** A start tag at `i` (html[i] is '<' before a name): its name, attributes until an unquoted '>', and where it ends. */
function readStartTag(html: string, i: number): { name: string; attrs: Record<string, string>; selfClosing: boolean; end: number } {
  const n = html.length;
  let j = i + 1;
  while (j < n && /[A-Za-z0-9:_-]/.test(html[j])) j++;
  const name = html.slice(i + 1, j).toLowerCase();
  const attrs: Record<string, string> = {};
  let selfClosing = false;
  for (;;) {
    while (j < n && /[\s/]/.test(html[j])) {
      if (html[j] === '/' && html[j + 1] === '>') selfClosing = true;
      j++;
    }
    if (j >= n || html[j] === '>') {
      j++;
      break;
    }
    const a0 = j;
    while (j < n && !/[\s=>/]/.test(html[j])) j++;
    const aname = html.slice(a0, j).toLowerCase();
    while (j < n && /\s/.test(html[j])) j++;
    let value = '';
    if (html[j] === '=') {
      j++;
      while (j < n && /\s/.test(html[j])) j++;
      const q = html[j];
      if (q === '"' || q === "'") {
        const end = html.indexOf(q, j + 1);
        value = html.slice(j + 1, end < 0 ? n : end);
        j = end < 0 ? n : end + 1;
      } else {
        const v0 = j;
        while (j < n && !/[\s>]/.test(html[j])) j++;
        value = html.slice(v0, j);
      }
    }
    if (aname && !(aname in attrs)) attrs[aname] = decodeEntities(value);
    if (j === a0) j++; // safety: always advance
  }
  return { name, attrs, selfClosing, end: j };
}

export function tokenizeHtml(html: string): HtmlToken[] {
  const out: HtmlToken[] = [];
  const n = html.length;
  let i = 0;
  let text = '';
  const flushText = () => {
    if (text) out.push({ type: 'text', text: decodeEntities(text) });
    text = '';
  };
  while (i < n) {
    const lt = html.indexOf('<', i);
    if (lt < 0) {
      text += html.slice(i);
      break;
    }
    text += html.slice(i, lt);
    i = lt;
    const c1 = html[i + 1];
    if (html.startsWith('<!--', i)) {
      const end = html.indexOf('-->', i + 4);
      i = end < 0 ? n : end + 3;
      continue;
    }
    if (html.startsWith('<![CDATA[', i)) {
      const end = html.indexOf(']]>', i + 9);
      flushText();
      out.push({ type: 'text', text: html.slice(i + 9, end < 0 ? n : end) });
      i = end < 0 ? n : end + 3;
      continue;
    }
    if (c1 === '!' || c1 === '?') {
      const end = html.indexOf('>', i + 2);
      i = end < 0 ? n : end + 1;
      continue;
    }
    if (c1 === '/' && isNameStart(html[i + 2])) {
      const m = /^<\/([A-Za-z][A-Za-z0-9:_-]*)[^>]*>?/.exec(html.slice(i, i + 300));
      const name = m ? m[1].toLowerCase() : '';
      const end = html.indexOf('>', i + 2);
      flushText();
      out.push({ type: 'end', name });
      i = end < 0 ? n : end + 1;
      continue;
    }
    if (!isNameStart(c1)) {
      text += '<';
      i++;
      continue;
    }
    const { name, attrs, selfClosing, end: j } = readStartTag(html, i);
    flushText();
    out.push({ type: 'start', name, attrs, selfClosing });
    i = j;
    if (RAW_TEXT.has(name) || RCDATA.has(name)) {
      const close = new RegExp(`</${name}\\s*>`, 'ig');
      close.lastIndex = i;
      const m = close.exec(html);
      const body = html.slice(i, m ? m.index : n);
      if (body) out.push({ type: 'text', text: RCDATA.has(name) ? decodeEntities(body) : body });
      out.push({ type: 'end', name });
      i = m ? m.index + m[0].length : n;
    }
  }
  flushText();
  return out;
}

const CLOSES_P = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'details',
  'div',
  'dl',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hr',
  'main',
  'menu',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'table',
  'ul',
]);
/** Elements whose start implicitly closes an open element of the listed names, not crossing the boundaries. */
const IMPLIED: Record<string, { closes: string[]; boundary: string[] }> = {
  li: { closes: ['li'], boundary: ['ul', 'ol', 'menu'] },
  dt: { closes: ['dt', 'dd'], boundary: ['dl'] },
  dd: { closes: ['dt', 'dd'], boundary: ['dl'] },
  tr: { closes: ['tr', 'td', 'th'], boundary: ['table', 'thead', 'tbody', 'tfoot'] },
  td: { closes: ['td', 'th'], boundary: ['tr', 'table'] },
  th: { closes: ['td', 'th'], boundary: ['tr', 'table'] },
  thead: { closes: ['thead', 'tbody', 'tfoot', 'tr', 'td', 'th'], boundary: ['table'] },
  tbody: { closes: ['thead', 'tbody', 'tfoot', 'tr', 'td', 'th'], boundary: ['table'] },
  tfoot: { closes: ['thead', 'tbody', 'tfoot', 'tr', 'td', 'th'], boundary: ['table'] },
  option: { closes: ['option'], boundary: ['select', 'datalist'] },
};
/** End tags that must not close anything outside the nearest enclosing table. */
const TABLE_SCOPED = new Set(['tr', 'td', 'th', 'thead', 'tbody', 'tfoot', 'caption']);

/** Tokens -> tree. The root is a synthetic `#document` element. */
export function parseHtml(html: string): HtmlElement {
  const root: HtmlElement = { name: '#document', attrs: {}, children: [] };
  const stack: HtmlElement[] = [root];
  const top = () => stack[stack.length - 1];
  const popTo = (idx: number) => {
    stack.length = Math.max(1, idx);
  };
  const findOpen = (name: string, boundary: string[] = []) => {
    for (let k = stack.length - 1; k > 0; k--) {
      if (stack[k].name === name) return k;
      if (boundary.includes(stack[k].name)) return -1;
    }
    return -1;
  };
  for (const t of tokenizeHtml(html)) {
    if (t.type === 'text') {
      const kids = top().children;
      if (typeof kids[kids.length - 1] === 'string') kids[kids.length - 1] += t.text;
      else kids.push(t.text);
      continue;
    }
    if (t.type === 'start') {
      if (CLOSES_P.has(t.name)) {
        const p = findOpen('p', ['button', 'table', 'td', 'th', 'li', 'div', 'section', 'article', 'blockquote', 'figure']);
        if (p > 0) popTo(p);
      }
      const rule = IMPLIED[t.name];
      if (rule) {
        for (const c of rule.closes) {
          const k = findOpen(c, rule.boundary);
          if (k > 0) {
            popTo(k);
          }
        }
      }
      const el: HtmlElement = { name: t.name, attrs: t.attrs, children: [], parent: top() };
      top().children.push(el);
      if (!VOID.has(t.name) && !t.selfClosing) stack.push(el);
      continue;
    }
    // End tag.
    if (t.name === 'br') {
      top().children.push({ name: 'br', attrs: {}, children: [], parent: top() });
      continue;
    }
    const k = findOpen(t.name, TABLE_SCOPED.has(t.name) ? ['table'] : []);
    if (k > 0) popTo(k);
  }
  return root;
}

export function isElement(n: HtmlNode | undefined): n is HtmlElement {
  return typeof n === 'object' && n !== null;
}

/** All descendants with one of the names (document order), not descending into `stopAt` elements. */
export function findAll(el: HtmlElement, names: string[], stopAt: string[] = []): HtmlElement[] {
  const out: HtmlElement[] = [];
  const visit = (e: HtmlElement) => {
    for (const c of e.children) {
      if (!isElement(c)) continue;
      if (names.includes(c.name)) out.push(c);
      if (!stopAt.includes(c.name)) visit(c);
    }
  };
  visit(el);
  return out;
}

export function classList(el: HtmlElement): string[] {
  return (el.attrs.class ?? '')
    .split(/\s+/)
    .filter(Boolean)
    .map((c) => c.toLowerCase());
}
