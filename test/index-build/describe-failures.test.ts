/**
 * Failed model descriptions are errors counted per fragment, over HTTP (scripted server as the caption
 * stage): past the limit (default 5%) the build fails and writes no index; accepted ones are listed in the
 * index manifest; a refused key fails the build at the first call with one error.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { buildIndex } from '../../lib/index/build';
import { createModelRouter } from '../../lib/models/router';
import { ScriptedServer } from '../../lib/models/testing/scripted-server';
import { registerOfflineHandlers } from '../../lib/pipeline/offline-backend';
import { KfError } from '../../lib/util/errors';
import { nonEmpty } from '../_shared/non-empty';
import { tempDir } from './helpers';

/** Three Markdown documents, each with a table (a fragment the caption stage describes). */
function corpus(): string {
  const dir = tempDir('kf-describe-corpus-');
  for (const n of [1, 2, 3])
    fs.writeFileSync(
      path.join(dir, `city${n}.md`),
      `# City ${n}\n\nCity ${n} lies on a river.\n\n| year | inhabitants |\n|---|---|\n| 2015 | ${n}000 |\n| 2016 | ${n}100 |\n`,
    );
  return dir;
}

function captionRouter(url: string) {
  registerOfflineHandlers();
  return createModelRouter(
    {
      stages: {
        caption: { backend: 'openai', baseUrl: url, model: 'cap-m', maxAttempts: 1 },
        extraction: { backend: 'offline' },
        relations: { backend: 'offline' },
      },
    },
    { env: { OPENAI_API_KEY: 'k' }, cacheMode: 'off' },
  );
}

test('failed model descriptions past the limit fail the build; under it the manifest lists the offline ones', async (t) => {
  const server = await ScriptedServer.start();
  t.after(() => server.close());
  const router = captionRouter(server.url);
  t.after(() => router.close());
  server.on({ reply: { status: 500, error: 'overloaded' } });
  const dir = corpus();
  const out = tempDir();
  await assert.rejects(
    buildIndex({ corpusDir: dir, outDir: out, embedder: 'hash', models: router, options: { ingest: { ocr: 'off' } } }),
    (e: unknown) => e instanceof KfError && e.code === 'describe_failures' && /3 of 3 model descriptions failed/.test(e.message),
  );
  assert.equal(fs.existsSync(path.join(out, 'CURRENT')), false, 'no half-offline index');
  assert.equal(server.requests.length, 3, 'one failed call per table fragment');

  // Accepting failures (the limit raised): the index is built, and says which fragments carry offline descriptions.
  const r = await buildIndex({
    corpusDir: dir,
    outDir: out,
    embedder: 'hash',
    models: router,
    options: { ingest: { ocr: 'off' }, maxDescribeFailureShare: 1 },
  });
  const d = r.manifest.descriptions!;
  assert.equal(d.by, 'model');
  assert.equal(d.failed, 3);
  assert.equal(d.offline, 3);
  assert.ok(nonEmpty(d.offlineFragments, 'offline-described fragments').every((id) => /city\d/.test(id)));
});

test('a refused key fails the build at the first description call, with the key hint', async (t) => {
  const server = await ScriptedServer.start();
  t.after(() => server.close());
  const router = captionRouter(server.url);
  t.after(() => router.close());
  server.on({ reply: { status: 401, error: 'invalid api key' } });
  const out = tempDir();
  await assert.rejects(
    buildIndex({ corpusDir: corpus(), outDir: out, embedder: 'hash', models: router, options: { ingest: { ocr: 'off' }, concurrency: 1 } }),
    (e: unknown) => e instanceof KfError && e.code === 'model_call_failed' && /401/.test(e.message) && /OPENAI_API_KEY/.test(e.hint),
  );
  assert.equal(server.requests.length, 1, 'stopped at the first call');
  assert.equal(fs.existsSync(path.join(out, 'CURRENT')), false);
});
