/**
 * `kf run <configuration> --corpus <dir> --questions <file> --name <bench>`: any
 * configuration of either paper over your own documents and questions. The flags
 * become config overrides (so the manifest and the resume command say what ran):
 * the `own` benchmark over these files, an index of the folder under
 * `${state}/index/own-<name>` built on first use, and a run named `<name>-<row>`.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { checkOwnName } from '../bench/own';
import { KfError } from '../util/errors';

export interface OwnDataFlags {
  corpus?: string;
  questions?: string;
  name?: string;
}

/** True when the flags ask for own data (any of --corpus, --questions, --name). */
export function wantsOwnData(f: OwnDataFlags): boolean {
  return f.corpus !== undefined || f.questions !== undefined || f.name !== undefined;
}

/** The overrides that point a configuration (`pipeline` = its row name) at your own data. */
export function ownDataOverrides(f: OwnDataFlags, pipeline: string): string[] {
  if (!f.questions || !f.corpus) {
    throw new KfError(
      'bad_flag',
      `your own data needs both --corpus and --questions (got ${f.corpus ? '--corpus' : f.questions ? '--questions' : '--name'} only)`,
      'kf run M5 --corpus <folder of PDF/HTML/Markdown> --questions <file with question + answer> --name <benchmark name>',
    );
  }
  const corpus = path.resolve(f.corpus);
  const questions = path.resolve(f.questions);
  if (!fs.existsSync(corpus) || !fs.statSync(corpus).isDirectory()) {
    throw new KfError('bench_file_missing', `--corpus ${f.corpus} is not a folder`, 'pass the folder that holds your documents', { concerns: corpus });
  }
  if (!fs.existsSync(questions)) {
    throw new KfError('bench_file_missing', `--questions ${f.questions} does not exist`, 'pass your questions file (JSON or JSON lines)', {
      concerns: questions,
    });
  }
  const name = checkOwnName(
    f.name ??
      path
        .basename(questions)
        .replace(/\.(jsonl?|json\.gz|jsonl\.gz)$/i, '')
        .replace(/[^A-Za-z0-9._+-]+/g, '-'),
  );
  const benchmark = { name: 'own', paths: { questions, corpus }, options: { name } };
  return [`benchmark=${JSON.stringify(benchmark)}`, `index.dir=\${state}/index/own-${name}`, 'index.build=ensure', `name=${name}-${pipeline}`];
}
