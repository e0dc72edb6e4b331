/**
 * The trained GNN against its baselines over several corpora at once: per-question rows of the
 * training reports of kf train gnn (<out>/<bench>-gnn.json), pooled (question ids
 * prefixed by the corpus), with paired sign tests and bootstrap intervals per metric.
 *   node --import tsx scripts/dualg-gnn-pooled.ts results/dualg-gnn/2wiki/2wiki-gnn.json results/dualg-gnn/musique/musique-gnn.json ...
 */
import { exitWithHelpIfAsked } from './_script-args';
import fs from 'node:fs';
import { comparePaired } from '../lib/eval/stats';
import { METHODS, PAIRED_METRICS } from '../lib/dualg/train/compare';
import type { QuestionMetrics } from '../lib/dualg/train/evaluate';

type Report = { bench: string; perQuestion: Record<string, QuestionMetrics[]> };

function main(files: string[]): void {
  if (!files.length) throw new Error('usage: dualg-gnn-pooled.ts <report.json> [...]');
  const reports = files.map((f) => JSON.parse(fs.readFileSync(f, 'utf8')) as Report);
  const rows = (method: string, metric: (typeof PAIRED_METRICS)[number]) =>
    new Map(reports.flatMap((r) => (r.perQuestion[method] ?? []).map((q) => [`${r.bench}/${q.id}`, q[metric]] as [string, number])));
  console.log(`pooled over ${reports.map((r) => r.bench).join(', ')}`);
  for (const other of METHODS.slice(1)) {
    const parts = PAIRED_METRICS.map((m) => {
      const c = comparePaired(rows('gnn-kfold', m), rows(other, m));
      const ci = c.bootstrapCI ? ` [${c.bootstrapCI[0].toFixed(3)}, ${c.bootstrapCI[1].toFixed(3)}]` : '';
      return `${m} ${c.meanA.toFixed(3)} vs ${c.meanB.toFixed(3)} ${c.won}/${c.lost}/${c.tied} p=${c.signTestP.toPrecision(3)}${ci}`;
    });
    console.log(`gnn-kfold vs ${other} (n=${rows('gnn-kfold', 'r2').size}): ${parts.join('; ')}`);
  }
}

exitWithHelpIfAsked(__filename);
main(process.argv.slice(2));
