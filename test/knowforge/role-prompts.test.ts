/**
 * No role is told about a tool it does not hold: the composed system prompt of
 * the Locator, the Deep Reader and P0 names only that role's own tools, on a
 * small knowledge base and on one of 80+ documents (where the profile points to
 * list_books), under every answer convention and both agent protocols.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { composeSystemPrompt } from '../../lib/agents/system-prompt';
import { configuration } from '../../lib/pipeline/registry';
import type { KnowledgeBase } from '../../lib/pipeline/knowledge-base';
import { CONVENTIONS } from '../../lib/answer/conventions';
import { roleSystemParts } from '../../lib/knowforge/role-run';
import { newToolContext } from '../../lib/knowforge/tools/context';
import { toolsOf, type KfRole } from '../../lib/knowforge/tools/role-tools';
import { nonEmpty } from '../_shared/non-empty';

const ROLES: KfRole[] = ['locator', 'reader', 'p0', 'reader-search'];

function kbWith(nDocs: number): KnowledgeBase {
  const docs = Array.from({ length: nDocs }, (_, i) => ({ id: `d${i}`, title: `Document ${i}` }));
  return { documents: () => docs } as unknown as KnowledgeBase;
}

/** Tool names a prompt mentions as whole words. */
function namedTools(prompt: string, names: readonly string[]): string[] {
  return names.filter((n) => new RegExp(`\\b${n}\\b`).test(prompt));
}

test('role prompts: no role prompt names a tool of another role (80+ documents, every convention, both protocols)', () => {
  const every = toolsOf('p0').names();
  for (const nDocs of [3, 85]) {
    const tools = newToolContext(kbWith(nDocs), { mode: 'hybrid+graph', searchBy: 'locator' });
    for (const role of ROLES) {
      const own = toolsOf(role);
      for (const convention of CONVENTIONS) {
        for (const protocol of ['json', 'tools'] as const) {
          const prompt = composeSystemPrompt(roleSystemParts(role, tools, convention), own, protocol);
          const foreign = namedTools(prompt, every).filter((n) => !own.names().includes(n));
          assert.deepEqual(foreign, [], `${role} (${nDocs} docs, ${convention}, ${protocol}) is offered tools it lacks: ${foreign.join(', ')}`);
        }
      }
    }
  }
});

test('role prompts: on 80+ documents the Locator is pointed to list_books and the Deep Reader is not', () => {
  const tools = newToolContext(kbWith(85), { mode: 'hybrid+graph', searchBy: 'locator' });
  const locator = roleSystemParts('locator', tools, 'generic').kbProfile ?? '';
  const reader = roleSystemParts('reader', tools, 'generic').kbProfile ?? '';
  assert.match(locator, /list_books/);
  assert.doesNotMatch(reader, /list_books/);
  assert.match(reader, /85 \(at least\) document/);
  // The reader's own prompt (JSON protocol) does list its reading tools.
  const prompt = composeSystemPrompt(roleSystemParts('reader', tools, 'generic'), toolsOf('reader'), 'json');
  assert.ok(nonEmpty(toolsOf('reader').names(), 'reader tools').every((n) => prompt.includes(n)));
});

test('configuration rows: L0R0 is S4 itself; M5RS gives the Deep Reader a search tool (the defection test)', () => {
  const l0 = configuration('L0R0');
  const s4 = configuration('S4');
  assert.equal(l0?.family, s4?.family);
  assert.deepEqual(l0?.settings, s4?.settings);
  assert.deepEqual(configuration('M5RS')?.settings, { readerSearch: true });
  assert.ok(toolsOf('reader-search').names().includes('search_knowledge'));
  assert.ok(!toolsOf('reader').names().includes('search_knowledge'));
});
