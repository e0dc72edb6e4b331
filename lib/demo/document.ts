/**
 * From world model to documents. Each entity gets one document; each of its facts
 * is stated in exactly ONE place (a prose sentence, a key-facts table row, a chart
 * or diagram label, or a worked example), chosen by the seeded Rng, so every
 * question has one well-defined evidence location and modality. Digest documents
 * (distractors) carry near-miss facts about sibling entities.
 *
 * Layout rule: one section = one PDF page, sections small enough to fit, fact
 * sections first and filler sections after, so the page of a fact never depends on
 * the filler count.
 */
import type { Rng } from '../util/rng';
import { article, fillerHeading, fillerParagraph } from './filler';
import { splitCounts, type WorldModel } from './world';
import type { ChartSpec, DemoBlock, DemoDoc, DemoFormat, DemoOptions, DemoSection, Entity, FactLocation, FactModality } from './types';

/** Thousands separators, as printed everywhere in the corpus (and in gold answers). */
export function fmt(n: number): string {
  // Integers only in this world; a regex is ~10x faster than toLocaleString at 200K fragments.
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

export function listText(xs: string[]): string {
  return xs.length <= 1 ? xs.join('') : `${xs.slice(0, -1).join(', ')} and ${xs[xs.length - 1]}`;
}

interface FactDef {
  key: string;
  label: string;
  value: string | string[];
  display: string;
  sentence: string;
}

interface ExampleDef {
  /** Facts stated by the example (they are placed nowhere else). */
  uses: string[];
  key: string;
  value: string;
  text: string;
}

/** Every scalar and relation fact of an entity, as it would be printed. */
export function entityFacts(e: Entity, byId: Map<string, Entity>): FactDef[] {
  const a = e.attrs;
  const n = e.name;
  const rn = (rel: keyof Entity['rel']) => byId.get(e.rel[rel]!)!.name;
  const f = (key: string, label: string, value: string | string[], sentence: string, display?: string): FactDef => ({
    key,
    label,
    value,
    sentence,
    display: display ?? (Array.isArray(value) ? value.join(', ') : value),
  });
  switch (e.type) {
    case 'company':
      return [
        f('founded', 'Founded', String(a.founded), `${n} was founded in ${a.founded}.`),
        f('founder', 'Founder', rn('founder'), `The founder of ${n} is ${rn('founder')}.`),
        f('ceo', 'Chief executive', rn('ceo'), `The chief executive of ${n} is ${rn('ceo')}.`),
        f('headquarters', 'Headquarters', rn('headquarters'), `${n} has its headquarters in ${rn('headquarters')}.`),
        f('employees', 'Employees', fmt(a.employees as number), `${n} employs ${fmt(a.employees as number)} people.`),
        f('brandColour', 'Brand colour', a.brandColour as string, `The brand colour of ${n} is ${a.brandColour}.`),
        f('sector', 'Sector', a.sector as string, `${n} operates in the ${a.sector} sector.`),
      ];
    case 'person':
      return [
        f('born', 'Year of birth', String(a.born), `${n} was born in ${a.born}.`),
        f('birthplace', 'Birthplace', rn('birthplace'), `${n} was born in the city of ${rn('birthplace')}.`),
        f('profession', 'Profession', a.profession as string, `${n} works as a ${a.profession}.`),
        f('almaMater', 'Studied at', rn('almaMater'), `${n} studied at ${rn('almaMater')}.`),
        f('awards', 'Awards received', String(a.awards), `Over the years ${n} has received ${a.awards} awards.`),
      ];
    case 'city':
      return [
        f('settled', 'First settled', String(a.settled), `${n} was first settled in ${a.settled}.`),
        f(
          'elevation',
          'Elevation',
          fmt(a.elevation as number),
          `${n} lies ${fmt(a.elevation as number)} m above sea level.`,
          `${fmt(a.elevation as number)} m`,
        ),
        f('region', 'Province', a.region as string, `${n} is in the province of ${a.region}.`),
        f('area', 'Area', fmt(a.area as number), `${n} covers ${fmt(a.area as number)} square kilometres.`, `${fmt(a.area as number)} square km`),
      ];
    case 'product':
      return [
        f('manufacturer', 'Manufacturer', rn('manufacturer'), `The ${n} is manufactured by ${rn('manufacturer')}.`),
        f('launched', 'Launched', String(a.launched), `The ${n} was launched in ${a.launched}.`),
        f('price', 'Price', fmt(a.price as number), `The ${n} sells for ${fmt(a.price as number)} credits.`, `${fmt(a.price as number)} credits`),
        f('weight', 'Weight', fmt(a.weight as number), `The ${n} weighs ${fmt(a.weight as number)} g.`, `${fmt(a.weight as number)} g`),
        f('colours', 'Colours', a.colours as string[], `The ${n} is available in ${listText(a.colours as string[])}.`),
        f('category', 'Product type', a.category as string, `The ${n} is a ${a.category}.`),
      ];
    case 'institute':
      return [
        f('founded', 'Founded', String(a.founded), `${n} was founded in ${a.founded}.`),
        f('location', 'Location', rn('location'), `${n} is located in ${rn('location')}.`),
        f('director', 'Director', rn('director'), `The director of ${n} is ${rn('director')}.`),
        f('researchers', 'Researchers', fmt(a.researchers as number), `${n} has ${fmt(a.researchers as number)} researchers.`),
        f('departments', 'Departments', String(a.departments), `${n} is organised into ${a.departments} departments.`),
        f('field', 'Field', a.field as string, `${n} specialises in ${a.field}.`),
      ];
  }
}

/** The worked example an entity type can carry, and which facts it consumes. */
function exampleFor(e: Entity): ExampleDef | undefined {
  const a = e.attrs;
  switch (e.type) {
    case 'company': {
      const age = 2025 - (a.founded as number);
      return {
        uses: ['founded'],
        key: 'age2025',
        value: String(age),
        text: `Worked example: ${e.name} was founded in ${a.founded}, so in 2025 it is 2025 - ${a.founded} = ${age} years old.`,
      };
    }
    case 'city': {
      const feet = Math.round((a.elevation as number) * 3.281);
      return {
        uses: ['elevation'],
        key: 'elevationFeet',
        value: fmt(feet),
        text: `Worked example: ${e.name} lies ${fmt(a.elevation as number)} m above sea level. One metre is 3.281 feet, so its elevation is ${fmt(a.elevation as number)} x 3.281 = ${fmt(feet)} feet (rounded).`,
      };
    }
    case 'product': {
      const three = 3 * (a.price as number);
      return {
        uses: ['price'],
        key: 'price3',
        value: fmt(three),
        text: `Worked example: the ${e.name} sells for ${fmt(a.price as number)} credits, so three units cost 3 x ${fmt(a.price as number)} = ${fmt(three)} credits.`,
      };
    }
    case 'institute': {
      const per = (a.researchers as number) / (a.departments as number);
      return {
        uses: ['researchers', 'departments'],
        key: 'perDepartment',
        value: fmt(per),
        text: `Worked example: ${e.name} has ${fmt(a.researchers as number)} researchers in ${a.departments} departments, so each department has on average ${fmt(a.researchers as number)} / ${a.departments} = ${fmt(per)} researchers.`,
      };
    }
    case 'person':
      return undefined;
  }
}

const INTRO: Record<Entity['type'], (n: string) => string> = {
  company: (n) => `${n} is an enterprise described in this profile.`,
  person: (n) => `${n} is the subject of this biographical note.`,
  city: (n) => `${n} is a city described in this gazetteer entry.`,
  product: (n) => `The ${n} is a product described in this catalogue entry.`,
  institute: (n) => `${n} is a research institution described in this entry.`,
};

const SERIES_TEXT = {
  revenue: {
    heading: 'Revenue',
    col: 'Revenue (million credits)',
    yLabel: 'Revenue (million credits)',
    kind: 'bar' as const,
    intro: (n: string, chart: boolean) => `The ${chart ? 'chart' : 'table'} below shows the annual revenue of ${n}, in million credits.`,
    caption: (n: string) => `Annual revenue of ${n} by year`,
  },
  population: {
    heading: 'Population',
    col: 'Population',
    yLabel: 'Inhabitants',
    kind: 'line' as const,
    intro: (n: string, chart: boolean) => `The ${chart ? 'chart' : 'table'} below shows the population of ${n} at each census.`,
    caption: (n: string) => `Population of ${n} at each census`,
  },
  publications: {
    heading: 'Publications',
    col: 'Papers published',
    yLabel: 'Papers published',
    kind: 'bar' as const,
    intro: (n: string, chart: boolean) => `The ${chart ? 'chart' : 'table'} below shows how many papers ${n} published each year.`,
    caption: (n: string) => `Papers published by ${n} per year`,
  },
};

const DIAGRAM_TITLE: Record<Entity['type'], string> = {
  company: 'Company profile',
  person: 'Personal profile',
  city: 'City profile',
  product: 'Product diagram',
  institute: 'Institute profile',
};

/** Builder for one document: numbers figures/tables and records fact locations. */
class DocBuilder {
  sections: DemoSection[] = [];
  private figures = 0;
  private tables = 0;
  constructor(
    readonly id: string,
    readonly facts: Record<string, FactLocation>,
  ) {}
  section(heading: string, filler = false): DemoSection {
    const s: DemoSection = { heading, page: this.sections.length + 1, blocks: [], ...(filler ? { filler: true } : {}) };
    this.sections.push(s);
    return s;
  }
  block(s: DemoSection, b: DemoBlock): number {
    s.blocks.push(b);
    return s.blocks.length - 1;
  }
  nextTable(): string {
    return `Table ${++this.tables}`;
  }
  nextFigure(): { label: string; asset: string } {
    const n = ++this.figures;
    return { label: `Figure ${n}`, asset: `assets/${this.id}-fig${n}.png` };
  }
  record(entity: string, key: string, value: string | string[], modality: FactModality, text: string, s: DemoSection, block: number, asset?: string): void {
    this.facts[`${entity}.${key}`] = {
      entity,
      key,
      value,
      doc: this.id,
      page: s.page,
      modality,
      text,
      section: this.sections.indexOf(s),
      block,
      ...(asset ? { asset } : {}),
    };
  }
}

/** k distinct items in O(k) (rng.sample shuffles the whole list, too slow inside loops over big worlds). */
export function pickDistinct<T>(rng: Rng, items: readonly T[], k: number): T[] {
  const n = Math.min(k, items.length);
  const idx = new Set<number>();
  while (idx.size < n) idx.add(rng.int(0, items.length - 1));
  return [...idx].map((i) => items[i]);
}

function chunk<T>(xs: T[], n: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += n) out.push(xs.slice(i, i + n));
  return out;
}

/** Build the fact-bearing sections of an entity's document. */
type Placement = Map<string, 'text' | 'table' | 'image' | 'example'>;

/** Placement of each fact: the worked example's own, else prose 50%, key-facts table 35%, profile diagram 15%. */
function placeFacts(defs: FactDef[], ex: ExampleDef | undefined, rng: Rng): Placement {
  const place: Placement = new Map();
  for (const d of defs) {
    if (ex?.uses.includes(d.key)) {
      place.set(d.key, 'example');
      continue;
    }
    const x = rng.next();
    place.set(d.key, x < 0.5 ? 'text' : x < 0.85 ? 'table' : 'image');
  }
  return place;
}

function overviewSection(b: DocBuilder, e: Entity, defs: FactDef[], place: Placement, rng: Rng): void {
  // Overview (page 1): intro plus prose facts, at most 3 sentences per paragraph.
  const ov = b.section('Overview');
  const prose = defs.filter((d) => place.get(d.key) === 'text');
  const groups = chunk(rng.shuffle(prose.slice()), 3);
  if (!groups.length) groups.push([]);
  groups.forEach((g, gi) => {
    const sentences = (gi === 0 ? [INTRO[e.type](e.name)] : []).concat(g.map((d) => d.sentence));
    const bi = b.block(ov, { kind: 'paragraph', text: sentences.join(' ') });
    for (const d of g) b.record(e.id, d.key, d.value, 'text', d.sentence, ov, bi);
  });
}

function keyFactsSection(b: DocBuilder, e: Entity, defs: FactDef[], place: Placement): void {
  const tabled = defs.filter((d) => place.get(d.key) === 'table');
  if (tabled.length) {
    const s = b.section('Key facts');
    b.block(s, { kind: 'paragraph', text: `The table below lists key facts about ${e.name}.` });
    const label = b.nextTable();
    const bi = b.block(s, {
      kind: 'table',
      label,
      caption: `Key facts about ${e.name}`,
      header: ['Attribute', 'Value'],
      rows: tabled.map((d) => [d.label, d.display]),
    });
    for (const d of tabled) b.record(e.id, d.key, d.value, 'table', `${d.label}: ${d.display}`, s, bi);
  }
}

function seriesSection(b: DocBuilder, e: Entity, chartSeries: boolean): void {
  if (e.series) {
    const st = SERIES_TEXT[e.series.name];
    const s = b.section(st.heading);
    b.block(s, { kind: 'paragraph', text: st.intro(e.name, chartSeries) });
    const caption = st.caption(e.name);
    let bi: number;
    let asset: string | undefined;
    let modality: FactModality;
    if (chartSeries) {
      const fig = b.nextFigure();
      asset = fig.asset;
      modality = 'image';
      const chart: ChartSpec = {
        kind: st.kind,
        title: `${e.name}: ${st.heading.toLowerCase()}`,
        xLabel: 'Year',
        yLabel: st.yLabel,
        points: e.series.points.map((p) => ({ label: String(p.year), value: p.value, text: fmt(p.value) })),
      };
      bi = b.block(s, { kind: 'figure', label: fig.label, caption, alt: caption, asset: fig.asset, chart });
    } else {
      modality = 'table';
      bi = b.block(s, {
        kind: 'table',
        label: b.nextTable(),
        caption,
        header: ['Year', st.col],
        rows: e.series.points.map((p) => [String(p.year), fmt(p.value)]),
      });
    }
    for (const p of e.series.points) b.record(e.id, `${e.series.name}:${p.year}`, fmt(p.value), modality, `${p.year}: ${fmt(p.value)}`, s, bi, asset);
    const peak = e.series.points.reduce((m, p) => (p.value > m.value ? p : m));
    b.record(e.id, `${e.series.name}:peak`, String(peak.year), modality, `${peak.year}: ${fmt(peak.value)} (highest)`, s, bi, asset);
  }
}

function glanceSection(b: DocBuilder, e: Entity, defs: FactDef[], place: Placement): void {
  const drawn = defs.filter((d) => place.get(d.key) === 'image');
  if (drawn.length) {
    const s = b.section('At a glance');
    b.block(s, { kind: 'paragraph', text: `The diagram below summarises ${e.type === 'person' ? 'the profile of' : 'facts about'} ${e.name}.` });
    const fig = b.nextFigure();
    const caption = `${DIAGRAM_TITLE[e.type]} of ${e.name}`;
    const labels = drawn.map((d) => `${d.label}: ${d.display}`);
    const bi = b.block(s, {
      kind: 'figure',
      label: fig.label,
      caption,
      alt: caption,
      asset: fig.asset,
      chart: { kind: 'diagram', title: DIAGRAM_TITLE[e.type], center: e.name, centerShape: e.type === 'product' ? 'device' : 'box', labels },
    });
    drawn.forEach((d, i) => b.record(e.id, d.key, d.value, 'image', labels[i], s, bi, fig.asset));
  }
}

function exampleSection(b: DocBuilder, e: Entity, defs: FactDef[], ex: ExampleDef): void {
  const s = b.section('Worked example');
  const bi = b.block(s, { kind: 'example', text: ex.text });
  for (const k of ex.uses) {
    const d = defs.find((x) => x.key === k)!;
    b.record(e.id, k, d.value, 'text', ex.text, s, bi);
  }
  b.record(e.id, ex.key, ex.value, 'text', ex.text, s, bi);
}

function entityDoc(e: Entity, model: WorldModel, rng: Rng, facts: Record<string, FactLocation>): DocBuilder {
  const b = new DocBuilder(e.id, facts);
  const defs = entityFacts(e, model.byId);
  const ex = rng.bool(0.6) ? exampleFor(e) : undefined;
  const place = placeFacts(defs, ex, rng);
  const chartSeries = e.series ? rng.bool(0.75) : false;
  overviewSection(b, e, defs, place, rng);
  keyFactsSection(b, e, defs, place);
  seriesSection(b, e, chartSeries);
  glanceSection(b, e, defs, place);
  if (ex) exampleSection(b, e, defs, ex);
  return b;
}

/** A digest: near-miss facts about sibling distractors, neutral mentions of core entities. */
function digestDoc(id: string, title: string, model: WorldModel, rng: Rng, facts: Record<string, FactLocation>): DocBuilder {
  const b = new DocBuilder(id, facts);
  const siblings = model.siblings;
  const core = model.core;
  const nearMiss = (e: Entity): string => {
    const a = e.attrs;
    const twin = e.siblingOf ? model.byId.get(e.siblingOf)! : undefined;
    const also = twin && rng.bool(0.6) ? ` It is not to be confused with ${e.type === 'product' ? 'the ' : ''}${twin.name}.` : '';
    const v = rng.int(0, 1);
    switch (e.type) {
      case 'company':
        return (
          (v
            ? `${e.name}, ${article(a.sector as string)} ${a.sector} firm started in ${a.founded}, reported a workforce of ${fmt(a.employees as number)} people this season.`
            : `${e.name} exhibited in ${a.brandColour} livery; it was started in ${a.founded} by ${model.byId.get(e.rel.founder!)!.name}.`) + also
        );
      case 'product':
        return (
          (v
            ? `The ${e.name}, made by ${model.byId.get(e.rel.manufacturer!)!.name}, was shown at ${fmt(a.price as number)} credits in ${listText(a.colours as string[])}.`
            : `The ${e.name}, first sold in ${a.launched}, weighs ${fmt(a.weight as number)} g according to its maker, ${model.byId.get(e.rel.manufacturer!)!.name}.`) +
          also
        );
      case 'person':
        return (
          (v
            ? `${e.name}, ${article(a.profession as string)} ${a.profession} born in ${a.born}, gave a talk on the second day.`
            : `${e.name}, who studied at ${model.byId.get(e.rel.almaMater!)!.name}, chaired a panel; the programme credits the speaker with ${a.awards} awards.`) +
          also
        );
      case 'city':
        return (
          (v
            ? `A delegation from ${e.name}, which lies ${fmt(a.elevation as number)} m above sea level, visited the fair.`
            : `Guides from ${e.name}, in the province of ${a.region}, recalled that the town was first settled in ${a.settled}.`) + also
        );
      case 'institute':
        return (
          (v
            ? `${e.name}, ${article(a.field as string)} ${a.field} institute started in ${a.founded}, presented its ${a.departments} departments.`
            : `${e.name}, based in ${model.byId.get(e.rel.location!)!.name}, brought ${fmt(a.researchers as number)} posters, one per researcher.`) + also
        );
    }
  };
  const neutral = (e: Entity): string =>
    rng.pick([
      `Visitors asked several questions about ${e.type === 'product' ? 'the ' : ''}${e.name}.`,
      `A panel discussed ${e.type === 'product' ? 'the ' : ''}${e.name} briefly.`,
      `Posters mentioning ${e.type === 'product' ? 'the ' : ''}${e.name} were displayed near the entrance.`,
    ]);
  // Each sibling at most once per digest (a small world has few of them).
  const featured = pickDistinct(rng, siblings, 8);
  const sections = rng.int(2, 3);
  for (let k = 0; k < sections; k++) {
    const s = b.section(k === 0 ? 'Highlights' : `Reports ${k + 1}`);
    for (let p = 0; p < rng.int(2, 3); p++) {
      const parts: string[] = [];
      if (p === 0 && k === 0) parts.push(`This issue of ${title} summarises the regional fair.`);
      for (let j = rng.int(1, 2); j > 0 && featured.length; j--) parts.push(nearMiss(featured.pop()!));
      for (const e of pickDistinct(rng, core, rng.int(1, 2))) parts.push(neutral(e));
      b.block(s, { kind: 'paragraph', text: parts.join(' ') });
    }
  }
  const shownProducts = pickDistinct(rng, model.siblingsByType.product, 5);
  if (shownProducts.length) {
    const s = b.section('Exhibitors');
    b.block(s, { kind: 'paragraph', text: 'The table below lists products shown by exhibitors.' });
    b.block(s, {
      kind: 'table',
      label: b.nextTable(),
      caption: 'Products shown by exhibitors',
      header: ['Product', 'Maker', 'Price (credits)'],
      rows: shownProducts.map((p) => [p.name, model.byId.get(p.rel.manufacturer!)!.name, fmt(p.attrs.price as number)]),
    });
  }
  const withSeries = model.siblingsWithSeries;
  const charted = withSeries.length && rng.bool(0.5) ? rng.pick(withSeries) : undefined;
  if (charted?.series) {
    const st = SERIES_TEXT[charted.series.name];
    const s = b.section(`Figures for ${charted.name}`);
    b.block(s, { kind: 'paragraph', text: `The chart below was handed out by ${charted.name}.` });
    const fig = b.nextFigure();
    const caption = st.caption(charted.name);
    b.block(s, {
      kind: 'figure',
      label: fig.label,
      caption,
      alt: caption,
      asset: fig.asset,
      chart: {
        kind: st.kind,
        title: `${charted.name}: ${st.heading.toLowerCase()}`,
        xLabel: 'Year',
        yLabel: st.yLabel,
        points: charted.series.points.map((p) => ({ label: String(p.year), value: p.value, text: fmt(p.value) })),
      },
    });
  }
  return b;
}

/** Append `count` filler paragraphs (three per section = per page) about `subject`. */
export function appendFiller(sections: DemoSection[], count: number, rng: Rng, subject: FillerSubject): void {
  for (let k = 0, left = count; left > 0; k++) {
    const s: DemoSection = { heading: fillerHeading(k), page: sections.length + 1, blocks: [], filler: true };
    for (let i = 0; i < Math.min(3, left); i++) s.blocks.push({ kind: 'paragraph', text: fillerParagraph(rng, subject.name, subject.type, subject.minYear) });
    left -= s.blocks.length;
    sections.push(s);
  }
}

export interface FillerSubject {
  name: string;
  type: Entity['type'] | 'digest';
  /** Earliest year filler may mention (the entity must exist by then). */
  minYear: number;
}

/** What the filler paragraphs of a document talk about. */
export function fillerSubject(doc: DemoDoc, model: WorldModel): FillerSubject {
  const e = doc.entity ? model.byId.get(doc.entity) : undefined;
  if (!e) return { name: 'the fair', type: 'digest', minYear: 2000 };
  const a = e.attrs;
  const since =
    e.type === 'person' ? (a.born as number) + 20 : e.type === 'product' ? (a.launched as number) : e.type === 'city' ? 1961 : (a.founded as number) + 1;
  return { name: e.type === 'product' ? `the ${e.name}` : e.name, type: e.type, minYear: since };
}

/** Formats in fixed proportions (markdown 40%, html 30%, pdf 30%), shuffled over documents. */
function assignFormats(n: number, rng: Rng): DemoFormat[] {
  const c = splitCounts(
    n,
    [
      ['markdown', 0.4],
      ['html', 0.3],
      ['pdf', 0.3],
    ] as [DemoFormat, number][],
    n >= 3 ? 1 : 0,
  );
  const out: DemoFormat[] = [];
  for (const f of ['markdown', 'html', 'pdf'] as DemoFormat[]) for (let i = 0; i < c[f]; i++) out.push(f);
  return rng.shuffle(out).slice(0, n);
}

export interface BuiltDocuments {
  docs: DemoDoc[];
  facts: Record<string, FactLocation>;
}

/**
 * All documents of the world. With `withFiller` false the documents hold only
 * fact-bearing sections (the fragment path adds filler itself, doc by doc).
 */
export function buildDocuments(model: WorldModel, opts: DemoOptions, rng: Rng, withFiller: boolean): BuiltDocuments {
  const facts: Record<string, FactLocation> = {};
  const docs: DemoDoc[] = [];
  for (const e of model.entities) {
    const b = entityDoc(e, model, rng.fork(`doc/${e.id}`), facts);
    docs.push({ id: e.id, format: 'markdown', title: e.type === 'product' ? `The ${e.name}` : e.name, entity: e.id, role: e.role, sections: b.sections });
  }
  const ids = new Set(docs.map((d) => d.id));
  const dr = rng.fork('digests');
  const issueWords = model.entities.filter((e) => e.type === 'city').map((e) => e.name);
  for (let i = 0; i < model.digestCount; i++) {
    let id = `trade-digest-${String(i + 1).padStart(3, '0')}`;
    while (ids.has(id)) id += '-x';
    ids.add(id);
    const title = `${dr.pick(issueWords)} Trade Digest No. ${i + 1}`;
    const b = digestDoc(id, title, model, dr.fork(id), facts);
    docs.push({ id, format: 'markdown', title, role: 'distractor', sections: b.sections });
  }
  const formats = assignFormats(docs.length, rng.fork('formats'));
  docs.forEach((d, i) => {
    d.format = formats[i];
  });
  if (withFiller && opts.paragraphs > 0) {
    for (const d of docs) {
      appendFiller(d.sections, opts.paragraphs, rng.fork(`filler/${d.id}`), fillerSubject(d, model));
    }
  }
  return { docs, facts };
}
