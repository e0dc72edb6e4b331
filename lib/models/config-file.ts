/**
 * Reading a models config from a file (JSON or TOML). The file may be a whole
 * experiment config with a `models` table, or a models config on its own.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { KfError } from '../util/errors';
import { normalizeModelsConfig, type ModelsConfig } from './config';
import { jsonErrorLabel } from '../util/json-error-at';

// smol-toml is an ES module with a CommonJS build; its types are ESM-only, so require it with a local type.
const { parse: parseToml } = require('smol-toml') as { parse(text: string): unknown };

/** `file:line:column` of a TOML syntax error (smol-toml gives both). */
function tomlPlace(file: string, e: unknown): string {
  const te = e as { line?: number; column?: number };
  return te.line ? `${file}:${te.line}:${te.column ?? '?'}` : file;
}

export function readModelsConfigFile(file: string): ModelsConfig {
  const abs = path.resolve(file);
  let text: string;
  try {
    text = fs.readFileSync(abs, 'utf8');
  } catch (e) {
    throw new KfError('file_missing', `config file ${abs} cannot be read (${(e as NodeJS.ErrnoException).code ?? e})`, 'check the path', {
      concerns: abs,
      cause: e,
    });
  }
  let raw: unknown;
  try {
    raw = /\.toml$/i.test(abs) ? parseToml(text) : JSON.parse(text);
  } catch (e) {
    throw new KfError(
      'bad_config_file',
      /\.toml$/i.test(abs)
        ? `config file ${tomlPlace(abs, e)} is not valid TOML: ${(e as Error).message.split('\n')[0]}`
        : `config file ${jsonErrorLabel(abs, text)} is not valid JSON: ${(e as Error).message.replace(/ in JSON at position \d+$/, '')}`,
      'fix the syntax at that line and column',
      { concerns: abs, cause: e },
    );
  }
  const obj = raw as Record<string, unknown>;
  const models = obj && typeof obj === 'object' && 'models' in obj ? obj.models : obj;
  try {
    return normalizeModelsConfig(models, `${path.basename(abs)}: models`);
  } catch (e) {
    if (e instanceof KfError) throw new KfError(e.code, e.message, e.hint, { concerns: abs, cause: e });
    throw e;
  }
}
