/**
 * Prompt templates live as text files in prompts/ (one per role and benchmark
 * rule). `{{name}}` placeholders are filled here; a missing value is an error,
 * never an empty string, so a typo cannot silently change an experiment.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { KfError } from './errors';
import { repoRoot } from './paths';

const cache = new Map<string, string>();

export function promptsDir(): string {
  return process.env.KF_PROMPTS_DIR ? path.resolve(process.env.KF_PROMPTS_DIR) : path.join(repoRoot(), 'prompts');
}

/** The raw template text of `prompts/<name>.txt` (trailing newline trimmed). */
export function loadPrompt(name: string): string {
  const file = path.join(promptsDir(), `${name}.txt`);
  const hit = cache.get(file);
  if (hit !== undefined) return hit;
  if (!fs.existsSync(file)) {
    throw new KfError('prompt_missing', `prompt template ${file} does not exist`, `add prompts/${name}.txt or fix the template name in the config`, {
      concerns: file,
    });
  }
  const text = fs.readFileSync(file, 'utf8').replace(/\s+$/, '');
  cache.set(file, text);
  return text;
}

/** Fill `{{name}}` placeholders. Every placeholder must be supplied (use '' explicitly for "nothing"). */
export function fillPrompt(name: string, vars: Record<string, string>): string {
  const template = loadPrompt(name);
  return template
    .replace(/\{\{(\w+)\}\}/g, (_, key: string) => {
      if (!(key in vars)) {
        throw new KfError(
          'prompt_var_missing',
          `prompt ${name} needs {{${key}}} but the caller did not supply it`,
          'pass the variable (or an empty string) to fillPrompt',
          { concerns: name },
        );
      }
      return vars[key];
    })
    .replace(/\n{3,}/g, '\n\n');
}

/** Tests and long-running notebooks that edit prompts/ can drop the cache. */
export function clearPromptCache(): void {
  cache.clear();
}
