/** The training report: JSON with the loss curves, validation per epoch and the comparisons, plus Plotly figures. */
import fs from 'node:fs';
import path from 'node:path';
import { lineFigure, writeFigure } from '../../report/figure';
import type { EpochRecord } from '../train/trainer';

/** What the validation and monitored sets are, for the legend (a text corpus: synthetic queries and dev questions). */
export interface ReportLabels {
  validation: string;
  monitor: string;
}

const DEFAULT_LABELS: ReportLabels = { validation: 'synthetic validation (held out)', monitor: 'dev questions (never trained on)' };

export async function writeTrainingReport(
  dir: string,
  name: string,
  report: Record<string, unknown>,
  history: EpochRecord[],
  log?: (l: string) => void,
  labels: ReportLabels = DEFAULT_LABELS,
): Promise<string[]> {
  fs.mkdirSync(dir, { recursive: true });
  const jsonPath = path.join(dir, `${name}.json`);
  fs.writeFileSync(jsonPath, `${JSON.stringify(report, null, 1)}\n`);
  const written = [jsonPath];
  if (!history.length) return written;
  const x = history.map((h) => `${h.phase === 'pretrain' ? 'pre-train' : 'fine-tune'} ${h.epoch}`);
  const specs = [
    lineFigure({
      title: `GNN training loss: ${name}`,
      xTitle: 'epoch',
      yTitle: 'mean loss',
      x,
      series: [{ name: 'training loss', values: history.map((h) => h.meanLoss) }],
    }),
  ];
  const ft = history.filter((h) => h.val || h.monitor);
  if (ft.length) {
    const series = [];
    if (ft.every((h) => h.val)) series.push({ name: `${labels.validation} R@5`, values: ft.map((h) => h.val!.r5) });
    if (ft.every((h) => h.monitor))
      series.push(
        { name: `${labels.monitor} R@5`, values: ft.map((h) => h.monitor!.r5) },
        { name: `${labels.monitor} R@2`, values: ft.map((h) => h.monitor!.r2) },
      );
    if (series.length)
      specs.push(
        lineFigure({
          title: `GNN validation recall per epoch: ${name}`,
          xTitle: 'fine-tuning epoch',
          yTitle: 'recall',
          x: ft.map((h) => `epoch ${h.epoch}`),
          series,
        }),
      );
  }
  for (const [i, spec] of specs.entries()) {
    try {
      const paths = await writeFigure(spec, { dir, name: `${name}-${i === 0 ? 'loss' : 'recall'}`, formats: ['html', 'png'], warn: log });
      written.push(...Object.values(paths).filter((p): p is string => typeof p === 'string'));
    } catch (e) {
      log?.(`figure not written: ${(e as Error).message}`);
    }
  }
  return written;
}
