/**
 * Where per-question traces go: one JSON file per question (`traces/<id>.json`),
 * one `traces.jsonl`, or nowhere. Traces are diagnostics, so they are written
 * without fsync (a kill -9 cannot lose them: the page cache outlives the
 * process; only a power cut could, and then a record may point to a missing
 * trace, which readers tolerate). This keeps the runner's own cost per
 * question at one fsync (the record) instead of two.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fsError, openForAppending, writeAll, writeFileAtomic } from '../util/fsx';
import type { TraceMode } from './config';
import { traceFileName } from './records';

export interface TraceStore {
  /** Store a question's trace; returns the record's pointer (relative to the run folder) or null. */
  write(id: string, doc: unknown): string | null;
  close(): void;
}

export function openTraceStore(runDir: string, mode: TraceMode): TraceStore {
  if (mode === 'off') return { write: () => null, close() {} };
  if (mode === 'files') {
    const dir = path.join(runDir, 'traces');
    return {
      write(id, doc) {
        const name = traceFileName(id);
        const file = path.join(dir, name);
        writeFileAtomic(file, JSON.stringify(doc), { fsync: false, action: 'write the trace' });
        return `traces/${name}`;
      },
      close() {},
    };
  }
  const file = path.join(runDir, 'traces.jsonl');
  const { fd, cutLine } = openForAppending(file);
  try {
    // A crash may have cut the last line: start the next one on a fresh line.
    if (cutLine) fs.writeSync(fd, '\n');
  } catch (e) {
    throw fsError(e, file, 'open for appending');
  }
  return {
    write(id, doc) {
      try {
        // All of the line (a filling disk may take only part of one write call).
        writeAll(fd, Buffer.from(JSON.stringify({ id, ...(doc as object) }) + '\n'));
      } catch (e) {
        throw fsError(e, file, 'append to');
      }
      return `traces.jsonl#${id}`;
    },
    close() {
      try {
        fs.closeSync(fd);
      } catch {
        /* closed */
      }
    },
  };
}
