/**
 * The tslab kernel spec Jupyter starts TypeScript notebooks with. `tslab install`
 * writes `argv: ["tslab", "kernel", ...]`, a bare name that is on PATH only inside
 * npm scripts, so `jupyter notebook` opened from a shell shows "Kernel error".
 * This spec names this Node and this checkout's tslab by absolute path instead,
 * written to the user's Jupyter data folder (which Jupyter reads before the system
 * folders): `kf jupyter` and scripts/setup.sh write it, `kf doctor` says when the
 * registered one would not start.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { KfError } from '../util/errors';
import { writeFileAtomic } from '../util/fsx';
import { repoRoot } from '../util/paths';

export interface KernelSpecJson {
  argv: string[];
  display_name: string;
  language: string;
  env?: Record<string, string>;
}

/** This checkout's tslab entry point (through the node_modules link, resolved). */
export function tslabEntry(): string {
  const p = path.join(repoRoot(), 'node_modules', 'tslab', 'bin', 'tslab');
  if (!fs.existsSync(p)) throw new KfError('tslab_missing', `tslab is not installed (${p} is missing)`, 'run `npm ci` in the project');
  return fs.realpathSync(p);
}

/** The spec: this Node and this tslab by absolute path, so it starts whatever PATH the Jupyter server has. */
export function tslabKernelSpec(): KernelSpecJson {
  return {
    argv: [process.execPath, tslabEntry(), 'kernel', '--config-path', '{connection_file}'],
    display_name: 'TypeScript',
    language: 'typescript',
  };
}

function runPython(python: string, code: string, env: NodeJS.ProcessEnv): string {
  const r = spawnSync(python, ['-c', code], { env: { ...env, PYDEVD_DISABLE_FILE_VALIDATION: '1' }, encoding: 'utf8', timeout: 30_000 });
  if (r.status !== 0) {
    throw new KfError(
      'jupyter_broken',
      `${python} could not read the Jupyter kernel specs: ${(r.stderr || '').trim().split('\n').pop()}`,
      'bash scripts/setup.sh',
    );
  }
  return r.stdout.trim().split('\n').pop() ?? '';
}

/** The registered tslab spec (where it lives and what it runs), or undefined when none is. */
export function registeredTslabSpec(python: string, env: NodeJS.ProcessEnv = process.env): { dir: string; spec: KernelSpecJson } | undefined {
  const code =
    'import json\nfrom jupyter_client.kernelspec import KernelSpecManager as K\ns = K().get_all_specs().get("tslab")\n' +
    'print(json.dumps(s and {"dir": s["resource_dir"], "spec": s["spec"]}))';
  const out = JSON.parse(runPython(python, code, env) || 'null') as { dir: string; spec: KernelSpecJson } | null;
  return out ?? undefined;
}

/** Why a spec would not start from a plain shell (a bare command, a path that does not exist); undefined when it would. */
export function kernelSpecProblem(spec: KernelSpecJson): string | undefined {
  const [cmd, entry] = spec.argv;
  if (!cmd) return 'its argv is empty';
  if (!path.isAbsolute(cmd)) return `it runs a bare "${cmd}", found only where that is on PATH (npm scripts), not from a shell`;
  if (!fs.existsSync(cmd)) return `it runs ${cmd}, which does not exist`;
  if (entry && path.isAbsolute(entry) && !fs.existsSync(entry)) return `its tslab ${entry} does not exist`;
  return undefined;
}

/** Write the spec into the user's Jupyter data folder (kernels/tslab/kernel.json); returns the file. */
export function installTslabKernelSpec(python: string, env: NodeJS.ProcessEnv = process.env): string {
  const dataDir = runPython(python, 'from jupyter_core.paths import jupyter_data_dir\nprint(jupyter_data_dir())', env);
  const file = path.join(dataDir, 'kernels', 'tslab', 'kernel.json');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  writeFileAtomic(file, JSON.stringify(tslabKernelSpec(), null, 1) + '\n');
  return file;
}

/**
 * The tslab spec Jupyter will use, made startable: written when none is registered or the registered one
 * has a problem (kernelSpecProblem). Returns what was done, for one line of output.
 */
export function ensureStartableTslabSpec(
  python: string,
  env: NodeJS.ProcessEnv = process.env,
): { action: 'present' | 'written'; file: string; problem?: string } {
  const reg = registeredTslabSpec(python, env);
  const problem = reg ? kernelSpecProblem(reg.spec) : 'no tslab kernel is registered';
  if (reg && !problem) return { action: 'present', file: path.join(reg.dir, 'kernel.json') };
  const file = installTslabKernelSpec(python, env);
  const now = registeredTslabSpec(python, env);
  const still = now ? kernelSpecProblem(now.spec) : 'it is still not registered';
  if (still) {
    throw new KfError(
      'tslab_install_failed',
      `wrote ${file}, but Jupyter's tslab kernel spec ${now ? `(${now.dir})` : ''} still would not start: ${still}`,
      'check JUPYTER_PATH / JUPYTER_DATA_DIR and `jupyter kernelspec list`',
    );
  }
  return { action: 'written', file, problem };
}
