/**
 * Argument parsing for the one-off analyses (issue 16): the shared ones in scripts/, a method's own
 * in lib/<method>/scripts/ (issue 30). `--help` prints the script's header comment and its options
 * as usage, and a bad flag is one line naming the script (with a did-you-mean), never a parse-args
 * stack trace. Workflows the README teaches are kf commands.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { didYouMean } from './did-you-mean';
import { repoRoot } from './paths';

/** The script's first doc comment, as plain lines. */
function headerOf(file: string): string {
  const src = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  const m = /\/\*\*([\s\S]*?)\*\//.exec(src);
  return m
    ? m[1]
        .split('\n')
        .map((l) => l.replace(/^\s*\* ?/, ''))
        .join('\n')
        .trim()
    : '';
}

/** The script's source path from the repository root (lib/dualg/scripts/bench.ts), also when run compiled from dist/. */
function sourcePath(file: string): string {
  return path
    .relative(repoRoot(), file)
    .split(path.sep)
    .join('/')
    .replace(/^dist\//, '')
    .replace(/\.js$/, '.ts');
}

function usage(file: string, options: ParseArgsConfig['options'] = {}): string {
  const lines = [`Usage: node --import tsx ${sourcePath(file)} [options]`, '', headerOf(file), ''];
  const names = Object.keys(options);
  if (names.length) {
    lines.push('Options:');
    for (const [name, o] of Object.entries(options)) {
      const dflt = o.default === undefined ? '' : ` (default ${JSON.stringify(o.default)})`;
      lines.push(`  --${name}${o.type === 'string' ? ' <v>' : ''}${dflt}`);
    }
  }
  lines.push('  -h, --help   this help');
  return lines.join('\n');
}

/** Print the usage and exit when --help or -h is on the command line. */
export function exitWithHelpIfAsked(file: string, options?: ParseArgsConfig['options'], argv: readonly string[] = process.argv.slice(2)): void {
  if (!argv.includes('--help') && !argv.includes('-h')) return;
  console.log(usage(file, options));
  process.exit(0);
}

/** parseArgs with --help and one-line errors. */
export function scriptArgs<T extends ParseArgsConfig>(file: string, config: T): ReturnType<typeof parseArgs<T>> {
  exitWithHelpIfAsked(file, config.options, config.args ?? process.argv.slice(2));
  try {
    return parseArgs(config);
  } catch (e) {
    const message = (e as Error).message.split('\n')[0];
    const unknown = /Unknown option '--([^'=]+)/.exec(message);
    const near = unknown ? didYouMean(unknown[1], Object.keys(config.options ?? {})) : undefined;
    console.error(`${path.basename(file)}: ${message}${near ? ` -- did you mean --${near}?` : ''} (see --help)`);
    process.exit(2);
  }
}
