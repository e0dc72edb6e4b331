/**
 * The cache key of a chat request: sha256 of its canonical form. It covers
 * everything that determines the reply (messages with images by content hash,
 * model, temperature, max tokens, tools, the JSON flag, extra body) and nothing
 * that does not: NOT the stage (two stages asking the same thing share a reply),
 * NOT the API key or base URL (the same model behind another URL answers the
 * same), NOT ChatRequest.task (the prompt already determines the reply).
 */
import { canonicalJson, sha256 } from '../util/hash';
import type { ResolvedEndpoint } from './config';
import { loadImage } from '../model-api/images';
import type { ChatMessage, ChatRequest, ToolSpec } from '../model-api/types';

/** Built-in request defaults when neither the config nor the caller sets them (spec: loops use 0 and 2,048). */
export const DEFAULT_TEMPERATURE = 0;
export const DEFAULT_MAX_TOKENS = 2048;

/** The request parameters actually sent: configured values override the caller's (see config.ts). */
export interface EffectiveParams {
  model: string;
  temperature: number;
  maxTokens: number;
  extraBody: Record<string, unknown>;
}

export function effectiveParams(req: ChatRequest, ep: ResolvedEndpoint): EffectiveParams {
  return {
    model: ep.model,
    temperature: ep.temperature ?? req.temperature ?? DEFAULT_TEMPERATURE,
    maxTokens: ep.maxTokens ?? req.maxTokens ?? DEFAULT_MAX_TOKENS,
    extraBody: ep.extraBody,
  };
}

const KEY_VERSION = 1;

function canonicalMessage(m: ChatMessage): unknown {
  const content = typeof m.content === 'string' ? m.content : m.content.map((p) => (p.type === 'text' ? { text: p.text } : { image: loadImage(p).sha256 }));
  return {
    role: m.role,
    content,
    toolCalls: m.toolCalls?.length ? m.toolCalls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })) : undefined,
    toolCallId: m.toolCallId,
    name: m.name,
  };
}

export function canonicalRequest(req: ChatRequest, params: EffectiveParams): unknown {
  return {
    v: KEY_VERSION,
    model: params.model,
    temperature: params.temperature,
    maxTokens: params.maxTokens,
    json: req.json === true,
    tools: req.tools?.length ? req.tools.map((t: ToolSpec) => ({ name: t.name, description: t.description, parameters: t.parameters })) : undefined,
    extraBody: Object.keys(params.extraBody).length ? params.extraBody : undefined,
    messages: req.messages.map(canonicalMessage),
  };
}

export function cacheKey(req: ChatRequest, params: EffectiveParams): string {
  return sha256(canonicalJson(canonicalRequest(req, params)));
}
