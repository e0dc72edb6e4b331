/**
 * The layouts of the released runner's reading-tool results beyond the search listing, read from the
 * user's checkout of kfbench/materials.py at import time (never part of this project). Today:
 * read_media (its materializer writes one line per asset looked at, a line per error, a line naming
 * the ids over the per-call cap, a header before them, and a note when nothing came back). Each
 * becomes a `read-media-*` template of the pack (lib/knowforge/tools/read-listing.ts fills them).
 *
 * As with the block formats, an f-string is recognised by the Python expressions in its fields, a
 * literal by the code around it, never by its wording; a template not found fails the import naming it.
 */
import { LIT, layoutTemplates, type FStringRule, type LiteralRule } from './runner-blocks';

export const RESULT_FSTRING_RULES: FStringRule[] = [
  {
    template: 'read-media-answer',
    role: 'read_media result: the line of one asset looked at (its media name, kind, the vision answer)',
    match: (e) => e.includes('tag') && e.some((x) => /\.get\(["']answer["']\)/.test(x)),
    fields: [
      [/^tag$/, 'name'],
      [/\.get\(["']kind["']\)/, 'kind'],
      [/\.get\(["']answer["']\)/, 'answer'],
    ],
  },
  {
    template: 'read-media-error',
    role: 'read_media result: the line of an id that could not be looked at',
    match: (e) => e.length === 2 && /fragment_id/.test(e[0]) && /\[["']error["']\]/.test(e[1]),
    fields: [
      [/fragment_id/, 'id'],
      [/\[["']error["']\]/, 'error'],
    ],
  },
  {
    template: 'read-media-skipped',
    role: 'read_media result: the ids over the per-call cap, not looked at',
    match: (e) => e.length === 1 && /\[["']skipped["']\]/.test(e[0]),
    fields: [[/\[["']skipped["']\]/, 'ids']],
  },
];

export const RESULT_LITERAL_RULES: LiteralRule[] = [
  {
    template: 'read-media-header',
    role: 'read_media result: header before the asset lines',
    re: new RegExp(`block\\s*=\\s*\\(\\s*(${LIT})\\+\\s*"\\\\n"\\.join\\(lines\\)\\s*\\)`),
    trimEnd: true,
  },
  {
    // The literal returned when no line was written, right after the skipped-ids line.
    template: 'read-media-empty',
    role: 'read_media result when nothing came back',
    re: new RegExp(`skipped[^\\n]*\\n\\s*if\\s+not\\s+lines:\\s*\\n\\s*return\\s+(${LIT})`),
    trimEnd: true,
  },
];

/** The result templates of a materials.py: template -> {text, role, from}; fails naming what is missing. */
export function runnerResultTemplates(source: string): Map<string, { text: string; role: string; from: string }> {
  return layoutTemplates(source, {
    fStrings: RESULT_FSTRING_RULES,
    literals: RESULT_LITERAL_RULES,
    what: 'the tool-result formats',
    hint: 'check out a release of knowforge-bench whose materializers write them',
  });
}
