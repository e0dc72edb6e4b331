/**
 * Micro facts from a machine caption of an image (e.g. the MMQA LLaVA captions: "The image features a
 * large stone building with a flagpole in front, where a flag is flying at half-mast"). Such captions
 * name few entities; what they carry is content: the things shown and how they relate. Rules, no model:
 *  - content phrases: runs of up to MAX_PHRASE_WORDS words broken by punctuation, stopwords, caption
 *    boilerplate ("the image features", "possibly") and verb forms (-ing / -ed words: "holding", "parked");
 *  - (subject, "shows", phrase) for every phrase, subject = the image's subject (its title or label);
 *  - (phrase, link, next phrase) when only a few linking words separate two phrases in one clause
 *    ("building" -with-> "flagpole", "man" -wearing-> "blue jacket"): the spec's visual detail in r.
 * Used for captions given to the graph builder (GraphBuildOptions.captions, micro.ts imageFacts).
 */
import { STOPWORDS } from '../../util/text-rules';

export const MAX_CAPTION_FACTS = 16;
const MAX_PHRASE_WORDS = 4;
const MAX_LINK_WORDS = 3;

/** Words of caption boilerplate that never name what is shown (they break phrases and links). */
const BOILERPLATE = new Set(
  (
    'image images picture photo photograph features feature featuring showcases showcasing showcase depicts depicting displays shows show ' +
    'possibly likely probably perhaps appears appear seems seem various several many some different distinct prominent overall ' +
    'there which who that this these those it its they their also including include includes visible seen scene atmosphere setting'
  ).split(' '),
);

/** -ing / -ed nouns that are things, not verb forms. */
const NOUN_ING_ED = new Set(
  'building buildings painting paintings clothing ceiling wedding morning evening king ring rings wing wings thing things string spring swing railing awning lightning sibling earring earrings bed red shed sled'.split(
    ' ',
  ),
);

/** Place words that link two phrases ("in front of", "next to", "on top of") rather than name a thing. */
const PLACE_WORDS = new Set('front next around behind near beside top between across along inside outside atop amid against'.split(' '));
const ARTICLES = new Set(['a', 'an', 'the']);

const isVerbForm = (w: string) => w.length > 4 && /(?:ing|ed)$/.test(w) && !NOUN_ING_ED.has(w);

type Token = { word: string; lower: string } | { stop: true };

/** Caption tokens: words, and a break marker for punctuation. */
function captionTokens(caption: string): Token[] {
  return (caption.match(/[\p{L}\d][\p{L}\d'’.-]*|[,;:()"!?]|\.(?=\s|$)/gu) ?? []).map((t) =>
    /^[,;:()"!?.]$/.test(t) ? { stop: true } : { word: t.replace(/[.'’]+$/, ''), lower: t.replace(/[.'’]+$/, '').toLowerCase() },
  );
}

interface Piece {
  phrase?: string;
  /** Linking words before this phrase (since the previous phrase), undefined when a break came between. */
  link?: string;
}

/** Content phrases in order, each with the linking words that join it to the previous phrase (if any). */
export function captionPhrases(caption: string): Piece[] {
  const out: Piece[] = [];
  let words: string[] = [];
  let link: string[] | undefined;
  const flush = () => {
    if (words.length) out.push({ phrase: words.join(' '), link: link && out.length ? link.join(' ') : undefined });
    if (words.length) link = [];
    words = [];
  };
  for (const t of captionTokens(caption)) {
    if ('stop' in t) {
      flush();
      link = undefined; // a comma or a full stop ends the clause: no link across it
      continue;
    }
    const function_ = STOPWORDS.has(t.lower) || BOILERPLATE.has(t.lower) || PLACE_WORDS.has(t.lower) || isVerbForm(t.lower);
    if (!function_ && words.length < MAX_PHRASE_WORDS) {
      words.push(t.word);
      continue;
    }
    flush();
    if (function_ && link && !BOILERPLATE.has(t.lower) && !ARTICLES.has(t.lower)) link.push(t.lower);
    if (!function_) words.push(t.word); // a phrase longer than the limit starts a new one
  }
  flush();
  return out;
}

/** (u, r, v) facts of one machine caption; `subject` anchors the image (title or label). */
export function captionFacts(subject: string, caption: string, max = MAX_CAPTION_FACTS): [string, string, string][] {
  const out: [string, string, string][] = [];
  const seen = new Set<string>();
  const push = (u: string, r: string, v: string) => {
    const key = `${u}\u0000${r}\u0000${v}`.toLowerCase();
    if (out.length >= max || u.toLowerCase() === v.toLowerCase() || seen.has(key)) return;
    out.push([u, r, v]);
    seen.add(key);
  };
  const pieces = captionPhrases(caption);
  for (const p of pieces) push(subject, 'shows', p.phrase!);
  pieces.forEach((p, i) => {
    const words = p.link?.split(' ').filter(Boolean) ?? [];
    if (i > 0 && words.length && words.length <= MAX_LINK_WORDS) push(pieces[i - 1].phrase!, words.join(' '), p.phrase!);
  });
  return out;
}
