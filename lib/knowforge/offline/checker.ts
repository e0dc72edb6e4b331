/**
 * Offline format checker and MMLongBench-Doc answer extractor. Both see only
 * the question and an answer text (never the materials), like the real ones.
 *
 * Checker conventions (prompts/checker-*.txt; spec job 6):
 *   m3docvqa     never refuses (a refusal becomes a candidate named in the text when
 *                there is one), shortest exact span, lowercase yes/no, JSON list for multi-part
 *   mmlongbench  absent information / premise mismatch -> "Not answerable"; lowercase yes/no
 *   multihoprag  refusals -> "Insufficient information"; yes/no -> "Yes"/"No"
 *   generic      refusals -> "Not answerable"; lowercase yes/no
 * Reply: {"final": "<value>"} or {"final": ["a", "b"]}.
 */
import { findFinalAnswer } from '../../eval/metrics/final-answer';
import type { AnswerConvention, CheckerTask, ScorerTask } from './tasks';
import { mentions } from './evidence';
import { analyzeQuestion } from './question';
import { stripUnits } from './candidates';
import { entities, numbers, questionKind, years } from '../../util/text-rules';

/** The value of the last `FINAL ANSWER:` line, or undefined (the one parser, lib/eval/metrics/final-answer.ts). */
export const lastFinalAnswer = findFinalAnswer;

const REFUSAL_RE =
  /^(?:not answerable|unanswerable|none|n\/?a|unknown|not found|no information|insufficient information|cannot be determined|can't be determined|not (?:stated|mentioned|available|provided|specified|given))\.?$|\b(?:not (?:stated|mentioned|found|provided|specified|given|available|present|included) in the (?:document|materials|text|context|articles|knowledge base)|does not (?:contain|mention|provide|state|say)|do not (?:contain|mention|provide|state|say)|no (?:information|mention|evidence|data) (?:about|on|of|regarding)|cannot (?:be )?(?:determined|answered|found)|unable to (?:determine|find|answer)|insufficient information|not answerable|premise (?:does not|doesn't) match)\b/i;

export function isRefusal(value: string): boolean {
  return REFUSAL_RE.test(value.trim());
}

/** Strip what makes a span longer than the answer: "The answer is", articles, quotes, a final period. */
export function shortestSpan(value: string): string {
  let v = value.trim();
  v = v.replace(/^(?:the )?(?:final )?answer(?: is)?\s*[:-]?\s*/i, '');
  v = v.replace(/^["'“‘`]+|["'”’`]+$/g, '');
  v = v.replace(/^(?:a|an|the)\s+/i, '');
  v = v.replace(/\s*\[(?:fig\s*)?\d+\]\s*/gi, ' ').trim();
  v = v.replace(/[.;,]+$/, '');
  return v.trim();
}

function parseList(v: string): string[] | undefined {
  const t = v.trim();
  if (t.startsWith('[') && t.endsWith(']')) {
    try {
      const arr = JSON.parse(t);
      if (Array.isArray(arr)) return arr.map((x) => String(x));
    } catch {
      return t
        .slice(1, -1)
        .split(',')
        .map((x) => x.trim().replace(/^["']|["']$/g, ''))
        .filter(Boolean);
    }
  }
  return undefined;
}

/** Does the question ask for two or more things? ("X and Y", "which two", "list") */
function asksForSeveral(question: string): boolean {
  return /\b(which two|what two|which three|both|list (?:all|the)|name (?:all|the) )\b/i.test(question) || /\bwhat (?:are|were) the\b.+\bs\b/i.test(question);
}

function yesNoOf(value: string, text: string): 'yes' | 'no' | undefined {
  const v = value.trim().toLowerCase();
  if (/^(yes|true|correct)\b/.test(v)) return 'yes';
  if (/^(no|false|incorrect)\b/.test(v)) return 'no';
  const m = /\b(yes|no)\b[^a-z]*$/i.exec(text.trim());
  return m ? (m[1].toLowerCase() as 'yes' | 'no') : undefined;
}

/** A candidate named in the answer text for what the question asks (m3docvqa: never refuse). */
function candidateFromText(question: string, text: string): string | undefined {
  const body = text.replace(/FINAL ANSWER\s*[:：].*$/gim, '');
  const kind = questionKind(question);
  const q = question.toLowerCase();
  const notInQ = (s: string) => !q.includes(s.toLowerCase());
  if (kind === 'number')
    return numbers(body)
      .map((n) => n.text)
      .find(notInQ);
  if (kind === 'year' || kind === 'date') return years(body).find(notInQ);
  return (
    entities(body).find(notInQ) ??
    numbers(body)
      .map((n) => n.text)
      .find(notInQ)
  );
}

export function checkFinal(task: CheckerTask): string | string[] {
  const convention: AnswerConvention = task.convention ?? 'generic';
  const raw = lastFinalAnswer(task.answer) ?? lastSentence(task.answer);
  const q = analyzeQuestion(task.question);
  if (isRefusal(raw) || (!lastFinalAnswer(task.answer) && isRefusal(task.answer))) {
    if (convention === 'm3docvqa') return candidateFromText(task.question, task.answer) ?? raw;
    return convention === 'multihoprag' ? 'Insufficient information' : 'Not answerable';
  }
  if (q.type === 'yes-no') {
    const yn = yesNoOf(raw, task.answer);
    if (yn) return convention === 'multihoprag' ? (yn === 'yes' ? 'Yes' : 'No') : yn;
  }
  const list = parseList(raw);
  if (list) return list.length === 1 ? shortestSpan(list[0]) : list.map(shortestSpan);
  let span = shortestSpan(raw);
  // "Which is heavier, A or B?": the option the answer names, as the question spells it.
  if (q.choice) {
    const named = q.choice.options.filter((o) => mentions(span, o));
    if (named.length === 1) return shortestSpan(named[0]);
  }
  // "How much does X weigh, in grams?" -> the number without the unit the question already names.
  if (q.valueType === 'number' && q.units.length && numbers(span).length === 1) span = stripUnits(span, q.units);
  if (convention !== 'multihoprag' && (q.type === 'list' || asksForSeveral(task.question)) && /,|\band\b/.test(span)) {
    const parts = span
      .split(/\s*(?:,\s*(?:and\s+)?|\s+and\s+)\s*/)
      .map(shortestSpan)
      .filter(Boolean);
    if (parts.length > 1) return parts;
  }
  return span;
}

function lastSentence(text: string): string {
  const t =
    text
      .trim()
      .split('\n')
      .filter((l) => l.trim())
      .pop() ?? '';
  return t.replace(/^.*\b(?:answer is|is)\s+/i, '');
}

export function checkerReply(task: CheckerTask): string {
  return JSON.stringify({ final: checkFinal(task) });
}

/** MMLongBench-Doc answer formats. */
export type LongBenchFormat = 'Integer' | 'Float' | 'String' | 'List' | 'None';

/** MMLongBench-Doc answer extraction (the judge's first step): the short answer and its format. */
export function extractShortAnswer(task: ScorerTask): { answer: string; format: LongBenchFormat } {
  const raw = lastFinalAnswer(task.response) ?? lastSentence(task.response);
  if (!raw || isRefusal(raw)) return { answer: 'Not answerable', format: 'None' };
  const list = parseList(raw);
  const hint = (task.answerFormat ?? '').toLowerCase();
  if (list || hint === 'list') return { answer: JSON.stringify(list ?? raw.split(/\s*,\s*/).map(shortestSpan)), format: 'List' };
  const v = shortestSpan(raw);
  const num = /^-?[$€£]?\d[\d,]*(\.\d+)?\s*%?$/.test(v) ? v : undefined;
  if (num && (hint === 'int' || hint === 'integer' || (!hint && !num.includes('.')))) return { answer: num.replace(/[$€£,\s]/g, ''), format: 'Integer' };
  if (num && (hint === 'float' || !hint || hint === 'int')) return { answer: num.replace(/[$€£,\s]/g, ''), format: 'Float' };
  return { answer: v, format: hint === 'none' ? 'None' : 'String' };
}

export function scorerReply(task: ScorerTask): string {
  const { answer, format } = extractShortAnswer(task);
  return `Extracted answer: ${answer}\nAnswer format: ${format}`;
}
