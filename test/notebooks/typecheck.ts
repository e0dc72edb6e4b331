/**
 * Type-check notebook sources (notebooks/src/*.ts) the way tslab runs them:
 * all code cells of a notebook form one module with top-level await, importing
 * the compiled library as '../dist/lib/harness'. No kernel and no dist/ needed:
 * a temporary folder holds the sources under notebooks/ beside a `dist` link to
 * the repository, so '../dist/lib/harness' resolves to lib/harness.ts.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';

export interface NotebookTypeErrors {
  ok: boolean;
  /** tsc diagnostics about the notebook files only (lib/ is checked by the main tsconfig). */
  errors: string[];
}

export function typecheckNotebookSources(root: string, srcDir = path.join(root, 'notebooks', 'src')): NotebookTypeErrors {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kf-nb-tsc-'));
  try {
    const nbDir = path.join(tmp, 'notebooks');
    fs.mkdirSync(nbDir);
    const files = fs
      .readdirSync(srcDir)
      .filter((f) => f.endsWith('.ts'))
      .sort();
    for (const f of files) fs.copyFileSync(path.join(srcDir, f), path.join(nbDir, f));
    fs.symlinkSync(root, path.join(tmp, 'dist'), 'dir');
    fs.symlinkSync(path.join(root, 'node_modules'), path.join(tmp, 'node_modules'), 'dir');
    const tsconfig = {
      compilerOptions: {
        target: 'ES2022',
        module: 'ESNext',
        moduleResolution: 'Bundler',
        lib: ['ES2022', 'DOM'],
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        esModuleInterop: true,
        resolveJsonModule: true,
        types: ['node'],
        preserveSymlinks: true,
      },
      files: files.map((f) => `notebooks/${f}`),
    };
    fs.writeFileSync(path.join(tmp, 'tsconfig.json'), JSON.stringify(tsconfig));
    const r = spawnSync(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', tmp, '--pretty', 'false'], {
      cwd: tmp,
      encoding: 'utf8',
    });
    const lines = `${r.stdout ?? ''}${r.stderr ?? ''}`.split('\n').filter((l) => /^notebooks\/[^(]+\.ts\(/.test(l));
    return { ok: lines.length === 0, errors: lines };
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
