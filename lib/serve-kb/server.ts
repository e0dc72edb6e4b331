/**
 * `kf serve kb`'s HTTP server (node:http): the released KnowForge runner's knowledge-base API over the
 * harness's indexes, `/api/v2/kb/{uuid}/{endpoint}`, each package a view of a served corpus.
 *
 * Replies are `{success: true, data}`; a refusal is `{success: false, error}` with its status:
 * 400 a bad argument, 404 no such endpoint or package, 405 a wrong method, 500 a failure here. With
 * a key configured, every request must carry `Authorization: Bearer <key>`: none is answered 426,
 * another key 401, and a package this server does not serve 403 (the runner's three cases). The uuid
 * arrives percent-encoded (`resource_package%3A...`). `POST /api/v2/me/subscriptions/import` (the
 * runner's `subscribe`) says which of the given uuids are served. `GET /healthz` answers without a key.
 * Fragment ids are served in the hosted form, `frag_<hex>`, unless the request says `x-kf-ids: harness`
 * (./ids.ts); an id argument may be either form. A request with `x-kf-pid` (any value) is answered with the
 * answering process's pid in that header (`kf serve kb --workers N` runs several, ./cluster.ts).
 */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { KfError, errorMessage } from '../util/errors';
import { bookToc, card, overview, sources } from './book-endpoints';
import { BadRequest, downloadTarget, fragmentContext, mediaContext, search } from './fragment-endpoints';
import { mimeOfName } from '../remote-kb/shapes';
import { HARNESS_IDS_HEADER, HARNESS_IDS_VALUE, harnessParams, toServedIds } from './ids';
import type { Json } from './json';
import { findFigure, listMedia } from './media-endpoints';
import type { ServedPackage } from './packages';
import { packageTable } from './packages';
import { queryTable, table, tables } from './table-endpoints';

type Handler = (pkg: ServedPackage, q: URLSearchParams, body: Json) => Json | Promise<Json>;

/** Every endpoint of the API but download, with its method. */
const ENDPOINTS: Record<string, { method: 'GET' | 'POST'; run: Handler }> = {
  card: { method: 'GET', run: (p) => card(p) },
  overview: { method: 'GET', run: (p) => overview(p) },
  sources: { method: 'GET', run: (p) => sources(p) },
  search: { method: 'POST', run: (p, _q, b) => search(p, b) },
  'fragment-context': { method: 'GET', run: fragmentContext },
  'book-toc': { method: 'GET', run: bookToc },
  'list-media': { method: 'GET', run: listMedia },
  'find-figure': { method: 'GET', run: findFigure },
  'media-context': { method: 'GET', run: mediaContext },
  tables: { method: 'GET', run: (p) => tables(p) },
  'query-table': { method: 'GET', run: queryTable },
  table: { method: 'GET', run: table },
};
/** The API's endpoint names, download included. */
export const KB_ENDPOINTS = [...Object.keys(ENDPOINTS), 'download'];

const MAX_BODY = 1 << 20;
/** A request carrying this header (any value) is answered with the pid of the process that answered it (`--workers N`). */
export const PID_HEADER = 'x-kf-pid';
const ROUTE = /^\/api\/v2\/kb\/([^/]+)\/([\w-]+)\/?$/;

export interface KbServerOptions {
  packages: ServedPackage[];
  /** The bearer key every request must carry; none: requests are not checked. */
  key?: string;
  host?: string;
  /** 0 = any free port. */
  port?: number;
  /** One line per failed request (and per request with `verbose`). */
  log?: (line: string) => void;
  verbose?: boolean;
}

export interface RunningKbServer {
  url: string;
  port: number;
  packages: number;
  close(): Promise<void>;
}

function send(res: http.ServerResponse, status: number, body: Json, headers: Record<string, string> = {}): void {
  // Encoded once (not measured, then encoded again by end()).
  const bytes = Buffer.from(JSON.stringify(body), 'utf8');
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': String(bytes.length), ...headers });
  res.end(bytes);
}

const refuse = (res: http.ServerResponse, status: number, error: string, headers?: Record<string, string>) =>
  send(res, status, { success: false, error }, headers);

function readBody(req: http.IncomingMessage): Promise<Json> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) reject(new BadRequest(`the request body is over ${MAX_BODY} bytes`));
      else chunks.push(c);
    });
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      if (!text.trim()) return resolve({});
      try {
        const j = JSON.parse(text) as unknown;
        if (!j || typeof j !== 'object' || Array.isArray(j)) reject(new BadRequest('the request body must be a JSON object'));
        else resolve(j as Json);
      } catch {
        reject(new BadRequest('the request body is not JSON'));
      }
    });
    req.on('error', reject);
  });
}

/** Equal keys, compared in constant time. */
function sameKey(given: string, key: string): boolean {
  const a = crypto.createHash('sha256').update(given).digest();
  const b = crypto.createHash('sha256').update(key).digest();
  return crypto.timingSafeEqual(a, b);
}

/** The auth refusal of a request, or undefined when it may go on. */
function authRefusal(req: http.IncomingMessage, key: string | undefined): [number, string] | undefined {
  if (!key) return undefined;
  const auth = req.headers.authorization ?? '';
  if (!auth) return [426, 'this server needs an API key: send Authorization: Bearer <key> (the runner: [kb] api_key or KFBENCH_KB_API_KEY)'];
  const m = /^Bearer\s+(.+)$/i.exec(auth);
  if (!m || !sameKey(m[1].trim(), key)) return [401, 'the API key is not the one this server was started with'];
  return undefined;
}

function sendFile(res: http.ServerResponse, file: string, name: string): void {
  const bytes = fs.readFileSync(file);
  res.writeHead(200, {
    'content-type': /\.pdf$/i.test(name) ? 'application/pdf' : mimeOfName(name),
    'content-length': String(bytes.length),
    'content-disposition': `attachment; filename="${name.replace(/["\r\n]/g, '_')}"`,
  });
  res.end(bytes);
}

async function subscribe(res: http.ServerResponse, req: http.IncomingMessage, table: Map<string, ServedPackage>): Promise<void> {
  const body = await readBody(req);
  const items = Array.isArray(body.items) ? body.items.map(String) : [];
  send(res, 200, { success: true, data: { served: items.filter((u) => table.has(u)), not_served: items.filter((u) => !table.has(u)) } });
}

/** Route and answer one request. */
async function handle(req: http.IncomingMessage, res: http.ServerResponse, table: Map<string, ServedPackage>, opts: KbServerOptions): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://local');
  if (url.pathname === '/healthz') return send(res, 200, { success: true, data: { packages: table.size } });
  const denied = authRefusal(req, opts.key);
  if (url.pathname === '/api/v2/me/subscriptions/import' && req.method === 'POST') return denied ? refuse(res, ...denied) : subscribe(res, req, table);
  const m = ROUTE.exec(url.pathname);
  if (!m) return refuse(res, 404, `no route ${url.pathname}: the API is /api/v2/kb/{uuid}/{${KB_ENDPOINTS.join(' | ')}}`);
  if (denied) return refuse(res, ...denied);
  let uuid: string;
  try {
    uuid = decodeURIComponent(m[1]);
  } catch {
    return refuse(res, 400, `the package id in ${url.pathname} is not valid percent-encoding`);
  }
  const pkg = table.get(uuid);
  if (!pkg) return refuse(res, opts.key ? 403 : 404, `package ${uuid} is not served here (${table.size} packages are; kf serve kb prints them)`);
  const endpoint = m[2];
  harnessParams(pkg.corpus, url.searchParams);
  if (endpoint === 'download') {
    if (req.method !== 'GET') return refuse(res, 405, 'download is GET', { allow: 'GET' });
    const target = downloadTarget(pkg, url.searchParams);
    return 'missing' in target ? refuse(res, 404, target.missing) : sendFile(res, target.file, target.name);
  }
  const ep = ENDPOINTS[endpoint];
  if (!ep) return refuse(res, 404, `no endpoint ${endpoint}: one of ${KB_ENDPOINTS.join(', ')}`);
  if (req.method !== ep.method) return refuse(res, 405, `${endpoint} is ${ep.method}`, { allow: ep.method });
  const body = ep.method === 'POST' ? await readBody(req) : {};
  const data = await ep.run(pkg, url.searchParams, body);
  if (req.headers[HARNESS_IDS_HEADER] !== HARNESS_IDS_VALUE) toServedIds(pkg.corpus, data);
  send(res, 200, { success: true, data });
}

/** Start serving `packages`; resolves once listening. */
export function startKbServer(opts: KbServerOptions): Promise<RunningKbServer> {
  const table = packageTable(opts.packages);
  if (!table.size) throw new KfError('nothing_to_serve', 'no package to serve', 'give an index (--index or --bench) and, for per-document packages, a map');
  const log = opts.log ?? (() => undefined);
  // Nagle off (a reply is one write; the client should not wait for an ACK), connections kept alive.
  const server = http.createServer({ noDelay: true, keepAlive: true }, (req, res) => {
    const t0 = Date.now();
    if (req.headers[PID_HEADER]) res.setHeader(PID_HEADER, String(process.pid));
    handle(req, res, table, opts)
      .catch((e: unknown) => {
        if (e instanceof BadRequest) return refuse(res, 400, e.message);
        log(`error ${req.method} ${req.url}: ${errorMessage(e)}`);
        if (!res.headersSent) refuse(res, 500, `the server failed: ${errorMessage(e)}`);
        else res.end();
      })
      .finally(() => {
        if (opts.verbose || res.statusCode >= 500) log(`${res.statusCode} ${req.method} ${req.url} ${Date.now() - t0} ms`);
      });
  });
  server.keepAliveTimeout = 30_000;
  return new Promise((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) =>
      reject(
        new KfError(
          'serve_listen',
          `cannot listen on ${opts.host ?? '127.0.0.1'}:${opts.port ?? 0}: ${e.code ?? e.message}`,
          'pick another --port, or stop what holds it',
          {
            concerns: String(opts.port ?? 0),
          },
        ),
      ),
    );
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => {
      const port = (server.address() as AddressInfo).port;
      const host = opts.host ?? '127.0.0.1';
      resolve({
        url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
        port,
        packages: table.size,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
