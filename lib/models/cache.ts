/**
 * The reply cache: one SQLite file (better-sqlite3, WAL) holding model replies
 * keyed by the hash of the canonical request (lib/models/cache-key.ts), OCR
 * results keyed by image hash, and embedding vectors keyed by model + text.
 *
 * WAL mode with a busy timeout makes it safe for several runs at once (one
 * writer at a time, readers never blocked); each write is one small transaction,
 * so a crash loses at most the reply being written. A reply the stage that
 * asked for it rejected carries that verdict and is never served again. It never holds credentials
 * or base URLs: keys are content hashes and rows hold replies only.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { KfError } from '../util/errors';
import { stateDir } from '../util/paths';
import type { ToolCall, Usage } from '../model-api/types';

/** What is stored for one reply (enough to rebuild a ChatResponse). */
export interface CachedReply {
  text: string;
  toolCalls: ToolCall[];
  /** Usage of the ORIGINAL call (informational; a hit adds none to the ledger). */
  usage: Usage;
  model: string;
  finishReason: string;
}

export interface CacheStats {
  file: string;
  bytes: number;
  replies: number;
  /** Replies the asking stage rejected (kept for the record, never served). */
  rejected: number;
  byStage: Record<string, number>;
  byModel: Record<string, number>;
  ocr: number;
  embeddings: number;
  oldest?: string;
  newest?: string;
}

/** The default cache file of a project checkout (`.kf-cache/` is git-ignored). */
export function defaultCacheFile(): string {
  return stateDir('models.sqlite');
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS replies (
  key TEXT PRIMARY KEY,
  stage TEXT NOT NULL,
  model TEXT NOT NULL,
  question_id TEXT,
  created_at TEXT NOT NULL,
  reply TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS replies_stage ON replies(stage);
CREATE TABLE IF NOT EXISTS ocr (
  image_sha TEXT PRIMARY KEY,
  engine TEXT NOT NULL,
  created_at TEXT NOT NULL,
  result TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS embeddings (
  key TEXT PRIMARY KEY,
  model TEXT NOT NULL,
  dim INTEGER NOT NULL,
  vec BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v TEXT NOT NULL);
`;

/** The verdict column (added to caches written before it existed): why the stage that asked refused the reply; NULL = accepted. */
function addVerdictColumn(db: Database.Database): void {
  const cols = db.prepare('PRAGMA table_info(replies)').all() as { name: string }[];
  if (!cols.some((c) => c.name === 'rejected')) db.exec('ALTER TABLE replies ADD COLUMN rejected TEXT');
}

export class ModelCache {
  private readonly db: Database.Database;
  private readonly getStmt: Database.Statement;
  private readonly putStmt: Database.Statement;
  private readonly rejectStmt: Database.Statement;
  private closed = false;

  private constructor(
    readonly file: string,
    db: Database.Database,
  ) {
    this.db = db;
    // A reply the asking stage rejected is never served again (a miss: the endpoint is asked anew).
    this.getStmt = db.prepare('SELECT reply FROM replies WHERE key = ? AND rejected IS NULL');
    this.putStmt = db.prepare('INSERT OR REPLACE INTO replies (key, stage, model, question_id, created_at, reply, rejected) VALUES (?, ?, ?, ?, ?, ?, NULL)');
    this.rejectStmt = db.prepare('UPDATE replies SET rejected = ? WHERE key = ?');
  }

  /**
   * Open (creating when `create`) a cache file. A file that is not a cache, or a
   * directory that cannot be written, fails with a message naming the file.
   */
  static open(file: string, opts: { create?: boolean } = {}): ModelCache {
    const abs = path.resolve(file);
    if (!fs.existsSync(abs) && opts.create === false) {
      throw new KfError(
        'cache_missing',
        `model cache ${abs} does not exist`,
        'check --file / models.cache.file, or run once with cache mode read-write to record replies',
        { concerns: abs },
      );
    }
    let db: Database.Database;
    try {
      fs.mkdirSync(path.dirname(abs), { recursive: true });
      db = new Database(abs);
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.pragma('busy_timeout = 10000');
      db.exec(SCHEMA);
      addVerdictColumn(db);
      db.prepare("INSERT OR IGNORE INTO meta (k, v) VALUES ('format', 'kf-model-cache/1')").run();
    } catch (e) {
      const code = (e as { code?: string }).code ?? '';
      throw new KfError(
        'cache_open_failed',
        `cannot open model cache ${abs}: ${(e as Error).message}${code ? ` (${code})` : ''}`,
        code === 'SQLITE_NOTADB'
          ? 'the file is not a model cache: pass another --file or remove it'
          : 'choose a writable location with --file / models.cache.file',
        { concerns: abs, cause: e },
      );
    }
    return new ModelCache(abs, db);
  }

  get(key: string): CachedReply | undefined {
    const row = this.getStmt.get(key) as { reply: string } | undefined;
    if (!row) return undefined;
    try {
      return JSON.parse(row.reply) as CachedReply;
    } catch {
      return undefined; // a damaged row is a miss, and is overwritten by the next put
    }
  }

  put(key: string, reply: CachedReply, meta: { stage: string; questionId?: string }): void {
    this.putStmt.run(key, meta.stage, reply.model, meta.questionId ?? null, new Date().toISOString(), JSON.stringify(reply));
  }

  /**
   * The asking stage's verdict on a stored reply: rejected (cut at the token limit, empty, unparseable, no
   * answer). The row stays (kf cache stats counts it) but is never served; the next fresh reply replaces it.
   */
  reject(key: string, reason: string): void {
    this.rejectStmt.run(reason || 'rejected', key);
  }

  getOcr<T>(imageSha: string, engine: string): T | undefined {
    const row = this.db.prepare('SELECT result FROM ocr WHERE image_sha = ? AND engine = ?').get(imageSha, engine) as { result: string } | undefined;
    return row ? (JSON.parse(row.result) as T) : undefined;
  }

  putOcr(imageSha: string, engine: string, result: unknown): void {
    this.db
      .prepare('INSERT OR REPLACE INTO ocr (image_sha, engine, created_at, result) VALUES (?, ?, ?, ?)')
      .run(imageSha, engine, new Date().toISOString(), JSON.stringify(result));
  }

  /** Vectors for the given keys (missing keys absent from the map). */
  getEmbeddings(keys: string[]): Map<string, Float32Array> {
    const out = new Map<string, Float32Array>();
    const stmt = this.db.prepare('SELECT vec FROM embeddings WHERE key = ?');
    for (const k of keys) {
      const row = stmt.get(k) as { vec: Buffer } | undefined;
      if (row) out.set(k, new Float32Array(row.vec.buffer.slice(row.vec.byteOffset, row.vec.byteOffset + row.vec.byteLength)));
    }
    return out;
  }

  putEmbeddings(model: string, entries: [string, Float32Array][]): void {
    const stmt = this.db.prepare('INSERT OR REPLACE INTO embeddings (key, model, dim, vec) VALUES (?, ?, ?, ?)');
    const tx = this.db.transaction(() => {
      for (const [k, v] of entries) stmt.run(k, model, v.length, Buffer.from(v.buffer, v.byteOffset, v.byteLength));
    });
    tx();
  }

  stats(): CacheStats {
    const count = (sql: string) => (this.db.prepare(sql).get() as { n: number }).n;
    const group = (col: string) => {
      const out: Record<string, number> = {};
      for (const r of this.db.prepare(`SELECT ${col} AS k, COUNT(*) AS n FROM replies GROUP BY ${col} ORDER BY ${col}`).all() as { k: string; n: number }[])
        out[r.k] = r.n;
      return out;
    };
    const range = this.db.prepare('SELECT MIN(created_at) AS oldest, MAX(created_at) AS newest FROM replies').get() as {
      oldest: string | null;
      newest: string | null;
    };
    let bytes = 0;
    for (const f of [this.file, `${this.file}-wal`]) if (fs.existsSync(f)) bytes += fs.statSync(f).size;
    return {
      file: this.file,
      bytes,
      replies: count('SELECT COUNT(*) AS n FROM replies'),
      rejected: count('SELECT COUNT(*) AS n FROM replies WHERE rejected IS NOT NULL'),
      byStage: group('stage'),
      byModel: group('model'),
      ocr: count('SELECT COUNT(*) AS n FROM ocr'),
      embeddings: count('SELECT COUNT(*) AS n FROM embeddings'),
      oldest: range.oldest ?? undefined,
      newest: range.newest ?? undefined,
    };
  }

  /** Delete replies (all, or of one stage); with `everything`, also OCR results and embeddings. Returns rows deleted. */
  clear(opts: { stage?: string; everything?: boolean } = {}): number {
    let n = 0;
    const tx = this.db.transaction(() => {
      if (opts.stage) n += this.db.prepare('DELETE FROM replies WHERE stage = ?').run(opts.stage).changes;
      else n += this.db.prepare('DELETE FROM replies').run().changes;
      if (opts.everything && !opts.stage) {
        n += this.db.prepare('DELETE FROM ocr').run().changes;
        n += this.db.prepare('DELETE FROM embeddings').run().changes;
      }
    });
    tx();
    this.db.pragma('wal_checkpoint(TRUNCATE)');
    return n;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.db.pragma('wal_checkpoint(PASSIVE)');
    } catch {
      /* another process holds it: fine */
    }
    this.db.close();
  }
}
