/**
 * The endpoints about a package and its documents: `card`, `overview`, `sources`, `book-toc`, and
 * how a `book` argument (a file name, a title, or a distinctive part of one) picks a document.
 */
import type { ServedDocument } from './corpus';
import { docFields, type Json } from './json';
import { rootNodeOf, type ServedPackage } from './packages';

/** Candidates listed when a book argument matches several documents. */
const CANDIDATES = 20;

export type BookChoice = { doc: ServedDocument } | { error: Json };

/**
 * The document `book` names: with one document, it (whatever `book` says when it is empty); else an
 * exact name, id or title, else the only one containing it. `error` is the API's refusal:
 * book_required (several documents, no book), ambiguous (several match) or book_not_found.
 */
export function chooseBook(pkg: ServedPackage, book: string | null | undefined): BookChoice {
  const want = (book ?? '').trim().toLowerCase();
  if (!want) {
    if (pkg.docs.length === 1) return { doc: pkg.docs[0] };
    return { error: { error: 'book_required', matched: pkg.docs.length, candidates: pkg.docs.slice(0, CANDIDATES).map((d) => d.file) } };
  }
  const exact = pkg.docs.find((d) => [d.file, d.id, d.title].some((n) => n.toLowerCase() === want));
  if (exact) return { doc: exact };
  const some = pkg.docs.filter((d) => [d.file, d.title].some((n) => n.toLowerCase().includes(want)));
  if (some.length === 1) return { doc: some[0] };
  if (some.length > 1) return { error: { error: 'ambiguous', matched: some.length, candidates: some.slice(0, CANDIDATES).map((d) => d.file) } };
  return { error: { error: 'book_not_found', book } };
}

export function card(pkg: ServedPackage): Json {
  const ov = pkg.kb.overview();
  let images = 0;
  let tables = 0;
  for (const d of pkg.docs)
    for (const f of pkg.corpus.fragmentsOf(d.id)) {
      if (f.kind === 'image') images++;
      else if (f.kind === 'table') tables++;
    }
  return { uuid: pkg.uuid, name: pkg.name, description: ov.goal, documents: ov.documents, fragments: ov.fragments, images, tables };
}

export function overview(pkg: ServedPackage): Json {
  const ov = pkg.kb.overview();
  return {
    uuid: pkg.uuid,
    name: pkg.name,
    goal: ov.goal,
    modules: ov.modules.map((title) => ({ title })),
    documents: ov.documents,
    fragments: ov.fragments,
  };
}

export function sources(pkg: ServedPackage): Json {
  const list = pkg.docs.map((d) => {
    const frags = pkg.corpus.fragmentsOf(d.id);
    const pages = frags.reduce((m, f) => Math.max(m, f.page ?? 0), 0);
    return { name: d.file, title: d.title, root_node_id: rootNodeOf(d.id), one_line: d.title, pages: pages || undefined, fragments: frags.length };
  });
  return { total: list.length, sources: list };
}

export function bookToc(pkg: ServedPackage, q: URLSearchParams): Json {
  const choice = chooseBook(pkg, q.get('book'));
  if ('error' in choice) {
    const e = choice.error;
    // Several matches: the candidates, without an error code (the runner asks again with a fuller name).
    return e.error === 'ambiguous' || e.error === 'book_required' ? { matched: e.matched, candidates: e.candidates } : e;
  }
  const doc = choice.doc;
  const sections = pkg.kb.toc(doc.id).map((h) => ({ title: h.path.at(-1) ?? '', level: h.path.length, path: h.path, page: h.page, fragment_id: h.fragmentId }));
  return { book: doc.file, title: doc.title, ...docFields(pkg, doc.id), toc: { sections } };
}
