/**
 * `kf jupyter`: open the notebooks in Jupyter's classic UI, set up so it works the
 * first time: the tslab kernel spec names Node and tslab by absolute path (a bare
 * `tslab` is "Kernel error" outside npm scripts), `--allow-root` is added when
 * running as root (the setup's normal case, which Jupyter otherwise refuses).
 * `--install-kernel` only writes the kernel spec (scripts/setup.sh calls it).
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { bool, str, type CommandSpec } from '../command';
import { findJupyterPython } from '../../report/notebooks';
import { ensureStartableTslabSpec } from '../../report/tslab-kernelspec';
import { KfError } from '../../util/errors';
import { repoRoot } from '../../util/paths';

/** The `jupyter notebook` arguments: the folder, root's flag, and the pass-through options given. */
export function jupyterArgs(o: { dir: string; port?: string; ip?: string; token?: string; noBrowser?: boolean; isRoot: boolean }): string[] {
  const args = ['notebook', `--notebook-dir=${o.dir}`];
  if (o.isRoot) args.push('--allow-root');
  if (o.noBrowser) args.push('--no-browser');
  if (o.port) args.push(`--port=${o.port}`);
  if (o.ip) args.push(`--ip=${o.ip}`);
  if (o.token !== undefined) args.push(`--NotebookApp.token=${o.token}`);
  return args;
}

export const command: CommandSpec = {
  name: 'jupyter',
  group: 'report',
  summary: 'Open the notebooks in Jupyter (tslab kernel spec with absolute paths, --allow-root as root)',
  options: {
    dir: { type: 'string', description: 'folder to open (default notebooks/; executed copies are in results/notebooks/)' },
    port: { type: 'string', description: 'port of the server (jupyter --port)' },
    ip: { type: 'string', description: "address to listen on (default Jupyter's: localhost)" },
    token: { type: 'string', description: 'access token (default: Jupyter makes one and prints the URL)' },
    'no-browser': { type: 'boolean', description: 'do not open a browser (print the URL only)' },
    'install-kernel': { type: 'boolean', description: 'only write the tslab kernel spec and exit' },
  },
  examples: ['kf jupyter', 'kf jupyter --dir results/notebooks --no-browser --port 8888', 'kf jupyter --install-kernel'],
  async run(args) {
    const python = findJupyterPython();
    // The server's PATH is the shell's: the kernel spec's absolute paths are what start the kernel.
    const env: NodeJS.ProcessEnv = { ...process.env, PYDEVD_DISABLE_FILE_VALIDATION: '1' };
    const spec = ensureStartableTslabSpec(python, env);
    if (spec.action === 'written') console.error(`kf jupyter: wrote the tslab kernel spec ${spec.file} (${spec.problem})`);
    else if (bool(args, 'install-kernel')) console.error(`kf jupyter: the tslab kernel spec ${spec.file} starts from any shell`);
    if (bool(args, 'install-kernel')) return 0;
    const dir = path.resolve(str(args, 'dir') ?? path.join(repoRoot(), 'notebooks'));
    if (!fs.existsSync(dir)) throw new KfError('notebooks_missing', `--dir ${dir} does not exist`, 'pass a folder of notebooks (default notebooks/)');
    const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
    const argv = jupyterArgs({ dir, port: str(args, 'port'), ip: str(args, 'ip'), token: str(args, 'token'), noBrowser: bool(args, 'no-browser'), isRoot });
    console.error(`kf jupyter: jupyter ${argv.join(' ')}`);
    const child = spawn('jupyter', argv, { env, stdio: 'inherit' });
    const forward = (sig: NodeJS.Signals) => child.kill(sig);
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    try {
      return await new Promise<number>((resolve, reject) => {
        child.on('error', (e) =>
          reject(new KfError('jupyter_missing', `jupyter could not start: ${e.message}`, 'apt-get install jupyter-notebook (bash scripts/setup.sh does it)')),
        );
        child.on('exit', (code, signal) => resolve(code ?? (signal ? 130 : 1)));
      });
    } finally {
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
    }
  },
};
