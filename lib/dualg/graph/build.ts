/**
 * Building the dual-tier graph from the fragments of an index (spec "Offline
 * construction"): macro entities and triples from text (offline extraction, or
 * the `openie` stage when a model extractor is given), title-mention links,
 * equivalence edges, document incidence; micro facts from tables and images,
 * aligned to macro entities (exact name, then nearest name).
 */
import type { Fragment } from '../../corpus/types';
import { sentences, stem, STOPWORDS } from '../../util/text-rules';
import { equivalencePairs, type NameEmbedder } from './equivalence';
import { extractSentence, skipKey } from './extract-offline';
import { alignMicro, alignMicroDense } from './align';
import { microFacts } from './micro';
import type { VisionFactSource } from './micro-vision';
import { NameMatcher } from './name-matcher';
import { nameKey, titleVariants, wordTokens } from './names';
import { BUILTIN_RELATIONS, REL_COOCCURS, REL_EQUIVALENT, REL_MENTIONS, REL_PART_OF, type DualGraph, type EntityOrigin } from './types';

export const DUALG_GRAPH_VERSION = 9;

/** What the graph is built from: the documents and fragments of one index (see source.ts). */
export interface GraphSource {
  id: string;
  /** Content identity of the index (a graph built from another index is refused). */
  fingerprint: string;
  documents(): { id: string; title: string }[];
  fragmentsOf(docId: string): Fragment[];
}

/** A model-backed OpenIE extractor (the `openie` stage): triples of one text. */
export type OpenIeExtractor = (text: string, fragmentId: string) => Promise<[string, string, string][]>;

export interface GraphBuildOptions {
  /** Equivalence threshold on name cosine (spec tau = 0.8). */
  tau?: number;
  embedNames?: NameEmbedder;
  /** Cross-tier alignment C through the `embedding` stage (exact names, then dense; graph setting alignment = "stage"). */
  alignNames?: NameEmbedder;
  openie?: OpenIeExtractor;
  /** Machine captions of image fragments by fragment id (e.g. MMQA LLaVA captions). */
  captions?: Map<string, string>;
  /** VLM facts of image assets (the `vision` stage, micro-vision.ts), added to the offline ones (graph setting microImages). */
  vision?: VisionFactSource;
  log?(line: string): void;
}

const MAX_DOC_STEMS = 400;

/** Mutable state while building; `finish` turns it into a DualGraph. */
class GraphBuilder {
  readonly g: DualGraph;
  private readonly relIds = new Map<string, number>();
  private readonly titlePairs = new Set<string>();

  constructor(source: GraphSource, settings: Record<string, unknown>) {
    this.g = {
      meta: { version: DUALG_GRAPH_VERSION, source: { id: source.id, fingerprint: source.fingerprint }, settings, stats: {} },
      entityNames: [],
      entityKeys: [],
      entityOrigin: [],
      aliases: new Map(),
      relations: [],
      triples: [],
      docs: [],
      entityDocs: [],
      micro: [],
    };
    for (const r of BUILTIN_RELATIONS) this.relation(r);
  }

  relation(text: string): number {
    let id = this.relIds.get(text);
    if (id === undefined) {
      id = this.g.relations.length;
      this.g.relations.push(text);
      this.relIds.set(text, id);
    }
    return id;
  }

  /** The entity a key names (created when new). */
  entity(key: string, name: string, origin: EntityOrigin): number {
    const known = this.g.aliases.get(key);
    if (known) return known[0];
    const id = this.g.entityNames.length;
    this.g.entityNames.push(name);
    this.g.entityKeys.push(key);
    this.g.entityOrigin.push(origin);
    this.g.entityDocs.push([]);
    this.g.aliases.set(key, [id]);
    return id;
  }

  alias(key: string, entity: number): void {
    const ids = this.g.aliases.get(key);
    if (!ids) this.g.aliases.set(key, [entity]);
    else if (!ids.includes(entity)) ids.push(entity);
  }

  /** The entity a document's title names: recorded so that `occurs` knows where a non-trailing entry can be. */
  titleOccurs(entity: number, doc: number): void {
    this.titlePairs.add(`${entity}:${doc}`);
    this.occurs(entity, doc, 1);
  }

  /**
   * Documents are read in order, so an entry of the document being read is its entity's last, unless the title
   * pass put it there earlier: a look-up by list scan made the 201K-fragment build quadratic in entity frequency.
   */
  occurs(entity: number, doc: number, weight: number): void {
    const list = this.g.entityDocs[entity];
    const last = list[list.length - 1];
    const at = last?.doc === doc ? last : this.titlePairs.has(`${entity}:${doc}`) ? list.find((x) => x.doc === doc) : undefined;
    if (at) at.weight = Math.max(at.weight, weight);
    else list.push({ doc, weight });
  }

  triple(head: number, rel: number, tail: number, doc: number, weight: number, context?: string, lead?: string): void {
    if (head === tail) return;
    this.g.triples.push({ head, rel, tail, doc, weight, ...(context ? { context } : {}), ...(lead ? { lead } : {}) });
  }
}

/** Title entities and their variants; returns the matcher over every title variant. */
function addTitles(b: GraphBuilder, source: GraphSource): NameMatcher {
  const matcher = new NameMatcher();
  for (const d of source.documents()) {
    const variants = titleVariants(d.title).filter((k) => !skipKey(k));
    const doc = b.g.docs.length;
    const titleEntity = variants.length ? b.entity(variants[0], d.title, 'title') : -1;
    b.g.docs.push({ id: d.id, title: d.title, titleEntity, stems: [] });
    if (titleEntity < 0) continue;
    b.titleOccurs(titleEntity, doc);
    for (const k of variants) {
      b.alias(k, titleEntity);
      matcher.add(k);
    }
  }
  // Opening names come second: they never take a name that is some document's title or title variant.
  b.g.docs.forEach((d) => {
    const lead = d.titleEntity >= 0 ? leadName(source.fragmentsOf(d.id)[0]?.text ?? '') : undefined;
    if (!lead || b.g.aliases.has(lead)) return;
    b.alias(lead, d.titleEntity);
    matcher.add(lead);
  });
  return matcher;
}

/**
 * The name a passage opens with, a redirect-like alias of its title: "Frederick Barbarossa (1122 - 1190)
 * ..." under the title "Frederick I, Holy Roman Emperor". Only a capitalised phrase of two words or more
 * at the very start, followed by "(", "," or a verb ("was", "is").
 */
export function leadName(text: string): string | undefined {
  const first = sentences(text.slice(0, 400))[0] ?? '';
  const m = /^((?:[\p{Lu}][\p{L}'’.-]*)(?:\s+(?:of|de|von|van|the|[\p{Lu}][\p{L}'’.-]*)){1,5})\s*(?:\(|,|\b(?:was|is|were|are)\b)/u.exec(first);
  if (!m) return undefined;
  const key = nameKey(m[1]);
  return key.includes(' ') && !skipKey(key) ? key : undefined;
}

function docStems(frags: Fragment[]): string[] {
  const set = new Set<string>();
  // Stop reading once the set is full: long documents (the scale preset's 60 fragments) would otherwise be tokenised whole.
  for (const f of frags) {
    if (set.size >= MAX_DOC_STEMS) break;
    for (const t of wordTokens(f.text)) if (!STOPWORDS.has(t.norm) && set.size < MAX_DOC_STEMS) set.add(stem(t.norm));
  }
  return [...set];
}

const CONNECTOR_WORDS = new Set(['de', 'la', 'von', 'van', 'der', 'du', 'le', 'del', 'da', 'di', 'al', 'bin', 'ibn']);
const HONORIFICS = new Set([
  ...'king queen emperor empress prince princess duke duchess count countess saint st sir lord lady'.split(' '),
  ...'pope president general judge bishop archbishop dr mr mrs ms captain chief sultan shah tsar czar'.split(' '),
]);

/**
 * Surnames of person-like titles (two or three plain words, no digits, parentheses or commas) that no other
 * such title shares: "King Dikkha" or a bare "Dikkha" in a passage then names "Min Dikkha".
 */
function surnameIndex(b: GraphBuilder): Map<string, number> {
  const out = new Map<string, number>();
  const clash = new Set<string>();
  // A word in more than one title ("Burgundy") names no single person.
  const titlesWith = new Map<string, number>();
  for (const d of b.g.docs) for (const w of new Set(nameKey(d.title).split(' '))) titlesWith.set(w, (titlesWith.get(w) ?? 0) + 1);
  for (const d of b.g.docs) {
    if (d.titleEntity < 0 || /[\d(),]/.test(d.title)) continue;
    const words = nameKey(d.title).split(' ');
    const last = words[words.length - 1];
    if (words.length < 2 || words.length > 3 || words.some((w) => STOPWORDS.has(w) || CONNECTOR_WORDS.has(w))) continue;
    if (last.length < 4 || skipKey(last) || b.g.aliases.has(last) || titlesWith.get(last) !== 1) continue;
    if (out.has(last) && out.get(last) !== d.titleEntity) clash.add(last);
    out.set(last, d.titleEntity);
  }
  for (const w of clash) out.delete(w);
  return out;
}

function bySurname(key: string, surnames: Map<string, number>): number | undefined {
  const words = key.split(' ');
  while (words.length > 1 && HONORIFICS.has(words[0])) words.shift();
  return words.length === 1 ? surnames.get(words[0]) : undefined;
}

/** Macro extraction over one document's text. */
function addDocumentText(b: GraphBuilder, doc: number, frags: Fragment[], titles: NameMatcher, surnames: Map<string, number>): void {
  const self = b.g.docs[doc].titleEntity;
  for (const f of frags) {
    const text = f.caption && !f.text.includes(f.caption) ? `${f.caption}. ${f.text}` : f.text;
    for (const s of sentences(text)) {
      const x = extractSentence(s, titles);
      const ids = new Map<string, number>();
      const leads = new Map<number, string>();
      for (const n of x.names) {
        const id = (n.title ? undefined : bySurname(n.key, surnames)) ?? b.entity(n.key, n.surface, n.title ? 'title' : 'text');
        ids.set(n.key, id);
        if (!leads.has(id)) leads.set(id, n.lead ?? '');
        b.occurs(id, doc, 0.5);
        if (!n.title)
          for (const inner of titles.scan(n.surface, { requireCapital: true, skip: skipKey })) {
            if (inner.key !== n.key) b.triple(id, REL_PART_OF, b.g.aliases.get(inner.key)![0], doc, 1);
          }
      }
      const ctx = x.context.join(' ');
      if (self >= 0) for (const id of new Set(ids.values())) b.triple(self, REL_MENTIONS, id, doc, 1, ctx, leads.get(id));
      for (const t of x.triples) b.triple(ids.get(t.head)!, b.relation(t.relation), ids.get(t.tail)!, doc, 1, ctx);
      for (const [h, t] of x.cooccurs) b.triple(ids.get(h)!, REL_COOCCURS, ids.get(t)!, doc, 0.5, ctx);
    }
  }
}

async function addModelTriples(b: GraphBuilder, doc: number, frags: Fragment[], openie: OpenIeExtractor): Promise<number> {
  let n = 0;
  for (const f of frags) {
    if (f.kind !== 'text' && f.kind !== 'example') continue;
    for (const [h, r, t] of await openie(f.text, f.id)) {
      const hk = nameKey(h);
      const tk = nameKey(t);
      if (skipKey(hk) || skipKey(tk)) continue;
      const hi = b.entity(hk, h, 'text');
      const ti = b.entity(tk, t, 'text');
      b.occurs(hi, doc, 0.5);
      b.occurs(ti, doc, 0.5);
      b.triple(hi, b.relation(r.toLowerCase().trim().slice(0, 60) || 'related to'), ti, doc, 1);
      n++;
    }
  }
  return n;
}

/** Counts of the vision parse for the graph's stats; each unreadable reply is logged with its asset. */
function visionStats(vision: VisionFactSource, log?: (line: string) => void): Record<string, number> {
  const r = vision.report;
  for (const e of r.errors) log?.(`dualg graph: vision reply for ${e.fragmentId} not used (its offline facts kept): ${e.error}`);
  return { visionAssets: r.assets, visionSent: r.sent, visionFacts: r.facts, visionErrors: r.errors.length };
}

export async function buildDualGraph(source: GraphSource, opts: GraphBuildOptions = {}): Promise<DualGraph> {
  const t0 = Date.now();
  const tau = opts.tau ?? 0.8;
  const vision = opts.vision ? { microImages: 'vision' } : {}; // absent for the default (offline) images: default output unchanged
  const align = opts.alignNames ? { alignment: 'model' } : {}; // absent for the default (trigram) alignment: default output unchanged
  const b = new GraphBuilder(source, { tau, openie: opts.openie ? 'model' : 'offline', names: opts.embedNames ? 'model' : 'trigram', ...vision, ...align });
  const titles = addTitles(b, source);
  const surnames = surnameIndex(b);
  let modelTriples = 0;
  const raw = [];
  for (let doc = 0; doc < b.g.docs.length; doc++) {
    const d = b.g.docs[doc];
    const frags = source.fragmentsOf(d.id);
    d.stems = docStems(frags);
    addDocumentText(b, doc, frags, titles, surnames);
    if (opts.openie) modelTriples += await addModelTriples(b, doc, frags, opts.openie);
    const micro = microFacts(frags, d.title, opts.captions);
    if (opts.vision) micro.push(...(await opts.vision.factsOf(frags, d.title, micro)));
    for (const f of micro) raw.push({ ...f, doc });
    if (doc % 2000 === 1999) opts.log?.(`dualg graph: ${doc + 1}/${b.g.docs.length} documents`);
  }
  const eq = await equivalencePairs(b.g.entityKeys, tau, opts.embedNames);
  for (const p of eq) b.triple(p.a, REL_EQUIVALENT, p.b, -1, p.cosine);
  b.g.micro = opts.alignNames ? await alignMicroDense(raw, b.g, opts.alignNames) : alignMicro(raw, b.g);
  const g = b.g;
  g.meta.stats = {
    documents: g.docs.length,
    entities: g.entityNames.length,
    relations: g.relations.length,
    triples: g.triples.length,
    mentions: g.triples.filter((t) => t.rel === REL_MENTIONS).length,
    cooccurs: g.triples.filter((t) => t.rel === REL_COOCCURS).length,
    equivalent: eq.length,
    modelTriples,
    ...(opts.vision ? visionStats(opts.vision, opts.log) : {}),
    microFacts: g.micro.length,
    buildMs: Date.now() - t0,
  };
  return g;
}
