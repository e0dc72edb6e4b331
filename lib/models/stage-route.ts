/**
 * One stage's route as printed by `kf models` and written into manifests: what
 * answers it and with which limits, URLs redacted, never the key (only the NAME
 * of its variable and whether it is set).
 */
import { redactUrl } from '../model-api/redact';
import type { ResolvedEndpoint } from './config';
import type { AgentProtocol, Backend } from '../model-api/types';

export interface StageRoute {
  stage: string;
  backend: Backend;
  model: string;
  /** The first replica, credentials replaced by [REDACTED]. */
  baseUrl?: string;
  /** Every replica (redacted), when the stage names more than one. */
  replicas?: string[];
  protocol: AgentProtocol;
  /** NAME of the key variable, and whether it is set (never its value). */
  apiKeyEnv: string;
  keySet: boolean;
  timeoutMs: number;
  maxTokens?: number;
  temperature?: number;
  concurrency: number;
  maxAttempts: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  maxRefusals: number;
  extraBody: Record<string, unknown>;
  provenance: ResolvedEndpoint['provenance'];
}

export function describeRoute(r: ResolvedEndpoint, env: NodeJS.ProcessEnv): StageRoute {
  return {
    stage: r.stage,
    backend: r.backend,
    model: r.model,
    baseUrl: redactUrl(r.baseUrl),
    ...(r.replicas.length > 1 ? { replicas: r.replicas.map((u) => redactUrl(u)!) } : {}),
    protocol: r.protocol,
    apiKeyEnv: r.apiKeyEnv,
    keySet: !!env[r.apiKeyEnv],
    timeoutMs: r.timeoutMs,
    maxTokens: r.maxTokens,
    temperature: r.temperature,
    concurrency: r.concurrency,
    maxAttempts: r.maxAttempts,
    backoffBaseMs: r.backoffBaseMs,
    backoffMaxMs: r.backoffMaxMs,
    maxRefusals: r.maxRefusals,
    extraBody: r.extraBody,
    provenance: { ...r.provenance },
  };
}
