/**
 * The in-process chat model (lib/models/in-process.ts): dispatch by role or
 * stage to a registered handler, required task fields, tool calls, and a clear
 * error when nothing is registered. Runs in its own process (node --test), so
 * the registry starts empty here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InProcessModel, InProcessResources, offlineRoles, registerOfflineHandler } from '../../lib/models/in-process';
import { isKfError } from '../../lib/util/errors';

test('in-process model: with no handler registered, a call fails naming the stage and what to do', async () => {
  await assert.rejects(new InProcessModel('judge').chat({ stage: 'judge', messages: [] }), (e: unknown) => {
    assert.ok(isKfError(e));
    assert.equal(e.code, 'offline_no_handlers');
    assert.match(e.message, /stage judge/);
    assert.match(e.hint, /registerOfflineHandlers\(\)/);
    return true;
  });
});

test('in-process model: dispatches by task role, then by stage name or a claimed stage; checks needed fields', async () => {
  const seen: string[] = [];
  registerOfflineHandler<{ role: string; question: string }>('echo', {
    stages: ['echo-alias'],
    needs: ['question'],
    taskFile: 'test',
    reply: (task, ctx) => {
      seen.push(`${task.role}@${ctx.stage}`);
      return `Q: ${task.question}`;
    },
  });
  registerOfflineHandler('caller', { reply: () => ({ text: '', toolCalls: [{ id: 'c1', name: 'search', arguments: '{}' }] }) });
  assert.deepEqual(offlineRoles(), ['echo', 'caller']);

  const byRole = await new InProcessModel('any').chat({ stage: 'any', messages: [], task: { role: 'echo', question: 'a' } });
  assert.equal(byRole.text, 'Q: a');
  assert.equal(byRole.backend, 'offline');
  assert.equal(byRole.model, 'offline');
  assert.equal(byRole.finishReason, 'stop');
  const byAlias = await new InProcessModel('echo-alias').chat({ stage: 'echo-alias', messages: [], task: { question: 'b' } });
  assert.equal(byAlias.text, 'Q: b');
  assert.deepEqual(seen, ['echo@any', 'echo@echo-alias']);

  const tools = await new InProcessModel('caller').chat({ stage: 'caller', messages: [] });
  assert.equal(tools.toolCalls.length, 1);
  assert.equal(tools.finishReason, 'tool_calls');

  await assert.rejects(
    new InProcessModel('echo').chat({ stage: 'echo', messages: [], task: {} }),
    (e: unknown) => isKfError(e) && e.code === 'offline_task_incomplete' && /no "question"/.test(e.message),
  );
  await assert.rejects(
    new InProcessModel('x').chat({ stage: 'x', messages: [], task: { role: 'nope' } }),
    (e: unknown) => isKfError(e) && e.code === 'offline_unknown_role' && /echo, caller/.test(e.hint),
  );
  await assert.rejects(new InProcessModel('mystery').chat({ stage: 'mystery', messages: [] }), (e: unknown) => isKfError(e) && e.code === 'offline_no_task');
});

test('in-process resources: created once on first use and closed with their owner; given ones are never closed', async () => {
  let made = 0;
  const closed: string[] = [];
  const given = { shared: { close: () => void closed.push('given') } };
  const res = new InProcessResources(undefined, given);
  const a = res.get('ocr', () => ({ n: ++made, close: () => void closed.push('owned') }));
  const b = res.get('ocr', () => ({ n: ++made, close: () => void closed.push('owned') }));
  assert.equal(a, b);
  assert.equal(made, 1);
  assert.equal(
    res.get('shared', () => ({ close: () => void closed.push('wrong') })),
    given.shared,
  );
  await res.close();
  assert.deepEqual(closed, ['owned']);
});
