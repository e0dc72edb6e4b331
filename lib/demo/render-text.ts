/**
 * Markdown and HTML renderings of a document tree, following the conventions the
 * ingester relies on (data/demo/README.md):
 *  - Markdown: `#` title, `##` sections; a table is preceded by the line
 *    `*Table N: caption*`; an image is `![caption](assets/x.png)` on its own line
 *    with `*Figure N: caption*` on the next line; a worked example is a paragraph
 *    starting `Worked example:`.
 *  - HTML: <h1>/<h2>; <table> with <caption>Table N: ...</caption>;
 *    <figure><img src alt><figcaption>Figure N: ...</figcaption></figure>;
 *    <div class="example"><p>Worked example: ...</p></div>.
 */
import type { DemoDoc } from './types';

function mdCell(s: string): string {
  return s.replace(/\|/g, '\\|');
}

export function renderMarkdown(doc: DemoDoc): string {
  const out: string[] = [`# ${doc.title}`, ''];
  for (const s of doc.sections) {
    out.push(`## ${s.heading}`, '');
    for (const b of s.blocks) {
      switch (b.kind) {
        case 'paragraph':
        case 'example':
          out.push(b.text, '');
          break;
        case 'table':
          out.push(`*${b.label}: ${b.caption}*`, '');
          out.push(`| ${b.header.map(mdCell).join(' | ')} |`, `| ${b.header.map(() => '---').join(' | ')} |`);
          for (const r of b.rows) out.push(`| ${r.map(mdCell).join(' | ')} |`);
          out.push('');
          break;
        case 'figure':
          out.push(`![${b.caption}](${b.asset})`, `*${b.label}: ${b.caption}*`, '');
          break;
      }
    }
  }
  return out.join('\n').replace(/\n+$/, '\n');
}

export function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

export function renderHtml(doc: DemoDoc): string {
  const e = escapeHtml;
  const out: string[] = [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<title>${e(doc.title)}</title>`,
    '<style>body{font-family:sans-serif;max-width:48em;margin:2em auto}table{border-collapse:collapse}td,th{border:1px solid #999;padding:.2em .5em}.example{background:#f4f4f4;padding:.2em 1em}figure img{max-width:100%}</style>',
    '</head>',
    '<body>',
    `<h1>${e(doc.title)}</h1>`,
  ];
  for (const s of doc.sections) {
    out.push('<section>', `<h2>${e(s.heading)}</h2>`);
    for (const b of s.blocks) {
      switch (b.kind) {
        case 'paragraph':
          out.push(`<p>${e(b.text)}</p>`);
          break;
        case 'example':
          out.push(`<div class="example"><p>${e(b.text)}</p></div>`);
          break;
        case 'table':
          out.push(
            '<table>',
            `<caption>${e(b.label)}: ${e(b.caption)}</caption>`,
            `<thead><tr>${b.header.map((h) => `<th>${e(h)}</th>`).join('')}</tr></thead>`,
            '<tbody>',
          );
          for (const r of b.rows) out.push(`<tr>${r.map((c) => `<td>${e(c)}</td>`).join('')}</tr>`);
          out.push('</tbody>', '</table>');
          break;
        case 'figure':
          out.push(`<figure><img src="${e(b.asset)}" alt="${e(b.alt)}"><figcaption>${e(b.label)}: ${e(b.caption)}</figcaption></figure>`);
          break;
      }
    }
    out.push('</section>');
  }
  out.push('</body>', '</html>', '');
  return out.join('\n');
}
