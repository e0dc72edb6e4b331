/**
 * The shape of one `kf` subcommand. Each lives in lib/cli/commands/<name>.ts and
 * exports `command` (or `commands`); main.ts discovers them, so adding a command
 * never edits a shared file.
 */
import type { ModelsConfig } from '../models/config';
import type { ModelRouter, RouterOptions } from '../models/router';

export interface OptionSpec {
  type: 'string' | 'boolean';
  short?: string;
  multiple?: boolean;
  description: string;
  /** Shown in help; applied when the flag is absent. */
  default?: string | boolean;
  /** Allowed values (validated, listed in help). */
  choices?: readonly string[];
  required?: boolean;
  /** Validates the value; return an error message (what is wrong and what to do) or undefined. */
  validate?: (value: string) => string | undefined;
}

export interface PositionalSpec {
  name: string;
  description: string;
  required?: boolean;
  variadic?: boolean;
}

export interface ParsedArgs {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}

/**
 * What the CLI hands a command besides its arguments (issue 30: models are handed in). A command
 * never builds a router itself: it asks `models` for one, so the CLI (lib/cli/command-context.ts)
 * is the one place that turns a models configuration into live endpoints.
 */
export interface CommandContext {
  /**
   * A router over `config` (default `{}`: the environment's endpoints, KF_* / OPENAI_* variables)
   * with `opts` (e.g. `{ cacheMode: 'off' }`). The command may close it when done; whatever it
   * leaves open is closed by the CLI after the command returns. A plain function: it may be passed on
   * detached (`{ models: ctx.models }`).
   */
  models: (config?: ModelsConfig, opts?: RouterOptions) => ModelRouter;
}

export interface CommandSpec {
  /** Words after `kf`, e.g. 'eval retrieval'. */
  name: string;
  summary: string;
  /** Group heading in `kf --help`. */
  group: 'setup' | 'data' | 'index' | 'run' | 'evaluate' | 'report' | 'dev';
  options?: Record<string, OptionSpec>;
  positionals?: PositionalSpec[];
  examples?: string[];
  run(args: ParsedArgs, ctx: CommandContext): Promise<number | void>;
}

/** Typed getters over parsed values (after validation in main.ts). */
export function str(args: ParsedArgs, name: string): string | undefined {
  const v = args.values[name];
  return typeof v === 'string' ? v : undefined;
}
export function bool(args: ParsedArgs, name: string): boolean {
  return args.values[name] === true;
}
export function int(args: ParsedArgs, name: string): number | undefined {
  const v = str(args, name);
  return v === undefined ? undefined : Number.parseInt(v, 10);
}
export function list(args: ParsedArgs, name: string): string[] {
  const v = args.values[name];
  return Array.isArray(v) ? v : typeof v === 'string' ? [v] : [];
}

/** Validators for OptionSpec.validate. */
export const isPositiveInt = (v: string) => (/^[1-9]\d*$/.test(v) ? undefined : `expected a positive integer, got "${v}"`);
export const isNonNegInt = (v: string) => (/^\d+$/.test(v) ? undefined : `expected a non-negative integer, got "${v}"`);
export const isNumber = (v: string) => (v.trim() !== '' && Number.isFinite(Number(v)) ? undefined : `expected a number, got "${v}"`);
