/**
 * Machine captions as micro facts of image assets (GraphBuildOptions.captions, keyed by the image's
 * fragment id): content phrases and their links (lib/dualg/offline/caption-facts.ts), attached to the
 * image they describe; on the real MMQA LLaVA captions when ../shared/bench is present.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import type { Fragment } from '../../lib/corpus/types';
import { loadMmqa } from '../../lib/bench/mmqa';
import { MMQA } from '../../lib/bench/benchmarks/mmqa';
import { buildDualGraph, type GraphSource } from '../../lib/dualg/graph/build';
import { captionFacts, captionPhrases } from '../../lib/dualg/offline/caption-facts';
import { benchDir } from '../../lib/util/paths';
import { nonEmpty } from '../_shared/non-empty';

const image = (docId: string): Fragment => ({ id: `${docId}#0`, docId, kind: 'image', text: docId, section: [docId], ordinal: 0, attached: [] });

function imageSource(ids: string[], titles: Map<string, string> = new Map()): GraphSource {
  return {
    id: 'images',
    fingerprint: ids.join(','),
    documents: () => ids.map((id) => ({ id, title: titles.get(id) ?? id })),
    fragmentsOf: (id) => [image(id)],
  };
}

test('caption facts: content phrases (boilerplate, verb forms and place words break them) and the links between them', () => {
  const caption = ' The image features a large stone building with a flagpole in front, where a flag is flying at half-mast';
  assert.deepEqual(
    captionPhrases(caption).map((p) => p.phrase),
    ['large stone building', 'flagpole', 'flag', 'half-mast'],
  );
  assert.deepEqual(captionFacts('Robben Island', caption), [
    ['Robben Island', 'shows', 'large stone building'],
    ['Robben Island', 'shows', 'flagpole'],
    ['Robben Island', 'shows', 'flag'],
    ['Robben Island', 'shows', 'half-mast'],
    ['large stone building', 'with', 'flagpole'],
    ['flag', 'is flying at', 'half-mast'],
  ]);
  const man = captionFacts('Ryan Moore', 'In the image, there is a man standing next to a podium, wearing a blue jacket');
  assert.ok(
    man.some(([u, r, v]) => u === 'man' && r === 'standing next to' && v === 'podium'),
    JSON.stringify(man),
  );
  assert.deepEqual(captionFacts('X', ''), []);
  assert.ok(captionFacts('X', 'a b c d e f g h i j k l m n o p q r s t u v w x y z '.repeat(3).replace(/ /g, ', ')).length <= 16);
});

test('captions given to the graph builder become micro facts of their image; without captions the graph is unchanged', async () => {
  const source = imageSource(['Bay Area Bandits', 'Pacific Warriors']);
  const plain = await buildDualGraph(source);
  const g = await buildDualGraph(source, { captions: new Map([['Bay Area Bandits#0', 'The image features a logo with a bandana and a skull']]) });
  assert.equal(plain.micro.length, 0, 'an image without OCR or caption has no facts');
  const facts = nonEmpty(g.micro, 'caption facts');
  assert.ok(facts.every((f) => f.fragmentId === 'Bay Area Bandits#0' && f.kind === 'image' && g.docs[f.doc].id === 'Bay Area Bandits'));
  assert.ok(facts.some((f) => f.u === 'Bay Area Bandits' && f.r === 'shows' && f.v === 'bandana'));
  assert.ok(facts.some((f) => f.u === 'logo' && f.r === 'with' && f.v === 'bandana'));
  assert.deepEqual(g.docs, plain.docs);
});

const mmqaFiles = ['MMQA_dev.dev.jsonl.gz', 'MMQA_images.jsonl.gz', 'image_captions_llava.json'];
const absent = mmqaFiles.find((f) => !fs.existsSync(benchDir('mmqa', f)));

test(
  'MMQA LLaVA captions attach to their image ids as micro facts',
  { skip: absent && `real benchmark file absent: ${benchDir('mmqa', absent)}` },
  async () => {
    const data = loadMmqa(MMQA.defaultPaths('dev'), { corpus: 'candidates' });
    const passages = (data.passages ?? []).slice(0, 200);
    assert.equal(passages.length, 200);
    const titles = new Map(passages.map((p) => [p.id, p.title || p.id]));
    const captions = new Map(passages.map((p) => [`${p.id}#0`, p.text]));
    const g = await buildDualGraph(imageSource([...titles.keys()], titles), { captions });
    nonEmpty(g.micro, 'MMQA caption facts');
    const withFacts = new Set(g.micro.map((f) => f.fragmentId));
    assert.ok(withFacts.size >= 190, `${withFacts.size} of 200 images have caption facts`);
    for (const f of g.micro) assert.equal(f.fragmentId, `${g.docs[f.doc].id}#0`, 'a fact sits on the image its caption describes');
  },
);
