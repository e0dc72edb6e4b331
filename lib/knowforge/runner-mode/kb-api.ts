/**
 * The knowledge-base API calls of runner mode (`/api/v2/kb/{uuid}/...`, as the released runner's
 * client makes them): the JSON `data` of each endpoint, untouched, so runner mode renders exactly
 * what the runner renders. Over HTTP (a hosted package, or `kf serve kb`).
 */
import { KfError } from '../../util/errors';
import { pyStr } from './python-values';

export type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface KbApi {
  overview(): Promise<Json>;
  card(): Promise<Json>;
  sources(): Promise<Json>;
  search(query: string, topk: number): Promise<Json>;
  get(endpoint: string, params: Record<string, string>): Promise<Json>;
  /** A media fragment's file: bytes, mime type, file name. */
  download(fragmentId: string): Promise<{ data: Buffer; mime: string; name: string }>;
  calls: number;
}

const MIME: Record<string, string> = { png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', webp: 'image/webp', gif: 'image/gif', pdf: 'application/pdf' };

export function httpKbApi(baseUrl: string, uuid: string, key?: string): KbApi {
  const root = `${baseUrl.replace(/\/+$/, '')}/api/v2/kb/${encodeURIComponent(uuid)}`;
  const headers: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {};
  const api: KbApi = {
    calls: 0,
    overview: () => api.get('overview', {}),
    card: () => api.get('card', {}),
    sources: () => api.get('sources', { min_contribution: '0' }),
    async search(query, topk) {
      api.calls++;
      const r = await fetch(`${root}/search`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ query, topk, score_fields: true }),
      });
      return unwrap(r, `${root}/search`);
    },
    async get(endpoint, params) {
      api.calls++;
      const qs = pyUrlencode(params);
      const url = `${root}/${endpoint}${qs ? `?${qs}` : ''}`;
      const r = await fetch(url, { headers });
      return unwrap(r, url);
    },
    async download(fragmentId) {
      api.calls++;
      const r = await fetch(`${root}/download?${pyUrlencode({ fragment_id: fragmentId })}`, { headers });
      // The runner's client message (read_media quotes it to the agent).
      if (r.status >= 400) throw new KbApiError(`download failed HTTP ${r.status}: ${[...(await r.text())].slice(0, 200).join('')}`);
      const disp = r.headers.get('content-disposition') ?? '';
      const name = disp.includes('filename=') ? disp.split('filename=')[1].trim().replace(/^"|"$/g, '') : '';
      const ext = name.includes('.') ? name.split('.').pop()!.toLowerCase() : '';
      const mime = (r.headers.get('content-type') ?? '').split(';')[0].trim() || MIME[ext] || 'application/octet-stream';
      return { data: Buffer.from(await r.arrayBuffer()), mime, name };
    },
  };
  return api;
}

/** A knowledge-base call that failed, its message as the runner's client words it (the agents read it in tool errors). */
export class KbApiError extends KfError {
  constructor(message: string) {
    super('kb_api', message, 'check the package uuid, the key and the server');
  }
}

/** urllib.parse.urlencode of string parameters (quote_plus: letters, digits and _.-~ kept, space as +). */
export function pyUrlencode(params: Record<string, string>): string {
  const q = (v: string) =>
    [...Buffer.from(v, 'utf8')]
      .map((b) => {
        const c = String.fromCharCode(b);
        if (/[A-Za-z0-9_.~-]/.test(c)) return c;
        if (c === ' ') return '+';
        return `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
      })
      .join('');
  return Object.entries(params)
    .map(([k, v]) => `${q(k)}=${q(v)}`)
    .join('&');
}

async function unwrap(r: Response, url: string): Promise<Json> {
  const text = await r.text();
  if (r.status >= 400) throw new KbApiError(`HTTP ${r.status} ${url}: ${[...text].slice(0, 300).join('')}`);
  const j = JSON.parse(text) as Json;
  if (j && typeof j === 'object' && !Array.isArray(j) && 'success' in j) {
    if (!j.success) throw new KbApiError(pyStr(j.error || j));
    return (j.data ?? {}) as Json;
  }
  return j ?? {};
}
