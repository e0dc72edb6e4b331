/** The build's checkpoint store: per-document work, vectors and relation typings by content hash (SQLite, WAL). */
import * as fs from 'node:fs';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { KfError, errorMessage } from '../util/errors';
import type { RelationTypeCache } from './relations';
import type { IngestResult, Fragment, PageStatus, IngestIssue } from '../corpus/types';
import type { KnowledgePoint } from './types';
import type { StageUsage } from './knowledge-points';

// ---------------------------------------------------------------------------- checkpoint store

/** Per-document results by content hash (SQLite, WAL: a commit survives SIGKILL). */
/** A document's stored work (the checkpoint): everything but its vectors. */
export interface DocWork {
  doc: NonNullable<IngestResult['doc']>;
  fragments: Fragment[];
  pages?: PageStatus[];
  issues: IngestIssue[];
  stats: IngestResult['stats'];
  points: KnowledgePoint[];
  usage: { multimodal: StageUsage; extraction: StageUsage };
  ms: number;
}

export class WorkStore implements RelationTypeCache {
  private db: Database.Database;
  private getDoc: Database.Statement;
  private putDoc: Database.Statement;
  private getVec: Database.Statement;
  private putVec: Database.Statement;
  private getRel: Database.Statement;
  private putRel: Database.Statement;

  constructor(readonly file: string) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    try {
      this.db = new Database(file);
      this.db.pragma('journal_mode = WAL');
      this.db.pragma('synchronous = NORMAL');
      this.db.exec(`
        CREATE TABLE IF NOT EXISTS docs (key TEXT PRIMARY KEY, doc_id TEXT NOT NULL, payload TEXT NOT NULL, created TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, doc_key TEXT NOT NULL, embedder TEXT NOT NULL, dim INTEGER NOT NULL, count INTEGER NOT NULL, ms REAL NOT NULL, data BLOB NOT NULL);
        CREATE TABLE IF NOT EXISTS relcache (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      `);
    } catch (e) {
      throw new KfError(
        'work_store',
        `cannot open the build checkpoint store ${file}: ${errorMessage(e)}`,
        'check the folder is writable; if the file is damaged, delete it (the next build redoes the work)',
        { concerns: file, cause: e },
      );
    }
    this.getDoc = this.db.prepare('SELECT payload FROM docs WHERE key = ?');
    this.putDoc = this.db.prepare('INSERT OR REPLACE INTO docs (key, doc_id, payload, created) VALUES (?, ?, ?, ?)');
    this.getVec = this.db.prepare('SELECT dim, count, ms, data FROM vectors WHERE key = ?');
    this.putVec = this.db.prepare('INSERT OR REPLACE INTO vectors (key, doc_key, embedder, dim, count, ms, data) VALUES (?, ?, ?, ?, ?, ?, ?)');
    this.getRel = this.db.prepare('SELECT value FROM relcache WHERE key = ?');
    this.putRel = this.db.prepare('INSERT OR REPLACE INTO relcache (key, value) VALUES (?, ?)');
  }

  doc(key: string): DocWork | undefined {
    const row = this.getDoc.get(key) as { payload: string } | undefined;
    if (!row) return undefined;
    try {
      return JSON.parse(row.payload) as DocWork;
    } catch {
      return undefined; // unreadable: redo the document
    }
  }

  saveDoc(key: string, w: DocWork): void {
    this.putDoc.run(key, w.doc.id, JSON.stringify(w), new Date().toISOString());
  }

  vectors(key: string): { vectors: Float32Array[]; ms: number } | undefined {
    const row = this.getVec.get(key) as { dim: number; count: number; ms: number; data: Buffer } | undefined;
    if (!row || row.data.byteLength !== row.dim * row.count * 4) return undefined;
    const all = new Float32Array(row.data.buffer.slice(row.data.byteOffset, row.data.byteOffset + row.data.byteLength));
    const out: Float32Array[] = [];
    for (let i = 0; i < row.count; i++) out.push(all.subarray(i * row.dim, (i + 1) * row.dim));
    return { vectors: out, ms: row.ms };
  }

  saveVectors(key: string, docKey: string, embedderId: string, dim: number, vecs: Float32Array[], ms: number): void {
    const buf = Buffer.alloc(dim * vecs.length * 4);
    const view = new Float32Array(buf.buffer, buf.byteOffset, dim * vecs.length);
    vecs.forEach((v, i) => view.set(v, i * dim));
    this.putVec.run(key, docKey, embedderId, dim, vecs.length, ms, buf);
  }

  get(key: string): string | undefined {
    return (this.getRel.get(key) as { value: string } | undefined)?.value;
  }

  set(key: string, value: string): void {
    this.putRel.run(key, value);
  }

  /** Drop the work of documents no longer in the corpus (keeps the store bounded). */
  prune(keepDocKeys: Set<string>): number {
    const keys = (this.db.prepare('SELECT key FROM docs').all() as { key: string }[]).map((r) => r.key).filter((k) => !keepDocKeys.has(k));
    const delDoc = this.db.prepare('DELETE FROM docs WHERE key = ?');
    const delVec = this.db.prepare('DELETE FROM vectors WHERE doc_key = ?');
    this.db.transaction(() => {
      for (const k of keys) {
        delDoc.run(k);
        delVec.run(k);
      }
    })();
    return keys.length;
  }

  close(): void {
    try {
      this.db.close();
    } catch {
      /* closed */
    }
  }
}
