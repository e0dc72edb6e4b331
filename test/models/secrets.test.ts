/**
 * The API key never appears in anything the harness writes: cache files,
 * ledgers, route descriptions, agent transcripts, error messages, logs or CLI
 * output, even when the server echoes it back and the SDK is asked to log at
 * debug level. Everything is written into one temp dir and grepped.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runAgentLoop } from '../../lib/agents/loop';
import { parseFor } from '../../lib/cli/main';
import { command as modelsCommand } from '../../lib/cli/commands/models';
import { commands as cacheCommands } from '../../lib/cli/commands/cache';
import { createModelRouter } from '../../lib/models/router';
import { ScriptedServer } from '../../lib/models/testing/scripted-server';
import { errorMessage } from '../../lib/util/errors';
import { SECRET, recordingSleep, tempDir } from './helpers';
import { nonEmpty } from '../_shared/non-empty';
import { commandContext } from '../../lib/cli/command-context';

function walk(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

test('the API key never appears in cache files, ledgers, traces, error messages, logs or CLI output', async () => {
  const dir = tempDir('kf-secrets-');
  const server = await ScriptedServer.start();
  const saved = { ...process.env };
  const output: string[] = [];
  const origOut = process.stdout.write.bind(process.stdout);
  const origErr = process.stderr.write.bind(process.stderr);
  const capture = (chunk: unknown) => {
    output.push(String(chunk));
    return true;
  };
  Object.assign(process.env, {
    OPENAI_API_KEY: SECRET,
    OPENAI_BASE_URL: server.url,
    KF_MODEL: 'base-model',
    KF_EMBED_MODEL: 'emb',
    OPENAI_LOG: 'debug',
    KF_CACHE_FILE: path.join(dir, 'cache.sqlite'),
  });
  process.stdout.write = capture as typeof process.stdout.write;
  process.stderr.write = capture as typeof process.stderr.write;
  const errors: string[] = [];
  try {
    const s = recordingSleep();
    const router = createModelRouter(
      { stages: { judge: { maxAttempts: 2 } } },
      { cacheFile: path.join(dir, 'cache.sqlite'), cacheMode: 'read-write', runId: 'secret-run', retry: { sleep: s.sleep } },
    );
    // Successful calls (cached), embeddings, an agent loop with a trace.
    await router.forStage('synth').chat({ stage: 'synth', questionId: 'q1', messages: [{ role: 'user', content: 'hello' }] });
    await router.embedder()!.embed(['a', 'b']);
    server.enqueue(
      { text: JSON.stringify({ thought: 't', tool: 'search_knowledge', args: { query: 'x' } }) },
      { text: JSON.stringify({ thought: 't', final: 'ok' }) },
    );
    const trace = await runAgentLoop({
      role: 'locator',
      model: router.forStage('locator'),
      tools: [
        {
          name: 'search_knowledge',
          description: 'd',
          parameters: { type: 'object', properties: { query: { type: 'string' } } },
          handler: async () => ({ hits: [] }),
        },
      ],
      maxRounds: 2,
      user: 'q',
    });
    fs.writeFileSync(path.join(dir, 'trace.json'), JSON.stringify(trace));
    // Failures whose server messages echo the Authorization header.
    server.enqueue({ status: 401, echoAuth: true });
    await router
      .forStage('judge')
      .chat({ stage: 'judge', messages: [{ role: 'user', content: 'a' }] })
      .catch((e) => errors.push(errorMessage(e), String((e as Error).stack)));
    server.enqueue({ status: 500, echoAuth: true }, { status: 500, echoAuth: true });
    await router
      .forStage('judge')
      .chat({ stage: 'judge', messages: [{ role: 'user', content: 'b' }] })
      .catch((e) => errors.push(errorMessage(e), String((e as Error).stack)));
    server.enqueue({ reset: true }, { reset: true });
    await router
      .forStage('judge')
      .chat({ stage: 'judge', messages: [{ role: 'user', content: 'c' }] })
      .catch((e) => errors.push(errorMessage(e)));
    server.enqueue({ rawBody: `{"leak": "Bearer ${SECRET}"` }, { rawBody: 'nope' });
    await router
      .forStage('judge')
      .chat({ stage: 'judge', messages: [{ role: 'user', content: 'd' }] })
      .catch((e) => errors.push(errorMessage(e)));
    assert.ok(errors.length >= 4);
    fs.writeFileSync(path.join(dir, 'ledger.json'), JSON.stringify(router.ledger.toJSON()));
    fs.writeFileSync(path.join(dir, 'routes.json'), JSON.stringify(router.describe()));
    await router.close();
    const replay = createModelRouter({}, { cacheFile: path.join(dir, 'cache.sqlite'), cacheMode: 'replay-only' });
    await replay
      .forStage('synth')
      .chat({ stage: 'synth', questionId: 'q9', messages: [{ role: 'user', content: 'new' }] })
      .catch((e) => errors.push(errorMessage(e)));
    await replay.close();
    // The CLI, in-process, with the key in the environment.
    await modelsCommand.run(parseFor(modelsCommand, ['--check']), commandContext());
    await modelsCommand.run(parseFor(modelsCommand, ['--json']), commandContext());
    const stats = cacheCommands.find((c) => c.name === 'cache stats')!;
    await stats.run(parseFor(stats, []), commandContext());
  } finally {
    process.stdout.write = origOut;
    process.stderr.write = origErr;
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
  }
  fs.writeFileSync(path.join(dir, 'errors.log'), errors.join('\n'));
  fs.writeFileSync(path.join(dir, 'output.log'), output.join(''));
  // The key was really used...
  assert.ok(server.requests.some((r) => r.headers.authorization === `Bearer ${SECRET}`));
  assert.match(errors.join('\n'), /\[REDACTED\]/, 'the echoed key was scrubbed, not just absent');
  assert.match(output.join(''), /key \$OPENAI_API_KEY \(set\)/);
  // ... and never written anywhere.
  const files = walk(dir);
  assert.ok(files.some((f) => f.endsWith('cache.sqlite')));
  for (const f of nonEmpty(files, 'files written')) assert.equal(fs.readFileSync(f).indexOf(SECRET), -1, `the key leaked into ${path.basename(f)}`);
  await server.close();
  fs.rmSync(dir, { recursive: true, force: true });
});
