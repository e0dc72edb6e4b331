/**
 * `kf demo generate`: write the fictional demo world (documents in Markdown/HTML/
 * PDF with tables, charts and worked examples, plus questions) to disk. Thin: the
 * world lives in lib/demo.
 */
import * as path from 'node:path';
import type { CommandSpec } from '../command';
import { bool, int, isNonNegInt, isPositiveInt, str } from '../command';
import { ensureDemoWorld, PRESET_NAMES, PRESETS } from '../../demo';
import type { PresetName } from '../../demo';

const fmtCounts = (o: Record<string, number>) =>
  Object.entries(o)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');

export const command: CommandSpec = {
  name: 'demo generate',
  group: 'data',
  summary: 'Generate the fictional multimodal multi-hop demo world (documents, charts, questions); deterministic by seed',
  options: {
    preset: {
      type: 'string',
      choices: PRESET_NAMES,
      default: 'default',
      description: `size preset (tiny: ${PRESETS.tiny.documents} docs, default: ${PRESETS.default.documents}, scale: ${PRESETS.scale.documents})`,
    },
    seed: { type: 'string', description: `random seed (default ${PRESETS.default.seed})` },
    documents: { type: 'string', validate: isPositiveInt, description: 'total documents, distractors included' },
    questions: { type: 'string', validate: isNonNegInt, description: 'number of questions' },
    distractors: { type: 'string', validate: isNonNegInt, description: 'distractor documents (no question is about them)' },
    paragraphs: { type: 'string', validate: isNonNegInt, description: 'filler paragraphs per document' },
    out: { type: 'string', description: 'output directory (default data/demo/<preset>, or data/demo/<preset>-<hash> for non-preset options)' },
    force: { type: 'boolean', description: 'regenerate even when an identical world is already there' },
  },
  examples: [
    'kf demo generate --preset tiny',
    'kf demo generate --seed 7 --documents 200 --questions 300 --out /tmp/world',
    'kf demo generate --preset scale   # 3,368 documents; takes minutes',
  ],
  async run(args) {
    const t0 = Date.now();
    const out = str(args, 'out');
    const res = await ensureDemoWorld({
      preset: str(args, 'preset') as PresetName,
      ...(str(args, 'seed') !== undefined ? { seed: str(args, 'seed') } : {}),
      ...(int(args, 'documents') !== undefined ? { documents: int(args, 'documents') } : {}),
      ...(int(args, 'questions') !== undefined ? { questions: int(args, 'questions') } : {}),
      ...(int(args, 'distractors') !== undefined ? { distractors: int(args, 'distractors') } : {}),
      ...(int(args, 'paragraphs') !== undefined ? { paragraphs: int(args, 'paragraphs') } : {}),
      ...(out !== undefined ? { dir: path.resolve(out) } : {}),
      force: bool(args, 'force'),
    });
    const c = res.manifest.counts;
    const secs = ((Date.now() - t0) / 1000).toFixed(1);
    console.log(
      res.generated
        ? `wrote demo world to ${res.dir} in ${secs} s`
        : `demo world already up to date in ${res.dir} (same options hash ${res.manifest.optionsHash}; --force regenerates)`,
    );
    console.log(`  seed ${res.manifest.seed}, options hash ${res.manifest.optionsHash}`);
    console.log(`  documents ${c.documents} (${fmtCounts(c.byFormat)}; ${c.distractorDocuments} distractors), ${c.pdfPages} PDF pages`);
    console.log(`  figures ${c.images}, tables ${c.tables}, worked examples ${c.examples}, paragraphs ${c.paragraphs}`);
    console.log(`  questions ${c.questions}${c.questionShortfall ? ` (${c.questionShortfall} fewer than asked: the world is too small)` : ''}`);
    console.log(`    hops: ${fmtCounts(c.byHops)}`);
    console.log(`    answer formats: ${fmtCounts(c.byAnswerFormat)}`);
    console.log(`    evidence modality: ${fmtCounts(c.byModality)}`);
    console.log(`  corpus: ${path.join(res.dir, 'corpus')}  questions: ${path.join(res.dir, 'questions.json')}`);
  },
};
