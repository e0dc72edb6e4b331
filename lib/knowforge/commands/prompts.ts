/**
 * `kf prompts import knowforge-bench <checkout-dir>` builds the released
 * runner's prompt pack from the user's own checkout (the texts never enter this
 * project); `kf prompts list` shows the packs, their sha256 and where each
 * template comes from. A configuration picks one with the `prompts` setting
 * (`--prompts` on kf run / ask / eval retrieval).
 */
import type { CommandSpec } from '../../pipeline/command';
import { bool } from '../../pipeline/command';
import { KfError } from '../../util/errors';
import { importKnowforgeBench } from '../prompt-pack/knowforge-bench';
import { KNOWFORGE_BENCH_PACK, PACK_NAMES, packDir, readPackManifest, resolvePromptPack } from '../prompt-pack/packs';
import { isKfError } from '../../util/errors';

export const commands: CommandSpec[] = [
  {
    name: 'prompts import',
    group: 'setup',
    summary: "Build a prompt pack from an outside source (knowforge-bench: the authors' released runner, from your checkout)",
    positionals: [
      { name: 'pack', description: `the pack to build: ${KNOWFORGE_BENCH_PACK}`, required: true },
      { name: 'source', description: 'the root folder of your checkout of github.com/metask-ai/knowforge-bench', required: true },
    ],
    options: { json: { type: 'boolean', description: 'print the manifest as JSON' } },
    examples: ['git clone https://github.com/metask-ai/knowforge-bench ../knowforge-bench', 'kf prompts import knowforge-bench ../knowforge-bench'],
    async run(args) {
      const [pack, source] = args.positionals;
      if (pack !== KNOWFORGE_BENCH_PACK)
        throw new KfError('bad_flag', `kf prompts import: no importer for pack "${pack}"`, `the importable pack is ${KNOWFORGE_BENCH_PACK}`);
      const m = importKnowforgeBench(source);
      if (bool(args, 'json')) console.log(JSON.stringify(m, null, 2));
      else {
        console.log(`prompt pack ${m.name} (sha256 ${m.sha256.slice(0, 16)}…) -> ${packDir(m.name)}`);
        for (const s of m.sources) console.log(`  source ${s.file}  sha256 ${s.sha256.slice(0, 16)}…`);
        for (const t of m.templates) console.log(`  ${t.template.padEnd(28)} ${t.from.padEnd(24)} ${t.role}`);
        console.log(`  from prompts/ (the project's wording): ${m.fromOwn.join(', ')}`);
        console.log(`use it: --prompts ${m.name} (kf run / ask / eval retrieval) or pipeline.settings.prompts = "${m.name}"`);
      }
      return 0;
    },
  },
  {
    name: 'prompts list',
    group: 'setup',
    summary: 'List the prompt packs, whether each is available, and its sha256',
    options: { json: { type: 'boolean', description: 'print JSON' } },
    examples: ['kf prompts list'],
    async run(args) {
      const rows = PACK_NAMES.map((name) => {
        try {
          const p = resolvePromptPack(name);
          const m = name === 'own' ? undefined : readPackManifest(name);
          return { name, available: true, sha256: p.sha256, dir: p.dir, templates: p.provides.size, checkout: m?.checkout, importedAt: m?.importedAt };
        } catch (e) {
          if (!isKfError(e)) throw e;
          return { name, available: false, problem: `${e.message}; ${e.hint}` };
        }
      });
      if (bool(args, 'json')) console.log(JSON.stringify(rows, null, 2));
      else
        for (const r of rows)
          console.log(
            r.available
              ? `${r.name.padEnd(16)} sha256 ${String(r.sha256).slice(0, 16)}…  ${r.templates} template(s)  ${r.dir}`
              : `${r.name.padEnd(16)} not available: ${r.problem}`,
          );
      return 0;
    },
  },
];
