/**
 * The world model: fictional entities of five types with attributes, relations
 * and time series, drawn from a seeded Rng. Values are kept mutually plausible
 * (a founder is born before the company is founded, a product launches after its
 * maker exists) so a careful reader never meets a contradiction.
 *
 * Core entities may be asked about; distractor "siblings" share a core entity's
 * invented stem and have close-but-different values (near misses for retrieval).
 */
import type { Rng } from '../util/rng';
import { COMPANY_SUFFIXES, CITY_FORMS_SIBLING, INSTITUTE_FORMS, NameGenerator, slug } from './names';
import type { DemoOptions, Entity, EntityType, Relation, RelationName, TimeSeries } from './types';

export const SECTORS = [
  'logistics',
  'textiles',
  'optics',
  'agritech',
  'shipbuilding',
  'ceramics',
  'robotics',
  'biotech',
  'aerospace',
  'furniture',
  'acoustics',
  'glassware',
];
export const PROFESSIONS = [
  'marine engineer',
  'glassblower',
  'economist',
  'cartographer',
  'chemist',
  'architect',
  'botanist',
  'violinist',
  'pilot',
  'geologist',
  'typographer',
  'surveyor',
];
export const CATEGORIES = [
  'cordless kettle',
  'survey drone',
  'handloom',
  'folding bicycle',
  'storm lantern',
  'field telescope',
  'water filter',
  'desk fan',
  'sewing machine',
  'e-reader',
  'seed drill',
  'tide clock',
];
export const COLOURS = ['teal', 'amber', 'ochre', 'crimson', 'slate', 'ivory', 'cobalt', 'olive', 'magenta', 'saffron', 'graphite', 'coral'];
export const FIELDS = [
  'tidal studies',
  'applied optics',
  'soil science',
  'glacial research',
  'textile chemistry',
  'acoustics',
  'orbital mechanics',
  'marine biology',
  'linguistics',
  'metallurgy',
  'seismology',
  'mycology',
];

/** Share of core documents per entity type (products and people dominate, as chains start there). */
const TYPE_WEIGHTS: [EntityType, number][] = [
  ['product', 0.28],
  ['company', 0.2],
  ['person', 0.26],
  ['city', 0.12],
  ['institute', 0.14],
];

/** Model-code letters that OCR never confuses with digits (no O/0, I/1, S/5, Z/2, B/8, G/6, Q). */
const CODE_LETTERS = 'ACDEFHJKMNPRTVWXY'.split('');

export const REVENUE_YEARS = [2016, 2017, 2018, 2019, 2020, 2021, 2022, 2023];
export const CENSUS_YEARS = [1990, 1995, 2000, 2005, 2010, 2015, 2020];
export const PUBLICATION_YEARS = [2017, 2018, 2019, 2020, 2021, 2022, 2023];

/** Largest-remainder split of n over weights, at least `min` each. */
export function splitCounts<K extends string>(n: number, weights: [K, number][], min = 1): Record<K, number> {
  const out = {} as Record<K, number>;
  let left = n - min * weights.length;
  const raw = weights.map(([k, w]) => [k, Math.max(0, left) * w] as [K, number]);
  let used = 0;
  for (const [k, v] of raw) {
    out[k] = min + Math.floor(v);
    used += Math.floor(v);
  }
  left -= used;
  const byRem = raw.slice().sort((a, b) => (b[1] % 1) - (a[1] % 1));
  for (let i = 0; left > 0; i = (i + 1) % byRem.length, left--) out[byRem[i][0]]++;
  return out;
}

export interface WorldModel {
  entities: Entity[];
  relations: Relation[];
  byId: Map<string, Entity>;
  digestCount: number;
  /** Indexes for generators that pick among entities many times. */
  core: Entity[];
  siblings: Entity[];
  coreByType: Record<EntityType, Entity[]>;
  siblingsByType: Record<EntityType, Entity[]>;
  siblingsWithSeries: Entity[];
}

function revenueSeries(rng: Rng, scale = 1): TimeSeries {
  for (;;) {
    let v = rng.int(20, 600) * scale;
    const points = REVENUE_YEARS.map((year) => {
      const p = { year, value: Math.max(5, Math.round(v)) };
      v *= 0.85 + rng.next() * 0.4;
      return p;
    });
    if (uniqueMax(points.map((p) => p.value)) && distinct(points.map((p) => p.value))) return { name: 'revenue', unit: 'million credits', points };
  }
}

function populationSeries(rng: Rng, scale = 1): TimeSeries {
  for (;;) {
    let v = rng.int(80, 9000) * 100 * scale;
    const points = CENSUS_YEARS.map((year) => {
      const p = { year, value: Math.max(1000, Math.round(v / 100) * 100) };
      v *= 0.92 + rng.next() * 0.28;
      return p;
    });
    if (uniqueMax(points.map((p) => p.value)) && distinct(points.map((p) => p.value))) return { name: 'population', unit: 'inhabitants', points };
  }
}

function publicationSeries(rng: Rng, scale = 1): TimeSeries {
  for (;;) {
    let v = rng.int(20, 380) * scale;
    const points = PUBLICATION_YEARS.map((year) => {
      const p = { year, value: Math.max(3, Math.round(v)) };
      v *= 0.8 + rng.next() * 0.45;
      return p;
    });
    if (uniqueMax(points.map((p) => p.value)) && distinct(points.map((p) => p.value))) return { name: 'publications', unit: 'papers', points };
  }
}

function uniqueMax(xs: number[]): boolean {
  const m = Math.max(...xs);
  return xs.filter((x) => x === m).length === 1;
}
function distinct(xs: number[]): boolean {
  return new Set(xs).size === xs.length;
}

/** Log-uniform integer: counts spread over orders of magnitude like real ones. */
function logInt(rng: Rng, lo: number, hi: number): number {
  return Math.round(Math.exp(Math.log(lo) + rng.next() * (Math.log(hi) - Math.log(lo))));
}

/** The entities made so far, with unique ids and names (every maker adds through it). */
interface EntityBook {
  entities: Entity[];
  byId: Map<string, Entity>;
  usedNames: Set<string>;
  add(e: Entity): Entity;
}

function entityBook(): EntityBook {
  const book: EntityBook = {
    entities: [],
    byId: new Map(),
    usedNames: new Set(),
    add(e) {
      let id = slug(e.name);
      for (let k = 2; book.byId.has(id); k++) id = `${slug(e.name)}-${k}`;
      e.id = id;
      book.entities.push(e);
      book.byId.set(id, e);
      book.usedNames.add(e.name);
      return e;
    },
  };
  return book;
}

/** What the entity makers share: the name generator, the attribute rng and the book. */
interface Makers {
  names: NameGenerator;
  r: Rng;
  book: EntityBook;
}

function makeCities(m: Makers, n: number, regionPool: string[]): Entity[] {
  const { names, r, book } = m;
  const cities: Entity[] = [];
  for (let i = 0; i < n; i++) {
    const stem = names.word(2, 3);
    cities.push(
      book.add({
        id: '',
        type: 'city',
        name: stem,
        stem,
        role: 'core',
        rel: {},
        series: populationSeries(r),
        attrs: {
          settled: r.int(880, 1850),
          elevation: r.int(2, 2400),
          region: r.pick(regionPool),
          area: r.int(12, 940),
        },
      }),
    );
  }
  return cities;
}

function makeInstitutes(m: Makers, n: number): Entity[] {
  const { names, r, book } = m;
  const institutes: Entity[] = [];
  for (let i = 0; i < n; i++) {
    const stem = names.word(2, 3);
    const departments = r.int(3, 12);
    institutes.push(
      book.add({
        id: '',
        type: 'institute',
        name: r.pick(INSTITUTE_FORMS).replace('{}', stem),
        stem,
        role: 'core',
        rel: {},
        series: publicationSeries(r),
        attrs: {
          // The first institute is old, so every person can have studied somewhere that existed.
          founded: i === 0 ? r.int(1870, 1900) : r.int(1870, 2008),
          departments,
          researchers: departments * r.int(8, 160),
          field: r.pick(FIELDS),
        },
      }),
    );
  }
  return institutes;
}

function makePeople(m: Makers, n: number, firstNames: string[]): Entity[] {
  const { names, r, book } = m;
  const people: Entity[] = [];
  for (let i = 0; i < n; i++) {
    const last = names.word(2, 3);
    let name = `${r.pick(firstNames)} ${last}`;
    while (book.usedNames.has(name)) name = `${r.pick(firstNames)} ${last}`;
    people.push(
      book.add({
        id: '',
        type: 'person',
        name,
        stem: last,
        role: 'core',
        rel: {},
        attrs: {
          born: r.int(1938, 1994),
          profession: r.pick(PROFESSIONS),
          awards: r.int(1, 14),
        },
      }),
    );
  }
  return people;
}

function makeCompanies(m: Makers, n: number, people: Entity[], cities: Entity[]): Entity[] {
  const { names, r, book } = m;
  const companies: Entity[] = [];
  for (let i = 0; i < n; i++) {
    const stem = names.word(2, 3);
    const founder = r.pick(people);
    const founded = Math.min(2020, (founder.attrs.born as number) + r.int(24, 48));
    const ceoChoices = people.filter((p) => p !== founder);
    companies.push(
      book.add({
        id: '',
        type: 'company',
        name: `${stem} ${r.pick(COMPANY_SUFFIXES)}`,
        stem,
        role: 'core',
        series: revenueSeries(r),
        attrs: {
          founded,
          employees: logInt(r, 40, 48000),
          brandColour: r.pick(COLOURS),
          sector: r.pick(SECTORS),
        },
        rel: { founder: founder.id, ceo: (ceoChoices.length ? r.pick(ceoChoices) : founder).id, headquarters: r.pick(cities).id },
      }),
    );
  }
  return companies;
}

function makeProducts(m: Makers, n: number, companies: Entity[]): void {
  const { names, r, book } = m;
  for (let i = 0; i < n; i++) {
    const stem = names.word(2, 3);
    const maker = r.pick(companies);
    const code = `${r.pick(CODE_LETTERS)}${r.int(2, 99)}`;
    book.add({
      id: '',
      type: 'product',
      name: `${stem} ${code}`,
      stem,
      role: 'core',
      rel: { manufacturer: maker.id },
      attrs: {
        launched: r.int(Math.min(2024, (maker.attrs.founded as number) + 1), 2024),
        price: logInt(r, 15, 4800),
        weight: logInt(r, 80, 25000),
        colours: r.sample(COLOURS, r.int(2, 3)),
        category: r.pick(CATEGORIES),
      },
    });
  }
}

/** Birthplaces and alma maters of people, locations and directors of institutes. */
function linkPeopleAndInstitutes(r: Rng, people: Entity[], institutes: Entity[], cities: Entity[]): void {
  for (const p of people) {
    const born = p.attrs.born as number;
    const open = institutes.filter((i) => (i.attrs.founded as number) <= born + 18);
    p.rel.birthplace = r.pick(cities).id;
    p.rel.almaMater = (open.length ? r.pick(open) : institutes.reduce((a, b) => ((a.attrs.founded as number) <= (b.attrs.founded as number) ? a : b))).id;
  }
  for (const inst of institutes) {
    inst.rel.location = r.pick(cities).id;
    inst.rel.director = r.pick(people).id;
  }
}

/** Sibling distractors: same stem, another name form, close values. Returns how many were made. */
function addSiblings(s: Rng, book: EntityBook, wanted: number, c: Omit<SiblingContext, 'usedNames'>): number {
  const coreList = book.entities.slice();
  let made = 0;
  // A stem runs out of name forms after a few siblings; give up after many misses
  // and let digest documents fill the remaining distractor slots.
  for (let attempts = 0; made < wanted && attempts < wanted * 20 + 100; attempts++) {
    const of = coreList[s.int(0, coreList.length - 1)];
    const sib = makeSibling(of, s, { ...c, usedNames: book.usedNames });
    if (sib) {
      book.add(sib);
      made++;
    }
  }
  return made;
}

function byType(es: Entity[]): Record<EntityType, Entity[]> {
  const out = { company: [], person: [], city: [], product: [], institute: [] } as Record<EntityType, Entity[]>;
  for (const e of es) out[e.type].push(e);
  return out;
}

export function buildWorldModel(opts: DemoOptions, rng: Rng): WorldModel {
  const names = new NameGenerator(rng.fork('names'));
  const r = rng.fork('attributes');
  const core = opts.documents - opts.distractors;
  const counts = splitCounts(core, TYPE_WEIGHTS);
  const siblingCount = Math.round(opts.distractors * 0.7);
  const book = entityBook();
  const m: Makers = { names, r, book };
  const regionPool = Array.from({ length: Math.max(3, Math.ceil(counts.city / 3)) }, () => names.word(2, 3));
  const firstNames = Array.from({ length: Math.max(12, Math.ceil(counts.person / 3)) }, () => names.word(2, 2));

  // Cities first (everything else points at them).
  const cities = makeCities(m, counts.city, regionPool);
  const institutes = makeInstitutes(m, counts.institute);
  const people = makePeople(m, counts.person, firstNames);
  const companies = makeCompanies(m, counts.company, people, cities);
  makeProducts(m, counts.product, companies);
  linkPeopleAndInstitutes(r, people, institutes, cities);
  const made = addSiblings(rng.fork('siblings'), book, siblingCount, { names, firstNames, cities, people, companies, institutes });
  const digestCount = opts.distractors - siblingCount + (siblingCount - made);

  const { entities, byId } = book;
  const relations: Relation[] = [];
  for (const e of entities) for (const [rel, to] of Object.entries(e.rel)) relations.push({ from: e.id, rel: rel as RelationName, to: to as string });
  const coreEntities = entities.filter((e) => e.role === 'core');
  const siblings = entities.filter((e) => e.role === 'distractor');
  return {
    entities,
    relations,
    byId,
    digestCount,
    core: coreEntities,
    siblings,
    coreByType: byType(coreEntities),
    siblingsByType: byType(siblings),
    siblingsWithSeries: siblings.filter((e) => e.series),
  };
}

interface SiblingContext {
  names: NameGenerator;
  usedNames: Set<string>;
  firstNames: string[];
  cities: Entity[];
  people: Entity[];
  companies: Entity[];
  institutes: Entity[];
}

function near(rng: Rng, v: number, spread: number, lo: number, hi: number): number {
  let x = v;
  while (x === v) x = Math.min(hi, Math.max(lo, v + rng.int(-spread, spread)));
  return x;
}

function makeSibling(of: Entity, s: Rng, c: SiblingContext): Entity | undefined {
  const base = { id: '', stem: of.stem, role: 'distractor' as const, siblingOf: of.id };
  const a = of.attrs;
  const free = (cands: string[]) => cands.filter((n) => !c.usedNames.has(n));
  switch (of.type) {
    case 'company': {
      const names = free(COMPANY_SUFFIXES.map((x) => `${of.stem} ${x}`));
      if (!names.length) return undefined;
      return {
        ...base,
        type: 'company',
        name: s.pick(names),
        series: revenueSeries(s),
        attrs: {
          founded: near(s, a.founded as number, 4, 1900, 2020),
          employees: Math.max(10, Math.round((a.employees as number) * (0.6 + s.next() * 0.8))),
          brandColour: s.pick(COLOURS),
          sector: s.pick(SECTORS),
        },
        rel: { founder: s.pick(c.people).id, ceo: s.pick(c.people).id, headquarters: s.pick(c.cities).id },
      };
    }
    case 'person': {
      const names = free(c.firstNames.map((f) => `${f} ${of.stem}`));
      if (!names.length) return undefined;
      return {
        ...base,
        type: 'person',
        name: s.pick(names),
        attrs: { born: near(s, a.born as number, 5, 1930, 1999), profession: s.pick(PROFESSIONS), awards: s.int(1, 14) },
        rel: { birthplace: s.pick(c.cities).id, almaMater: s.pick(c.institutes).id },
      };
    }
    case 'city': {
      const names = free(CITY_FORMS_SIBLING.map((f) => f.replace('{}', of.stem)));
      if (!names.length) return undefined;
      return {
        ...base,
        type: 'city',
        name: s.pick(names),
        series: populationSeries(s, 0.5),
        rel: {},
        attrs: {
          settled: near(s, a.settled as number, 40, 880, 1900),
          elevation: near(s, a.elevation as number, 30, 1, 2500),
          region: a.region,
          area: s.int(5, 300),
        },
      };
    }
    case 'product': {
      const code = `${s.pick(CODE_LETTERS)}${s.int(2, 99)}`;
      const name = `${of.stem} ${code}`;
      if (c.usedNames.has(name)) return undefined;
      return {
        ...base,
        type: 'product',
        name,
        rel: { manufacturer: s.pick(c.companies).id },
        attrs: {
          launched: near(s, a.launched as number, 3, 1990, 2024),
          price: Math.max(5, Math.round((a.price as number) * (0.7 + s.next() * 0.6))),
          weight: Math.max(20, Math.round((a.weight as number) * (0.7 + s.next() * 0.6))),
          colours: s.sample(COLOURS, s.int(2, 3)),
          category: a.category,
        },
      };
    }
    case 'institute': {
      const names = free(INSTITUTE_FORMS.map((f) => f.replace('{}', of.stem)));
      if (!names.length) return undefined;
      const departments = s.int(3, 12);
      return {
        ...base,
        type: 'institute',
        name: s.pick(names),
        series: publicationSeries(s),
        attrs: {
          founded: near(s, a.founded as number, 6, 1860, 2010),
          departments,
          researchers: departments * s.int(8, 160),
          field: s.pick(FIELDS),
        },
        rel: { location: s.pick(c.cities).id, director: s.pick(c.people).id },
      };
    }
  }
}
