/**
 * Progress of a run: a redrawn bar with rate, ETA and the running answer metric
 * on a terminal, plain `progress ...` lines otherwise (logs, CI, notebooks). No
 * dependency; the rate, ETA and running metric count only this session's
 * questions (a resume does not look infinitely fast).
 */

export interface ProgressSink {
  start(total: number, alreadyDone: number): void;
  /** One question finished (ok or error), with its answer scores when it has them (a failed one counts 0). */
  tick(ok: boolean, scores?: Record<string, number> | null): void;
  /** A line that must not be overwritten by the bar. */
  log(line: string): void;
  finish(): void;
}

export interface ProgressOptions {
  stream?: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  /** Force the bar (true) or plain lines (false); default: the stream is a TTY. */
  tty?: boolean;
  now?: () => number;
  /** Plain mode: print at most every this many ms (default 10 s), plus every 10% and at the end. */
  plainEveryMs?: number;
  label?: string;
}

export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '?';
  const s = Math.round(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  return h ? `${h}h${String(m).padStart(2, '0')}m` : m ? `${m}m${String(sec).padStart(2, '0')}s` : `${sec}s`;
}

/** The answer metric the bar shows, in the order results.ts picks a run's main metric. */
const RUNNING_METRICS = ['f1', 'acc', 'rougeL', 'em', 'tokenEmbF1'];

export class Progress implements ProgressSink {
  private total = 0;
  private base = 0;
  private done = 0;
  private errors = 0;
  private t0 = 0;
  private lastDraw = 0;
  private lastPlain = 0;
  private lastDecile = -1;
  private drawn = false;
  /** Sums of each answer score over this session's questions (failed = 0), for the running metric. */
  private readonly scoreSums = new Map<string, number>();
  private readonly stream: NonNullable<ProgressOptions['stream']>;
  private readonly tty: boolean;
  private readonly now: () => number;

  constructor(private readonly opts: ProgressOptions = {}) {
    this.stream = opts.stream ?? process.stderr;
    this.tty = opts.tty ?? !!this.stream.isTTY;
    this.now = opts.now ?? Date.now;
  }

  start(total: number, alreadyDone: number): void {
    this.total = total;
    this.base = alreadyDone;
    this.t0 = this.now();
    this.lastPlain = this.t0;
    if (!this.tty)
      this.stream.write(`${this.opts.label ?? 'progress'}: ${alreadyDone ? `${alreadyDone}/${total} already recorded, ` : ''}${total - alreadyDone} to go\n`);
    else this.draw(true);
  }

  /** Text of the current state: `12/30 40% 1.3 q/s ETA 14s errors 1`. */
  status(): string {
    const elapsed = Math.max(1, this.now() - this.t0);
    const rate = (this.done / elapsed) * 1000;
    const left = this.total - this.base - this.done;
    const eta = this.done ? formatDuration((left / this.done) * elapsed) : '?';
    const n = this.base + this.done;
    const pct = this.total ? Math.floor((100 * n) / this.total) : 100;
    return `${n}/${this.total} ${pct}% ${this.runningMetric()}${rate.toFixed(2)} q/s ETA ${eta} elapsed ${formatDuration(elapsed)}${this.errors ? ` errors ${this.errors}` : ''}`;
  }

  /** `f1 56.3 ` (x100, as the tables): the mean of the main answer metric over this session so far; '' before any score. */
  private runningMetric(): string {
    const metric = RUNNING_METRICS.find((k) => this.scoreSums.has(k));
    return metric && this.done ? `${metric} ${((100 * this.scoreSums.get(metric)!) / this.done).toFixed(1)} ` : '';
  }

  tick(ok: boolean, scores?: Record<string, number> | null): void {
    this.done++;
    if (!ok) this.errors++;
    for (const k of RUNNING_METRICS) {
      const v = scores?.[k];
      if (typeof v === 'number' && Number.isFinite(v)) this.scoreSums.set(k, (this.scoreSums.get(k) ?? 0) + v);
    }
    if (this.tty) {
      this.draw(false);
      return;
    }
    const n = this.base + this.done;
    const decile = this.total ? Math.floor((10 * n) / this.total) : 10;
    const t = this.now();
    if (decile !== this.lastDecile || t - this.lastPlain >= (this.opts.plainEveryMs ?? 10_000) || n === this.total) {
      this.lastDecile = decile;
      this.lastPlain = t;
      this.stream.write(`${this.opts.label ?? 'progress'}: ${this.status()}\n`);
    }
  }

  private draw(force: boolean): void {
    const t = this.now();
    if (!force && t - this.lastDraw < 100 && this.base + this.done < this.total) return;
    this.lastDraw = t;
    const width = 24;
    const n = this.base + this.done;
    const filled = this.total ? Math.round((width * n) / this.total) : width;
    const bar = '#'.repeat(filled) + '-'.repeat(width - filled);
    this.stream.write(`\r[${bar}] ${this.status()}\x1b[K`);
    this.drawn = true;
  }

  log(line: string): void {
    if (this.tty && this.drawn) this.stream.write('\r\x1b[K');
    this.stream.write(line + '\n');
    if (this.tty && this.drawn) this.draw(true);
  }

  finish(): void {
    if (this.tty) {
      this.draw(true);
      this.stream.write('\n');
    }
  }
}

/** A sink that prints nothing (tests, library use). */
export const silentProgress: ProgressSink = { start() {}, tick() {}, log() {}, finish() {} };
