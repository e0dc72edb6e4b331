/**
 * A small, general English lexicon for the offline reader: a word key (light
 * stemmer that also folds British/American spellings), groups of words that
 * name the same relation or attribute ("makes" / "manufacturer" / "produced"),
 * comparatives and the attribute they compare ("heavier" -> weight), measure
 * nouns (what makes "What was the X of Y?" a number question) and unit names.
 *
 * Deliberately generic: nothing here knows any corpus. It stands in for the
 * paraphrase knowledge any language model brings, at the scale of a few
 * hundred common words.
 */

/**
 * A light stem: strips one inflection (-s, -es, -ed, -ing, -ies, -ied) and one
 * derivation (-er, -or, -ation, -ment, -ness) and a final -e, and folds
 * -ise/-ize and -our/-or, so "founded"/"founder", "specialises"/"specialize",
 * "colours"/"color", "headquarters"/"headquartered" meet.
 */
const KEY_CACHE = new Map<string, string>();

export function wordKey(word: string): string {
  const hit = KEY_CACHE.get(word);
  if (hit !== undefined) return hit;
  const k = computeKey(word);
  if (KEY_CACHE.size > 50000) KEY_CACHE.clear();
  KEY_CACHE.set(word, k);
  return k;
}

function computeKey(word: string): string {
  let w = word
    .toLowerCase()
    .replace(/['’]s$/, '')
    .replace(/['’]/g, '');
  if (w.length <= 3 || /\d/.test(w)) return w;
  const irregular = IRREGULAR[w];
  if (irregular) return irregular;
  // British -ise spellings meet -ize ("specialises" / "specializes"); a bare -is ("basis", "analysis") stays.
  w = w.replace(/is(e|es|ed|ing)$/, 'iz$1');
  const strip = (sufs: string[], min: number): boolean => {
    for (const s of sufs) {
      if (w.endsWith(s) && w.length - s.length >= min) {
        // "-s" only when it is a plural/verb ending, not "class", "census", "analysis".
        if (s === 's' && /(ss|us|is)$/.test(w)) continue;
        w = w.slice(0, -s.length) + (s === 'ies' || s === 'ied' ? 'y' : '');
        return true;
      }
    }
    return false;
  };
  strip(['ies', 'ied', 'ing', 'ed', 'es', 's'], 3);
  strip(['ations', 'ation', 'ment', 'ness'], 4);
  w = w.replace(/our$/, 'or');
  if (w.length > 3 && w.endsWith('e')) w = w.slice(0, -1);
  // Doubled final consonant of inflected forms ("planned", "stopping").
  if (/([bdfgmnprt])\1$/.test(w) && w.length > 4) w = w.slice(0, -1);
  return w;
}

const IRREGULAR: Record<string, string> = {
  born: 'born',
  birth: 'born',
  births: 'born',
  birthplace: 'born',
  birthdate: 'born',
  bore: 'born',
  made: 'mak',
  makes: 'mak',
  making: 'mak',
  make: 'mak',
  maker: 'mak',
  makers: 'mak',
  built: 'build',
  building: 'build',
  builds: 'build',
  died: 'die',
  dies: 'die',
  dying: 'die',
  death: 'die',
  deaths: 'die',
  dead: 'die',
  sold: 'sell',
  sells: 'sell',
  selling: 'sell',
  sale: 'sell',
  sales: 'sell',
  wrote: 'writ',
  written: 'writ',
  writes: 'writ',
  writing: 'writ',
  writer: 'writ',
  writers: 'writ',
  write: 'writ',
  led: 'lead',
  leads: 'lead',
  leader: 'lead',
  leaders: 'lead',
  leading: 'lead',
  won: 'win',
  wins: 'win',
  winner: 'win',
  winning: 'win',
  began: 'begin',
  begun: 'begin',
  begins: 'begin',
  grew: 'grow',
  grown: 'grow',
  grows: 'grow',
  held: 'hold',
  holds: 'hold',
  lies: 'lie',
  lay: 'lie',
  lying: 'lie',
  people: 'people',
  children: 'child',
  men: 'man',
  women: 'woman',
  wives: 'wife',
  cities: 'city',
  countries: 'country',
  studied: 'study',
  studies: 'study',
  studying: 'study',
  student: 'study',
  students: 'study',
};

/**
 * Relation/attribute paraphrase groups. Every word of a group gets the group's
 * first key as an extra key, so a question word matches any member.
 */
const GROUPS: string[][] = [
  ['make', 'maker', 'manufacture', 'manufacturer', 'produce', 'producer', 'build', 'builder', 'brand'],
  ['headquarters', 'headquartered', 'hq', 'based', 'base', 'seat', 'head office'],
  ['base', 'based', 'basis'],
  ['locate', 'location', 'situated', 'located', 'site', 'based', 'seat'],
  ['born', 'birth', 'birthplace', 'native', 'birthdate'],
  ['die', 'death', 'died', 'dead'],
  [
    'found',
    'founder',
    'founded',
    'establish',
    'established',
    'creator',
    'create',
    'created',
    'form',
    'formed',
    'co-founder',
    'started',
    'settle',
    'settled',
    'inception',
  ],
  ['study', 'studied', 'educate', 'educated', 'graduate', 'graduated', 'alumnus', 'alma mater', 'attend', 'attended', 'school', 'university'],
  ['chief executive', 'ceo', 'chief', 'executive', 'president', 'managing director', 'head', 'leader', 'lead', 'chairman'],
  ['direct', 'director', 'directed', 'head', 'leader', 'lead', 'run'],
  ['population', 'inhabitants', 'inhabitant', 'residents', 'populous'],
  ['employ', 'employee', 'employees', 'staff', 'workforce', 'workers', 'personnel'],
  ['weight', 'weigh', 'weighs', 'heavy', 'heavier', 'mass'],
  ['height', 'tall', 'taller', 'high', 'higher'],
  ['elevation', 'altitude', 'above sea level', 'sea level', 'lie', 'metres', 'meters'],
  ['area', 'cover', 'covers', 'size', 'square', 'surface'],
  ['length', 'long', 'longer'],
  ['specialise', 'specialize', 'specialty', 'speciality', 'field', 'focus', 'discipline', 'expertise'],
  ['profession', 'occupation', 'job', 'career', 'work as', 'vocation'],
  ['colour', 'color', 'available', 'finish'],
  ['sector', 'industry', 'business', 'operate', 'operates', 'field'],
  ['revenue', 'sales', 'turnover', 'income', 'earnings'],
  ['publish', 'publication', 'paper', 'papers', 'published', 'article', 'articles'],
  ['launch', 'launched', 'release', 'released', 'introduce', 'introduced', 'debut', 'started'],
  ['award', 'prize', 'honour', 'honor', 'medal'],
  ['department', 'division', 'unit', 'faculty', 'organise', 'organize', 'organised'],
  ['province', 'region', 'state', 'county', 'prefecture', 'district'],
  ['spouse', 'wife', 'husband', 'married', 'marry', 'partner'],
  ['price', 'cost', 'costs', 'sell', 'sells', 'priced'],
  ['researcher', 'researchers', 'scientist', 'scientists', 'staff'],
  ['type', 'kind', 'category', 'class'],
  ['city', 'town', 'municipality', 'capital'],
  ['country', 'nation', 'nationality', 'citizen', 'citizenship'],
  ['film', 'movie', 'picture'],
  ['song', 'single', 'track'],
  ['album', 'record', 'lp'],
  ['write', 'writer', 'author', 'wrote', 'written', 'novelist', 'penned'],
  ['sing', 'singer', 'vocalist', 'sang', 'perform', 'performer'],
  ['play', 'player', 'played'],
  ['star', 'starred', 'starring', 'actor', 'actress', 'cast'],
  ['compose', 'composer', 'composed', 'music'],
  ['own', 'owner', 'owned', 'parent', 'subsidiary'],
  ['start', 'begin', 'began', 'first'],
  ['member', 'members', 'band'],
  ['coach', 'coached', 'manager', 'managed'],
  ['grow', 'growth', 'increase', 'rise', 'rose', 'gain', 'climb'],
  ['decline', 'decrease', 'fall', 'fell', 'drop', 'shrink'],
];

/** Comparative / superlative words -> the attribute they compare and the direction (max = "more"). */
export const COMPARATIVES: Record<string, { attr: string[]; dir: 'max' | 'min'; temporal?: boolean }> = {
  heavier: { attr: ['weight'], dir: 'max' },
  lighter: { attr: ['weight'], dir: 'min' },
  heaviest: { attr: ['weight'], dir: 'max' },
  lightest: { attr: ['weight'], dir: 'min' },
  taller: { attr: ['height'], dir: 'max' },
  shorter: { attr: ['height', 'length'], dir: 'min' },
  tallest: { attr: ['height'], dir: 'max' },
  higher: { attr: ['elevation', 'height'], dir: 'max' },
  highest: { attr: [], dir: 'max' },
  lower: { attr: [], dir: 'min' },
  lowest: { attr: [], dir: 'min' },
  longer: { attr: ['length'], dir: 'max' },
  longest: { attr: ['length'], dir: 'max' },
  larger: { attr: ['area', 'population', 'size'], dir: 'max' },
  largest: { attr: [], dir: 'max' },
  bigger: { attr: ['area', 'population', 'size'], dir: 'max' },
  biggest: { attr: [], dir: 'max' },
  smaller: { attr: ['area', 'population', 'size'], dir: 'min' },
  smallest: { attr: [], dir: 'min' },
  more: { attr: [], dir: 'max' },
  most: { attr: [], dir: 'max' },
  greater: { attr: [], dir: 'max' },
  greatest: { attr: [], dir: 'max' },
  fewer: { attr: [], dir: 'min' },
  fewest: { attr: [], dir: 'min' },
  less: { attr: [], dir: 'min' },
  least: { attr: [], dir: 'min' },
  populous: { attr: ['population'], dir: 'max' },
  older: { attr: ['born', 'found', 'age'], dir: 'min', temporal: true },
  oldest: { attr: ['born', 'found', 'age'], dir: 'min', temporal: true },
  younger: { attr: ['born', 'found', 'age'], dir: 'max', temporal: true },
  youngest: { attr: ['born', 'found', 'age'], dir: 'max', temporal: true },
  newer: { attr: ['found', 'launch'], dir: 'max', temporal: true },
  newest: { attr: ['found', 'launch'], dir: 'max', temporal: true },
  earlier: { attr: [], dir: 'min', temporal: true },
  earliest: { attr: [], dir: 'min', temporal: true },
  first: { attr: [], dir: 'min', temporal: true },
  sooner: { attr: [], dir: 'min', temporal: true },
  later: { attr: [], dir: 'max', temporal: true },
  latest: { attr: [], dir: 'max', temporal: true },
  last: { attr: [], dir: 'max', temporal: true },
  recently: { attr: [], dir: 'max', temporal: true },
  richer: { attr: ['revenue'], dir: 'max' },
  wealthier: { attr: ['revenue'], dir: 'max' },
};

/** Nouns that name a quantity: "What was the <noun> of X?" asks for a number. */
export const MEASURE_NOUNS = new Set(
  [
    'population',
    'revenue',
    'revenues',
    'income',
    'profit',
    'sales',
    'turnover',
    'weight',
    'height',
    'length',
    'width',
    'depth',
    'area',
    'elevation',
    'altitude',
    'price',
    'cost',
    'salary',
    'budget',
    'capacity',
    'attendance',
    'size',
    'age',
    'gdp',
    'temperature',
    'speed',
    'distance',
    'count',
    'number',
    'total',
    'amount',
    'percentage',
    'percent',
    'share',
    'rate',
    'ratio',
    'score',
    'value',
    'volume',
    'duration',
    'runtime',
    'enrollment',
    'enrolment',
    'employees',
    'workforce',
    'circulation',
    'density',
    'diameter',
    'mass',
    'margin',
    'valuation',
    'worth',
    'debt',
    'expenditure',
  ].map(wordKey),
);

/** Answer-type nouns after "which/what": people, places, times. */
export const PERSON_NOUNS = new Set(
  [
    'person',
    'man',
    'woman',
    'actor',
    'actress',
    'player',
    'director',
    'author',
    'writer',
    'singer',
    'artist',
    'musician',
    'politician',
    'president',
    'king',
    'queen',
    'founder',
    'leader',
    'composer',
    'producer',
    'poet',
    'painter',
    'scientist',
    'coach',
    'rapper',
    'chef',
    'journalist',
    'executive',
    'ceo',
    'manager',
    'member',
    'character',
    'footballer',
    'athlete',
    'novelist',
    'philosopher',
    'son',
    'daughter',
    'wife',
    'husband',
    'spouse',
    'mother',
    'father',
  ].map(wordKey),
);
export const PLACE_NOUNS = new Set(
  [
    'city',
    'town',
    'country',
    'state',
    'province',
    'region',
    'county',
    'place',
    'location',
    'village',
    'island',
    'continent',
    'district',
    'nation',
    'capital',
    'area',
    'neighbourhood',
    'neighborhood',
    'municipality',
    'territory',
    'river',
    'mountain',
    'lake',
  ].map(wordKey),
);
export const TIME_NOUNS = new Set(['year', 'years', 'decade', 'century', 'date', 'day', 'month', 'season'].map(wordKey));

/** Unit words and their written forms in text, so "in grams" strips "g" and "how many metres" strips "m". */
const UNIT_GROUPS: string[][] = [
  ['g', 'gram', 'grams', 'gramme', 'grammes'],
  ['kg', 'kilogram', 'kilograms', 'kilo', 'kilos'],
  ['m', 'metre', 'metres', 'meter', 'meters'],
  ['km', 'kilometre', 'kilometres', 'kilometer', 'kilometers', 'km2', 'km²', 'square kilometres', 'square kilometers'],
  ['cm', 'centimetre', 'centimetres', 'centimeter', 'centimeters'],
  ['mm', 'millimetre', 'millimetres', 'millimeter', 'millimeters'],
  ['ft', 'foot', 'feet'],
  ['mi', 'mile', 'miles'],
  ['lb', 'lbs', 'pound', 'pounds'],
  ['%', 'percent', 'per cent', 'percentage'],
  ['years', 'year', 'yrs'],
  ['people', 'persons', 'employees', 'inhabitants', 'residents'],
];

const GROUP_KEYS = new Map<string, Set<string>>();
for (const g of GROUPS) {
  const head = g.map((w) => w.split(' ').map(wordKey).join(' '));
  const keys = new Set(head.filter((k) => !k.includes(' ')));
  for (const k of keys) {
    const s = GROUP_KEYS.get(k) ?? new Set<string>();
    for (const other of keys) s.add(other);
    GROUP_KEYS.set(k, s);
  }
}

/**
 * The keys a word matches: its own key, the keys of every paraphrase group it
 * belongs to, and its agent-noun / verb partner ("director" <-> "direct",
 * "invent" <-> "inventor"), which stays a separate key so that "founder" and
 * "founded" remain two question terms.
 */
export function expandKey(key: string): Set<string> {
  const out = new Set(GROUP_KEYS.get(key) ?? [key]);
  out.add(key);
  const base = /^(.{4,})(?:er|or)$/.exec(key)?.[1];
  if (base) {
    out.add(base);
  } else if (key.length >= 4) {
    out.add(`${key}er`);
    out.add(`${key}or`);
  }
  return out;
}

/** Every spelling of a unit word ("grams" -> g, gram, grams...), lower-cased; empty when the word is no unit. */
export function unitForms(word: string): string[] {
  const w = word.toLowerCase();
  for (const g of UNIT_GROUPS) if (g.includes(w)) return g;
  return [];
}
