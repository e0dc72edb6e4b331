/**
 * The one registry type (issue 30): a named set of what the plug-ins add (pipeline families,
 * configuration rows, retrievers, artifact kinds, benchmarks), with one error type for its two
 * failures: a name taken twice (KfError `<code>_exists`) and a name it does not know
 * (`<code>_unknown`, the nearest known name as the hint).
 */
import { didYouMean } from './did-you-mean';
import { KfError } from './errors';

export class Registry<T> {
  private readonly entries = new Map<string, T>();

  /** `what` names an entry in messages ('retriever', 'artifact kind'); `code` prefixes the error codes (default: `what` with '_' for spaces). */
  constructor(
    readonly what: string,
    private readonly code = what.replace(/\W+/g, '_'),
  ) {}

  /** Add an entry; the same entry again is a no-op, another under a taken name is refused unless `replace`. */
  add(name: string, entry: T, opts: { replace?: boolean; hint?: string } = {}): void {
    const old = this.entries.get(name);
    if (old !== undefined && old !== entry && !opts.replace)
      throw new KfError(`${this.code}_exists`, `${this.what} ${name} is already registered`, opts.hint ?? `pick another ${this.what} name`, {
        concerns: name,
      });
    this.entries.set(name, entry);
  }

  get(name: string): T | undefined {
    return this.entries.get(name);
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  delete(name: string): boolean {
    return this.entries.delete(name);
  }

  /** Names in registration order. */
  names(): string[] {
    return [...this.entries.keys()];
  }

  values(): T[] {
    return [...this.entries.values()];
  }

  /** The entry, or the registry's error naming the nearest known name. */
  require(name: string): T {
    const hit = this.entries.get(name);
    if (hit !== undefined) return hit;
    const names = this.names().sort();
    const near = didYouMean(name, names);
    throw new KfError(
      `${this.code}_unknown`,
      `no ${this.what} "${name}"`,
      near ? `did you mean "${near}"?` : names.length ? `registered: ${names.join(', ')}` : `no ${this.what} is registered`,
      { concerns: name },
    );
  }
}
