/**
 * Runner mode's agent loop, with the released runner's rules: every model call is a round; prose
 * before any tool call gets one guidance message (afterwards prose is the finish); malformed JSON gets
 * one guidance message and a second in a row stops the loop (forced, the synthesizer still answers);
 * a thought-only object and an unknown tool get their guidance as the tool result; the third identical
 * call stops the loop; a finish is rejected only by the role's final guard (once); the round cap
 * stops the loop with its note. The assistant turn appended is Python's json.dumps of the parsed
 * reply. Texts from the user's checkout (texts.ts).
 */
import type { ChatMessage, ChatModel } from '../../model-api/types';
import { canonicalJson } from '../../util/hash';
import { extractJson, FINAL_NONE, normFinal } from './json-reply';
import { fieldsOf, type LitPart } from './python-literals';
import { pyJsonDumps, pyRepr } from './python-values';
import { constant, fill, fillSeq, missing, runAfter, type RunnerTexts } from './texts';

export interface LoopTool {
  name: string;
  run(args: Record<string, unknown>): Promise<string>;
}

export interface LoopResult {
  status: 'final' | 'forced';
  final: unknown;
  rounds: number;
  toolCalls: number;
  note: string;
}

interface LoopTexts {
  protocol: LitPart[];
  toolLine: LitPart[];
  prose: LitPart[];
  badJson: LitPart[];
  thoughtOnly: string;
  unknown: LitPart[];
  noteBadJson: LitPart[];
  noteCircuit: LitPart[];
  noteMax: LitPart[];
  budget: LitPart[];
  result: LitPart[];
}

function byFields(t: RunnerTexts, what: string, ok: (f: string[]) => boolean, nth = 0): LitPart[] {
  const hits = t.loop.runs.filter((r) => ok(fieldsOf(r.parts)));
  if (!hits[nth]) throw missing(t.loop.file, what);
  return hits[nth].parts;
}

const eq =
  (...xs: string[]) =>
  (f: string[]) =>
    f.length === xs.length && f.every((x, i) => x === xs[i]);

export function loopTexts(t: RunnerTexts): LoopTexts {
  const plain = (p: LitPart[]) => p.map((x) => (typeof x === 'string' ? x : '')).join('');
  return {
    protocol: byFields(t, 'the tool prompt', eq('tools', 'final_example')),
    toolLine: byFields(t, 'the tool line', eq('t.name', 't.description', 't.params')),
    prose: runAfter(t.loop, /prose_guided = True[\s\S]*?"role": "user", "content":\s*/).parts,
    badJson: runAfter(t.loop, /bad_json_streak >= 2[\s\S]*?"role": "user", "content":\s*/).parts,
    thoughtOnly: plain(runAfter(t.loop, /result_text = \(/).parts),
    unknown: byFields(t, 'the unknown-tool guidance', eq('tool', 'sorted(by_name)', 'final_example')),
    noteBadJson: byFields(t, 'the bad-JSON note', eq('rnd'), 0),
    noteCircuit: byFields(t, 'the repeat note', eq('rnd'), 1),
    noteMax: byFields(t, 'the round-cap note', eq('max_rounds')),
    budget: byFields(t, 'the budget note', eq('left')),
    result: byFields(t, 'the tool result message', eq('result_text', 'feedback_suffix', 'suffix')),
  };
}

export interface RunLoopOptions {
  texts: RunnerTexts;
  model: ChatModel;
  stage: string;
  tools: LoopTool[];
  /** The catalogue entries shown (name, description, params), in registry order. */
  system: string;
  task: string;
  maxRounds: number;
  feedbackSuffix: string;
  finalGuard?: (toolCalls: number, fin: unknown) => string | undefined;
  questionId?: string;
}

const cps = (s: string, n: number) => [...s].slice(0, n).join('');

/** The system prompt the loop sends: the role's text, then the tool catalogue and protocol. */
export function loopSystem(t: RunnerTexts, system: string, names: string[]): string {
  const lt = loopTexts(t);
  const tools = names
    .map((n) => {
      const spec = t.toolSpecs.get(n)!;
      return fill(lt.toolLine, { 't.name': spec.name, 't.description': spec.description, 't.params': spec.params });
    })
    .join('\n');
  return `${system}\n\n${fill(lt.protocol, { tools, final_example: constant(t, 'FINAL_EXAMPLE') })}`;
}

export async function runLoop(o: RunLoopOptions): Promise<LoopResult> {
  const lt = loopTexts(o.texts);
  const finalExample = constant(o.texts, 'FINAL_EXAMPLE');
  const names = o.tools.map((x) => x.name);
  const messages: ChatMessage[] = [
    { role: 'system', content: loopSystem(o.texts, o.system, names) },
    { role: 'user', content: o.task },
  ];
  const repeat = new Map<string, number>();
  let toolCalls = 0;
  let badStreak = 0;
  let proseGuided = false;
  const forced = (rounds: number, note: string): LoopResult => ({ status: 'forced', final: undefined, rounds, toolCalls, note });
  for (let rnd = 1; rnd <= o.maxRounds; rnd++) {
    const res = await o.model.chat({ stage: o.stage as never, messages: [...messages], temperature: 0, maxTokens: 2048, questionId: o.questionId });
    const raw = res.text ?? '';
    const obj = extractJson(raw);
    const isProse = !obj && !raw.includes('{') && [...raw.trim()].length > 50;
    if (isProse && !toolCalls && !proseGuided) {
      proseGuided = true;
      messages.push({ role: 'assistant', content: cps(raw, 2000) }, { role: 'user', content: fill(lt.prose, { final_example: finalExample }) });
      continue;
    }
    if (isProse) return { status: 'final', final: raw.trim(), rounds: rnd, toolCalls, note: '' };
    if (!obj) {
      badStreak++;
      if (badStreak >= 2) return forced(rnd, fill(lt.noteBadJson, { rnd: String(rnd) }));
      messages.push({ role: 'assistant', content: cps(raw, 2000) }, { role: 'user', content: fill(lt.badJson, { final_example: finalExample }) });
      continue;
    }
    badStreak = 0;
    const fin = normFinal(obj);
    if (fin !== FINAL_NONE && fin !== null && fin !== undefined) {
      const guide = o.finalGuard && !proseGuided ? o.finalGuard(toolCalls, fin) : undefined;
      if (guide) {
        proseGuided = true;
        messages.push({ role: 'assistant', content: cps(raw, 2000) }, { role: 'user', content: guide });
        continue;
      }
      return { status: 'final', final: fin, rounds: rnd, toolCalls, note: '' };
    }
    const tool = obj.tool;
    const args = obj.args && typeof obj.args === 'object' && !Array.isArray(obj.args) ? (obj.args as Record<string, unknown>) : {};
    const sig = `${String(tool)}\u0000${canonicalJson(args)}`;
    repeat.set(sig, (repeat.get(sig) ?? 0) + 1);
    if (repeat.get(sig)! >= 3) return forced(rnd, fill(lt.noteCircuit, { rnd: String(rnd) }));
    const spec = o.tools.find((x) => x.name === String(tool));
    let resultText: string;
    if (!spec && !tool && 'thought' in obj) resultText = lt.thoughtOnly + finalExample;
    else if (!spec) resultText = fillSeq(lt.unknown, [tool === undefined || tool === null ? 'None' : String(tool), pyRepr([...names].sort()), finalExample]);
    else {
      try {
        resultText = await spec.run(args);
        toolCalls++;
      } catch (e) {
        resultText = pyJsonDumps({ error: { code: 'tool_failed', detail: cps((e as Error).message, 300), recoverable: true } });
      }
    }
    messages.push({ role: 'assistant', content: pyJsonDumps(obj) });
    const left = o.maxRounds - rnd;
    const suffix = left <= 2 ? fill(lt.budget, { left: String(left) }) : '';
    messages.push({ role: 'user', content: fillSeq(lt.result, [resultText, o.feedbackSuffix, suffix]) });
  }
  return forced(o.maxRounds, fill(lt.noteMax, { max_rounds: String(o.maxRounds) }));
}
