/**
 * The answer side of runner mode, as the released runner runs it: the knowledge-base persona from
 * /overview, the synthesizer's system message and user layout, the format checker with its refusal
 * canonicalisation. Texts from the user's checkout (texts.ts); the logic is this project's own.
 */
import type { ChatMessage, ChatModel } from '../../model-api/types';
import { fieldsOf, type LitPart } from './python-literals';
import { constant, fill, missing, offsetOf, runAfter, type RunnerSource, type RunnerTexts } from './texts';
import { jsonBetweenBraces, pyReprStr, pyStr } from './python-values';
import type { KbApi } from './kb-api';

export type RunnerBench = 'mmlb' | 'm3d' | 'mhr';

const plain = (p: LitPart[]) => p.map((x) => (typeof x === 'string' ? x : '')).join('');

function byFields(s: RunnerSource, what: string, ok: (f: string[]) => boolean): LitPart[] {
  const r = s.runs.find((x) => ok(fieldsOf(x.parts)));
  if (!r) throw missing(s.file, what);
  return r.parts;
}

/** A Python regex literal of pipeline.py (r"...") as a JavaScript RegExp (inline (?im) flags moved out). */
function pyRegex(s: RunnerSource, name: string, extraFlags = ''): RegExp {
  const at = runAfter(s, new RegExp(`${name}\\s*=\\s*re\\.compile\\(`));
  let src = plain(at.parts);
  let flags = extraFlags;
  const inline = /^\(\?([a-z]+)\)/.exec(src);
  if (inline) {
    src = src.slice(inline[0].length);
    flags += inline[1].replace(/[^imsu]/g, '');
  }
  return new RegExp(src, [...new Set(flags)].join(''));
}

export interface AnswerTexts {
  guardrail: Record<RunnerBench, string>;
  guardrailMarker: string;
  profileDefaultName: string;
  profileFirst: LitPart[];
  profileGoal: LitPart[];
  profileModules: string;
  profileModule: LitPart[];
  synthSystem: string;
  synthNote: LitPart[];
  synthUser: LitPart[];
  checker: Record<RunnerBench, string>;
  checkerUser: LitPart[];
  finalLine: RegExp;
  finalLinePrefix: LitPart[];
  refusals: Set<string>;
  refusalMhr: string;
  refusalOther: string;
  noMaterials: string;
  noHitClaim: RegExp;
  guardMinChars: number;
}

export function answerTexts(t: RunnerTexts): AnswerTexts {
  const p = t.pipeline;
  const profileAt = offsetOf(p, /def profile_text\(/);
  const refusals = /_REFUSALS\s*=\s*\(([\s\S]*?)\)\n/.exec(p.src);
  const canon = /fin_s\s*=\s*("[^"]*")\s+if self\.bench == "mhr" else ("[^"]*")/.exec(p.src);
  const minChars = /_FINAL_GUARD_MIN_CHARS\s*=\s*(\d+)/.exec(p.src);
  if (!refusals || !canon || !minChars) throw missing(p.file, 'the refusal list, its canonical answers or the final-guard length');
  const marker = runAfter(p, /def strip_guardrail[\s\S]*?question\.find\(/);
  return {
    guardrail: { mmlb: constant(t, 'GUARDRAIL_MMLB'), m3d: constant(t, 'GUARDRAIL_M3D'), mhr: constant(t, 'GUARDRAIL_MHR') },
    guardrailMarker: plain(marker.parts),
    profileDefaultName: plain(runAfter(p, /name\s*=\s*ov\.get\("name"\)\s*or\s*/, profileAt).parts),
    profileFirst: byFields(p, 'the persona line', (f) => f.length === 1 && f[0] === 'name'),
    profileGoal: byFields(p, 'the persona topic line', (f) => f.length === 1 && f[0] === 'goal'),
    profileModules: plain(runAfter(p, /if modules:\s*\n\s*lines\.append\(/, profileAt).parts),
    profileModule: byFields(p, 'the persona module line', (f) => f.length === 1 && f[0] === 't'),
    synthSystem: constant(t, 'SYNTH_SYSTEM'),
    synthNote: byFields(p, 'the synthesizer note line', (f) => f.length === 1 && f[0] === 'note'),
    synthUser: byFields(p, 'the synthesizer layout', (f) => f.includes('note_line') && f.includes('question')),
    checker: { mmlb: constant(t, 'FINAL_CHECK_MMLB'), m3d: constant(t, 'FINAL_CHECK_M3D'), mhr: constant(t, 'FINAL_CHECK_MHR') },
    checkerUser: byFields(p, 'the checker layout', (f) => f.length === 2 && f[0] === 'strip_guardrail(question)' && f[1] === 'response'),
    finalLine: pyRegex(p, '_FINAL_LINE_RE', 'g'),
    finalLinePrefix: byFields(p, 'the FINAL ANSWER line', (f) => f.length === 1 && f[0] === 'fin_s'),
    refusals: new Set([...refusals[1].matchAll(/"([^"]*)"/g)].map((m) => m[1])),
    refusalMhr: JSON.parse(canon[1]) as string,
    refusalOther: JSON.parse(canon[2]) as string,
    noMaterials: plain(runAfter(p, /response\s*=\s*fin or \(\(rl\.note if rl else ""\) or /).parts),
    noHitClaim: pyRegex(p, '_NO_HIT_CLAIM_RE'),
    guardMinChars: Number(minChars[1]),
  };
}

export function stripGuardrail(a: AnswerTexts, question: string): string {
  const i = question.indexOf(a.guardrailMarker);
  return i < 0 ? question : question.slice(0, i);
}

/** The persona from the knowledge base's overview (its card's name when /overview fails). */
export async function profileText(a: AnswerTexts, kb: KbApi): Promise<string> {
  let ov: Record<string, unknown>;
  try {
    ov = await kb.overview();
  } catch {
    ov = { name: (await kb.card()).name ?? '' };
  }
  const name = (ov.name as string) || a.profileDefaultName;
  const goal = [
    ...String(ov.goal ?? '')
      .split(/\s+/)
      .filter(Boolean)
      .join(' '),
  ]
    .slice(0, 300)
    .join('');
  const modules = ((ov.modules ?? []) as Record<string, unknown>[]).filter((m) => m.title).map((m) => String(m.title).trim());
  const lines = [fill(a.profileFirst, { name })];
  if (goal) lines.push(fill(a.profileGoal, { goal }));
  if (modules.length) lines.push(a.profileModules + modules.map((x) => fill(a.profileModule, { t: x })).join('\n'));
  return lines.join('\n');
}

async function complete(
  model: ChatModel,
  stage: string,
  messages: ChatMessage[],
  temperature: number,
  maxTokens: number,
  questionId?: string,
): Promise<string> {
  const r = await model.chat({ stage: stage as never, messages, temperature, maxTokens, questionId });
  return r.text ?? '';
}

export async function synthesize(
  a: AnswerTexts,
  model: ChatModel,
  q: { question: string; materials: string; profile: string; note: string; questionId?: string },
): Promise<string> {
  const noteLine = q.note ? fill(a.synthNote, { note: q.note }) : '';
  const user = fill(a.synthUser, { materials: q.materials, note_line: noteLine, question: q.question });
  return complete(
    model,
    'synth',
    [
      { role: 'system', content: `${q.profile}\n\n${a.synthSystem}` },
      { role: 'user', content: user },
    ],
    0.3,
    2048,
    q.questionId,
  );
}

/** The checker: rewrites the FINAL ANSWER line; refusals become the benchmark's canonical one. */
export async function finalCheck(
  a: AnswerTexts,
  model: ChatModel,
  bench: RunnerBench,
  question: string,
  response: string,
  questionId?: string,
): Promise<string> {
  let last: RegExpExecArray | undefined;
  a.finalLine.lastIndex = 0;
  for (let m = a.finalLine.exec(response); m; m = a.finalLine.exec(response)) {
    last = m;
    if (m[0] === '') a.finalLine.lastIndex++;
  }
  const before = last ? last[1].trim() : '';
  let finS: string;
  try {
    const raw = await complete(
      model,
      'checker',
      [
        { role: 'system', content: a.checker[bench] },
        { role: 'user', content: fill(a.checkerUser, { 'strip_guardrail(question)': stripGuardrail(a, question), response }) },
      ],
      0,
      200,
      questionId,
    );
    const j = jsonBetweenBraces(raw) as Record<string, unknown>;
    const fin = j.final;
    finS = Array.isArray(fin) ? `[${fin.map((x) => pyReprStr(pyStr(x))).join(', ')}]` : pyStr(fin ?? '').trim();
    if (bench !== 'm3d' && a.refusals.has(finS.replace(/^['"]+|['"]+$/g, '').toLowerCase())) finS = bench === 'mhr' ? a.refusalMhr : a.refusalOther;
  } catch {
    return response;
  }
  if (!finS || finS === before) return response;
  const line = fill(a.finalLinePrefix, { fin_s: finS });
  return last ? response.slice(0, last.index) + line + response.slice(last.index + last[0].length) : `${response.trimEnd()}\n${line}`;
}
