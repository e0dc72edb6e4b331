/**
 * The weak-relevance note (setting weakRelevance): a search listing whose best
 * hit scores under the gate starts with the note, in the chosen pack's words
 * (the knowforge-bench pack takes it from the checkout's materials.py). The
 * runner's gate (2.0 on the hosted 0-10 score) applies on a hosted knowledge
 * base; a local index gets the note only with weakRelevanceGate set.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { SearchHit } from '../../lib/index/types';
import { weakRelevanceGate } from '../../lib/knowforge/agent-pipeline';
import { agentSettings } from '../../lib/knowforge/agent-settings';
import { importKnowforgeBench } from '../../lib/knowforge/prompt-pack/knowforge-bench';
import { clearResolvedPacks, resolvePromptPack } from '../../lib/knowforge/prompt-pack/packs';
import { newToolContext, type SearchLogEntry } from '../../lib/knowforge/tools/context';
import { renderHits } from '../../lib/knowforge/tools/search';
import type { KnowledgeBase } from '../../lib/pipeline/knowledge-base';
import { withPromptPack } from '../../lib/util/prompts';
import { repoRoot } from '../../lib/util/paths';
import { ownScratch } from '../_shared/scratch';
import { toyKb } from './toy-kb';

const hit = (score: number): SearchHit => ({
  fragmentId: 'd#1',
  docId: 'd',
  kind: 'text',
  rank: 1,
  score,
  scores: {},
  via: 'hybrid',
  text: 't',
  section: [],
  media: [],
});
const entry = (score: number): SearchLogEntry => ({ query: 'q', by: 'locator', topk: 8, hits: [hit(score)], ms: 0 });

test('the gate: the runner value on a hosted knowledge base, the setting elsewhere, none when off', () => {
  const s = agentSettings.parse({});
  const local = { id: '/idx#g1' } as KnowledgeBase;
  const remote = { id: 'remote:abc' } as KnowledgeBase;
  assert.equal(weakRelevanceGate(s, remote), 2);
  assert.equal(weakRelevanceGate(s, local), undefined, 'local fused scores are normalised per query: no a-priori gate');
  assert.equal(weakRelevanceGate(agentSettings.parse({ weakRelevanceGate: 0.3 }), local), 0.3);
  assert.equal(weakRelevanceGate(agentSettings.parse({ weakRelevance: 'off' }), remote), undefined);
});

test('a listing under the gate starts with the note, in the pack words; above it, no note', async () => {
  const ctx = newToolContext(toyKb(), { mode: 'hybrid', searchBy: 'locator', weakRelevanceGate: 2 });
  const weak = renderHits(ctx, entry(1.2));
  assert.equal(Object.keys(weak)[0], 'note');
  assert.match(String(weak.note), /Low match/);
  assert.equal(renderHits(ctx, entry(6)).note, undefined);
  assert.equal(renderHits(newToolContext(toyKb(), { mode: 'hybrid', searchBy: 'locator' }), entry(0.1)).note, undefined);
  const dir = ownScratch('kf-weak-');
  const before = process.env.KF_STATE_DIR;
  process.env.KF_STATE_DIR = dir;
  clearResolvedPacks();
  try {
    const m = importKnowforgeBench(path.join(repoRoot(), 'test', '__fixtures__', 'knowforge-bench'));
    assert.ok(m.sources.some((x) => x.file === 'kfbench/materials.py'));
    assert.equal(m.templates.find((t) => t.template === 'weak-relevance')?.source, 'kfbench/materials.py');
    const note = await withPromptPack(resolvePromptPack('knowforge-bench'), async () => renderHits(ctx, entry(1)).note);
    assert.equal(note, '[fixture weak match note]');
  } finally {
    if (before === undefined) delete process.env.KF_STATE_DIR;
    else process.env.KF_STATE_DIR = before;
    clearResolvedPacks();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
