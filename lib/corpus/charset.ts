/**
 * Bytes -> text for HTML, Markdown and plain-text sources. Order of evidence:
 * byte-order mark, then (HTML) the declared <meta charset>, then strict UTF-8, and
 * only then windows-1252 (the WHATWG reading of "latin1") with a warning, so a
 * non-UTF-8 file never turns into U+FFFD soup silently.
 */
import { C1 } from './html-entities';

export interface Decoded {
  text: string;
  /** The encoding actually used (WHATWG label as TextDecoder reports it). */
  encoding: string;
  /** Set when the encoding was guessed or the declaration was wrong: becomes an IngestIssue warning. */
  warning?: string;
}

/** The charset an HTML document declares in its first bytes, if any. */
export function declaredHtmlCharset(bytes: Buffer): string | undefined {
  const head = bytes.subarray(0, 4096).toString('latin1');
  const m1 = /<meta\s[^>]*charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)/i.exec(head);
  if (m1) return m1[1].toLowerCase();
  const m2 = /<\?xml[^>]*encoding\s*=\s*["']([A-Za-z0-9_.:-]+)/i.exec(head);
  return m2 ? m2[1].toLowerCase() : undefined;
}

/**
 * windows-1252, done by hand: Node 20's TextDecoder treats the label as ISO-8859-1
 * and turns 0x80-0x9F into control characters instead of € ‘ ’ “ ” – — etc.
 */
export function decodeWindows1252(bytes: Buffer): string {
  const s = bytes.toString('latin1');
  return /[\u0080-\u009f]/.test(s) ? s.replace(/[\u0080-\u009f]/g, (c) => C1[c.charCodeAt(0)] ?? c) : s;
}

/** A decoder for a charset label; windows-1252 and its aliases go through decodeWindows1252. */
function decoderFor(label: string, fatal = false): { encoding: string; decode(b: Buffer): string } | undefined {
  try {
    const d = new TextDecoder(label, { fatal });
    if (d.encoding === 'windows-1252') return { encoding: 'windows-1252', decode: decodeWindows1252 };
    return d;
  } catch {
    return undefined;
  }
}

export function decodeBytes(bytes: Buffer, opts: { html?: boolean } = {}): Decoded {
  if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    return { text: new TextDecoder('utf-8').decode(bytes.subarray(3)), encoding: 'utf-8' };
  }
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) return { text: new TextDecoder('utf-16le').decode(bytes.subarray(2)), encoding: 'utf-16le' };
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) return { text: new TextDecoder('utf-16be').decode(bytes.subarray(2)), encoding: 'utf-16be' };

  let declared: string | undefined;
  let declWarning: string | undefined;
  if (opts.html) {
    declared = declaredHtmlCharset(bytes);
    if (declared) {
      const dec = decoderFor(declared);
      if (!dec) declWarning = `declared charset "${declared}" is unknown`;
      else if (dec.encoding !== 'utf-8') return { text: dec.decode(bytes), encoding: dec.encoding };
      // Declared UTF-8: verify below, since a wrong declaration is common.
    }
  }
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes), encoding: 'utf-8', warning: declWarning };
  } catch {
    const why =
      declared && !declWarning
        ? `declared charset "${declared}" but the bytes are not valid UTF-8`
        : (declWarning ?? 'no charset declared and the bytes are not valid UTF-8');
    return {
      text: decodeWindows1252(bytes),
      encoding: 'windows-1252',
      warning: `${why}: decoded as windows-1252 (latin1); declare the encoding (<meta charset>) or convert the file to UTF-8 if characters look wrong`,
    };
  }
}
