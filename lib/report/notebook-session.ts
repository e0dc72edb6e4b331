/**
 * One notebook's outputs: results/<notebook>/ with tables (CSV + Markdown),
 * figures (HTML with plotly beside it, PNG, SVG) and a manifest.json that says
 * what produced them (parameters, run ids, seed, commit, backend, model ids,
 * inputs, and what was skipped). Notebooks stay thin:
 *
 *   const nb = kf.notebook.open('21-role-ablation', { params: { preset: PRESET, limit: LIMIT }, seed: SEED });
 *   const runs = await kf.notebook.runConfigurations(nb, [...]);   // registers the runs with nb
 *   nb.table(rows, 'f1-by-config', { caption: '...' });            // written + shown inline
 *   await nb.figure(kf.barFigure({...}), 'f1-by-config');          // offline note added when any run is offline
 *   await nb.finish();                                             // manifest.json, figure browser closed
 *
 * Every figure of a session whose runs came (even partly) from the offline
 * backend gets the offline note in its title, whatever spec the notebook
 * built: offline numbers are never shown as model results.
 *
 * A table or figure names the departures from the paper of the runs it draws: those given as
 * `runs` (labels, run ids, runs, or runConfigurations' map), else those the kit helper that built
 * its rows tagged (lib/report/drawn-runs.ts), else every run the notebook registered.
 *
 * KF_NB_RESULTS moves the results root (tests write into a temporary folder).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { KfError } from '../util/errors';
import { backendLabel } from '../run/aggregate';
import { departureCaption, departureText, type Departure } from '../run/departures';
import { drawnRuns, runRefs, type DrawnRuns } from './drawn-runs';
import { summarizeRun, type LoadedRun } from '../run/results';
import { OFFLINE_NOTE, resultManifest, writeManifest, type WrittenPaths } from '../run/result-manifest';
import { checkOutputName, writeTable, type Row, type TableOptions, type TablePaths } from './table';
import { writeFigure, type FigurePaths, type FigureSpec } from './figure';
import { closeFigures, exporter, notebookResultsRoot, showFigure, showMarkdown, showTable } from './notebook-kit';
import { findChromium } from './figure';

export { notebookResultsRoot };

export interface SessionRun {
  label: string;
  runId: string;
  dir: string;
  backend: string;
  models: string[];
  configHash?: string;
  n: number;
  /** The run's departures from the paper (stand-ins, fallbacks, variants, with counts), as its manifest lists them. */
  departures?: string[];
}

export interface NotebookSessionOptions {
  /** Parameters of the notebook (its parameters cell): stored in the manifest. */
  params?: Record<string, unknown>;
  seed?: string | number;
  /** Print a line per file written (default true). */
  verbose?: boolean;
}

/** Notes that a figure or table must carry for the given backend label. */
export function backendNotes(backend: string): string[] {
  if (backend === 'offline') return [OFFLINE_NOTE];
  if (backend === 'mixed') return ['mixed backends: offline parts are not model results'];
  return [];
}

/** Put `note` into a figure's title (second line), unless it is already there. */
export function labelFigure(spec: FigureSpec, note: string | undefined): FigureSpec {
  if (!note) return spec;
  const layout = { ...(spec.layout ?? {}) };
  const title = layout.title as { text?: string } | string | undefined;
  const text = typeof title === 'string' ? title : (title?.text ?? '');
  if (text.includes(note)) return spec;
  const line = `<span style="font-size:12px;color:#666">${note}</span>`;
  layout.title = { ...(typeof title === 'object' ? title : { x: 0.02, xanchor: 'left' }), text: text ? `${text}<br>${line}` : line };
  const margin = (layout.margin ?? {}) as Record<string, number>;
  layout.margin = { ...margin, t: Math.max(margin.t ?? 0, text ? 115 : 80) };
  return { ...spec, layout };
}

/** The backend note, then one line naming the departures from the paper of the drawn runs. */
function notesOf(drawn: { backend: string; departures: Departure[][] }, extra: string[] = []): string[] {
  const departures = departureCaption(drawn.departures.map((d) => ({ manifest: { departures: d } })));
  return [...backendNotes(drawn.backend), ...(departures ? [departures] : []), ...extra];
}

export class NotebookSession {
  readonly dir: string;
  readonly params: Record<string, unknown>;
  readonly seed: string | number;
  private readonly runs = new Map<string, SessionRun>();
  private readonly runDepartures = new Map<string, Departure[]>();
  private readonly inputs: Record<string, unknown> = {};
  private readonly skipped: { what: string; why: string }[] = [];
  private readonly extraBackends = new Set<string>();
  private readonly written: WrittenPaths[] = [];
  private readonly byName = new Map<string, TablePaths | FigurePaths>();
  /** Output name -> the run ids it draws, for outputs that said which (manifest.json `drawn`). */
  private readonly drawn = new Map<string, string[]>();
  private readonly verbose: boolean;

  constructor(
    readonly name: string,
    opts: NotebookSessionOptions = {},
  ) {
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name))
      throw new KfError(
        'bad_notebook_name',
        `notebook name "${name}" is not a plain folder name`,
        'use the notebook file name without .ipynb, e.g. "21-role-ablation"',
      );
    this.dir = path.join(notebookResultsRoot(), name);
    fs.mkdirSync(this.dir, { recursive: true });
    this.params = opts.params ?? {};
    this.seed = opts.seed ?? 0;
    this.verbose = opts.verbose ?? true;
  }

  /** Record a run whose numbers this notebook shows (its id, backend and models go into the manifest). */
  useRun(label: string, run: LoadedRun): void {
    const s = summarizeRun(run);
    const departures = run.manifest?.departures ?? [];
    this.runs.set(run.runId, {
      label,
      runId: run.runId,
      dir: run.dir,
      backend: s.backend,
      models: s.models,
      configHash: s.configHash,
      n: s.n,
      ...(departures.length ? { departures: departures.map(departureText) } : {}),
    });
    this.runDepartures.set(run.runId, departures);
  }

  /** Results that did not come from a run of this harness (e.g. 'recorded' peers, 'published' numbers): shown in notes. */
  useSource(backend: string): void {
    this.extraBackends.add(backend);
  }

  /** An input file or value (data files, subsets) for the manifest. */
  input(key: string, value: unknown): void {
    this.inputs[key] = value;
  }

  /** Say (and record) that a part of the notebook was skipped, and why. */
  skip(what: string, why: string): void {
    this.skipped.push({ what, why });
    console.log(`skipped: ${what} -- ${why}`);
  }

  get skips(): readonly { what: string; why: string }[] {
    return this.skipped;
  }

  get runList(): SessionRun[] {
    return [...this.runs.values()];
  }

  /** Backend label of the runs shown ('offline', 'openai', 'mixed', or 'none' without runs). */
  get backend(): string {
    const b = this.runList.map((r) => r.backend);
    return b.length ? backendLabel(b) : 'none';
  }

  /**
   * The notes a table or figure carries: the backend label, then the departures from the paper of the
   * runs it draws (`runs`; every registered run when not given or when it names none).
   */
  notes(extra: string[] = [], runs?: DrawnRuns): string[] {
    return notesOf(this.drawnOf(runs, 'notes'), extra);
  }

  /** The runs `runs` names (registered labels or ids, or runs), with their backend label and departures. */
  private drawnOf(runs: DrawnRuns | undefined, what: string): { ids?: string[]; backend: string; departures: Departure[][] } {
    const picked = new Map<string, { backend: string; departures: Departure[] }>();
    for (const ref of runs === undefined ? [] : runRefs(runs)) {
      if (typeof ref !== 'string' && typeof ref?.runId !== 'string')
        throw new KfError(
          'unknown_run',
          `${what}: \`runs\` holds ${JSON.stringify(ref)?.slice(0, 60)}, not a run`,
          'pass labels, run ids or runs, the map runConfigurations returned, or rows a kit helper built (summaryRows, pairedRows, ...)',
        );
      if (typeof ref !== 'string') {
        const backend = this.runs.get(ref.runId)?.backend ?? summarizeRun(ref).backend;
        picked.set(ref.runId, { backend, departures: ref.manifest?.departures ?? [] });
        continue;
      }
      const matches = this.runList.filter((r) => r.runId === ref || r.label === ref);
      // A configuration the notebook skipped draws nothing: naming it is no mistake.
      if (!matches.length && this.skipped.some((s) => s.what === `configuration ${ref}`)) continue;
      if (!matches.length)
        throw new KfError(
          'unknown_run',
          `${what}: "${ref}" is not a run this notebook registered`,
          `name a label or run id given to runConfigurations / useRun (${this.runList.map((r) => r.label).join(', ') || 'none yet'}), or pass the run itself`,
        );
      for (const r of matches) picked.set(r.runId, { backend: r.backend, departures: this.runDepartures.get(r.runId) ?? [] });
    }
    // Nothing named: every registered run, so that nothing is under-labelled.
    if (!picked.size) return { backend: this.backend, departures: [...this.runDepartures.values()] };
    const v = [...picked.values()];
    return { ids: [...picked.keys()], backend: backendLabel(v.map((x) => x.backend)), departures: v.map((x) => x.departures) };
  }

  /** Session notes of an output (none with sessionNotes: false), remembering which runs it draws. */
  private outputNotes(name: string, runs: DrawnRuns | undefined, sessionNotes: boolean | undefined): string[] {
    if (sessionNotes === false) return [];
    const drawn = this.drawnOf(runs, name);
    if (drawn.ids) this.drawn.set(name, drawn.ids);
    else this.drawn.delete(name);
    return notesOf(drawn);
  }

  /**
   * Write <dir>/<name>.csv + .md and show the table inline. A table with no rows and no declared
   * columns has nothing to say (not even a header): it is skipped with a note, like an empty figure,
   * and a copy left by an earlier run is removed so the folder never shows stale numbers.
   */
  table(rows: Row[], name: string, opts: TableOptions & { sessionNotes?: boolean; runs?: DrawnRuns } = {}): void {
    if (!rows.length && !opts.columns?.length) {
      checkOutputName(name, 'table');
      this.skip(`table ${name}`, 'no rows (the inputs it summarises are absent)');
      for (const ext of ['csv', 'md']) fs.rmSync(path.join(this.dir, `${name}.${ext}`), { force: true });
      return;
    }
    const { sessionNotes, runs, ...rest } = opts;
    const withNotes = { ...rest, notes: [...this.outputNotes(name, runs ?? drawnRuns(rows), sessionNotes), ...(opts.notes ?? [])] };
    const paths = writeTable(rows, { ...withNotes, dir: this.dir, name });
    this.written.push(paths);
    this.byName.set(name, paths);
    showTable(rows, withNotes);
    if (this.verbose) console.log(`wrote ${path.relative(notebookResultsRoot(), paths.csv)} (+ .md)`);
  }

  /**
   * The files a table or figure of this session was written to (undefined when it was skipped).
   * table(), figure() and finish() return nothing on purpose: a notebook cell ending with one of
   * them would otherwise print the returned object (tslab echoes a cell's last value).
   */
  output(name: string): TablePaths | FigurePaths | undefined {
    return this.byName.get(name);
  }

  /**
   * Write <dir>/<name>.{html,png,svg} (offline note added to the title when due) and show it inline.
   * Pass a function building the spec: when there is nothing to draw (no runs, every configuration
   * skipped), the figure is skipped with a note instead of failing the notebook.
   */
  async figure(
    spec: FigureSpec | (() => FigureSpec),
    name: string,
    opts: { note?: string | string[]; sessionNotes?: boolean; runs?: DrawnRuns } = {},
  ): Promise<void> {
    let built: FigureSpec;
    try {
      built = typeof spec === 'function' ? spec() : spec;
    } catch (e) {
      if (e instanceof KfError && e.code === 'bad_figure_data') {
        this.skip(`figure ${name}`, `nothing to draw (${e.message})`);
        return;
      }
      throw e;
    }
    let labelled = built;
    // sessionNotes: false only for figures of published numbers alone (no run of this session in them).
    const notes = this.outputNotes(name, opts.runs ?? drawnRuns(built), opts.sessionNotes);
    for (const note of [...notes, ...[opts.note ?? []].flat()]) labelled = labelFigure(labelled, note);
    const paths = await writeFigure(labelled, { dir: this.dir, name, exporter: findChromium() ? await exporter() : undefined });
    this.written.push(paths);
    this.byName.set(name, paths);
    await showFigure(paths);
    if (this.verbose)
      console.log(`wrote ${path.relative(notebookResultsRoot(), paths.html ?? name)}${paths.png ? ' (+ .png, .svg)' : ` (${paths.skipped ?? 'HTML only'})`}`);
  }

  /** A Markdown paragraph inline (not written). */
  say(md: string): void {
    showMarkdown(md);
  }

  /** Write manifest.json (parameters, runs, seed, commit, backend, models, inputs, skips) and close the figure browser. */
  async finish(): Promise<void> {
    const runs = this.runList;
    const models = [...new Set(runs.flatMap((r) => r.models))].sort();
    const backend = [this.backend, ...this.extraBackends].filter((b) => b !== 'none').join(' + ') || 'none';
    const stamp = resultManifest({
      config: { notebook: this.name, params: this.params },
      seed: this.seed,
      models,
      backend,
      extra: { runs, ...(this.drawn.size ? { drawn: Object.fromEntries(this.drawn) } : {}), inputs: this.inputs, skipped: this.skipped },
    });
    const file = writeManifest(this.dir, stamp, this.written);
    await closeFigures();
    if (this.skipped.length) console.log(`${this.skipped.length} part(s) skipped: ${this.skipped.map((s) => s.what).join('; ')}`);
    console.log(`manifest: ${file}`);
  }
}

/** Start a notebook's session (results/<name>/); name defaults to KF_NOTEBOOK, set by `kf notebooks`. */
export function open(name: string, opts: NotebookSessionOptions = {}): NotebookSession {
  return new NotebookSession(name, opts);
}
