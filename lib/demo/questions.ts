/**
 * Question templates over the world. A question is a chain of facts: hop i's fact
 * value is the NAME of hop i+1's entity (a true bridge: the question text names
 * only the first entity; the next one is learnable only from the first document).
 * Comparisons read two facts side by side. Unanswerable questions ask for an
 * attribute the world never states (see NEVER_STATED in filler.ts).
 *
 * Every fact a question uses has exactly one location (document, page, modality,
 * text), so gold documents, pages and evidence follow from the chain.
 */
import type { AnswerFormat, Evidence, Modality, Question } from '../bench/types';
import type { Rng } from '../util/rng';
import { fmt } from './document';
import { COLOURS } from './world';
import type { DemoDoc, Entity, EntityType, FactLocation, TimeSeries } from './types';
import type { WorldModel } from './world';

export const NOT_ANSWERABLE = 'Not answerable';

type Stratum = 'h1' | 'h2' | 'h3' | 'un';

interface Step {
  entity: string;
  key: string;
}

interface Candidate {
  template: string;
  stratum: Stratum;
  type: string;
  format: AnswerFormat;
  hops: number;
  question: string;
  answer: string | string[];
  /** Facts in reading order (bridge chain, or the compared facts). */
  steps: Step[];
  /** Unanswerable: the entity whose document would have to state the missing attribute. */
  missing?: { entity: string; attribute: string };
}

interface Ctx {
  model: WorldModel;
  facts: Record<string, FactLocation>;
  rng: Rng;
}

type Template = {
  id: string;
  stratum: Stratum;
  on: EntityType;
  make: (e: Entity, c: Ctx) => Omit<Candidate, 'template' | 'stratum'> | undefined;
};

const the = (e: Entity) => (e.type === 'product' ? `the ${e.name}` : e.name);
const rel = (c: Ctx, e: Entity, r: keyof Entity['rel']) => c.model.byId.get(e.rel[r]!)!;
const val = (c: Ctx, e: Entity, key: string) => c.facts[`${e.id}.${key}`]?.value as string | undefined;
const seriesYear = (c: Ctx, e: Entity) => c.rng.pick(e.series!.points).year;

function lookup(id: string, on: EntityType, key: string, format: AnswerFormat, q: (n: string) => string): Template {
  return {
    id,
    stratum: 'h1',
    on,
    make: (e, c) => {
      const v = c.facts[`${e.id}.${key}`];
      return v && { type: 'lookup', format, hops: 1, question: q(the(e)), answer: v.value, steps: [{ entity: e.id, key }] };
    },
  };
}

/** Bridge chain: follow relations `path` from e, then read `key` on the last entity. */
function chain(
  id: string,
  on: EntityType,
  path: (keyof Entity['rel'])[],
  key: string | ((last: Entity, c: Ctx) => string | undefined),
  format: AnswerFormat,
  q: (n: string, key: string) => string,
): Template {
  return {
    id,
    stratum: path.length === 1 ? 'h2' : 'h3',
    on,
    make: (e, c) => {
      const steps: Step[] = [];
      let cur = e;
      for (const r of path) {
        if (!cur.rel[r]) return undefined;
        steps.push({ entity: cur.id, key: r });
        cur = rel(c, cur, r);
      }
      const k = typeof key === 'string' ? key : key(cur, c);
      if (!k || !c.facts[`${cur.id}.${k}`]) return undefined;
      steps.push({ entity: cur.id, key: k });
      return { type: 'bridge', format, hops: path.length + 1, question: q(the(e), k), answer: c.facts[`${cur.id}.${k}`].value, steps };
    },
  };
}

/** Follow relations `path` from e, one step per hop, and the entity reached (unlike chain, it assumes every relation is there). */
function follow(c: Ctx, e: Entity, path: (keyof Entity['rel'])[]): { steps: Step[]; last: Entity } {
  const steps: Step[] = [];
  let last = e;
  for (const r of path) {
    steps.push({ entity: last.id, key: r });
    last = rel(c, last, r);
  }
  return { steps, last };
}

function yesNoBefore(id: string, on: EntityType, path: (keyof Entity['rel'])[], key: string, q: (n: string, year: number) => string): Template {
  return {
    id,
    stratum: path.length === 0 ? 'h1' : path.length === 1 ? 'h2' : 'h3',
    on,
    make: (e, c) => {
      const { steps, last: cur } = follow(c, e, path);
      const y = Number(val(c, cur, key));
      if (!Number.isFinite(y)) return undefined;
      const probe = y + (c.rng.bool() ? 1 : -1) * c.rng.int(1, 12);
      steps.push({ entity: cur.id, key });
      return {
        type: path.length ? 'bridge' : 'verification',
        format: 'yes-no',
        hops: path.length + 1,
        question: q(the(e), probe),
        answer: y < probe ? 'Yes' : 'No',
        steps,
      };
    },
  };
}

function unanswerable(id: string, on: EntityType, path: (keyof Entity['rel'])[], attribute: string, q: (n: string) => string): Template {
  return {
    id,
    stratum: 'un',
    on,
    make: (e, c) => {
      const { steps, last: cur } = follow(c, e, path);
      return {
        type: 'unanswerable',
        format: 'unanswerable',
        hops: path.length + 1,
        question: q(the(e)),
        answer: NOT_ANSWERABLE,
        steps,
        missing: { entity: cur.id, attribute },
      };
    },
  };
}

const SERIES_Q = {
  revenue: {
    value: (n: string, y: number) => `What was the revenue of ${n} in ${y}, in million credits?`,
    peak: (n: string) => `In which year was the revenue of ${n} highest?`,
    over: (n: string, t: string) => `In which years did the revenue of ${n} exceed ${t} million credits?`,
  },
  population: {
    value: (n: string, y: number) => `What was the population of ${n} in ${y}?`,
    peak: (n: string) => `In which census year was the population of ${n} largest?`,
    over: (n: string, t: string) => `In which census years did the population of ${n} exceed ${t}?`,
  },
  publications: {
    value: (n: string, y: number) => `How many papers did ${n} publish in ${y}?`,
    peak: (n: string) => `In which year did ${n} publish the most papers?`,
    over: (n: string, t: string) => `In which years did ${n} publish more than ${t} papers?`,
  },
};

/** An h1 question read straight off one point of the entity's series (`read` names the point and asks for it). */
function seriesPoint(id: string, on: EntityType, type: string, read: (e: Entity, series: TimeSeries, c: Ctx) => { key: string; question: string }): Template {
  return {
    id,
    stratum: 'h1',
    on,
    make: (e, c) => {
      if (!e.series) return undefined;
      const { key, question } = read(e, e.series, c);
      return { type, format: 'number', hops: 1, question, answer: val(c, e, key)!, steps: [{ entity: e.id, key }] };
    },
  };
}

function seriesTemplates(on: EntityType): Template[] {
  return [
    seriesPoint(`${on}-series-value`, on, 'lookup', (e, s, c) => {
      const y = seriesYear(c, e);
      return { key: `${s.name}:${y}`, question: SERIES_Q[s.name].value(the(e), y) };
    }),
    seriesPoint(`${on}-series-peak`, on, 'superlative', (e, s) => ({ key: `${s.name}:peak`, question: SERIES_Q[s.name].peak(the(e)) })),
    {
      id: `${on}-series-threshold`,
      stratum: 'h1',
      on,
      make: (e, c) => {
        if (!e.series) return undefined;
        const sorted = e.series.points.map((p) => p.value).sort((a, b) => b - a);
        const k = c.rng.int(2, 3);
        // A round threshold t with lo <= t < hi (hi = k-th largest value, lo = the next one), so exactly k years exceed it.
        const hi = sorted[k - 1],
          lo = sorted[k];
        const t = [1000, 100, 10, 5, 1].map((s) => Math.ceil(lo / s) * s).find((x) => x >= lo && x < hi)!;
        const years = e.series.points.filter((p) => p.value > t).map((p) => String(p.year));
        if (years.length !== k) return undefined;
        return {
          type: 'aggregation',
          format: 'list',
          hops: 1,
          question: SERIES_Q[e.series.name].over(the(e), fmt(t)),
          answer: years,
          steps: years.map((y) => ({ entity: e.id, key: `${e.series!.name}:${y}` })),
        };
      },
    },
  ];
}

function example(id: string, on: EntityType, key: string, q: (n: string) => string): Template {
  return {
    id,
    stratum: 'h1',
    on,
    make: (e, c) => {
      const v = val(c, e, key);
      return v === undefined ? undefined : { type: 'calculation', format: 'number', hops: 1, question: q(the(e)), answer: v, steps: [{ entity: e.id, key }] };
    },
  };
}

function compare(
  id: string,
  on: EntityType,
  key: (e: Entity, c: Ctx) => string,
  num: (e: Entity, c: Ctx) => number | undefined,
  q: (a: string, b: string, c: Ctx, extra: string) => string,
  pick: 'min' | 'max',
  extra?: (c: Ctx, e: Entity) => string,
): Template {
  return {
    id,
    stratum: 'h2',
    on,
    make: (e, c) => {
      const others = c.model.coreByType[on].filter((x) => x !== e);
      if (!others.length) return undefined;
      const o = c.rng.pick(others);
      const ex = extra ? extra(c, e) : '';
      const k1 = key(e, c),
        k2 = key(o, c);
      const a = num(e, c),
        b = num(o, c);
      if (a === undefined || b === undefined || a === b) return undefined;
      const winner = (pick === 'min' ? a < b : a > b) ? e : o;
      const [first, second] = c.rng.bool() ? [e, o] : [o, e];
      return {
        type: 'comparison',
        format: 'span',
        hops: 2,
        question: q(the(first), the(second), c, ex),
        answer: winner.name,
        steps: [
          { entity: e.id, key: k1 },
          { entity: o.id, key: k2 },
        ],
      };
    },
  };
}

const num = (key: string) => (e: Entity, c: Ctx) => {
  const v = val(c, e, key);
  return v === undefined ? undefined : Number(v.replace(/,/g, ''));
};

export const TEMPLATES: Template[] = [
  // ---- one hop: lookups in every modality ----
  lookup('company-founded', 'company', 'founded', 'number', (n) => `In what year was ${n} founded?`),
  lookup('company-employees', 'company', 'employees', 'number', (n) => `How many people does ${n} employ?`),
  lookup('company-colour', 'company', 'brandColour', 'span', (n) => `What is the brand colour of ${n}?`),
  lookup('company-sector', 'company', 'sector', 'span', (n) => `In which sector does ${n} operate?`),
  lookup('company-ceo', 'company', 'ceo', 'span', (n) => `Who is the chief executive of ${n}?`),
  lookup('company-founder', 'company', 'founder', 'span', (n) => `Who is the founder of ${n}?`),
  lookup('company-hq', 'company', 'headquarters', 'span', (n) => `In which city does ${n} have its headquarters?`),
  lookup('product-price', 'product', 'price', 'number', (n) => `How much does ${n} sell for, in credits?`),
  lookup('product-colours', 'product', 'colours', 'list', (n) => `In which colours is ${n} available?`),
  lookup('product-weight', 'product', 'weight', 'number', (n) => `How much does ${n} weigh, in grams?`),
  lookup('product-launched', 'product', 'launched', 'number', (n) => `In what year was ${n} launched?`),
  lookup('product-maker', 'product', 'manufacturer', 'span', (n) => `Which company manufactures ${n}?`),
  lookup('product-category', 'product', 'category', 'span', (n) => `What type of product is ${n}?`),
  lookup('person-born', 'person', 'born', 'number', (n) => `In what year was ${n} born?`),
  lookup('person-birthplace', 'person', 'birthplace', 'span', (n) => `In which city was ${n} born?`),
  lookup('person-profession', 'person', 'profession', 'span', (n) => `What is the profession of ${n}?`),
  lookup('person-almamater', 'person', 'almaMater', 'span', (n) => `Where did ${n} study?`),
  lookup('person-awards', 'person', 'awards', 'number', (n) => `How many awards has ${n} received?`),
  lookup('city-settled', 'city', 'settled', 'number', (n) => `In what year was ${n} first settled?`),
  lookup('city-elevation', 'city', 'elevation', 'number', (n) => `How many metres above sea level does ${n} lie?`),
  lookup('city-province', 'city', 'region', 'span', (n) => `In which province is ${n}?`),
  lookup('city-area', 'city', 'area', 'number', (n) => `How many square kilometres does ${n} cover?`),
  lookup('institute-founded', 'institute', 'founded', 'number', (n) => `In what year was ${n} founded?`),
  lookup('institute-location', 'institute', 'location', 'span', (n) => `In which city is ${n} located?`),
  lookup('institute-director', 'institute', 'director', 'span', (n) => `Who is the director of ${n}?`),
  lookup('institute-researchers', 'institute', 'researchers', 'number', (n) => `How many researchers does ${n} have?`),
  lookup('institute-departments', 'institute', 'departments', 'number', (n) => `Into how many departments is ${n} organised?`),
  lookup('institute-field', 'institute', 'field', 'span', (n) => `What does ${n} specialise in?`),
  ...seriesTemplates('company'),
  ...seriesTemplates('city'),
  ...seriesTemplates('institute'),
  example('company-age', 'company', 'age2025', (n) => `How old was ${n} in 2025, in years?`),
  example('city-feet', 'city', 'elevationFeet', (n) => `What is the elevation of ${n} in feet?`),
  example('product-three', 'product', 'price3', (n) => `How many credits do three units of ${n} cost?`),
  example('institute-per-department', 'institute', 'perDepartment', (n) => `On average, how many researchers work in each department of ${n}?`),
  yesNoBefore('company-founded-before', 'company', [], 'founded', (n, y) => `Was ${n} founded before ${y}?`),
  yesNoBefore('person-born-before', 'person', [], 'born', (n, y) => `Was ${n} born before ${y}?`),
  {
    id: 'product-colour-yn',
    stratum: 'h1',
    on: 'product',
    make: (e, c) => {
      const cols = e.attrs.colours as string[];
      const yes = c.rng.bool();
      const colour = yes ? c.rng.pick(cols) : c.rng.pick(COLOURS.filter((x) => !cols.includes(x)));
      return {
        type: 'verification',
        format: 'yes-no',
        hops: 1,
        question: `Is ${the(e)} available in ${colour}?`,
        answer: yes ? 'Yes' : 'No',
        steps: [{ entity: e.id, key: 'colours' }],
      };
    },
  },

  // ---- two hops: bridges through a name learnt from the first document ----
  chain('product-maker-founded', 'product', ['manufacturer'], 'founded', 'number', (n) => `In what year was the company that manufactures ${n} founded?`),
  chain('product-maker-ceo', 'product', ['manufacturer'], 'ceo', 'span', (n) => `Who is the chief executive of the company that makes ${n}?`),
  chain(
    'product-maker-revenue',
    'product',
    ['manufacturer'],
    (l, c) => `revenue:${seriesYear(c, l)}`,
    'number',
    (n, k) => `What was the ${k.split(':')[1]} revenue of the company that makes ${n}, in million credits?`,
  ),
  chain('product-maker-hq', 'product', ['manufacturer'], 'headquarters', 'span', (n) => `In which city does the manufacturer of ${n} have its headquarters?`),
  chain('product-maker-employees', 'product', ['manufacturer'], 'employees', 'number', (n) => `How many people does the manufacturer of ${n} employ?`),
  chain('company-founder-birthplace', 'company', ['founder'], 'birthplace', 'span', (n) => `In which city was the founder of ${n} born?`),
  chain('company-ceo-born', 'company', ['ceo'], 'born', 'number', (n) => `In what year was the chief executive of ${n} born?`),
  chain('company-ceo-almamater', 'company', ['ceo'], 'almaMater', 'span', (n) => `Where did the chief executive of ${n} study?`),
  chain(
    'company-hq-population',
    'company',
    ['headquarters'],
    (l, c) => `population:${seriesYear(c, l)}`,
    'number',
    (n, k) => `What was the population in ${k.split(':')[1]} of the city where ${n} has its headquarters?`,
  ),
  chain('company-hq-province', 'company', ['headquarters'], 'region', 'span', (n) => `In which province is the city where ${n} has its headquarters?`),
  chain('person-almamater-founded', 'person', ['almaMater'], 'founded', 'number', (n) => `In what year was the institution where ${n} studied founded?`),
  chain(
    'person-birthplace-elevation',
    'person',
    ['birthplace'],
    'elevation',
    'number',
    (n) => `How many metres above sea level does the birthplace of ${n} lie?`,
  ),
  chain('institute-director-born', 'institute', ['director'], 'born', 'number', (n) => `In what year was the director of ${n} born?`),
  chain('institute-director-profession', 'institute', ['director'], 'profession', 'span', (n) => `What is the profession of the director of ${n}?`),
  chain(
    'institute-location-population',
    'institute',
    ['location'],
    (l, c) => `population:${seriesYear(c, l)}`,
    'number',
    (n, k) => `What was the population in ${k.split(':')[1]} of the city where ${n} is located?`,
  ),
  yesNoBefore('company-founder-born-before', 'company', ['founder'], 'born', (n, y) => `Was the founder of ${n} born before ${y}?`),
  {
    id: 'product-maker-hq-yn',
    stratum: 'h2',
    on: 'product',
    make: (e, c) => {
      const maker = rel(c, e, 'manufacturer');
      const hq = rel(c, maker, 'headquarters');
      const yes = c.rng.bool();
      const others = c.model.coreByType.city.filter((x) => x !== hq);
      if (!yes && !others.length) return undefined;
      const city = yes ? hq : c.rng.pick(others);
      return {
        type: 'bridge',
        format: 'yes-no',
        hops: 2,
        question: `Is the company that makes ${the(e)} headquartered in ${city.name}?`,
        answer: yes ? 'Yes' : 'No',
        steps: [
          { entity: e.id, key: 'manufacturer' },
          { entity: maker.id, key: 'headquarters' },
        ],
      };
    },
  },
  compare(
    'company-older',
    'company',
    () => 'founded',
    num('founded'),
    (a, b) => `Which was founded earlier, ${a} or ${b}?`,
    'min',
  ),
  compare(
    'product-heavier',
    'product',
    () => 'weight',
    num('weight'),
    (a, b) => `Which is heavier, ${a} or ${b}?`,
    'max',
  ),
  compare(
    'institute-larger',
    'institute',
    () => 'researchers',
    num('researchers'),
    (a, b) => `Which has more researchers, ${a} or ${b}?`,
    'max',
  ),
  compare(
    'person-older',
    'person',
    () => 'born',
    num('born'),
    (a, b) => `Who was born earlier, ${a} or ${b}?`,
    'min',
  ),
  {
    id: 'city-larger',
    stratum: 'h2',
    on: 'city',
    make: (e, c) => {
      const others = c.model.coreByType.city.filter((x) => x !== e);
      if (!others.length) return undefined;
      const o = c.rng.pick(others);
      const y = seriesYear(c, e);
      const a = num(`population:${y}`)(e, c)!,
        b = num(`population:${y}`)(o, c)!;
      if (a === b) return undefined;
      const [first, second] = c.rng.bool() ? [e, o] : [o, e];
      return {
        type: 'comparison',
        format: 'span',
        hops: 2,
        question: `Which city had more inhabitants in ${y}, ${first.name} or ${second.name}?`,
        answer: (a > b ? e : o).name,
        steps: [
          { entity: e.id, key: `population:${y}` },
          { entity: o.id, key: `population:${y}` },
        ],
      };
    },
  },

  // ---- three hops ----
  chain(
    'product-ceo-birthplace',
    'product',
    ['manufacturer', 'ceo'],
    'birthplace',
    'span',
    (n) => `In which city was the chief executive of the company that makes ${n} born?`,
  ),
  chain(
    'product-founder-born',
    'product',
    ['manufacturer', 'founder'],
    'born',
    'number',
    (n) => `In what year was the founder of the company that manufactures ${n} born?`,
  ),
  chain(
    'product-hq-population',
    'product',
    ['manufacturer', 'headquarters'],
    (l, c) => `population:${seriesYear(c, l)}`,
    'number',
    (n, k) => `What was the population in ${k.split(':')[1]} of the city where the manufacturer of ${n} has its headquarters?`,
  ),
  chain(
    'product-hq-province',
    'product',
    ['manufacturer', 'headquarters'],
    'region',
    'span',
    (n) => `In which province is the headquarters city of the company that makes ${n}?`,
  ),
  chain(
    'company-founder-almamater-founded',
    'company',
    ['founder', 'almaMater'],
    'founded',
    'number',
    (n) => `In what year was the institution where the founder of ${n} studied founded?`,
  ),
  chain(
    'company-ceo-almamater-location',
    'company',
    ['ceo', 'almaMater'],
    'location',
    'span',
    (n) => `In which city is the institution where the chief executive of ${n} studied?`,
  ),
  chain(
    'institute-director-birthplace-elevation',
    'institute',
    ['director', 'birthplace'],
    'elevation',
    'number',
    (n) => `How many metres above sea level does the birthplace of the director of ${n} lie?`,
  ),
  yesNoBefore(
    'product-ceo-born-before',
    'product',
    ['manufacturer', 'ceo'],
    'born',
    (n, y) => `Was the chief executive of the company that makes ${n} born before ${y}?`,
  ),

  // ---- unanswerable: the world never states these attributes ----
  unanswerable('city-mayor', 'city', [], 'mayor', (n) => `Who is the mayor of ${n}?`),
  unanswerable('company-ticker', 'company', [], 'ticker', (n) => `What is the stock ticker symbol of ${n}?`),
  unanswerable('product-warranty', 'product', [], 'warranty', (n) => `How long is the warranty of ${n}?`),
  unanswerable('institute-budget', 'institute', [], 'budget', (n) => `What is the annual budget of ${n}?`),
  unanswerable('person-spouse', 'person', [], 'spouse', (n) => `Who is the spouse of ${n}?`),
  unanswerable('institute-motto', 'institute', [], 'motto', (n) => `What is the motto of ${n}?`),
  unanswerable('product-maker-ticker', 'product', ['manufacturer'], 'ticker', (n) => `What is the stock ticker symbol of the company that makes ${n}?`),
  unanswerable('company-hq-mayor', 'company', ['headquarters'], 'mayor', (n) => `Who is the mayor of the city where ${n} has its headquarters?`),
  unanswerable(
    'product-hq-mayor',
    'product',
    ['manufacturer', 'headquarters'],
    'mayor',
    (n) => `Who is the mayor of the city where the manufacturer of ${n} has its headquarters?`,
  ),
];

/** Share of questions per stratum (one hop, two hops, three hops, unanswerable). */
const STRATA: [Stratum, number][] = [
  ['h1', 0.37],
  ['h2', 0.35],
  ['h3', 0.2],
  ['un', 0.08],
];

/** Relative share of answer formats inside a stratum. */
const FORMAT_WEIGHTS: Record<AnswerFormat, number> = { number: 0.35, span: 0.35, list: 0.12, 'yes-no': 0.18, unanswerable: 1 };

function evidenceOf(step: Step, facts: Record<string, FactLocation>, docs: Map<string, DemoDoc>): Evidence {
  const f = facts[`${step.entity}.${step.key}`];
  if (!f) throw new Error(`demo world: fact ${step.entity}.${step.key} has no location (generator bug)`);
  const pdf = docs.get(f.doc)!.format === 'pdf';
  return { doc: f.doc, ...(pdf ? { page: f.page } : {}), modality: f.modality, text: f.text };
}

/** One candidate as a Question (id left empty); also used by bulk/bulk-questions.ts for training questions. */
export function toQuestion(c: Candidate, facts: Record<string, FactLocation>, docs: Map<string, DemoDoc>): Question {
  const evidence = c.steps.map((s) => evidenceOf(s, facts, docs));
  if (c.missing) {
    // The attribute is absent: the gold document is the one that would state it.
    const pdf = docs.get(c.missing.entity)!.format === 'pdf';
    evidence.push({ doc: c.missing.entity, ...(pdf ? { page: 1 } : {}), modality: 'text' });
  }
  const goldDocs = [...new Set(evidence.map((e) => e.doc))];
  const modality = [...new Set(evidence.map((e) => e.modality!))] as Modality[];
  const q: Question = {
    id: '',
    benchmark: 'demo',
    question: c.question,
    answer: c.answer,
    format: c.format,
    goldDocs,
    evidence,
    modality,
    hops: c.hops,
    type: c.type,
    meta: {
      template: c.template,
      /** bridge: steps[i].value names steps[i+1]'s entity; parallel: independent facts compared; single: one entity. */
      reasoning: c.type === 'comparison' ? 'parallel' : c.hops > 1 ? 'bridge' : 'single',
      // The chain as facts: for bridges, value of step i is the name of step i+1's entity.
      chain: c.steps.map((s) => ({ entity: s.entity, doc: facts[`${s.entity}.${s.key}`].doc, key: s.key, value: facts[`${s.entity}.${s.key}`].value })),
      ...(c.missing ? { missingAttribute: c.missing.attribute, missingFrom: c.missing.entity } : {}),
    },
  };
  if (goldDocs.length === 1 && docs.get(goldDocs[0])!.format === 'pdf') {
    q.goldPages = [...new Set(evidence.map((e) => e.page!))].sort((a, b) => a - b);
  }
  return q;
}

export interface BuiltQuestions {
  questions: Question[];
  shortfall: number;
}

/** Draw `wanted` questions: strata in fixed shares, templates round-robin inside each, entities at random. */
/** The candidates left per template, and the questions chosen so far (no question text twice). */
interface Picks {
  byTemplate: Map<string, Candidate[]>;
  seen: Set<string>;
  chosen: Candidate[];
}

/** Every template's candidates over the core entities, shuffled by the template's own stream. */
function candidatesByTemplate(model: WorldModel, facts: Record<string, FactLocation>, rng: Rng): Map<string, Candidate[]> {
  const byTemplate = new Map<string, Candidate[]>();
  for (const t of TEMPLATES) {
    const c: Ctx = { model, facts, rng: rng.fork(`template/${t.id}`) };
    const list: Candidate[] = [];
    for (const e of model.core) {
      if (e.type !== t.on) continue;
      const made = t.make(e, c);
      if (made) list.push({ ...made, template: t.id, stratum: t.stratum });
    }
    byTemplate.set(t.id, c.rng.shuffle(list));
  }
  return byTemplate;
}

/** Round-robin over `ids`, one new candidate per template per turn. */
function roundRobin(p: Picks, ids: string[], n: number): number {
  let got = 0;
  for (let progress = true; got < n && progress;) {
    progress = false;
    for (const id of ids) {
      if (got >= n) break;
      const list = p.byTemplate.get(id)!;
      while (list.length) {
        const cand = list.pop()!;
        if (p.seen.has(cand.question)) continue;
        p.seen.add(cand.question);
        p.chosen.push(cand);
        got++;
        progress = true;
        break;
      }
    }
  }
  return got;
}

/** Inside a stratum, answer formats get fixed shares (else the many lookup templates would crowd out lists and yes/no). */
function takeFrom(p: Picks, stratum: Stratum, n: number, rng: Rng): number {
  const byFormat = new Map<AnswerFormat, string[]>();
  for (const t of TEMPLATES) {
    const list = p.byTemplate.get(t.id)!;
    if (t.stratum !== stratum || !list.length) continue;
    const f = list[0].format;
    byFormat.set(f, [...(byFormat.get(f) ?? []), t.id]);
  }
  const formats = [...byFormat.keys()];
  if (!formats.length || n <= 0) return 0;
  const total = formats.reduce((a, f) => a + FORMAT_WEIGHTS[f], 0);
  let got = 0;
  let carry = 0;
  formats.forEach((f, i) => {
    const quota = i === formats.length - 1 ? n - got : Math.round((n * FORMAT_WEIGHTS[f]) / total) + carry;
    const took = roundRobin(p, rng.shuffle(byFormat.get(f)!.slice()), Math.min(quota, n - got));
    carry = quota - took;
    got += took;
  });
  // Formats that ran short: fill from any template of the stratum.
  if (got < n) got += roundRobin(p, rng.shuffle(formats.flatMap((f) => byFormat.get(f)!)), n - got);
  return got;
}

/**
 * Coverage first: even a small world (the test fixture) gets every answer format, evidence
 * modality and hop count once, whatever the seed. Returns what it took per stratum.
 */
function coverFirst(p: Picks, wanted: number, facts: Record<string, FactLocation>, rng: Rng): Record<Stratum, number> {
  const taken: Record<Stratum, number> = { h1: 0, h2: 0, h3: 0, un: 0 };
  const modalities = (c: Candidate) => (c.missing ? ['text'] : c.steps.map((st) => facts[`${st.entity}.${st.key}`].modality));
  const needs: ((c: Candidate) => boolean)[] = [
    ...(['list', 'yes-no', 'unanswerable', 'span', 'number'] as AnswerFormat[]).map((f) => (c: Candidate) => c.format === f),
    ...(['image', 'table', 'text'] as const).map((m) => (c: Candidate) => modalities(c).includes(m)),
    ...[3, 2, 1].map((h) => (c: Candidate) => c.hops === h && c.stratum !== 'un'),
  ];
  if (wanted < needs.length) return taken;
  for (const need of needs) {
    if (p.chosen.some(need)) continue;
    for (const id of rng.shuffle(TEMPLATES.map((t) => t.id))) {
      const list = p.byTemplate.get(id)!;
      const i = list.findIndex((c) => need(c) && !p.seen.has(c.question));
      if (i < 0) continue;
      const [c] = list.splice(i, 1);
      p.seen.add(c.question);
      p.chosen.push(c);
      taken[c.stratum]++;
      break;
    }
  }
  return taken;
}

/** Questions still wanted per stratum: the strata's shares, less what coverage took (any excess off the largest). */
function stratumTargets(wanted: number, taken: Record<Stratum, number>): [Stratum, number][] {
  const targets = STRATA.map(([s, w]) => [s, Math.round(wanted * w)] as [Stratum, number]);
  targets[0][1] += wanted - targets.reduce((a, [, n]) => a + n, 0);
  let excess = 0;
  for (const t of targets) {
    const d = Math.min(t[1], taken[t[0]]);
    excess += taken[t[0]] - d;
    t[1] -= d;
  }
  targets[0][1] = Math.max(0, targets[0][1] - excess);
  return targets;
}

export function buildQuestions(model: WorldModel, docs: DemoDoc[], facts: Record<string, FactLocation>, wanted: number, rng: Rng): BuiltQuestions {
  const docMap = new Map(docs.map((d) => [d.id, d]));
  const p: Picks = { byTemplate: candidatesByTemplate(model, facts, rng), seen: new Set(), chosen: [] };
  const targets = stratumTargets(wanted, coverFirst(p, wanted, facts, rng));
  let missing = 0;
  for (const [s, n] of targets) missing += n - takeFrom(p, s, n, rng);
  // A small world may run out of one stratum: make up from the others in order.
  for (const [s] of targets) if (missing > 0) missing -= takeFrom(p, s, missing, rng);
  const questions = rng.shuffle(p.chosen).map((c, i) => {
    const q = toQuestion(c, facts, docMap);
    q.id = `demo-${String(i + 1).padStart(4, '0')}`;
    return q;
  });
  return { questions, shortfall: Math.max(0, missing) };
}
