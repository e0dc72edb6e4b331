/**
 * `kf experiments`: the experiments a user can run, as a table of family,
 * benchmark, description and the short name `kf run` accepts (its path under
 * experiments/), plus the suites `kf suite` runs.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { bool, str, type CommandSpec } from '../command';
import { experimentCatalog, experimentsRoot, type ExperimentEntry } from '../experiment-catalog';
import { loadSuite } from '../../report/suite';
import { KfError } from '../../util/errors';
import { didYouMean } from '../../util/did-you-mean';
import { formatTextTable } from '../text-table';

function suites(dir: string): { ref: string; description: string }[] {
  const sdir = path.join(dir, 'suites');
  if (!fs.existsSync(sdir)) return [];
  return fs
    .readdirSync(sdir)
    .filter((f) => f.endsWith('.toml'))
    .sort()
    .map((f) => {
      try {
        return { ref: `suites/${f}`, description: loadSuite(path.join(sdir, f)).spec.description ?? '' };
      } catch (e) {
        return { ref: `suites/${f}`, description: `(does not load: ${(e as Error).message.split('\n')[0]})` };
      }
    });
}

/** Keep the entries whose field equals the filter; an unknown value is an error naming the known ones. */
function filterBy(rows: ExperimentEntry[], key: 'family' | 'benchmark', want: string | undefined): ExperimentEntry[] {
  if (!want) return rows;
  const values = [...new Set(rows.map((r) => r[key]))].sort();
  if (!values.includes(want)) {
    const near = didYouMean(want, values);
    throw new KfError('bad_flag', `--${key} ${want} matches no experiment`, `${near ? `did you mean ${near}? ` : ''}known: ${values.join(', ')}`, {
      concerns: want,
    });
  }
  return rows.filter((r) => r[key] === want);
}

export const command: CommandSpec = {
  name: 'experiments',
  group: 'run',
  summary: 'List the experiments (family, benchmark, description, the name kf run takes) and the suites',
  options: {
    family: { type: 'string', description: 'only this pipeline family (knowforge-one-shot, knowforge-agents, dualg, ...)' },
    benchmark: { type: 'string', description: 'only this benchmark (demo, m3docvqa, mmlongbench-doc, multihop-rag, 2wiki, ...)' },
    json: { type: 'boolean', description: 'print one JSON list' },
  },
  examples: ['kf experiments', 'kf experiments --benchmark demo', 'kf run knowforge/demo/M5     # or just: kf run M5 (the demo world wins a tie)'],
  async run(args) {
    const dir = experimentsRoot();
    let rows = experimentCatalog(dir);
    rows = filterBy(rows, 'family', str(args, 'family'));
    rows = filterBy(rows, 'benchmark', str(args, 'benchmark'));
    if (bool(args, 'json')) {
      console.log(JSON.stringify(rows.map((r) => ({ ...r, file: path.relative(process.cwd(), r.file) }))));
      return 0;
    }
    const table = rows.map((r) => [r.ref, r.family, r.benchmark, r.error ? `(does not load: ${r.error})` : r.description]);
    for (const line of formatTextTable(['name (kf run <name>)', 'family', 'benchmark', 'description'], table)) console.log(line);
    console.log(`\n${rows.length} experiment(s) in ${path.relative(process.cwd(), dir) || dir}/ -- a unique tail of a name is enough (kf run M5)`);
    if (!str(args, 'family') && !str(args, 'benchmark')) {
      const ss = suites(dir);
      if (ss.length) {
        console.log('\nsuites (kf suite experiments/<file>):');
        for (const line of formatTextTable(
          ['file', 'description'],
          ss.map((s) => [s.ref, s.description]),
        ))
          console.log(`  ${line}`);
      }
    }
    const broken = rows.filter((r) => r.error).length;
    if (broken) console.error(`note: ${broken} experiment file(s) do not load (their line says why); kf run <name> prints the full error`);
    return 0;
  },
};
