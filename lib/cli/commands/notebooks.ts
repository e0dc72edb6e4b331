/**
 * `kf notebooks`: execute notebooks/*.ipynb headlessly (tslab kernel), executed
 * copies to results/notebooks/, stop at the first failing cell. Logic lives in
 * lib/report/notebooks.ts.
 */
import * as path from 'node:path';
import type { CommandSpec } from '../command';
import { bool, isNumber, str } from '../command';
import { KfError } from '../../util/errors';
import { repoRoot } from '../../util/paths';
import { buildLibrary, listNotebooks, runNotebooks, staleBuild } from '../../report/notebooks';
import { firstLine } from '../../report/notebooks';
import { cellSource, readNotebook } from '../../report/ipynb';

const rel = (p: string) => {
  const r = path.relative(process.cwd(), p);
  return r && !r.startsWith('..') ? r : p;
};

export const command: CommandSpec = {
  name: 'notebooks',
  group: 'report',
  summary: 'Execute every notebooks/*.ipynb headlessly (tslab kernel); stop at the first failing cell',
  options: {
    only: { type: 'string', description: 'run only notebooks whose file name contains this text' },
    dir: { type: 'string', description: 'folder of the notebooks to run', default: 'notebooks' },
    out: { type: 'string', description: 'folder for the executed copies (sources are never overwritten)', default: 'results/notebooks' },
    timeout: {
      type: 'string',
      description: 'seconds allowed for the cells of one notebook (the kernel start has its own limit: KF_KERNEL_START_S, default 180 s)',
      default: '900',
      validate: (v) => isNumber(v) ?? (Number(v) > 0 ? undefined : `expected a positive number of seconds, got "${v}"`),
    },
    build: { type: 'boolean', description: 'compile the library (tsc -> dist/) first: notebooks import dist/' },
    list: { type: 'boolean', description: 'list the notebooks that would run, and exit' },
    verbose: { type: 'boolean', short: 'v', description: 'print every cell as it finishes' },
  },
  examples: [
    'kf notebooks',
    'kf notebooks --only 00 --timeout 300          # 00-quickstart.ipynb',
    'kf notebooks --only dualg --list',
    'kf notebooks --build --out /tmp/nb',
    'kf notebooks --dir test/__fixtures__/notebooks --only pass --out /tmp/nb',
  ],
  async run(args) {
    const root = repoRoot();
    const dir = path.resolve(root, str(args, 'dir') ?? 'notebooks');
    const outDir = path.resolve(str(args, 'out') ?? 'results/notebooks');
    const only = str(args, 'only');
    if (bool(args, 'list')) {
      for (const f of listNotebooks(dir, only)) console.log(rel(f));
      return 0;
    }
    if (bool(args, 'build')) {
      const t0 = Date.now();
      const b = buildLibrary(root);
      // tsc emits despite type errors (noEmitOnError false): report them, keep going.
      console.log(`built dist/ in ${((Date.now() - t0) / 1000).toFixed(1)} s${b.ok ? '' : ' (with type errors: see `npx tsc -p . --noEmit`)'}`);
    } else {
      const stale = staleBuild(root);
      if (stale.length)
        console.warn(
          `warning: dist/ is older than ${stale.length} lib file(s) (e.g. ${stale[0]}); notebooks import dist/ -- add --build or run \`npm run build\``,
        );
    }
    const verbose = bool(args, 'verbose');
    let heartbeat: NodeJS.Timeout | undefined;
    const started = Date.now();
    try {
      const runs = await runNotebooks({
        notebooksDir: dir,
        outDir,
        only,
        timeoutS: Number(str(args, 'timeout') ?? '900'),
        onStart: (f, i, n) => console.log(`[${i + 1}/${n}] ${path.basename(f)} ...`),
        onProgress: (f, p) => {
          if (heartbeat) clearTimeout(heartbeat);
          if (p.status === 'ok' && verbose) console.log(`    cell ${p.cell} (${p.n}/${p.of}) ok ${p.seconds?.toFixed(1)} s`);
          if (p.status === 'start') {
            // A long cell gets one line after 20 s so a run never looks hung.
            heartbeat = setTimeout(() => {
              let line = '';
              try {
                line = firstLine(cellSource(readNotebook(f).cells[p.cell]));
              } catch {
                /* name only */
              }
              console.log(`    still running cell ${p.cell} (${p.n}/${p.of})${line ? `: ${line}` : ''}`);
            }, 20_000);
          }
        },
        onDone: (r) => console.log(`    ok  ${r.codeCells} code cells, ${r.seconds.toFixed(1)} s -> ${rel(r.output)}`),
      });
      console.log(`${runs.length} notebook(s) ran in ${((Date.now() - started) / 1000).toFixed(1)} s; executed copies in ${rel(outDir)}`);
    } catch (e) {
      if (e instanceof KfError) throw e;
      throw new KfError('notebooks_failed', `running notebooks failed: ${(e as Error).message}`, 'set KF_DEBUG=1 for details', { cause: e });
    } finally {
      if (heartbeat) clearTimeout(heartbeat);
    }
  },
};
