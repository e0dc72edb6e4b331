/**
 * `kf figures ...`: figure utilities. `render` turns saved Plotly spec files
 * ({data, layout}) into HTML/PNG/SVG offline (e.g. after installing chromium, or
 * to re-export at another size); `check` proves the offline export works here.
 * Logic lives in lib/report/figure.ts.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { CommandSpec } from '../command';
import { isPositiveInt, isNumber, list, str } from '../command';
import { KfError } from '../../util/errors';
import { readJson } from '../../util/fsx';
import {
  CHROMIUM_HINT,
  FIGURE_FORMATS,
  FigureExporter,
  barFigure,
  closeSharedExporter,
  findChromium,
  writeFigure,
  type FigureFormat,
  type FigureSpec,
} from '../../report/figure';

function parseFormats(values: string[]): FigureFormat[] {
  const out = values
    .flatMap((v) => v.split(','))
    .map((s) => s.trim())
    .filter(Boolean);
  for (const f of out) {
    if (!FIGURE_FORMATS.includes(f as FigureFormat))
      throw new KfError('bad_figure_format', `--formats: "${f}" is not a figure format`, `use ${FIGURE_FORMATS.join(',')}`);
  }
  return out.length ? (out as FigureFormat[]) : [...FIGURE_FORMATS];
}

export const commands: CommandSpec[] = [
  {
    name: 'figures render',
    group: 'report',
    summary: 'Export Plotly spec files (JSON {data, layout}) to HTML/PNG/SVG offline',
    positionals: [{ name: 'spec', description: 'JSON file(s) holding {data, layout[, width, height]}', required: true, variadic: true }],
    options: {
      out: { type: 'string', description: 'output folder (default: beside each spec)' },
      formats: { type: 'string', multiple: true, description: 'comma list of html,png,svg', default: 'html,png,svg' },
      width: { type: 'string', description: "width in CSS pixels (default the spec's, else 800)", validate: isPositiveInt },
      height: { type: 'string', description: "height in CSS pixels (default the spec's, else 500)", validate: isPositiveInt },
      scale: {
        type: 'string',
        description: 'PNG pixel density',
        default: '2',
        validate: (v) => isNumber(v) ?? (Number(v) > 0 && Number(v) <= 10 ? undefined : `expected a scale in (0, 10], got "${v}"`),
      },
    },
    examples: ['kf figures render results/x/accuracy.json', 'kf figures render a.json b.json --out /tmp/figs --formats png --scale 3'],
    async run(args) {
      const formats = parseFormats(list(args, 'formats'));
      const specs = args.positionals.map((file) => {
        const spec = readJson<FigureSpec>(file, 'figure spec');
        if (!spec || !Array.isArray(spec.data))
          throw new KfError('bad_figure', `figure spec ${file} has no "data" array`, 'a spec file is a Plotly figure: {"data": [...], "layout": {...}}', {
            concerns: file,
          });
        return { file, spec };
      });
      const needsBrowser = formats.some((f) => f !== 'html');
      const exporter = needsBrowser && findChromium() ? await FigureExporter.open() : undefined;
      try {
        for (const { file, spec } of specs) {
          const dir = str(args, 'out') ?? path.dirname(path.resolve(file));
          const name =
            path
              .basename(file)
              .replace(/\.json$/i, '')
              .replace(/[^A-Za-z0-9._-]/g, '_')
              .replace(/^[^A-Za-z0-9]+/, '') || 'figure';
          const w = str(args, 'width'),
            h = str(args, 'height');
          const out = await writeFigure(
            { ...spec, width: w ? Number(w) : spec.width, height: h ? Number(h) : spec.height },
            {
              dir,
              name,
              formats,
              exporter,
              scale: Number(str(args, 'scale') ?? '2'),
            },
          );
          for (const [k, v] of Object.entries(out)) if (k !== 'skipped') console.log(`${k.padEnd(4)} ${v}`);
        }
      } finally {
        await exporter?.close();
        await closeSharedExporter();
      }
    },
  },
  {
    name: 'figures check',
    group: 'report',
    summary: 'Check offline figure export (chromium + plotly): renders a test figure and reports timings',
    async run() {
      const exe = findChromium();
      if (!exe) throw new KfError('chromium_missing', 'chromium not found: figures get HTML only, no PNG/SVG', CHROMIUM_HINT);
      const t0 = Date.now();
      const ex = await FigureExporter.open({ executablePath: exe });
      const tOpen = Date.now() - t0;
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kf-figcheck-'));
      try {
        const spec = barFigure({ title: 'check', categories: ['a', 'b'], series: [{ name: 's', values: [1, 2], lo: [0.5, 1.5], hi: [1.5, 2.5] }] });
        const t1 = Date.now();
        const p = await writeFigure(spec, { dir, name: 'check', exporter: ex });
        const tFig = Date.now() - t1;
        const png = fs.readFileSync(p.png!);
        if (png.readUInt32BE(0) !== 0x89504e47) throw new KfError('figure_check_failed', 'the test PNG is not a PNG', 'rerun with KF_DEBUG=1');
        console.log(`chromium ${exe}: browser + plotly ready in ${(tOpen / 1000).toFixed(1)} s, one figure (html+png+svg) in ${(tFig / 1000).toFixed(2)} s`);
      } finally {
        await ex.close();
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  },
];
