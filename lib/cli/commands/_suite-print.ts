import * as path from 'node:path';
import * as fs from 'node:fs';
import type { SuiteResult } from '../../report/suite';

/** Print where a suite's results went (shared by `kf suite` and `kf demo`). */
export function printSuiteResult(r: SuiteResult, json: boolean): void {
  if (json) {
    console.log(
      JSON.stringify({
        name: r.name,
        dir: r.dir,
        backend: r.backend,
        metric: r.metric,
        runs: r.runs,
        comparisons: r.comparisons.map((c) => ({
          runA: c.runA,
          runB: c.runB,
          n: c.n,
          meanA: c.meanA,
          meanB: c.meanB,
          diff: c.diff,
          won: c.won,
          lost: c.lost,
          tied: c.tied,
          signTestP: c.signTestP,
          bootstrapCI: c.bootstrapCI,
          se: c.se,
          warnings: c.warnings,
        })),
        summary: r.summary,
        figures: r.figures,
        tables: r.tables,
        incomplete: r.incomplete,
      }),
    );
    return;
  }
  const rel = (p?: string) => (p ? path.relative(process.cwd(), p) || '.' : '');
  console.log('');
  console.log(fs.readFileSync(r.summary, 'utf8').split('\n## Files')[0].trim());
  console.log('');
  console.log(`Results of ${r.name} (backend: ${r.backend}${r.backend === 'offline' ? ' -- not model results' : ''}):`);
  console.log(`  summary      ${rel(r.summary)}`);
  console.log(`  tables       ${rel(path.dirname(Object.values(r.tables)[0]?.md ?? r.dir))}/  (CSV + Markdown)`);
  console.log(`  comparisons  ${rel(path.join(r.dir, 'comparisons.md'))}`);
  for (const [k, f] of Object.entries(r.figures))
    console.log(
      `  figure       ${k}: ${[f.html, f.png, f.svg]
        .filter(Boolean)
        .map((p) => rel(p as string))
        .join(', ')}${f.skipped ? ` (${f.skipped})` : ''}`,
    );
  console.log(`  runs         ${r.runs.map((x) => rel(x.dir)).join(', ')}`);
  if (r.incomplete.length) console.log(`  INCOMPLETE   ${r.incomplete.join(', ')} -- rerun the same command to resume`);
}
