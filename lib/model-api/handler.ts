/**
 * The contract of an in-process (offline) policy: what a handler registered for
 * a role receives and returns. Declared here, apart from lib/models, so the
 * policies beside their stages (lib/corpus/offline, lib/index/offline, ...)
 * depend on the model INTERFACE only, never on the model layer's implementation.
 */
import type { ChatRequest, ToolCall } from './types';

/** Something a handler keeps open across calls (an OCR worker): closed with the router that owns it. */
export interface Closable {
  close?(): Promise<void> | void;
}

/** The slice of the model cache in-process policies use: OCR word boxes keyed by image hash. */
export interface OcrResultCache {
  getOcr<T>(imageSha256: string, key: string): T | undefined;
  putOcr(imageSha256: string, key: string, value: unknown): void;
}

/** Services shared by the handlers of one model router (created on first use, closed with the router). */
export interface HandlerResources {
  readonly cache?: OcrResultCache;
  get<T extends Closable>(key: string, create: (cache: OcrResultCache | undefined) => T): T;
}

/** What a handler sees besides its task. */
export interface InProcessContext {
  req: ChatRequest;
  stage: string;
  /** The router's shared services; undefined for a model built outside a router. */
  resources?: HandlerResources;
}

export interface InProcessReply {
  text: string;
  toolCalls?: ToolCall[];
}

/** One role's offline policy. `T` is its task payload (the role's `...Task` type). */
export interface OfflineHandler<T = Record<string, unknown>> {
  /** Stage names (besides the role's own) that mean this role when a request names none. */
  stages?: readonly string[];
  /** Task fields the policy cannot do without: a request lacking one fails with the field's name. */
  needs?: readonly string[];
  /** Where the role's task type is declared (named in error messages). */
  taskFile?: string;
  reply(task: T, ctx: InProcessContext): string | InProcessReply | Promise<string | InProcessReply>;
}
