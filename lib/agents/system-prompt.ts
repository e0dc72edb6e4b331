/**
 * System prompt composition of an agent loop (spec "Agent loop protocol"):
 *   KB profile + shared loop rules + role rules + benchmark rule paragraph
 *   + one line per tool (name, description, params) + the JSON protocol.
 * Roles pass their own texts (prompts/ templates); the defaults below are the
 * shared loop rules and the two protocol paragraphs. With native tool calls the
 * tool list travels in the request's `tools` parameter instead of the prompt.
 */
import type { AgentProtocol } from '../model-api/types';
import type { ToolSet } from './tools';

export interface SystemPromptParts {
  /** What the knowledge base holds (books, sizes, kinds of media). */
  kbProfile?: string;
  /** Shared rules of every loop (default: DEFAULT_LOOP_RULES). */
  loopRules?: string;
  /** What this role does and must not do. */
  roleRules?: string;
  /** The one benchmark-specific paragraph (prompts/rule-*.txt). */
  benchmarkRule?: string;
}

/** A full prompt, or a function of the tools and protocol (the composition hook). */
export type SystemPromptSource = string | SystemPromptParts | ((tools: ToolSet, protocol: AgentProtocol) => string);

export const DEFAULT_LOOP_RULES =
  'You work in rounds. Each round you either call one tool or finish. Use only what the tools return; do not answer from memory. ' +
  'Do not repeat a call you already made with the same arguments. When you have gathered enough evidence, finish.';

export const JSON_PROTOCOL =
  'Protocol: reply with exactly ONE JSON object per round and nothing else. To call a tool: ' +
  '{"thought": "<why>", "tool": "<tool name>", "args": {<arguments>}}. To finish: {"thought": "<why>", "final": "ok"}. ' +
  'The final field is only a stop signal ("ok"), not the answer.';

export const TOOLS_PROTOCOL =
  'Protocol: call the tools through function calls, one per round. When you have gathered enough evidence, reply with a short text and no tool call to finish.';

export function composeSystemPrompt(source: SystemPromptSource | undefined, tools: ToolSet, protocol: AgentProtocol): string {
  if (typeof source === 'string') return source;
  if (typeof source === 'function') return source(tools, protocol);
  const p = source ?? {};
  const parts = [p.kbProfile, p.loopRules ?? DEFAULT_LOOP_RULES, p.roleRules, p.benchmarkRule].filter((x): x is string => !!x && !!x.trim());
  if (protocol === 'json') {
    parts.push(['Tools:', ...tools.describeLines()].join('\n'));
    parts.push(JSON_PROTOCOL);
  } else {
    parts.push(TOOLS_PROTOCOL);
  }
  return parts.join('\n\n');
}
