/**
 * `kf prompts import knowforge-bench <checkout-dir>`: builds the prompt pack of
 * the authors' released runner (github.com/metask-ai/knowforge-bench) from the
 * user's own checkout. The texts are never part of this project: they are read
 * here, at import time, from kfbench/prompts.py, kfbench/agent_loop.py and
 * kfbench/materials.py (the weak-relevance note, the pool's block formats), and
 * written to .kf-cache/prompt-packs/knowforge-bench/ with a manifest naming
 * each source file's sha256, the constant read and the role it fills.
 *
 * The runner states its prompts are the ones behind the paper's numbers, so
 * they are used as they are: whitespace at the ends is trimmed (the harness
 * joins parts itself) and Python `{name}` fields become `{{name}}` placeholders.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { KfError } from '../../util/errors';
import { ensureWritableDir, writeFileAtomic, writeJsonAtomic } from '../../util/fsx';
import { execFileSync } from 'node:child_process';
import { sha256 } from '../../util/hash';
import { ownTemplateFiles } from '../../util/prompts';
import { KNOWFORGE_BENCH_PACK, PACK_MANIFEST_KIND, packDir, packHash, type PackManifest, type PackTemplate } from './packs';
import { pythonStringConstants } from './python-strings';
import { runnerBlockTemplates } from './runner-blocks';
import { runnerResultTemplates } from './runner-results';

const PROMPTS_PY = 'kfbench/prompts.py';
const LOOP_PY = 'kfbench/agent_loop.py';
const MATERIALS_PY = 'kfbench/materials.py';

/** Which runner constant fills which harness template (first name found wins: later runner versions first). */
interface Mapping {
  template: string;
  role: string;
  constants: string[];
  /** Python str.format fields the text may hold, as placeholders of the harness. */
  fields?: string[];
}

export const KNOWFORGE_BENCH_MAP: Mapping[] = [
  { template: 'loop-rules', role: 'shared loop rules of every agent (system prompt, after the KB profile)', constants: ['LOOP_RULES'] },
  { template: 'locator-role', role: 'Locator rules (system prompt)', constants: ['LOC_RULES_V43', 'LOC_RULES'] },
  { template: 'reader-role', role: 'Deep Reader rules (system prompt)', constants: ['DEEP_RULES_V43', 'DEEP_RULES'] },
  { template: 'p0-role', role: 'P0 single-agent rules (system prompt)', constants: ['P0_RULES_V43', 'TASK_RULES_V2'] },
  { template: 'rule-m3docvqa', role: 'M3DocVQA rule paragraph (agent system prompts)', constants: ['M3D_RULE'] },
  { template: 'rule-multihoprag', role: 'MultiHop-RAG rule paragraph (agent system prompts)', constants: ['MHR_RULE'] },
  { template: 'feedback-locator', role: 'suffix after every Locator tool result', constants: ['LOC_SUFFIX'] },
  { template: 'feedback-reader', role: 'suffix after every Deep Reader tool result (general + round-budget rule)', constants: ['TASK_FEEDBACK_SUFFIX_V2'] },
  { template: 'feedback-p0', role: 'suffix after every P0 tool result (general + round-budget rule)', constants: ['TASK_FEEDBACK_SUFFIX_V2'] },
  { template: 'feedback-general', role: 'the general stopping-rule suffix (part of the reader and P0 suffix)', constants: ['LOOP_FEEDBACK_SUFFIX'] },
  { template: 'guardrail-m3docvqa', role: 'answer requirements appended to the question (M3DocVQA)', constants: ['GUARDRAIL_M3D'] },
  { template: 'guardrail-mmlongbench', role: 'answer requirements appended to the question (MMLongBench-Doc)', constants: ['GUARDRAIL_MMLB'] },
  { template: 'guardrail-multihoprag', role: 'answer requirements appended to the question (MultiHop-RAG)', constants: ['GUARDRAIL_MHR'] },
  { template: 'bridge-judge-system', role: 'bridge judge system message', constants: ['BRIDGE_SYSTEM'] },
  { template: 'synth-system', role: 'synthesizer system message', constants: ['SYNTH_SYSTEM'] },
  { template: 'checker-m3docvqa-system', role: 'format checker system message (M3DocVQA)', constants: ['FINAL_CHECK_M3D'] },
  { template: 'checker-mmlongbench-system', role: 'format checker system message (MMLongBench-Doc)', constants: ['FINAL_CHECK_MMLB'] },
  { template: 'checker-multihoprag-system', role: 'format checker system message (MultiHop-RAG)', constants: ['FINAL_CHECK_MHR'] },
  { template: 'read-media', role: 'vision call of read_media (one asset per call)', constants: ['READ_PROMPT'], fields: ['question'] },
];

/**
 * The user-message layouts of the judge and checker calls are field labels in the runner's code
 * (pipeline.py), not prose; the harness writes the same layout itself.
 */
const LAYOUTS: Record<string, { role: string; text: string }> = {
  'bridge-judge-user': {
    role: 'bridge judge user message: question, queries run (JSON list), first 8,000 characters of the pool',
    text: 'Question: {{question}}\n\nQueries already searched: {{queriesJson}}\n\nCollected materials (may be truncated):\n{{pool}}\n\nJSON:',
  },
  'checker-user': { role: 'format checker user message: question and answer text', text: 'Question: {{question}}\n\nAnswer text:\n{{answer}}\n\nJSON:' },
};

function readSource(checkout: string, rel: string): { text: string; sha256: string } {
  const file = path.join(checkout, rel);
  if (!fs.existsSync(file))
    throw new KfError('prompt_pack_source', `${file} does not exist`, 'pass the root folder of a knowforge-bench checkout (it holds kfbench/prompts.py)', {
      concerns: file,
    });
  const buf = fs.readFileSync(file);
  return { text: buf.toString('utf8'), sha256: sha256(buf) };
}

/** Python `{name}` fields -> `{{name}}`; `{{`/`}}` (escaped braces in str.format) -> single braces. */
function formatFields(text: string, fields: string[]): string {
  let out = text;
  for (const f of fields) out = out.split(`{${f}}`).join(`{{${f}}}`);
  return out;
}

/** The round-budget note and the tool-result header of the runner's loop (f-strings in agent_loop.py). */
function loopTexts(source: string): { budget?: { text: string; atMost: number }; header?: string } {
  const unescape = (s: string) => s.replace(/\\n/g, '\n').replace(/\\"/g, '"');
  const b = /suffix\s*=\s*f"((?:[^"\\\n]|\\.)*)"\s*if\s+left\s*<=\s*(\d+)/.exec(source);
  const h = /f"((?:[^"\\\n]|\\.)*)\{result_text\}\{feedback_suffix\}\{suffix\}"/.exec(source);
  return {
    budget: b ? { text: formatFields(unescape(b[1]), ['left']).trim(), atMost: Number(b[2]) } : undefined,
    header: h ? unescape(h[1]) : undefined,
  };
}

/** The weak-relevance prefix of the runner's search listing (materials.py: a literal chosen when the top score is under the gate). */
function weakRelevanceText(source: string): string | undefined {
  const m = /\(\s*"((?:[^"\\\n]|\\.)*)"\s*if\s+top\s*<\s*RELEVANCE_GATE/.exec(source);
  return m ? m[1].replace(/\\n/g, '\n').replace(/\\"/g, '"').trim() : undefined;
}

/** The note of a search that listed nothing new (materials.py search_mat: the literal returned when the builder added no block). */
function nothingNewText(source: string): string | undefined {
  const m = /if\s+not\s+block:\s*\n\s*return\s+"((?:[^"\\\n]|\\.)*)"/.exec(source);
  return m ? m[1].replace(/\\n/g, '\n').replace(/\\"/g, '"').trim() : undefined;
}

/** The header of a fragment_context result (materials.py fragment_mat: the literal joined before the context lines). */
function fragmentHeaderText(source: string): string | undefined {
  const m = /block\s*=\s*"((?:[^"\\\n]|\\.)*)"\s*\+\s*"\\n"\.join\(parts\)/.exec(source);
  return m ? m[1].replace(/\\n/g, '\n').replace(/\\"/g, '"').trim() : undefined;
}

/** The commit of a checkout that is its own git repository (not a folder inside another one). */
function gitHead(root: string): string | undefined {
  if (!fs.existsSync(path.join(root, '.git'))) return undefined;
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
  } catch {
    return undefined;
  }
}

function ownTemplates(): string[] {
  return [...ownTemplateFiles().keys()].sort();
}

/** Import the pack from a checkout; returns its manifest. Fails, naming the constant, when the checkout lacks one. */
export function importKnowforgeBench(checkout: string, opts: { now?: Date } = {}): PackManifest {
  const root = path.resolve(checkout);
  const prompts = readSource(root, PROMPTS_PY);
  const loop = readSource(root, LOOP_PY);
  const constants = pythonStringConstants(prompts.text);
  const texts: Record<string, string> = {};
  const templates: PackTemplate[] = [];
  const put = (template: string, role: string, source: string, from: string, text: string) => {
    texts[template] = text;
    templates.push({ template, role, source, from, sha256: sha256(text) });
  };
  for (const m of KNOWFORGE_BENCH_MAP) {
    const name = m.constants.find((c) => constants.has(c));
    if (!name)
      throw new KfError(
        'prompt_pack_source',
        `${path.join(root, PROMPTS_PY)} defines none of ${m.constants.join(', ')} (needed for ${m.template}: ${m.role})`,
        'check out a release of knowforge-bench that defines it, or report the new name',
        { concerns: m.template },
      );
    put(m.template, m.role, PROMPTS_PY, name, formatFields(constants.get(name)!, m.fields ?? []).trim());
  }
  const lt = loopTexts(loop.text);
  if (!lt.budget || !lt.header)
    throw new KfError(
      'prompt_pack_source',
      `${path.join(root, LOOP_PY)}: the round-budget note or the tool-result header was not found`,
      'check out a release of knowforge-bench whose loop appends them',
      {
        concerns: LOOP_PY,
      },
    );
  put('feedback-budget', `round-budget note after a tool result when at most ${lt.budget.atMost} rounds remain`, LOOP_PY, 'run_loop: suffix', lt.budget.text);
  put('tool-result', 'header of every tool result message', LOOP_PY, 'run_loop: tool result message', `${lt.header}{{result}}`);
  // materials.py is optional (older checkouts): without it the note stays the project's own, listed in fromOwn.
  const materials = fs.existsSync(path.join(root, MATERIALS_PY)) ? readSource(root, MATERIALS_PY) : undefined;
  const weak = materials ? weakRelevanceText(materials.text) : undefined;
  if (weak) put('weak-relevance', 'note before a search listing whose best hit is under the relevance gate', MATERIALS_PY, 'search_mat: weak prefix', weak);
  const fragmentHeader = materials ? fragmentHeaderText(materials.text) : undefined;
  if (fragmentHeader)
    put('fragment-context-header', 'header of a fragment_context result (blockFormat runner)', MATERIALS_PY, 'fragment_mat: header', fragmentHeader);
  const nothingNew = materials ? nothingNewText(materials.text) : undefined;
  if (nothingNew)
    put(
      'search-nothing-new',
      'search result when a search lists no fragment not listed before (blockFormat runner)',
      MATERIALS_PY,
      'search_mat: no new block',
      nothingNew,
    );
  // The pool's block formats (blockFormat = runner), where materials.py has the MaterialBuilder; kept as written (leading spaces matter).
  // The reading tools' result layouts (read_media) come from the same module's materializers.
  if (materials && /def add_search\(/.test(materials.text))
    for (const [t, b] of [...runnerBlockTemplates(materials.text), ...runnerResultTemplates(materials.text)]) put(t, b.role, MATERIALS_PY, b.from, b.text);
  for (const [t, l] of Object.entries(LAYOUTS)) put(t, l.role, 'written by the harness in the layout of kfbench/pipeline.py', 'layout', l.text);
  const dir = ensureWritableDir(packDir(KNOWFORGE_BENCH_PACK), 'prompt pack folder');
  for (const f of fs.readdirSync(dir).filter((x) => x.endsWith('.txt'))) fs.rmSync(path.join(dir, f));
  for (const [t, text] of Object.entries(texts)) writeFileAtomic(path.join(dir, `${t}.txt`), `${text}\n`);
  const manifest: PackManifest = {
    kind: PACK_MANIFEST_KIND,
    version: 1,
    name: KNOWFORGE_BENCH_PACK,
    importedAt: (opts.now ?? new Date()).toISOString(),
    checkout: root,
    checkoutCommit: gitHead(root),
    sources: [
      { file: PROMPTS_PY, sha256: prompts.sha256 },
      { file: LOOP_PY, sha256: loop.sha256 },
      ...(materials ? [{ file: MATERIALS_PY, sha256: materials.sha256 }] : []),
    ],
    templates,
    fromOwn: ownTemplates().filter((t) => !(t in texts)),
    sha256: packHash(Object.fromEntries(Object.entries(texts).map(([k, v]) => [k, `${v}\n`]))),
  };
  writeJsonAtomic(path.join(dir, 'manifest.json'), manifest);
  return manifest;
}
