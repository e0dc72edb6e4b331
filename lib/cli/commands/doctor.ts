import * as fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import type { CommandSpec } from '../command';
import { sharedDir } from '../../util/paths';
import { gitInfo } from '../../util/git';
import { checkTslabKernel, notebookFrontEnd } from '../../report/kernel-check';
import { findJupyterPython } from '../../report/notebooks';
import { ensureStartableTslabSpec, kernelSpecProblem, registeredTslabSpec } from '../../report/tslab-kernelspec';
import { errorMessage } from '../../util/errors';

function which(cmd: string): string | null {
  try {
    return (
      execFileSync('sh', ['-c', `command -v ${cmd}`], { stdio: ['ignore', 'pipe', 'ignore'] })
        .toString()
        .trim() || null
    );
  } catch {
    return null;
  }
}

/** Whether the tslab kernel spec starts from a plain shell (`jupyter notebook`), fixed with --fix. */
function tslabSpecLine(fix: boolean): string {
  try {
    const python = findJupyterPython();
    if (fix) {
      const r = ensureStartableTslabSpec(python);
      return r.action === 'written' ? `fixed: wrote ${r.file} (${r.problem})` : `ok: ${r.file}`;
    }
    const reg = registeredTslabSpec(python);
    if (!reg) return 'not registered: kf doctor --fix (or kf jupyter) writes it';
    const problem = kernelSpecProblem(reg.spec);
    return problem ? `would not start from a shell (${reg.dir}): ${problem}; kf doctor --fix writes one with absolute paths` : `ok: ${reg.dir}`;
  } catch (e) {
    return `not checked: ${errorMessage(e).split('\n')[0]}`;
  }
}

export const command: CommandSpec = {
  name: 'doctor',
  group: 'setup',
  summary: 'Check what this machine has: native addons, tfjs backend, Jupyter (front-end, tslab kernel executing a cell), Chromium, benchmarks, model endpoint',
  options: {
    json: { type: 'boolean', description: 'print one JSON object' },
    'no-kernel': { type: 'boolean', description: 'skip executing a cell in the tslab kernel (it takes a few seconds)' },
    fix: { type: 'boolean', description: 'write the tslab kernel spec with absolute paths when the registered one would not start from a shell' },
  },
  async run(args) {
    const checks: Record<string, unknown> = {};
    const tryLoad = (m: string) => {
      try {
        require(m);
        return 'ok';
      } catch (e) {
        return `missing: ${(e as Error).message.split('\n')[0].slice(0, 120)}`;
      }
    };
    checks.node = process.version;
    checks.git = gitInfo();
    checks.hnswlib = tryLoad('hnswlib-node');
    checks.betterSqlite3 = tryLoad('better-sqlite3');
    try {
      const { initTf } = require('../../tf/backend') as typeof import('../../tf/backend');
      checks.tfjs = await initTf();
    } catch (e) {
      checks.tfjs = `error: ${(e as Error).message}`;
    }
    checks.jupyter = which('jupyter');
    checks.notebookUI = notebookFrontEnd().detail;
    checks.tslabKernelSpec = tslabSpecLine(args.values.fix === true);
    checks.tslabKernel = args.values['no-kernel'] ? 'not checked (--no-kernel)' : (await checkTslabKernel()).detail;
    checks.chromium = which('chromium') ?? (fs.existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : null);
    checks.shared = fs.existsSync(sharedDir()) ? sharedDir() : `absent (${sharedDir()}): benchmark tests and commands skip`;
    checks.modelEndpoint = process.env.OPENAI_BASE_URL ? process.env.OPENAI_BASE_URL : 'none: offline backend (results labelled offline)';
    if (args.values.json) console.log(JSON.stringify(checks));
    else for (const [k, v] of Object.entries(checks)) console.log(`${k.padEnd(14)} ${typeof v === 'string' || v === null ? v : JSON.stringify(v)}`);
  },
};
