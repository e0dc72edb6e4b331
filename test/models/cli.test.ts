/** `kf models` and `kf cache stats|clear`, run in-process (thin commands over lib/models). */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseFor } from '../../lib/cli/main';
import { command as modelsCommand } from '../../lib/cli/commands/models';
import { commands as cacheCommands } from '../../lib/cli/commands/cache';
import { ScriptedServer } from '../../lib/models/testing/scripted-server';
import { isKfError } from '../../lib/util/errors';
import { routerFor, tempDir } from './helpers';
import { nonEmpty } from '../_shared/non-empty';
import { withEnv } from '../_shared/env';
import { commandContext } from '../../lib/cli/command-context';

let server: ScriptedServer;
before(async () => {
  server = await ScriptedServer.start({ models: ['base-model'] });
});
after(async () => {
  await server.close();
});

async function capture(fn: () => Promise<unknown>): Promise<{ out: string; code: unknown }> {
  const lines: string[] = [];
  const orig = console.log;
  console.log = (...a: unknown[]) => lines.push(a.join(' '));
  try {
    const code = await fn();
    return { out: lines.join('\n'), code };
  } finally {
    console.log = orig;
  }
}

const clean = { OPENAI_BASE_URL: undefined, KF_MODEL: undefined, OPENAI_API_KEY: undefined, KF_EMBED_MODEL: undefined, KF_CACHE_FILE: undefined };

test('kf models prints each stage with provenance from a TOML config; --check pings; errors are per stage', async () => {
  const dir = tempDir();
  const cfg = path.join(dir, 'exp.toml');
  fs.writeFileSync(
    cfg,
    `[models.defaults]\nbase_url = "${server.url}"\nmodel = "base-model"\n[models.stages.judge]\nmodel = "judge-model"\ntimeout_ms = 5000\n`,
  );
  const r = await withEnv(clean, () =>
    capture(() => modelsCommand.run(parseFor(modelsCommand, ['--config', cfg, '--stage', 'judge', '--stage', 'synth', '--check']), commandContext())),
  );
  assert.equal(r.code, 0);
  assert.match(r.out, /judge\s+openai\s+judge-model\s+\[experiment\.stages\.judge\]/);
  assert.match(r.out, /timeout 5000 ms \[experiment\.stages\.judge\]/);
  assert.match(r.out, /synth\s+openai\s+base-model\s+\[experiment\.defaults\]/);
  assert.match(r.out, /check http:\/\/127\.0\.0\.1:\d+\/v1: ok .* serves base-model/);
  assert.match(r.out, /not listed by the endpoint: judge-model/);
  assert.equal(server.requests.filter((q) => q.kind === 'models').length, 1);
  const bad = await withEnv({ ...clean, OPENAI_BASE_URL: server.url }, () =>
    capture(() => modelsCommand.run(parseFor(modelsCommand, ['--stage', 'judge']), commandContext())),
  );
  assert.equal(bad.code, 1);
  assert.match(bad.out, /judge\s+ERROR\s+stage judge routes to .* but no model is named for it/);
  const off = await withEnv(clean, () => capture(() => modelsCommand.run(parseFor(modelsCommand, ['--json']), commandContext())));
  const parsed = JSON.parse(off.out);
  assert.ok(nonEmpty(parsed.stages as { backend: string }[]).every((s) => s.backend === 'offline'));
  fs.rmSync(dir, { recursive: true, force: true });
});

test('kf cache stats and clear (which needs --yes); a missing file is a clear error', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'c.sqlite');
  const router = routerFor(server, {}, { cacheFile: file, cacheMode: 'read-write' });
  await router.forStage('judge').chat({ stage: 'judge', messages: [{ role: 'user', content: 'one' }] });
  await router.forStage('synth').chat({ stage: 'synth', messages: [{ role: 'user', content: 'two' }] });
  await router.close();
  const stats = cacheCommands.find((c) => c.name === 'cache stats')!;
  const clear = cacheCommands.find((c) => c.name === 'cache clear')!;
  const s = await capture(() => stats.run(parseFor(stats, ['--file', file, '--json']), commandContext()));
  const j = JSON.parse(s.out);
  assert.equal(j.replies, 2);
  assert.deepEqual(j.byStage, { judge: 1, synth: 1 });
  const dry = await capture(() => clear.run(parseFor(clear, ['--file', file, '--stage', 'judge']), commandContext()));
  assert.match(dry.out, /would delete 1 cached replies of stage judge .* rerun with --yes/);
  await capture(() => clear.run(parseFor(clear, ['--file', file, '--stage', 'judge', '--yes']), commandContext()));
  const after1 = JSON.parse((await capture(() => stats.run(parseFor(stats, ['--file', file, '--json']), commandContext()))).out);
  assert.deepEqual(after1.byStage, { synth: 1 });
  await assert.rejects(
    stats.run(parseFor(stats, ['--file', path.join(dir, 'none.sqlite')]), commandContext()),
    (e: unknown) => isKfError(e) && /does not exist/.test(e.message),
  );
  fs.writeFileSync(path.join(dir, 'junk.sqlite'), 'this is not sqlite at all, just text '.repeat(50));
  await assert.rejects(
    stats.run(parseFor(stats, ['--file', path.join(dir, 'junk.sqlite')]), commandContext()),
    (e: unknown) => isKfError(e) && /not a model cache/.test(e.hint),
  );
  fs.rmSync(dir, { recursive: true, force: true });
});
