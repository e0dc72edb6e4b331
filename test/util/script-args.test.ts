/**
 * The study scripts' argument parser (lib/util/script-args.ts), through a method's own script where it now
 * lives (lib/dualg/scripts/link-cost.ts, issue 30): --help names the script by its path from the repository
 * root (run from the sources or compiled in dist/), and a bad flag is one line with a did-you-mean, exit 2.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { repoRoot } from '../../lib/util/paths';

const root = repoRoot();
const SCRIPT = 'lib/dualg/scripts/link-cost.ts';

const runScript = (file: string, args: string[], viaTsx: boolean) =>
  spawnSync(process.execPath, [...(viaTsx ? ['--import', 'tsx'] : []), path.join(root, file), ...args], { cwd: root, encoding: 'utf8' });

test('--help of a method script names its source path and its options, from the sources and compiled', () => {
  for (const [file, viaTsx] of [
    [SCRIPT, true],
    [path.join('dist', SCRIPT.replace(/\.ts$/, '.js')), false],
  ] as const) {
    const r = runScript(file, ['--help'], viaTsx);
    assert.equal(r.status, 0, r.stderr);
    const lines = r.stdout.split('\n');
    assert.equal(lines[0], `Usage: node --import tsx ${SCRIPT} [options]`, `run as ${file}`);
    assert.match(r.stdout, /^ {2}--names <v> \(default "36804"\)$/m);
    assert.match(r.stdout, /^ {2}-h, --help {3}this help$/m);
  }
});

test('a bad flag is one line naming the script with a did-you-mean, exit 2', () => {
  const r = runScript(SCRIPT, ['--nmes', '3'], true);
  assert.equal(r.status, 2);
  assert.equal(r.stdout, '');
  assert.equal(r.stderr.trim(), "link-cost.ts: Unknown option '--nmes' -- did you mean --names? (see --help)");
});
