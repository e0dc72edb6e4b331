/**
 * Images in chat requests: a ContentPart names an image by path or data URL; the
 * provider sends a data URL, and the cache key uses the content hash (so a moved
 * file or a re-encoded data URL of the same bytes hits the same entry).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { KfError } from '../util/errors';
import { sha256 } from '../util/hash';
import type { ContentPart } from './types';

const MIME_BY_EXT: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.bmp': 'image/bmp',
  '.tif': 'image/tiff',
  '.tiff': 'image/tiff',
  '.svg': 'image/svg+xml',
};

export interface LoadedImage {
  bytes: Buffer;
  mime: string;
  sha256: string;
}

export type ImagePart = Extract<ContentPart, { type: 'image' }>;

/** Read the bytes of an image part (file or data URL); fails naming the file. */
export function loadImage(part: ImagePart): LoadedImage {
  if (part.dataUrl) {
    const m = /^data:([^;,]+)?(;base64)?,(.*)$/s.exec(part.dataUrl);
    if (!m) throw new KfError('bad_image', 'an image part has a malformed data URL', 'pass data:<mime>;base64,<data> or a file path');
    const bytes = m[2] ? Buffer.from(m[3], 'base64') : Buffer.from(decodeURIComponent(m[3]));
    return { bytes, mime: part.mime ?? m[1] ?? 'application/octet-stream', sha256: sha256(bytes) };
  }
  if (!part.path) throw new KfError('bad_image', 'an image part has neither path nor dataUrl', 'set one of them');
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(part.path);
  } catch (e) {
    throw new KfError(
      'image_unreadable',
      `image ${part.path} cannot be read (${(e as NodeJS.ErrnoException).code ?? e})`,
      'check the media path (relative paths resolve against the working directory)',
      { concerns: part.path, cause: e },
    );
  }
  const mime = part.mime ?? MIME_BY_EXT[path.extname(part.path).toLowerCase()] ?? 'application/octet-stream';
  return { bytes, mime, sha256: sha256(bytes) };
}

export function toDataUrl(img: LoadedImage): string {
  return `data:${img.mime};base64,${img.bytes.toString('base64')}`;
}

/** Pixel size from a PNG, JPEG or GIF header (undefined for other formats): enough to say "top/middle/bottom". */
export function imageSize(bytes: Buffer): { width: number; height: number } | undefined {
  if (bytes.length >= 24 && bytes.readUInt32BE(0) === 0x89504e47) return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  if (bytes.length >= 10 && bytes.toString('ascii', 0, 3) === 'GIF') return { width: bytes.readUInt16LE(6), height: bytes.readUInt16LE(8) };
  if (bytes.length >= 4 && bytes[0] === 0xff && bytes[1] === 0xd8) {
    let i = 2;
    while (i + 9 < bytes.length) {
      if (bytes[i] !== 0xff) return undefined;
      const marker = bytes[i + 1];
      const len = bytes.readUInt16BE(i + 2);
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
        return { height: bytes.readUInt16BE(i + 5), width: bytes.readUInt16BE(i + 7) };
      }
      i += 2 + len;
    }
  }
  return undefined;
}
