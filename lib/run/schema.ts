/**
 * The experiment config schema: every field an experiment file may hold, its
 * type, default and one line of documentation. One table drives three things,
 * so they cannot drift apart:
 *   - validation of each file (unknown keys are errors with a did-you-mean);
 *   - typing of CLI overrides (`--override limits.maxErrors=5` becomes a number);
 *   - the field reference (experiments/_schema.md is checked against it by a test).
 */
import { BENCHMARK_NAMES } from '../bench/names';
import { benchmarkSpec } from '../bench/registry';
import { CACHE_MODES, ENDPOINT_FIELDS } from '../models/config';
import { RETRIEVAL_MODES } from '../index/types';
import { MIN_RECORDS_FOR_SHARE } from './error-kind';
import { RECALL_KS } from '../eval/recall';

export type FieldType =
  | {
      kind: 'string';
      enum?: readonly string[];
      /** A file path: relative paths resolve against the declaring file. */
      path?: boolean;
      /** With path: these words are kept as they are (not paths). */
      keywords?: readonly string[];
    }
  | { kind: 'int'; min?: number }
  | { kind: 'number'; min?: number; max?: number }
  | { kind: 'boolean' }
  /** An integer or a string (seeds). */
  | { kind: 'seed' }
  /** A string or a list of strings. */
  | { kind: 'strings'; path?: boolean }
  | { kind: 'ints'; min?: number }
  | { kind: 'object'; fields: Record<string, Field> }
  /** Free keys, each value of one type. */
  | { kind: 'map'; values: FieldType; keyDoc: string }
  /** Any JSON value (pipeline/index settings: the pipeline validates them). */
  | { kind: 'any' }
  /** The per-stage models config: validated by lib/models/config.ts normalizeModelsConfig. */
  | { kind: 'models' };

export interface Field {
  type: FieldType;
  doc: string;
  /** Default applied to the fully merged config (shown in the reference). */
  default?: unknown;
  required?: boolean;
}

/** Subset names that are not id-list files. */
export const SUBSET_KEYWORDS = ['full', 'all', 'smoke', 'mid'] as const;

/** Benchmark file keys each loader reads (each benchmark's registry entry declares them). */
export const BENCHMARK_PATH_KEYS: Record<string, readonly string[]> = Object.fromEntries(BENCHMARK_NAMES.map((n) => [n, benchmarkSpec(n)!.pathKeys]));

const str = (doc: string, extra: Partial<Field> = {}, t: Partial<Extract<FieldType, { kind: 'string' }>> = {}): Field => ({
  type: { kind: 'string', ...t },
  doc,
  ...extra,
});
const int = (doc: string, min: number, extra: Partial<Field> = {}): Field => ({ type: { kind: 'int', min }, doc, ...extra });
const bool = (doc: string, dflt: boolean): Field => ({ type: { kind: 'boolean' }, doc, default: dflt });

const ENDPOINT_DOCS: Record<string, string> = {
  backend: '"openai" (an OpenAI-compatible endpoint) or "offline" (the rule-based backend; results labelled offline)',
  baseUrl: 'endpoint base URL, e.g. http://localhost:8000/v1 (alias base_url)',
  model: 'model id sent to the endpoint',
  apiKeyEnv: 'NAME of the environment variable holding the key (never the key itself; alias api_key_env)',
  extraBody: 'extra request-body fields, e.g. {chat_template_kwargs = {enable_thinking = false}} (alias extra_body)',
  timeoutMs: 'limit of one HTTP attempt in ms (alias timeout_ms)',
  maxTokens: 'max completion tokens; overrides the caller (alias max_tokens)',
  temperature: 'sampling temperature in [0, 2]; overrides the caller',
  protocol: 'agent protocol: "json" (one JSON object per round, the paper) or "tools" (native tool calls)',
  concurrency: 'concurrent requests to this base URL',
  maxAttempts: 'attempts per call including the first (alias max_attempts)',
  backoffBaseMs: 'first backoff in ms, doubling per failure, full jitter (alias backoff_base_ms)',
  backoffMaxMs: 'largest backoff in ms (alias backoff_max_ms)',
  maxRefusals: '429 refusals one call accepts while the breaker pauses the endpoint (alias max_refusals)',
};

/** Field types of one endpoint block, for override typing and the reference (validation is lib/models/config.ts). */
export const ENDPOINT_SCHEMA: Record<string, Field> = Object.fromEntries(
  ENDPOINT_FIELDS.map((f): [string, Field] => {
    const doc = ENDPOINT_DOCS[f] ?? f;
    switch (f) {
      case 'backend':
        return [f, str(doc, {}, { enum: ['openai', 'offline'] })];
      case 'protocol':
        return [f, str(doc, {}, { enum: ['json', 'tools'] })];
      case 'extraBody':
        return [f, { type: { kind: 'any' }, doc }];
      case 'temperature':
        return [f, { type: { kind: 'number', min: 0, max: 2 }, doc }];
      case 'timeoutMs':
      case 'maxTokens':
      case 'concurrency':
      case 'maxAttempts':
      case 'backoffBaseMs':
      case 'backoffMaxMs':
      case 'maxRefusals':
        return [f, int(doc, 1)];
      default:
        return [f, str(doc)];
    }
  }),
);

// The snake_case spellings of endpoint fields are declared once, by the model layer.
export { ENDPOINT_ALIASES } from '../models/config';

/** The models block's shape (documentation and override typing; validation is delegated). */
export const MODELS_SCHEMA: Record<string, Field> = {
  defaults: {
    type: { kind: 'object', fields: ENDPOINT_SCHEMA },
    doc: 'endpoint settings for every stage (precedence: stage > experiment stages > experiment defaults > project defaults > environment > built-in)',
  },
  stages: {
    type: { kind: 'map', keyDoc: 'stage', values: { kind: 'object', fields: ENDPOINT_SCHEMA } },
    doc: 'per-stage endpoint settings (locator, judge, reader, vision, synth, checker, scorer, extraction, relations, openie, pattern, caption, embedding, or any name); each inherits every field it does not set',
  },
  cache: {
    type: {
      kind: 'object',
      fields: {
        mode: str(
          'model-call cache: off | read-write | replay-only (replay-only fails on a miss); KF_CACHE and kf run --cache override it',
          {},
          { enum: CACHE_MODES },
        ),
        file: str('SQLite cache file (default .kf-cache/models.sqlite when the cache is on)', {}, { path: true }),
      },
    },
    doc: 'model-call cache keyed by the canonical request (a hit costs nothing)',
  },
  prices: {
    type: {
      kind: 'map',
      keyDoc: 'model id',
      values: {
        kind: 'object',
        fields: {
          promptPer1M: { type: { kind: 'number', min: 0 }, doc: 'USD per 1M prompt tokens' },
          completionPer1M: { type: { kind: 'number', min: 0 }, doc: 'USD per 1M completion tokens' },
        },
      },
    },
    doc: 'price table for the usage ledger (USD per 1M tokens, by model id)',
  },
};

/** The top level of an experiment file. */
export const EXPERIMENT_SCHEMA: Record<string, Field> = {
  extends: {
    type: { kind: 'strings', path: true },
    doc: 'file(s) this one inherits from (relative to this file); later files and this file win; objects merge key by key, lists and scalars replace',
  },
  name: str('run name (default: the file name without extension); default run ids start with it'),
  description: str('one line for listings and report captions'),
  seed: { type: { kind: 'seed' }, doc: 'run seed; each question gets makeRng(`${seed}/${question.id}`)', default: 0 },
  concurrency: int("questions answered at once (the paper's harness: 4)", 1, { default: 4 }),
  benchmark: {
    required: true,
    doc: 'which questions (and corpus) to run',
    type: {
      kind: 'object',
      fields: {
        name: str('benchmark loader', { required: true }, { enum: BENCHMARK_NAMES }),
        split: str('which shipped part: dev, or holdout (swaps .dev. for .holdout. in default file names)', { default: 'dev' }, { enum: ['dev', 'holdout'] }),
        paths: {
          type: { kind: 'map', keyDoc: 'file key of the loader', values: { kind: 'string', path: true } },
          doc: 'explicit files of the loader (keys per benchmark: see below); unset keys use the default location under ../shared/bench. Prefixes ${bench}, ${shared}, ${repo} expand; other relative paths resolve against the declaring file',
          default: {},
        },
        options: {
          type: {
            kind: 'object',
            fields: {
              allowMissingGold: { type: { kind: 'boolean' }, doc: 'text multi-hop: drop gold titles missing from the corpus instead of failing' },
              corpus: str('mmqa: which images become passages', {}, { enum: ['all', 'candidates'] }),
              imageOnly: { type: { kind: 'boolean' }, doc: 'mmqa: keep only questions whose gold is image-only (default true)' },
              split: str("webqa (train|val|test|all, default val) / scienceqa (default test): the benchmark's own split field"),
              name: str('own: the benchmark name your questions and results carry (kf run --name; default "own")'),
            },
          },
          doc: 'loader options',
          default: {},
        },
        subset: str(
          "which questions: full (all), smoke / mid (the paper's id lists; m3docvqa and multihop-rag), or a path to an id list (JSON list, or {ids: [...]})",
          { default: 'full' },
          { path: true, keywords: SUBSET_KEYWORDS },
        ),
        sample: {
          type: {
            kind: 'object',
            fields: {
              n: int('questions to sample', 1, { required: true }),
              by: str('stratify by this question field (modality, hops, type, format, page, source, or a dotted path)'),
              seed: { type: { kind: 'seed' }, doc: 'sampler seed (default: the run seed)' },
            },
          },
          doc: 'a seeded stratified sample of the subset (applied after subset, before limits.maxQuestions)',
        },
      },
    },
  },
  pipeline: {
    required: true,
    doc: 'what answers each question',
    type: {
      kind: 'object',
      fields: {
        name: str('registered pipeline (`kf run --list-pipelines`): S0, S1, S3, S4v1, S4, M4, M5, P0, P1, ...', { required: true }),
        settings: { type: { kind: 'any' }, doc: 'pipeline-specific settings (template, pool kind, rounds...); checked by the pipeline', default: {} },
      },
    },
  },
  caps: {
    type: { kind: 'map', keyDoc: 'cap', values: { kind: 'number', min: 0 } },
    doc: 'numeric budgets merged into the pipeline settings (topk, poolChars, locatorRounds, readerRounds...); a key may not also appear in pipeline.settings',
    default: {},
  },
  index: {
    doc: 'the built retrieval index (kf index build); omit for closed-book pipelines (S0). Single-document benchmarks use one index over all documents; each question searches only its document (Question.doc)',
    type: {
      kind: 'object',
      fields: {
        dir: str('folder of the built index (default .kf-cache/index/<benchmark>)', {}, { path: true }),
        build: str(
          "never: open the index at dir (build it with kf index build); ensure: build or update it from the benchmark's corpus (passages or documents folder) before the first question when it is missing or stale",
          { default: 'never' },
          { enum: ['never', 'ensure'] },
        ),
        embedder: str('dense encoder when building (index.build = "ensure")', { default: 'fitted' }, { enum: ['hash', 'glove', 'fitted', 'openai'] }),
        settings: {
          type: { kind: 'any' },
          doc: 'settings of the registered retrievers this run searches (RetrieverSetup.settings, e.g. DualG-MRAG tau, fusion); each retriever validates its own',
        },
        artifact: str(
          'a kp-index artifact instead of dir: its key (kf artifacts lists them; refused when stale or built from another corpus), or "auto": the artifact of this corpus and these index settings (built first with build = "ensure"; kf prepare <experiment> builds it ahead)',
        ),
        perDocument: {
          type: { kind: 'boolean' },
          doc: 'one index per document instead of one shared index with a document mask (single-document benchmarks: the paper indexes each MMLongBench-Doc PDF on its own); each is built on first use from the corpus restricted to that file and cached per document',
        },
        kb: str(
          'a hosted knowledge base instead of a local index: remote:<package uuid> (kf run --kb; it replaces dir and artifact); the server root comes from KF_KB_BASE_URL and the account key from KF_KB_API_KEY, never from a file',
        ),
        options: {
          type: { kind: 'any' },
          doc: 'build options when building (lib/index/build.ts BuildOptions: seed, ingest, relations, engine, ...)',
          default: {},
        },
        search: {
          doc: 'settings forced onto every search of this run (e.g. mode = "dense" runs a pipeline on a dense-only index)',
          default: {},
          type: {
            kind: 'object',
            fields: {
              mode: str('retrieval mode', {}, { enum: RETRIEVAL_MODES }),
              fusion: str('fusion of BM25 and dense lists', {}, { enum: ['rrf', 'weighted'] }),
              withContext: { type: { kind: 'boolean' }, doc: 'attach neighbour text and media to hits' },
            },
          },
        },
      },
    },
  },
  models: {
    type: { kind: 'models' },
    doc: 'model per stage: {defaults, stages, cache, prices} (lib/models/config.ts); no endpoint = the offline backend',
    default: {},
  },
  scoring: {
    doc: 'how answers are scored',
    default: {},
    type: {
      kind: 'object',
      fields: {
        judge: bool('use the model-judge protocols (MMLongBench-Doc answer extraction with the scorer stage; WebQA embedding F1)', false),
        refusalAsNotAnswerable: bool('MMLongBench-Doc without a judge: grade a refusal as "Not answerable"', true),
        ks: { type: { kind: 'ints', min: 1 }, doc: 'cut-offs of first-search recall R@k', default: [...RECALL_KS] },
      },
    },
  },
  limits: {
    doc: 'when to stop',
    default: {},
    type: {
      kind: 'object',
      fields: {
        maxQuestions: int('answer at most this many of the selected questions (the first N in subset order)', 1),
        maxErrors: int('stop taking new questions after this many failed questions in one invocation', 1, { default: 20 }),
        maxErrorShare: {
          type: { kind: 'number', min: 0, max: 1 },
          doc:
            `the run fails (status max-errors, exit 1) when more than this share of its records failed, checked from ${MIN_RECORDS_FOR_SHARE} ` +
            "records on and at the end (like DSPy's max_errors, as a share): past it the scores describe the endpoint, not the method",
          default: 0.2,
        },
        timeoutMs: int('per-question time limit in ms (the question is recorded as a timeout error)', 1, { default: 600000 }),
      },
    },
  },
  output: {
    doc: 'what the run writes besides records.jsonl and manifest.json',
    default: {},
    type: {
      kind: 'object',
      fields: {
        traces: str('per-question traces: files (traces/<id>.json), jsonl (one traces.jsonl), off', { default: 'files' }, { enum: ['files', 'jsonl', 'off'] }),
        checkpointEvery: int('rewrite the manifest every N recorded questions (and every 30 s)', 1, { default: 25 }),
        buckets: {
          type: { kind: 'strings' },
          doc: 'extra question fields stored in each record for --by (modality, hops, type, format, page, source, answerable are always stored)',
          default: [],
        },
      },
    },
  },
};

/** Config paths that do not change how a question is answered: left out of the config hash (so a run resumes across them). */
export const NON_RESULT_PATHS = [
  'name',
  'description',
  'concurrency',
  'index.build',
  'benchmark.subset',
  'benchmark.sample',
  'limits.maxQuestions',
  'limits.maxErrors',
  'limits.maxErrorShare',
  'output',
  'models.cache',
  'extends',
];

export { didYouMean, editDistance } from '../util/did-you-mean';

/** Human name of a field type, for error messages and the reference. */
export function typeName(t: FieldType): string {
  switch (t.kind) {
    case 'string':
      if (t.enum) return t.enum.map((e) => JSON.stringify(e)).join(' | ');
      if (t.keywords) return [...t.keywords.map((e) => JSON.stringify(e)), 'path'].join(' | ');
      return t.path ? 'path' : 'string';
    case 'int':
      return t.min !== undefined ? `integer >= ${t.min}` : 'integer';
    case 'number':
      return t.min !== undefined && t.max !== undefined ? `number in [${t.min}, ${t.max}]` : t.min !== undefined ? `number >= ${t.min}` : 'number';
    case 'boolean':
      return 'boolean';
    case 'seed':
      return 'integer or string';
    case 'strings':
      return t.path ? 'path or list of paths' : 'string or list of strings';
    case 'ints':
      return 'list of integers';
    case 'object':
      return 'table';
    case 'map':
      return `table of ${typeName(t.values)} by ${t.keyDoc}`;
    case 'any':
      return 'any value';
    case 'models':
      return 'table (models config)';
  }
}

export interface FieldDoc {
  path: string;
  type: string;
  default?: unknown;
  required: boolean;
  doc: string;
}

/** Every documented field as a flat list (dotted paths; map keys as `<key>`). */
export function schemaFields(fields: Record<string, Field> = EXPERIMENT_SCHEMA, prefix = ''): FieldDoc[] {
  const out: FieldDoc[] = [];
  for (const [k, f] of Object.entries(fields)) {
    const p = prefix ? `${prefix}.${k}` : k;
    out.push({ path: p, type: typeName(f.type), default: f.default, required: !!f.required, doc: f.doc });
    if (f.type.kind === 'object') out.push(...schemaFields(f.type.fields, p));
    if (f.type.kind === 'map' && f.type.values.kind === 'object') out.push(...schemaFields(f.type.values.fields, `${p}.<${f.type.keyDoc.replace(/ /g, '-')}>`));
    if (f.type.kind === 'models') out.push(...schemaFields(MODELS_SCHEMA, p));
  }
  return out;
}
