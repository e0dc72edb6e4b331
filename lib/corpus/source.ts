/**
 * What every ingester needs about the file it reads: bytes, content hash, the
 * document id derived from its path, and a safe way to resolve the media it
 * references (never outside the corpus root, missing files reported, not fatal).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { IngestIssue, MediaAsset } from './types';
import type { IngestOptions } from './options';
import { KfError, errorMessage } from '../util/errors';
import { resolveInside } from '../util/paths';
import { sha256 } from '../util/hash';

export interface SourceFile {
  abs: string;
  /** Path relative to the corpus root, forward slashes. */
  rel: string;
  docId: string;
  corpusRoot: string;
  bytes: Buffer;
  sha256: string;
}

/** `a/b/c.md` -> `a/b/c`: the document id convention (forward slashes on every OS). */
export function docIdFromRel(rel: string): string {
  const fwd = rel.split(path.sep).join('/');
  const ext = path.posix.extname(fwd);
  return ext ? fwd.slice(0, -ext.length) : fwd;
}

export function openSource(file: string, opts: IngestOptions): SourceFile {
  const abs = path.resolve(file);
  const corpusRoot = path.resolve(opts.corpusRoot ?? path.dirname(abs));
  const relNative = path.relative(corpusRoot, abs);
  const rel = (relNative.startsWith('..') || path.isAbsolute(relNative) ? path.basename(abs) : relNative).split(path.sep).join('/');
  let bytes: Buffer;
  if (opts.content !== undefined) bytes = typeof opts.content === 'string' ? Buffer.from(opts.content, 'utf8') : opts.content;
  else {
    try {
      bytes = fs.readFileSync(abs);
    } catch (e) {
      throw new KfError(
        'file_unreadable',
        `cannot read ${abs} (${(e as NodeJS.ErrnoException).code ?? errorMessage(e)})`,
        'check that the file exists and is readable',
        { concerns: abs, cause: e },
      );
    }
  }
  return { abs, rel, docId: opts.docId ?? docIdFromRel(rel), corpusRoot, bytes, sha256: sha256(bytes) };
}

const MIME: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.svg': 'image/svg+xml',
  '.bmp': 'image/bmp',
  '.tif': 'image/tiff',
  '.tiff': 'image/tiff',
  '.avif': 'image/avif',
};

export function mimeOf(p: string): string {
  return MIME[path.extname(p).toLowerCase()] ?? 'application/octet-stream';
}

/** Pixel size from a PNG / GIF / JPEG header (cheap: no decoding). */
export function imageSize(buf: Buffer): { width: number; height: number } | undefined {
  if (buf.length >= 24 && buf.readUInt32BE(0) === 0x89504e47) return { width: buf.readUInt32BE(16), height: buf.readUInt32BE(20) };
  if (buf.length >= 10 && buf.toString('latin1', 0, 3) === 'GIF') return { width: buf.readUInt16LE(6), height: buf.readUInt16LE(8) };
  if (buf.length >= 4 && buf[0] === 0xff && buf[1] === 0xd8) {
    let i = 2;
    while (i + 9 < buf.length) {
      if (buf[i] !== 0xff) {
        i++;
        continue;
      }
      const marker = buf[i + 1];
      const len = buf.readUInt16BE(i + 2);
      // SOF0..SOF15 except DHT(C4), JPG(C8), DAC(CC) carry the frame size.
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
        return { height: buf.readUInt16BE(i + 5), width: buf.readUInt16BE(i + 7) };
      }
      i += 2 + len;
    }
  }
  return undefined;
}

/**
 * Resolve a media reference found in a document (Markdown image, HTML <img src>).
 * Relative to the document's folder; a leading "/" means the corpus root (web
 * style). Returns the asset (path relative to the corpus root) or undefined, and
 * records why in `issues`: remote/inline media, a path escaping the corpus, a
 * missing file. The caller keeps the fragment either way.
 */
export function resolveMediaRef(src: SourceFile, ref: string, issues: IngestIssue[]): MediaAsset | undefined {
  let r = ref.trim().replace(/^<(.*)>$/, '$1');
  if (!r) return undefined;
  const warn = (code: string, message: string) => issues.push({ doc: src.docId, severity: 'warning', code, message });
  if (/^data:/i.test(r)) {
    warn('inline_media', `${src.rel}: an inline data: image was not kept (only files inside the corpus are kept as media)`);
    return undefined;
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(r)) {
    warn(
      'remote_media',
      `${src.rel}: image "${r.slice(0, 120)}" is not a local file and was not kept (download it into the corpus and reference it relatively)`,
    );
    return undefined;
  }
  r = r.replace(/[?#].*$/, '');
  try {
    r = decodeURIComponent(r);
  } catch {
    /* keep as written */
  }
  const fromRoot = r.startsWith('/') ? r.replace(/^\/+/, '') : path.relative(src.corpusRoot, path.resolve(path.dirname(src.abs), r));
  let abs: string;
  try {
    abs = resolveInside(src.corpusRoot, fromRoot, `image reference in ${src.rel}`);
  } catch (e) {
    issues.push({ doc: src.docId, severity: 'warning', code: 'path_escape', message: `${errorMessage(e)}; the image was not kept` });
    return undefined;
  }
  const rel = path.relative(src.corpusRoot, abs).split(path.sep).join('/');
  let stat: fs.Stats | undefined;
  try {
    stat = fs.statSync(abs);
  } catch {
    /* missing */
  }
  if (!stat || !stat.isFile()) {
    warn('missing_media', `${src.rel}: image "${ref}" not found (${rel}); the fragment is kept without media -- add the file or fix the reference`);
    return undefined;
  }
  const asset: MediaAsset = { path: rel, mime: mimeOf(abs), origin: 'file' };
  try {
    const fd = fs.openSync(abs, 'r');
    const head = Buffer.alloc(Math.min(stat.size, 65536));
    fs.readSync(fd, head, 0, head.length, 0);
    fs.closeSync(fd);
    const size = imageSize(head);
    if (size) {
      asset.width = size.width;
      asset.height = size.height;
    }
  } catch {
    /* size is optional */
  }
  return asset;
}
