/**
 * `kf train gnn pool`: the GNN against the heuristic per corpus and pooled over corpora (paired sign tests over
 * every dev question), from the reports `kf train gnn` wrote. Writes <out>/pooled-gnn.json and pooled-gnn.md.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { CommandSpec } from '../../pipeline/command';
import { str } from '../../pipeline/command';
import { pooledMarkdown, pooledReport, type CorpusRows } from '../train/pooled-report';
import { KfError } from '../../util/errors';
import { gnnRowLabel } from '../train/preset-run';

function readReport(file: string): CorpusRows & { preset?: string } {
  let raw: { kind?: string; bench?: string; baseQueries?: string; gnn?: { preset?: string }; perQuestion?: CorpusRows['perQuestion'] };
  try {
    raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    throw new KfError('bad_input', `cannot read the training report ${file}: ${(e as Error).message}`, 'pass the <bench>-gnn.json files kf train gnn wrote', {
      concerns: file,
    });
  }
  if (raw.kind !== 'dualg-gnn-training-report' || !raw.bench || !raw.perQuestion?.heuristic)
    throw new KfError(
      'bad_input',
      `${file} is not a kf train gnn report (kind dualg-gnn-training-report with perQuestion rows)`,
      'pass the <bench>-gnn.json files kf train gnn wrote',
      {
        concerns: file,
      },
    );
  const gnn = raw.gnn ? gnnRowLabel(raw.gnn as Parameters<typeof gnnRowLabel>[0]) : undefined;
  return { bench: raw.bench, baseQueries: raw.baseQueries, ...(gnn ? { gnn, preset: raw.gnn?.preset } : {}), perQuestion: raw.perQuestion };
}

/** Reports of different GNN presets are not one system: pooling them would test a mixture. Older reports record none. */
function samePreset(files: string[], rows: (CorpusRows & { preset?: string })[]): void {
  const presets = new Set(rows.map((r) => r.preset).filter(Boolean));
  if (presets.size > 1)
    throw new KfError(
      'bad_input',
      `the reports are of different GNN presets (${[...presets].join(', ')}): ${files.join(', ')}`,
      'pool reports trained with the same --preset',
      { concerns: 'preset' },
    );
}

export const command: CommandSpec = {
  name: 'train gnn pool',
  group: 'evaluate',
  summary: 'Pool kf train gnn reports over corpora: GNN vs heuristic per question, per corpus and pooled, with paired sign tests',
  positionals: [{ name: 'reports', description: '<bench>-gnn.json files written by kf train gnn', required: true, variadic: true }],
  options: {
    out: { type: 'string', description: "folder for pooled-gnn.json and pooled-gnn.md (default: the first report's folder)" },
  },
  examples: ['kf train gnn pool /tmp/gnn/2wiki/2wiki-gnn.json /tmp/gnn/hotpotqa/hotpotqa-gnn.json /tmp/gnn/musique/musique-gnn.json --out /tmp/gnn'],
  async run(args) {
    const files = args.positionals.map((f) => path.resolve(f));
    const rows = files.map(readReport);
    samePreset(files, rows);
    const report = pooledReport(rows);
    const out = path.resolve(str(args, 'out') ?? path.dirname(files[0]));
    fs.mkdirSync(out, { recursive: true });
    fs.writeFileSync(path.join(out, 'pooled-gnn.json'), `${JSON.stringify(report, null, 1)}\n`);
    const md = pooledMarkdown(report);
    fs.writeFileSync(path.join(out, 'pooled-gnn.md'), md);
    console.log(md);
    console.log(`wrote ${path.join(out, 'pooled-gnn.json')} and pooled-gnn.md`);
  },
};
