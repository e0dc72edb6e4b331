/**
 * One error type for everything the harness reports to a person.
 *
 * Every error says WHAT it concerns (a file, a question id, a stage, a flag) and
 * WHAT TO DO about it. The CLI prints `error: <message> (<hint>)` on one line and
 * exits non-zero; library callers can branch on `code`.
 */
export class KfError extends Error {
  readonly code: string;
  readonly hint: string;
  readonly concerns?: string;

  constructor(code: string, message: string, hint: string, opts: { concerns?: string; cause?: unknown } = {}) {
    super(message, opts.cause !== undefined ? { cause: opts.cause } : undefined);
    this.name = 'KfError';
    this.code = code;
    this.hint = hint;
    this.concerns = opts.concerns;
  }

  /** One line for a terminal: message and what to do. */
  oneLine(): string {
    return `${this.message}${this.hint ? ` -- ${this.hint}` : ''}`;
  }
}

export function isKfError(e: unknown): e is KfError {
  return e instanceof KfError || (typeof e === 'object' && e !== null && (e as { name?: string }).name === 'KfError');
}

/** Message of any thrown value, without a stack. */
export function errorMessage(e: unknown): string {
  if (isKfError(e)) return e.oneLine();
  if (e instanceof Error) return e.message;
  return String(e);
}
