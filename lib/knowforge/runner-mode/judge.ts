/**
 * Runner mode's bridge judge (its queries are searched even when need_more is false, as the released
 * runner does) and the Locator's final guard (a finish before any tool call is rejected when it is
 * long or claims the knowledge base lacks the answer).
 */
import type { ChatModel } from '../../model-api/types';
import { stripGuardrail, type AnswerTexts } from './answer-texts';
import { fieldsOf } from './python-literals';
import { jsonBetweenBraces, pyJsonDumps, pySlice, pyStr } from './python-values';
import { constant, fillSeq, missing, type RunnerTexts } from './texts';

/** The follow-up queries of the judge (at most two, none already searched); [] when its reply is unreadable. */
export async function bridgeJudge(
  t: RunnerTexts,
  a: AnswerTexts,
  model: ChatModel,
  question: string,
  materials: string,
  searched: string[],
  questionId?: string,
): Promise<string[]> {
  const layout = t.pipeline.runs.find((r) => {
    const f = fieldsOf(r.parts);
    return f.length === 3 && f[0] === 'strip_guardrail(question)';
  });
  if (!layout) throw missing(t.pipeline.file, 'the bridge judge layout');
  const user = fillSeq(layout.parts, [stripGuardrail(a, question), pyJsonDumps(searched), pySlice(materials, 0, 8000) || '(none)']);
  try {
    const r = await model.chat({
      stage: 'bridge',
      messages: [
        { role: 'system', content: constant(t, 'BRIDGE_SYSTEM') },
        { role: 'user', content: user },
      ],
      temperature: 0,
      maxTokens: 300,
      questionId,
    });
    const j = jsonBetweenBraces(r.text ?? '') as Record<string, unknown>;
    if (!j || typeof j !== 'object' || Array.isArray(j)) return [];
    const raw = j.queries;
    const list = raw ? (Array.isArray(raw) ? raw : typeof raw === 'string' ? [...raw] : Object.keys(raw as object)) : [];
    const seen = new Set(searched.map((x) => x.trim().toLowerCase()));
    return list
      .map((q) => pyStr(q).trim())
      .filter((q) => q && !seen.has(q.toLowerCase()))
      .slice(0, 2);
  } catch {
    return [];
  }
}

export function finalGuard(a: AnswerTexts, guideText: string, toolCalls: number, fin: unknown): string | undefined {
  if (toolCalls) return undefined;
  const text = typeof fin === 'string' ? fin : pyJsonDumps(fin);
  if ([...text].length < a.guardMinChars && !a.noHitClaim.test(text)) return undefined;
  return guideText;
}
