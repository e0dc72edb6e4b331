/**
 * Wording of generated training questions (generated-queries.ts), written for this project: several ways to
 * chain relations and to ask, picked by a seeded RNG, so the model meets one relation path in varied
 * phrasing (relation paraphrases) and does not learn one fixed frame. No wording is taken from a benchmark.
 */
import type { Rng } from '../../util/rng';

/** How one relation hop wraps what it starts from: "{r}" the relation words, "{x}" the inner phrase. */
const HOP_FORMS = ['the {r} of {x}', "{x}'s {r}", 'the {r} linked to {x}', 'the {r} that {x} has', 'whoever or whatever is the {r} for {x}'];

/** How a chained phrase becomes a question. */
const BRIDGE_FORMS = [
  'What is {c}?',
  'Who is {c}?',
  'Name {c}.',
  'Which entity is {c}?',
  'Tell me {c}.',
  'Can you find {c}?',
  'Identify {c}, please.',
  '{c}: who or what is it?',
];

/** Two subjects compared on one relation: "{a}" and "{b}" the two chained phrases, "{r}" the compared relation. */
const COMPARISON_FORMS = [
  'Which comes first by {r}: {a} or {b}?',
  'Do {a} and {b} have the same {r}?',
  'Between {a} and {b}, which one ranks earlier on {r}?',
  'Is {a} the same as {b}?',
  'Compare {a} with {b}: which is older?',
  'Of {a} and {b}, which one is later?',
  'Are {a} and {b} alike?',
];

function fill(form: string, values: Record<string, string>): string {
  return form.replace(/\{(\w)\}/g, (_, k: string) => values[k] ?? '');
}

/** "the r2 of the r1 of Seed" for relations [r1, r2, ...] read outward from the seed, each hop worded at random. */
export function chainPhrase(seed: string, relations: readonly string[], rng: Rng): string {
  let phrase = seed;
  for (const r of relations) phrase = fill(rng.pick(HOP_FORMS), { r, x: phrase });
  return phrase;
}

export function bridgeQuestion(seed: string, relations: readonly string[], rng: Rng): string {
  return tidy(fill(rng.pick(BRIDGE_FORMS), { c: chainPhrase(seed, relations, rng) }));
}

/** Both sides follow the same relation words from their own seed; `relation` is the compared one (the last hop). */
export function comparisonQuestion(seedA: string, seedB: string, relations: readonly string[], rng: Rng): string {
  const form = rng.pick(COMPARISON_FORMS);
  return tidy(fill(form, { a: chainPhrase(seedA, relations, rng), b: chainPhrase(seedB, relations, rng), r: relations[relations.length - 1] }));
}

/** One space between words, and a capital at the start. */
function tidy(s: string): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.charAt(0).toUpperCase() + t.slice(1);
}

/** Every fixed phrase of the templates (tests check that no benchmark question contains them verbatim). */
export const TEMPLATE_FORMS: readonly string[] = [...HOP_FORMS, ...BRIDGE_FORMS, ...COMPARISON_FORMS];
