/**
 * Offline dense encoder (b), FITTED ON THE CORPUS, persisted with the index.
 *
 * Why: averaged GloVe finds <10% of 2Wiki gold passages at 5, because the words
 * that identify a passage (entity names: "Teutberga", "Phoolwari") are out of
 * GloVe's vocabulary, and fusing such a retriever with BM25 drags BM25 down.
 * Here the vector is the concatenation of two unit parts,
 *
 *   v = [ sqrt(g) * SIF-GloVe(text) ;  sqrt(1-g) * P * tfidf(text) ]   (then unit length)
 *
 * so cos(v, v') = g * cos_glove + (1 - g) * cos_lexical (approximately):
 * - SIF-GloVe (with the corpus' common component removed) carries meaning:
 *   paraphrases and related words ("mother"/"parent", "born"/"birthplace").
 * - tfidf: words (the shared tokenizer's terms) and character n-grams of each
 *   word (fastText-style "<lo", "lot", ... "ir>"), weighted (1 + ln tf) * idf
 *   with idf fitted on the corpus, each group unit-normalised and mixed by
 *   `charWeight`. Char n-grams match spelling and morphology variants
 *   ("Lotharingia"/"Lothair", "Marufabad"/"Maroufabad") that BM25's exact terms
 *   miss, which makes this retriever COMPLEMENTARY to BM25 rather than a weaker
 *   copy; rare names carry high idf, so entity names dominate the lexical part.
 *   By default (charWeight 1) the lexical part is char n-grams only.
 * - P is a fixed signed random projection (feature hashing of the hashed
 *   feature buckets into `lexDim` dimensions, `projections` non-zeros per
 *   bucket): it preserves inner products in expectation (Johnson-Lindenstrauss),
 *   needs no stored matrix, and makes the vector dense enough for HNSW.
 *
 * What is fitted and saved: document frequencies per feature bucket (idf), the
 * number of documents, the GloVe common component, and the options. The id
 * carries a hash of that state, so an index never mixes vectors of two fits.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Embedder } from '../types';
import { Tokenizer, type TokenizerOptions, type ResolvedTokenizerOptions } from '../tokenize';
import { fnv1a, mix32, normalize } from './feature-hash';
import { loadGlove, type GloveTable } from './glove-table';
import { firstSingularVector, removeComponent, sifVector, sifWeights, type SifWeights } from './glove-sif';
import { KfError } from '../../util/errors';
import { sha256 } from '../../util/hash';
import { writeFileAtomic, writeJsonAtomic, readJson } from '../../util/fsx';

export interface CorpusFittedOptions {
  /** Dimensions of the projected lexical part (default 256). */
  lexDim?: number;
  /** Share of the squared norm given to the GloVe part, 0..1 (default 0.25; 0 = no GloVe, nothing to load). */
  gloveWeight?: number;
  /**
   * Share of the lexical part given to character n-grams, 0..1 (default 1: the
   * lexical part is sub-word only, so the dense retriever complements BM25's
   * whole-word matching instead of repeating it with projection noise; 0.4 gives
   * a stronger dense-only retriever, see the report).
   */
  charWeight?: number;
  /** Character n-gram lengths, inclusive (default [3, 5]). */
  charGrams?: [number, number];
  /** log2 of the number of feature buckets for idf (default 20 = 1M buckets). */
  bucketBits?: number;
  /** Non-zeros per bucket in the random projection (default 2). */
  projections?: number;
  /** SIF smoothing constant (default 1e-3). */
  sifA?: number;
  tokenizer?: TokenizerOptions;
}

export interface ResolvedCorpusFittedOptions {
  lexDim: number;
  gloveWeight: number;
  charWeight: number;
  charGrams: [number, number];
  bucketBits: number;
  projections: number;
  sifA: number;
  tokenizer: ResolvedTokenizerOptions;
}

function resolve(o: CorpusFittedOptions): ResolvedCorpusFittedOptions {
  const r: ResolvedCorpusFittedOptions = {
    lexDim: o.lexDim ?? 256,
    gloveWeight: o.gloveWeight ?? 0.25,
    charWeight: o.charWeight ?? 1,
    charGrams: o.charGrams ?? [3, 5],
    bucketBits: o.bucketBits ?? 20,
    projections: o.projections ?? 2,
    sifA: o.sifA ?? 1e-3,
    tokenizer: new Tokenizer(o.tokenizer).options,
  };
  const fail = (what: string, fix: string) => new KfError('bad_option', `corpus-fitted encoder: ${what}`, fix);
  if (!Number.isInteger(r.lexDim) || r.lexDim < 8) throw fail(`lexDim must be an integer >= 8 (got ${r.lexDim})`, 'use e.g. 256');
  if (!(r.gloveWeight >= 0 && r.gloveWeight <= 1)) throw fail(`gloveWeight must be in [0,1] (got ${r.gloveWeight})`, 'use e.g. 0.25');
  if (!(r.charWeight >= 0 && r.charWeight <= 1)) throw fail(`charWeight must be in [0,1] (got ${r.charWeight})`, 'use e.g. 0.4');
  if (!(r.charGrams[0] >= 1 && r.charGrams[1] >= r.charGrams[0] && r.charGrams[1] <= 10))
    throw fail(`charGrams must be [min,max] with 1 <= min <= max <= 10 (got ${r.charGrams})`, 'use [3,5]');
  if (!Number.isInteger(r.bucketBits) || r.bucketBits < 10 || r.bucketBits > 24)
    throw fail(`bucketBits must be an integer in 10..24 (got ${r.bucketBits})`, 'use 20');
  if (!Number.isInteger(r.projections) || r.projections < 1 || r.projections > 8)
    throw fail(`projections must be an integer in 1..8 (got ${r.projections})`, 'use 2');
  return r;
}

/** Features of one word, cached: its word bucket and its char n-gram buckets. */
interface WordFeatures {
  word: number;
  chars: Int32Array;
}

const MANIFEST = 'corpus-fitted.json';
const DF_FILE = 'corpus-fitted.df.bin';

export class CorpusFittedEmbedder implements Embedder {
  readonly id: string;
  readonly dim: number;
  readonly options: ResolvedCorpusFittedOptions;
  readonly nDocs: number;
  /** Document frequency per bucket (words and char n-grams share the bucket space, with different seeds). */
  private readonly df: Int32Array;
  private readonly idfTable: Float32Array;
  private readonly commonComponent: Float32Array | null;
  private readonly tok: Tokenizer;
  private readonly wordCache = new Map<string, WordFeatures>();
  private readonly mask: number;
  private gloveDim: number;

  private constructor(options: ResolvedCorpusFittedOptions, nDocs: number, df: Int32Array, commonComponent: Float32Array | null) {
    this.options = options;
    this.nDocs = nDocs;
    this.df = df;
    this.commonComponent = commonComponent;
    this.tok = new Tokenizer(options.tokenizer);
    this.mask = (1 << options.bucketBits) - 1;
    this.gloveDim = options.gloveWeight > 0 ? 100 : 0;
    this.dim = this.gloveDim + options.lexDim;
    // Smoothed idf: ln((N + 1) / (df + 1)) + 1 (never zero, unseen features get the highest weight).
    this.idfTable = new Float32Array(df.length);
    for (let b = 0; b < df.length; b++) this.idfTable[b] = Math.log((nDocs + 1) / (df[b] + 1)) + 1;
    const h = sha256(
      Buffer.concat([
        Buffer.from(JSON.stringify({ options, nDocs })),
        Buffer.from(df.buffer, df.byteOffset, df.byteLength),
        commonComponent ? Buffer.from(commonComponent.buffer, commonComponent.byteOffset, commonComponent.byteLength) : Buffer.alloc(0),
      ]),
    ).slice(0, 12);
    this.id = `corpus-fitted-${this.gloveDim ? 'g100' : 'g0'}-l${options.lexDim}:${h}`;
  }

  /**
   * Fit on the corpus texts: count document frequencies of every feature bucket,
   * and (when GloVe is used) the common component of the SIF vectors.
   */
  static async fit(texts: string[], opts: CorpusFittedOptions = {}): Promise<CorpusFittedEmbedder> {
    const o = resolve(opts);
    const probe = new CorpusFittedEmbedder(o, 0, new Int32Array(1 << o.bucketBits), null);
    const df = new Int32Array(1 << o.bucketBits);
    const seen = new Uint32Array(1 << o.bucketBits); // doc stamp per bucket: count each bucket once per doc
    for (let i = 0; i < texts.length; i++) {
      const stamp = i + 1;
      for (const tok of probe.tok.tokenize(texts[i])) {
        const f = probe.features(tok);
        if (seen[f.word] !== stamp) {
          seen[f.word] = stamp;
          df[f.word]++;
        }
        for (let j = 0; j < f.chars.length; j++) {
          const b = f.chars[j];
          if (seen[b] !== stamp) {
            seen[b] = stamp;
            df[b]++;
          }
        }
      }
    }
    let pc: Float32Array | null = null;
    if (o.gloveWeight > 0) {
      const table = await loadGlove();
      const w = sifWeights(table, o.sifA);
      const step = Math.max(1, Math.floor(texts.length / 20000));
      const rows: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += step) rows.push(sifVector(texts[i], table, w));
      pc = firstSingularVector(rows, table.dim);
    }
    return new CorpusFittedEmbedder(o, texts.length, df, pc);
  }

  private features(tok: string): WordFeatures {
    let f = this.wordCache.get(tok);
    if (f) return f;
    const [lo, hi] = this.options.charGrams;
    const w = `<${tok}>`;
    const grams: number[] = [];
    for (let n = lo; n <= hi; n++) {
      for (let i = 0; i + n <= w.length; i++) grams.push(fnv1a(w.slice(i, i + n), 0x5bd1e995) & this.mask);
    }
    f = { word: fnv1a(tok, 0x9e3779b9) & this.mask, chars: Int32Array.from(grams) };
    if (this.wordCache.size < 1_000_000) this.wordCache.set(tok, f);
    return f;
  }

  /** The lexical part (unit length, or zero for a text without terms) written into out[offset..offset+lexDim). */
  private lexical(text: string, out: Float32Array, offset: number, scale: number): void {
    const wordTf = new Map<number, number>();
    const charTf = new Map<number, number>();
    for (const tok of this.tok.tokenize(text)) {
      const f = this.features(tok);
      wordTf.set(f.word, (wordTf.get(f.word) ?? 0) + 1);
      for (let j = 0; j < f.chars.length; j++) charTf.set(f.chars[j], (charTf.get(f.chars[j]) ?? 0) + 1);
    }
    const L = this.options.lexDim;
    const P = this.options.projections;
    const invP = 1 / Math.sqrt(P);
    const project = (tf: Map<number, number>, weight: number) => {
      if (weight === 0 || tf.size === 0) return;
      const tmp = new Float32Array(L);
      let norm2 = 0;
      for (const [b, c] of tf) {
        const v = (1 + Math.log(c)) * this.idfTable[b];
        norm2 += v * v;
        let h = b + 1;
        for (let p = 0; p < P; p++) {
          h = mix32(h + p * 0x27d4eb2f);
          tmp[h % L] += (h & 0x80000000 ? -v : v) * invP;
        }
      }
      // Scale by the pre-projection norm: the projection preserves it in expectation.
      const s = (Math.sqrt(weight) * scale) / Math.sqrt(norm2);
      for (let i = 0; i < L; i++) out[offset + i] += tmp[i] * s;
    };
    project(wordTf, 1 - this.options.charWeight);
    project(charTf, this.options.charWeight);
  }

  embedWith(text: string, table: GloveTable | null, weights: SifWeights | null): Float32Array {
    const v = new Float32Array(this.dim);
    const g = this.options.gloveWeight;
    if (this.gloveDim && table && weights) {
      const sv = sifVector(text, table, weights);
      if (this.commonComponent) removeComponent(sv, this.commonComponent);
      if (normalize(sv) > 0) {
        const s = Math.sqrt(g);
        for (let d = 0; d < this.gloveDim; d++) v[d] = sv[d] * s;
      }
    }
    this.lexical(text, v, this.gloveDim, Math.sqrt(1 - g));
    normalize(v);
    return v;
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    const table = this.gloveDim ? await loadGlove() : null;
    const weights = table ? sifWeights(table, this.options.sifA) : null;
    return texts.map((t) => this.embedWith(t, table, weights));
  }

  /** Persist the fit into `dir` (two files; atomic each). */
  save(dir: string): void {
    fs.mkdirSync(dir, { recursive: true });
    writeFileAtomic(path.join(dir, DF_FILE), Buffer.from(this.df.buffer, this.df.byteOffset, this.df.byteLength));
    writeJsonAtomic(path.join(dir, MANIFEST), {
      kind: 'corpus-fitted',
      id: this.id,
      options: this.options,
      nDocs: this.nDocs,
      commonComponent: this.commonComponent ? Array.from(this.commonComponent) : null,
    });
  }

  static isSavedIn(dir: string): boolean {
    return fs.existsSync(path.join(dir, MANIFEST));
  }

  static load(dir: string): CorpusFittedEmbedder {
    const m = readJson<{ id: string; options: ResolvedCorpusFittedOptions; nDocs: number; commonComponent: number[] | null }>(
      path.join(dir, MANIFEST),
      'corpus-fitted encoder manifest',
    );
    const file = path.join(dir, DF_FILE);
    let buf: Buffer;
    try {
      buf = fs.readFileSync(file);
    } catch (e) {
      throw new KfError('index_corrupt', `${file} is missing or unreadable`, 'rebuild the index (the encoder is fitted during the build)', {
        concerns: file,
        cause: e,
      });
    }
    const df = new Int32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
    if (df.length !== 1 << m.options.bucketBits)
      throw new KfError('index_corrupt', `${file} has ${df.length} buckets, expected ${1 << m.options.bucketBits}`, 'rebuild the index', { concerns: file });
    const e = new CorpusFittedEmbedder(m.options, m.nDocs, df, m.commonComponent ? Float32Array.from(m.commonComponent) : null);
    if (e.id !== m.id)
      throw new KfError('index_corrupt', `corpus-fitted encoder in ${dir} does not reproduce its id (${e.id} vs ${m.id})`, 'rebuild the index', {
        concerns: dir,
      });
    return e;
  }
}
