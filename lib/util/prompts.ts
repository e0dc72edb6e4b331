/**
 * Prompt templates live as text files, one per role and benchmark rule: the
 * project's own in prompts/ (the `own` pack), or a prompt pack built from an
 * outside source at run time (lib/knowforge/prompt-pack/). `{{name}}`
 * placeholders are filled here; a missing value is an error, never an empty
 * string, so a typo cannot silently change an experiment.
 *
 * The active pack is per async call chain (AsyncLocalStorage): a pipeline runs
 * each question inside `withPromptPack(pack, ...)`, so two experiments with
 * different packs in one process never mix texts. A template the active pack
 * does not provide comes from prompts/ (each pack's manifest lists which).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { KfError } from './errors';
import { repoRoot } from './paths';

/** A set of templates: a folder of `<name>.txt` files. */
export interface PromptPackRef {
  name: string;
  /** Folder of the pack's `<name>.txt` templates. */
  dir: string;
  /** Hash of every template the pack provides (name and text), as recorded in results. */
  sha256: string;
  /** Template names the pack provides; the others come from prompts/. */
  provides: ReadonlySet<string>;
  /** Where each template is, when not `<dir>/<name>.txt` (the own pack: a method's templates in prompts/<method>/). */
  files?: ReadonlyMap<string, string>;
}

const cache = new Map<string, string>();
const active = new AsyncLocalStorage<PromptPackRef>();

export function promptsDir(): string {
  return process.env.KF_PROMPTS_DIR ? path.resolve(process.env.KF_PROMPTS_DIR) : path.join(repoRoot(), 'prompts');
}

/** Run `fn` with `pack` as the source of every template it loads (also across awaits). */
export function withPromptPack<T>(pack: PromptPackRef | undefined, fn: () => T): T {
  return pack ? active.run(pack, fn) : fn();
}

/** The pack of the current call chain (undefined: the project's own prompts/). */
export function activePromptPack(): PromptPackRef | undefined {
  return active.getStore();
}

/** Folders of the plug-ins' own templates (Plugin.promptsDir), read after prompts/. */
const extraDirs: string[] = [];
/** Where a template name was found under prompts/ (its own folder or a method's), by prompts folder and name. */
const located = new Map<string, string | undefined>();

/**
 * Every template of the project's own wording, by name: prompts/<name>.txt (the stages and the
 * answer layer) and prompts/<method>/<name>.txt (a method's own templates); the top folder wins a tie.
 */
export function ownTemplateFiles(root = promptsDir()): Map<string, string> {
  const out = new Map<string, string>();
  if (!fs.existsSync(root)) return out;
  const entries = fs.readdirSync(root, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
  for (const e of entries) if (e.isFile() && e.name.endsWith('.txt')) out.set(e.name.slice(0, -4), path.join(root, e.name));
  for (const d of entries.filter((e) => e.isDirectory()))
    for (const f of fs.readdirSync(path.join(root, d.name)).sort())
      if (f.endsWith('.txt') && !out.has(f.slice(0, -4))) out.set(f.slice(0, -4), path.join(root, d.name, f));
  return out;
}

/** A template under prompts/: its own folder, else a method's folder (prompts/<method>/). */
function ownTemplateFile(name: string): string | undefined {
  const root = promptsDir();
  const top = path.join(root, `${name}.txt`);
  if (fs.existsSync(top)) return top;
  const key = `${root}\0${name}`;
  if (!located.has(key)) located.set(key, ownTemplateFiles(root).get(name));
  return located.get(key);
}

/** Add a plug-in's prompts folder (lib/pipeline/plugins.ts does, for each manifest that has one). */
export function addPromptsDir(dir: string): void {
  if (!extraDirs.includes(dir)) extraDirs.push(dir);
}

function templateFile(name: string): string {
  const pack = active.getStore();
  if (pack && pack.provides.has(name)) return pack.files?.get(name) ?? path.join(pack.dir, `${name}.txt`);
  const own = ownTemplateFile(name);
  if (own) return own;
  return extraDirs.map((d) => path.join(d, `${name}.txt`)).find((f) => fs.existsSync(f)) ?? path.join(promptsDir(), `${name}.txt`);
}

/** True when the active pack (or prompts/) has the template: optional texts (feedback suffixes) use this. */
export function hasPrompt(name: string): boolean {
  return fs.existsSync(templateFile(name));
}

/** The raw template text of `<name>.txt` from the active pack or prompts/ (trailing whitespace trimmed). */
export function loadPrompt(name: string): string {
  const file = templateFile(name);
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

/**
 * A layout fragment whose trailing spaces matter (an indent unit, a mark followed by its space): the text
 * of `<name>.txt` less only its final line break, which the file itself adds.
 */
export function loadPromptSpaced(name: string): string {
  loadPrompt(name); // fails the same way when the template is missing
  return fs.readFileSync(templateFile(name), 'utf8').replace(/\r?\n$/, '');
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
  located.clear();
}
