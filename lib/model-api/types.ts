/**
 * The one small model interface every LLM/VLM step goes through (chat with
 * optional images, embeddings). Providers implement it; cache, ledger, retries
 * and routing are middleware around it, never code inside callers.
 */

/** Pipeline stages that call a model; each can be routed to its own endpoint/model. Extensible: any string works. */
export const STAGES = [
  'locator',
  'judge',
  'reader',
  'vision',
  'synth',
  'checker',
  'scorer',
  'extraction',
  'relations',
  'openie',
  'pattern',
  'caption',
  'embedding',
] as const;
export type Stage = (typeof STAGES)[number] | (string & {});

export type ContentPart =
  | { type: 'text'; text: string }
  /** An image by path (resolved and inlined as a data URL by the provider) or data URL. */
  | { type: 'image'; path?: string; dataUrl?: string; mime?: string };

export interface ToolCall {
  id: string;
  name: string;
  /** Raw arguments as the model sent them (JSON text); parse with lib/model-api/json-repair. */
  arguments: string;
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | ContentPart[];
  toolCalls?: ToolCall[];
  toolCallId?: string;
  name?: string;
}

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON schema of the arguments object. */
  parameters: Record<string, unknown>;
}

/** Agent protocol: the paper's one-JSON-object-per-round, or native tool calls. Selectable per stage. */
export type AgentProtocol = 'json' | 'tools';

export interface ChatRequest {
  stage: Stage;
  messages: ChatMessage[];
  tools?: ToolSpec[];
  temperature?: number;
  maxTokens?: number;
  /** Ask for a JSON object reply (response_format json_object where supported). */
  json?: boolean;
  /** For traces, ledger and error messages: which question/run this call serves. */
  questionId?: string;
  runId?: string;
  /**
   * Structured inputs of the role (question, materials, ...). Real models ignore
   * it (they get the prompt); the offline backend reads it instead of parsing
   * prompts. Not part of the cache key: the prompt already determines the reply.
   */
  task?: Record<string, unknown>;
}

export interface Usage {
  promptTokens: number;
  completionTokens: number;
}

export interface ChatResponse {
  text: string;
  toolCalls: ToolCall[];
  usage: Usage;
  /** Model id that answered (as configured / reported). */
  model: string;
  backend: Backend;
  finishReason: string;
  cacheHit: boolean;
  latencyMs: number;
  attempts: number;
  /**
   * The asking stage's verdict, when it cannot use the reply (cut at the token limit, empty, unparseable, no
   * answer): the cache marks the stored reply rejected, so no later call (a --retry-errors pass, another run)
   * replays it. Absent when nothing stored the reply. Call it through rejectReply (lib/model-api/reply-verdict.ts).
   */
  reject?: (reason: string) => void;
}

/** Where answers come from. Offline and scripted outputs are never model results and are labelled so everywhere. */
export type Backend = 'openai' | 'offline' | 'scripted';

export interface ChatModel {
  readonly id: string;
  readonly backend: Backend;
  chat(req: ChatRequest, signal?: AbortSignal): Promise<ChatResponse>;
}

/** Dense text encoder. Implementations: OpenAI-compatible /embeddings, offline GloVe-SIF / corpus-fitted, tiny hashing one for unit tests. */
export interface Embedder {
  /** Stable id (goes into index manifests and caches): e.g. `openai:text-embedding-3-small`, `glove-sif-100d`, `hash-64`. */
  readonly id: string;
  readonly dim: number;
  /** Unit-normalised vectors, one per input, same order. */
  embed(texts: string[]): Promise<Float32Array[]>;
}
