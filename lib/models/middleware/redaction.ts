/**
 * Redaction middleware: nothing that passes it carries a configured secret.
 * Replies (text and tool-call arguments: a server may echo the key) and errors
 * (message, hint, stack: the SDK's text can quote the URL) go through
 * redactSecrets (lib/model-api/redact.ts), which knows every secret the router
 * registered: API keys, URL user:password, credential query parameters.
 * It sits between the cache and the retry layer: cached replies, ledgers,
 * records, traces and errors above it only ever see redacted text.
 */
import { redactError, redactSecrets, registerSecret, registerUrlSecrets } from '../../model-api/redact';
import type { ResolvedEndpoint } from '../config';
import type { ChatMiddleware } from '../wrap-model';

/** Register the secrets an endpoint carries: its key (from the variable it names) and the credentials in its base URLs. */
export function registerEndpointSecrets(ep: ResolvedEndpoint, env: NodeJS.ProcessEnv): void {
  if (ep.backend !== 'openai') return;
  registerSecret(env[ep.apiKeyEnv]);
  for (const url of ep.replicas) registerUrlSecrets(url);
}

export function redactionMiddleware(): ChatMiddleware {
  return {
    name: 'redaction',
    async wrapChat({ next, req, signal }) {
      try {
        const res = await next(req, signal);
        return {
          ...res,
          text: redactSecrets(res.text),
          toolCalls: res.toolCalls.map((c) => ({ ...c, name: redactSecrets(c.name), arguments: redactSecrets(c.arguments) })),
        };
      } catch (e) {
        throw redactError(e);
      }
    },
  };
}
