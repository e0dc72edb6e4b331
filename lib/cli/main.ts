/**
 * `kf`: the command-line home of every operation (demo, index, eval, run,
 * compare, report, figures, notebooks). Thin: each command parses and validates
 * its arguments, then calls into lib/. Errors are one line: what and what to do.
 */
import { didYouMean } from '../run/schema';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import type { CommandSpec, ParsedArgs } from './command';
import { errorMessage, isKfError } from '../util/errors';
import { repoRoot } from '../util/paths';
import { loadedPlugins } from '../pipeline/plugins';
import type { Plugin } from '../pipeline/plugin';
import { commandContext } from './command-context';

const GROUPS: Record<CommandSpec['group'], string> = {
  setup: 'Set up and main job',
  data: 'Data',
  index: 'Index',
  run: 'Run experiments',
  evaluate: 'Evaluate and compare',
  report: 'Tables, figures, notebooks',
  dev: 'Developer tools',
};

/** A command module that could not be loaded (a native addon missing, a broken build). */
export interface CommandLoadFailure {
  /** The command words its file name suggests (index-build.js -> "index build"). */
  name: string;
  file: string;
  message: string;
}

const loadFailures: CommandLoadFailure[] = [];

/** The command modules that failed to load in the last loadCommands(). */
export function commandLoadFailures(): readonly CommandLoadFailure[] {
  return loadFailures;
}

/** The commands the loaded plug-ins declare (lib/<method>/commands/), each loaded on its own. */
function pluginCommands(): CommandSpec[] {
  const out: CommandSpec[] = [];
  let plugins: readonly Plugin[];
  try {
    plugins = loadedPlugins();
  } catch (e) {
    loadFailures.push({ name: 'plug-ins', file: 'KF_PLUGINS', message: errorMessage(e).split('\n')[0] });
    return out;
  }
  for (const p of plugins)
    for (const c of p.commands ?? []) {
      try {
        out.push(...[c.load()].flat());
      } catch (e) {
        loadFailures.push({ name: c.name, file: `plug-in ${p.name}`, message: errorMessage(e).split('\n')[0] });
      }
    }
  return out;
}

export function loadCommands(): CommandSpec[] {
  const dir = path.join(__dirname, 'commands');
  const out: CommandSpec[] = [];
  const ext = path.extname(__filename); // .js when compiled, .ts under tsx
  loadFailures.length = 0;
  for (const f of fs.readdirSync(dir).sort()) {
    if (!f.endsWith(ext) || f.endsWith('.d.ts') || f.startsWith('_')) continue;
    let mod: { command?: CommandSpec; commands?: CommandSpec[] };
    try {
      mod = require(path.join(dir, f)) as typeof mod;
    } catch (e) {
      // One command that cannot load (e.g. hnswlib-node not built) must not take `kf doctor` and the others down with it.
      loadFailures.push({ name: f.slice(0, -ext.length).replace(/-/g, ' '), file: path.join(dir, f), message: errorMessage(e).split('\n')[0] });
      continue;
    }
    if (mod.command) out.push(mod.command);
    if (mod.commands) out.push(...mod.commands);
  }
  out.push(...pluginCommands());
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

const LOAD_HINT = 'run `kf doctor` to see what is missing, then `bash scripts/setup.sh` (reinstalls and builds the native addons)';

function usageLine(c: CommandSpec): string {
  const pos = (c.positionals ?? []).map((p) => (p.required ? `<${p.name}${p.variadic ? '...' : ''}>` : `[${p.name}${p.variadic ? '...' : ''}]`)).join(' ');
  const req = Object.entries(c.options ?? {})
    .filter(([, o]) => o.required)
    .map(([n, o]) => `--${n}${o.type === 'string' ? ' <value>' : ''}`)
    .join(' ');
  return ['kf', c.name, pos, req, Object.keys(c.options ?? {}).length ? '[options]' : ''].filter(Boolean).join(' ');
}

export function mainHelp(cmds: CommandSpec[]): string {
  const lines = ['kf: the KnowForge / DualG-MRAG experiment harness', '', 'Usage: kf <command> [options]      kf <command> --help for its options', ''];
  for (const [g, title] of Object.entries(GROUPS)) {
    const inGroup = cmds.filter((c) => c.group === g);
    if (!inGroup.length) continue;
    lines.push(`${title}:`);
    for (const c of inGroup) lines.push(`  ${c.name.padEnd(22)} ${c.summary}`);
    lines.push('');
  }
  lines.push('Environment: OPENAI_BASE_URL, OPENAI_API_KEY, KF_MODEL (see README "Using a real model"); KF_SHARED (benchmarks, default ../shared).');
  if (loadFailures.length) {
    lines.push('');
    lines.push(`Unavailable here (their code failed to load; ${LOAD_HINT}):`);
    for (const f of loadFailures) lines.push(`  ${f.name.padEnd(22)} ${f.message}`);
  }
  return lines.join('\n');
}

export function commandHelp(c: CommandSpec): string {
  const lines = [`Usage: ${usageLine(c)}`, '', c.summary, ''];
  if (c.positionals?.length) {
    lines.push('Arguments:');
    for (const p of c.positionals) lines.push(`  ${p.name.padEnd(24)} ${p.description}`);
    lines.push('');
  }
  const opts = Object.entries(c.options ?? {});
  if (opts.length) {
    lines.push('Options:');
    for (const [n, o] of opts) {
      const flag = `${o.short ? `-${o.short}, ` : ''}--${n}${o.type === 'string' ? ' <v>' : ''}`;
      const extra = [
        o.choices ? `one of ${o.choices.join('|')}` : '',
        o.default !== undefined ? `default ${o.default}` : '',
        o.required ? 'required' : '',
        o.multiple ? 'repeatable' : '',
      ]
        .filter(Boolean)
        .join('; ');
      lines.push(`  ${flag.padEnd(24)} ${o.description}${extra ? ` (${extra})` : ''}`);
    }
    lines.push('  -h, --help               this help');
    lines.push('');
  }
  if (c.examples?.length) {
    lines.push('Examples:');
    for (const e of c.examples) lines.push(`  ${e}`);
  }
  return lines.join('\n');
}

class UsageError extends Error {}

/**
 * node:util parseArgs messages, reworded as one lower-case line naming the
 * command (some span three lines, e.g. a value that starts with a dash).
 */
function parseArgsMessage(m: string, cmd: string): string {
  const see = `(see kf ${cmd} --help)`;
  const ambiguous = /^Option '([^']+)' argument is ambiguous/.exec(m);
  if (ambiguous)
    return `option '${ambiguous[1]}' of 'kf ${cmd}' is followed by a value starting with a dash -- if that is its value, write ${ambiguous[1]}=<value> ${see}`;
  const missing = /^Option '([^' ]+)[^']*' argument missing/.exec(m);
  if (missing) return `option '${missing[1]}' of 'kf ${cmd}' needs a value ${see}`;
  const noArg = /^Option '([^']+)' does not take an argument/.exec(m);
  if (noArg) return `option '${noArg[1]}' of 'kf ${cmd}' takes no value ${see}`;
  const first = m
    .replace(/\. To specify a positional argument.*$/s, '')
    .replace(/^Unknown option/, 'unknown option')
    .replace(/\s*\n\s*/g, ' ');
  return `${first} for 'kf ${cmd}' ${see}`;
}

/** An unknown flag's message gains the nearest option of the command (`--limt` -> did you mean --limit?). */
function withFlagSuggestion(message: string, names: string[]): string {
  const m = /^unknown option '-{1,2}([^'=]+)/.exec(message);
  if (!m) return message;
  const near = didYouMean(m[1], names) ?? names.find((n) => n.startsWith(m[1]) && m[1].length >= 3);
  return near ? message.replace(/ \(see kf /, ` (did you mean --${near}?) (see kf `) : message;
}

/** An error as ONE line (a message from a library may hold newlines, e.g. JSON.parse quoting the text). */
function oneLine(s: string): string {
  return s.replace(/\s*\n\s*/g, ' ').trim();
}

/** Parse argv for one command, with every check that makes a one-line actionable message. */
export function parseFor(c: CommandSpec, argv: string[]): ParsedArgs {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }> = { help: { type: 'boolean', short: 'h' } };
  for (const [n, o] of Object.entries(c.options ?? {})) {
    options[n] = { type: o.type };
    if (o.short) options[n].short = o.short;
    if (o.multiple) options[n].multiple = true;
  }
  let parsed: { values: Record<string, unknown>; positionals: string[] };
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError(withFlagSuggestion(parseArgsMessage((e as Error).message, c.name), Object.keys(options)));
  }
  const values = parsed.values as ParsedArgs['values'];
  if (values.help) return { values, positionals: parsed.positionals };
  // Every usage message ends by saying where the command's options are explained.
  const see = `(see kf ${c.name} --help)`;
  for (const [n, o] of Object.entries(c.options ?? {})) {
    const v = values[n];
    if (v === undefined) {
      if (o.required) throw new UsageError(`missing --${n} for 'kf ${c.name}': ${o.description} ${see}`);
      if (o.default !== undefined) values[n] = o.default;
      continue;
    }
    for (const one of Array.isArray(v) ? v : [v]) {
      if (typeof one !== 'string') continue;
      if (o.choices && !o.choices.includes(one)) throw new UsageError(`--${n} must be one of ${o.choices.join('|')}, got "${one}" ${see}`);
      const err = o.validate?.(one);
      if (err) throw new UsageError(`--${n}: ${err} ${see}`);
    }
  }
  const pos = c.positionals ?? [];
  const required = pos.filter((p) => p.required).length;
  if (parsed.positionals.length < required) {
    const missing = pos.filter((p) => p.required)[parsed.positionals.length];
    throw new UsageError(`missing <${missing.name}> for 'kf ${c.name}': ${missing.description} ${see}`);
  }
  if (!pos.some((p) => p.variadic) && parsed.positionals.length > pos.length) {
    throw new UsageError(`unexpected argument "${parsed.positionals[pos.length]}" for 'kf ${c.name}' (see kf ${c.name} --help)`);
  }
  return { values, positionals: parsed.positionals };
}

export async function main(argv: string[]): Promise<number> {
  const cmds = loadCommands();
  if (argv[0] === 'help' && argv.length > 1) {
    // `kf help <command>` is `kf <command> --help`.
    const words = argv.slice(1).filter((a) => !a.startsWith('-'));
    const c = cmds.find((x) => x.name === words.join(' ')) ?? cmds.find((x) => x.name === words[0]);
    if (c) {
      console.log(commandHelp(c));
      return 0;
    }
    const group = cmds.filter((x) => x.name.startsWith(words[0] + ' '));
    if (group.length) {
      console.error(`kf: '${words[0]}' has subcommands: ${group.map((x) => x.name).join(', ')} -- e.g. kf help ${group[0].name}`);
      return 2;
    }
    const failed = loadFailures.find((f) => f.name.split(' ').every((w, i) => words[i] === w));
    if (failed) {
      console.error(`kf: 'kf ${failed.name}' is unavailable: ${path.basename(failed.file)} failed to load (${failed.message}) -- ${LOAD_HINT}`);
      return 1;
    }
    console.error(`kf: unknown command '${words.join(' ')}' -- see kf --help for the commands`);
    return 2;
  }
  if (!argv.length || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
    console.log(mainHelp(cmds));
    return argv.length ? 0 : 1;
  }
  if (argv[0] === '--version') {
    // From the project root: this file runs from lib/cli (tsx) and from dist/lib/cli (compiled).
    console.log((JSON.parse(fs.readFileSync(path.join(repoRoot(), 'package.json'), 'utf8')) as { version?: string }).version ?? '?');
    return 0;
  }
  // Longest command name that prefixes argv (so `eval retrieval` wins over `eval`).
  let best: CommandSpec | undefined;
  for (const c of cmds) {
    const words = c.name.split(' ');
    if (words.every((w, i) => argv[i] === w) && (!best || words.length > best.name.split(' ').length)) best = c;
  }
  if (!best) {
    const first = argv[0];
    const failed = loadFailures.find((f) => f.name.split(' ').every((w, i) => argv[i] === w));
    if (failed) {
      console.error(`kf: 'kf ${failed.name}' is unavailable: ${path.basename(failed.file)} failed to load (${failed.message}) -- ${LOAD_HINT}`);
      return 1;
    }
    if (first.startsWith('-')) {
      console.error(`kf: unknown option '${first}' -- options come after the command: kf <command> [options] (see kf --help)`);
      return 2;
    }
    const group = cmds.filter((c) => c.name.startsWith(first + ' '));
    if (group.length && argv.length === 2 && (argv[1] === '--help' || argv[1] === '-h')) {
      // `kf eval --help` asks what the group holds: list its subcommands (a help request, so exit 0).
      console.log(`Subcommands of kf ${first} (kf <subcommand> --help for each):`);
      for (const c of group) console.log(`  kf ${c.name.padEnd(24)} ${c.summary}`);
      return 0;
    }
    if (group.length && (argv.length === 1 || argv[1].startsWith('-'))) {
      console.error(`kf: '${first}' needs a subcommand: ${group.map((c) => c.name).join(', ')} (see kf --help)`);
    } else {
      const names = cmds.map((c) => c.name);
      // Commands sharing the first two letters, plus the nearest by edit distance (typos like `rnu`).
      const typo = didYouMean(first, [...new Set(names.map((n) => n.split(' ')[0]))]);
      const near = [...new Set([...names.filter((n) => n.startsWith(first.slice(0, 2))), ...(typo ? [typo] : [])])];
      console.error(
        `kf: unknown command '${argv
          .filter((a) => !a.startsWith('-'))
          .slice(0, 2)
          .join(' ')}'${near.length ? ` (did you mean: ${near.join(', ')}?)` : ''} -- see kf --help`,
      );
    }
    return 2;
  }
  const rest = argv.slice(best.name.split(' ').length);
  let args: ParsedArgs;
  try {
    args = parseFor(best, rest);
  } catch (e) {
    if (e instanceof UsageError) {
      console.error(`kf: ${e.message}`);
      return 2;
    }
    throw e;
  }
  if (args.values.help) {
    console.log(commandHelp(best));
    return 0;
  }
  return runCommand(best, args);
}

/** Run a parsed command with the CLI's context (its models, closed after it); a thrown error is one line and exit 1. */
async function runCommand(command: CommandSpec, args: ParsedArgs): Promise<number> {
  const ctx = commandContext();
  try {
    const code = await command.run(args, ctx);
    return typeof code === 'number' ? code : 0;
  } catch (e) {
    // One line: what and what to do. An error that is not a KfError is a bug in kf; say how to see more.
    const unexpected = !isKfError(e) && !process.env.KF_DEBUG ? ' -- unexpected error: set KF_DEBUG=1 to see the stack trace' : '';
    console.error(`kf ${command.name}: error: ${oneLine(errorMessage(e))}${unexpected}`);
    if (process.env.KF_DEBUG && e instanceof Error) console.error(e.stack);
    return 1;
  } finally {
    await ctx.close();
  }
}
