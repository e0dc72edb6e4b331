/**
 * `kf`: the command-line home of every operation (demo, index, eval, run,
 * compare, report, figures, notebooks). Thin: each command parses and validates
 * its arguments, then calls into lib/. Errors are one line: what and what to do.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import type { CommandSpec, ParsedArgs } from './command';
import { errorMessage, isKfError } from '../util/errors';

const GROUPS: Record<CommandSpec['group'], string> = {
  setup: 'Set up and main job',
  data: 'Data',
  index: 'Index',
  run: 'Run experiments',
  evaluate: 'Evaluate and compare',
  report: 'Tables, figures, notebooks',
  dev: 'Developer tools',
};

export function loadCommands(): CommandSpec[] {
  const dir = path.join(__dirname, 'commands');
  const out: CommandSpec[] = [];
  const ext = path.extname(__filename); // .js when compiled, .ts under tsx
  for (const f of fs.readdirSync(dir).sort()) {
    if (!f.endsWith(ext) || f.endsWith('.d.ts') || f.startsWith('_')) continue;
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const mod = require(path.join(dir, f)) as { command?: CommandSpec; commands?: CommandSpec[] };
    if (mod.command) out.push(mod.command);
    if (mod.commands) out.push(...mod.commands);
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

function usageLine(c: CommandSpec): string {
  const pos = (c.positionals ?? []).map((p) => (p.required ? `<${p.name}${p.variadic ? '...' : ''}>` : `[${p.name}${p.variadic ? '...' : ''}]`)).join(' ');
  const req = Object.entries(c.options ?? {}).filter(([, o]) => o.required).map(([n, o]) => `--${n}${o.type === 'string' ? ' <value>' : ''}`).join(' ');
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
      const extra = [o.choices ? `one of ${o.choices.join('|')}` : '', o.default !== undefined ? `default ${o.default}` : '', o.required ? 'required' : '', o.multiple ? 'repeatable' : '']
        .filter(Boolean).join('; ');
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
    const m = (e as Error).message.replace(/\. To specify a positional argument.*$/s, '').replace(/^Unknown option/, 'unknown option');
    throw new UsageError(`${m} for 'kf ${c.name}' (see kf ${c.name} --help)`);
  }
  const values = parsed.values as ParsedArgs['values'];
  if (values.help) return { values, positionals: parsed.positionals };
  for (const [n, o] of Object.entries(c.options ?? {})) {
    const v = values[n];
    if (v === undefined) {
      if (o.required) throw new UsageError(`missing --${n} for 'kf ${c.name}': ${o.description}`);
      if (o.default !== undefined) values[n] = o.default;
      continue;
    }
    for (const one of Array.isArray(v) ? v : [v]) {
      if (typeof one !== 'string') continue;
      if (o.choices && !o.choices.includes(one)) throw new UsageError(`--${n} must be one of ${o.choices.join('|')}, got "${one}"`);
      const err = o.validate?.(one);
      if (err) throw new UsageError(`--${n}: ${err}`);
    }
  }
  const pos = c.positionals ?? [];
  const required = pos.filter((p) => p.required).length;
  if (parsed.positionals.length < required) {
    const missing = pos.filter((p) => p.required)[parsed.positionals.length];
    throw new UsageError(`missing <${missing.name}> for 'kf ${c.name}': ${missing.description}`);
  }
  if (!pos.some((p) => p.variadic) && parsed.positionals.length > pos.length) {
    throw new UsageError(`unexpected argument "${parsed.positionals[pos.length]}" for 'kf ${c.name}' (see kf ${c.name} --help)`);
  }
  return { values, positionals: parsed.positionals };
}

export async function main(argv: string[]): Promise<number> {
  const cmds = loadCommands();
  if (!argv.length || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
    console.log(mainHelp(cmds));
    return argv.length ? 0 : 1;
  }
  if (argv[0] === '--version') {
    console.log(require('../../package.json').version ?? '?');
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
    const group = cmds.filter((c) => c.name.startsWith(first + ' '));
    if (group.length && (argv.length === 1 || argv[1].startsWith('-'))) {
      console.error(`kf: '${first}' needs a subcommand: ${group.map((c) => c.name).join(', ')} (see kf --help)`);
    } else {
      const names = cmds.map((c) => c.name);
      const near = names.filter((n) => n.startsWith(first.slice(0, 2)));
      console.error(`kf: unknown command '${argv.filter((a) => !a.startsWith('-')).slice(0, 2).join(' ')}'${near.length ? ` (did you mean: ${near.join(', ')}?)` : ''} -- see kf --help`);
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
  try {
    const code = await best.run(args);
    return typeof code === 'number' ? code : 0;
  } catch (e) {
    console.error(`kf ${best.name}: error: ${errorMessage(e)}`);
    if (process.env.KF_DEBUG && e instanceof Error) console.error(e.stack);
    else if (!isKfError(e) && e instanceof Error) console.error('  (set KF_DEBUG=1 for the stack trace)');
    return 1;
  }
}
