/**
 * Generate notebooks/<name>.ipynb from notebooks/src/<name>.ts (percent format:
 * `// %%` code cells, `// %% [markdown]` markdown cells, see parsePercentScript in
 * lib/report/ipynb.ts). The .ts source is what people edit and review; the
 * .ipynb is regenerated, deterministic (stable cell ids, no outputs).
 *
 *   node --import tsx scripts/make-notebooks.ts            # write every notebook
 *   node --import tsx scripts/make-notebooks.ts 02-demo    # only names containing "02-demo"
 *   node --import tsx scripts/make-notebooks.ts --check    # exit 1 if a notebook is out of date (CI)
 *   ... --src other/src --out other    # other folders (default notebooks/src -> notebooks)
 *
 * Notebooks written by hand in Jupyter (no src/ file) are left alone.
 */
import { exitWithHelpIfAsked } from '../lib/util/script-args';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { repoRoot } from '../lib/util/paths';
import { makeNotebook, notebookToString, parsePercentScript } from '../lib/report/ipynb';
import { writeFileAtomic } from '../lib/util/fsx';
import { errorMessage } from '../lib/util/errors';

function main(argv: string[]): number {
  const check = argv.includes('--check');
  const opt = (name: string) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const filters = argv.filter((a, i) => !a.startsWith('--') && !['--src', '--out'].includes(argv[i - 1]));
  const root = repoRoot();
  const srcDir = path.resolve(opt('--src') ?? path.join(root, 'notebooks', 'src'));
  const outDir = path.resolve(opt('--out') ?? path.join(root, 'notebooks'));
  if (!fs.existsSync(srcDir)) {
    console.error(`make-notebooks: ${path.relative(root, srcDir)}/ does not exist -- put notebook sources there as <name>.ts`);
    return 1;
  }
  const sources = fs
    .readdirSync(srcDir)
    .filter((f) => f.endsWith('.ts'))
    .sort()
    .filter((f) => !filters.length || filters.some((x) => f.includes(x)));
  if (!sources.length) {
    console.error(`make-notebooks: no ${filters.length ? `matching ` : ''}.ts sources in ${path.relative(root, srcDir)}/`);
    return 1;
  }
  let stale = 0;
  for (const f of sources) {
    const file = path.join(srcDir, f);
    const cells = parsePercentScript(fs.readFileSync(file, 'utf8'), path.relative(root, file));
    const text = notebookToString(makeNotebook(cells, { kernel: 'tslab', meta: { source: path.relative(root, file).split(path.sep).join('/') } }));
    const out = path.join(outDir, f.replace(/\.ts$/, '.ipynb'));
    const same = fs.existsSync(out) && fs.readFileSync(out, 'utf8') === text;
    if (check) {
      if (!same) {
        stale++;
        console.error(`out of date: ${path.relative(root, out)} (regenerate: node --import tsx scripts/make-notebooks.ts)`);
      }
      continue;
    }
    if (!same) writeFileAtomic(out, text);
    console.log(`${same ? 'unchanged' : 'wrote    '} ${path.relative(root, out)} (${cells.length} cells)`);
  }
  return stale ? 1 : 0;
}

try {
  exitWithHelpIfAsked(__filename, { check: { type: 'boolean' }, src: { type: 'string' }, out: { type: 'string' } });
  process.exitCode = main(process.argv.slice(2));
} catch (e) {
  console.error(`make-notebooks: ${errorMessage(e)}`);
  process.exitCode = 1;
}
