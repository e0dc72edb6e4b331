/**
 * `kf cache stats|clear`: inspect or empty the model reply cache (SQLite).
 * Clearing asks for --yes: recorded replies are what replay-only runs use and
 * may have cost money to make.
 */
import * as fs from 'node:fs';
import type { CommandSpec } from '../command';
import { bool, str } from '../command';
import { defaultCacheFile, ModelCache } from '../../models/cache';
import { KfError } from '../../util/errors';

function cacheFileArg(file: string | undefined): string {
  const f = file ?? process.env.KF_CACHE_FILE ?? defaultCacheFile();
  if (!fs.existsSync(f))
    throw new KfError(
      'cache_missing',
      `model cache ${f} does not exist`,
      'pass --file <path> (runs write it where models.cache.file / KF_CACHE_FILE say; default .kf-cache/models.sqlite)',
      { concerns: f },
    );
  return f;
}

function human(bytes: number): string {
  return bytes > 1 << 20 ? `${(bytes / (1 << 20)).toFixed(1)} MiB` : `${(bytes / 1024).toFixed(1)} KiB`;
}

const fileOption = { type: 'string' as const, description: 'cache file (default $KF_CACHE_FILE or .kf-cache/models.sqlite)' };

export const commands: CommandSpec[] = [
  {
    name: 'cache stats',
    group: 'dev',
    summary: 'Show what the model reply cache holds (replies per stage and model, OCR results, embeddings)',
    options: { file: fileOption, json: { type: 'boolean', description: 'print JSON' } },
    examples: ['kf cache stats', 'kf cache stats --file results/m5/models.sqlite --json'],
    async run(args) {
      const cache = ModelCache.open(cacheFileArg(str(args, 'file')), { create: false });
      try {
        const s = cache.stats();
        if (bool(args, 'json')) {
          console.log(JSON.stringify(s, null, 2));
          return 0;
        }
        console.log(`cache       ${s.file} (${human(s.bytes)})`);
        console.log(
          `replies     ${s.replies}${s.oldest ? ` (${s.oldest} .. ${s.newest})` : ''}${s.rejected ? `, ${s.rejected} rejected by their stage (never replayed)` : ''}`,
        );
        for (const [k, n] of Object.entries(s.byStage)) console.log(`  stage ${k.padEnd(12)} ${n}`);
        for (const [k, n] of Object.entries(s.byModel)) console.log(`  model ${k.padEnd(12)} ${n}`);
        console.log(`ocr         ${s.ocr}`);
        console.log(`embeddings  ${s.embeddings}`);
        return 0;
      } finally {
        cache.close();
      }
    },
  },
  {
    name: 'cache clear',
    group: 'dev',
    summary: 'Delete cached model replies (all, or one stage; --everything also OCR results and embeddings)',
    options: {
      file: fileOption,
      stage: { type: 'string', description: 'only the replies of this stage' },
      everything: { type: 'boolean', description: 'also delete cached OCR results and embeddings' },
      yes: { type: 'boolean', short: 'y', description: 'really delete (without it, only say what would go)' },
    },
    examples: ['kf cache clear --stage judge --yes', 'kf cache clear --everything --yes'],
    async run(args) {
      const stage = str(args, 'stage');
      if (stage && bool(args, 'everything')) throw new KfError('bad_args', '--stage and --everything cannot be combined', 'clear one stage, or everything');
      const cache = ModelCache.open(cacheFileArg(str(args, 'file')), { create: false });
      try {
        const s = cache.stats();
        const replies = stage ? (s.byStage[stage] ?? 0) : s.replies;
        const extra = bool(args, 'everything') ? ` + ${s.ocr} OCR results + ${s.embeddings} embeddings` : '';
        if (!bool(args, 'yes')) {
          console.log(`would delete ${replies} cached replies${stage ? ` of stage ${stage}` : ''}${extra} from ${s.file}; rerun with --yes to do it`);
          return 0;
        }
        const n = cache.clear({ stage, everything: bool(args, 'everything') });
        console.log(`deleted ${n} rows from ${s.file}`);
        return 0;
      } finally {
        cache.close();
      }
    },
  },
];
