/**
 * The prompt packs a configuration can name (setting `prompts`):
 *   own              the project's wording, prompts/ (default)
 *   knowforge-bench  the released runner's texts, imported from the user's own
 *                    checkout by `kf prompts import knowforge-bench <checkout-dir>`
 *                    into .kf-cache/prompt-packs/knowforge-bench/ (never committed)
 * A pack is a folder of templates plus manifest.json (what each template is,
 * where it came from, the source file's sha256). Naming a pack that was not
 * imported fails when the configuration loads, naming the import command.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { KfError } from '../../util/errors';
import { readJson } from '../../util/fsx';
import { canonicalJson, sha256 } from '../../util/hash';
import { stateDir } from '../../util/paths';
import { ownTemplateFiles, promptsDir, type PromptPackRef } from '../../util/prompts';
import { didYouMean } from '../../util/did-you-mean';

export const OWN_PACK = 'own';
export const KNOWFORGE_BENCH_PACK = 'knowforge-bench';
export const PACK_NAMES = [OWN_PACK, KNOWFORGE_BENCH_PACK] as const;
export const PACK_MANIFEST_KIND = 'kf-prompt-pack';

/** One template of an imported pack, as its manifest lists it. */
export interface PackTemplate {
  template: string;
  /** What the text is for in the pipeline (which message of which stage). */
  role: string;
  /** Where it came from: the source file and the constant (or expression) read. */
  source: string;
  from: string;
  sha256: string;
}

export interface PackManifest {
  kind: typeof PACK_MANIFEST_KIND;
  version: 1;
  name: string;
  importedAt: string;
  checkout: string;
  /** Commit of the checkout when it is a git repository. */
  checkoutCommit?: string;
  sources: { file: string; sha256: string }[];
  templates: PackTemplate[];
  /** Templates the pack does not provide: they come from prompts/ (the project's wording). */
  fromOwn: string[];
  /** Hash of the pack's templates (name and text). */
  sha256: string;
}

/** Where an imported pack lives. */
export function packDir(name: string): string {
  return stateDir('prompt-packs', name);
}

/** The hash recorded for a pack: its template names and texts, order-independent. */
export function packHash(templates: Record<string, string>): string {
  const sorted = Object.keys(templates)
    .sort()
    .map((k) => [k, templates[k]]);
  return sha256(canonicalJson(sorted));
}

function ownPack(): PromptPackRef {
  const dir = promptsDir();
  const files = ownTemplateFiles(dir);
  const texts: Record<string, string> = {};
  for (const [name, file] of files) texts[name] = fs.readFileSync(file, 'utf8');
  return { name: OWN_PACK, dir, sha256: packHash(texts), provides: new Set(Object.keys(texts)), files };
}

export function importCommand(name: string): string {
  return name === KNOWFORGE_BENCH_PACK
    ? `kf prompts import ${KNOWFORGE_BENCH_PACK} <checkout-dir>  (a checkout of github.com/metask-ai/knowforge-bench)`
    : `kf prompts import ${name} <source>`;
}

/** An imported pack's manifest, or a clear error naming the import command. */
export function readPackManifest(name: string): PackManifest {
  const file = path.join(packDir(name), 'manifest.json');
  if (!fs.existsSync(file))
    throw new KfError('prompt_pack_missing', `prompt pack "${name}" has not been imported (no ${file})`, `run: ${importCommand(name)}`, {
      concerns: name,
    });
  const m = readJson<PackManifest>(file, 'prompt pack manifest');
  if (m.kind !== PACK_MANIFEST_KIND || m.name !== name)
    throw new KfError('prompt_pack_bad', `${file} is not the manifest of prompt pack "${name}"`, `import it again: ${importCommand(name)}`, {
      concerns: file,
    });
  return m;
}

const resolved = new Map<string, PromptPackRef>();

/** The pack a configuration names. Throws (KfError) on an unknown name or a pack that was not imported. */
export function resolvePromptPack(name: string): PromptPackRef {
  if (!(PACK_NAMES as readonly string[]).includes(name)) {
    const near = didYouMean(name, [...PACK_NAMES]);
    throw new KfError(
      'prompt_pack_unknown',
      `unknown prompt pack "${name}"${near ? ` (did you mean "${near}"?)` : ''}`,
      `use one of: ${PACK_NAMES.join(', ')}`,
      {
        concerns: name,
      },
    );
  }
  if (name === OWN_PACK) return ownPack();
  const dir = packDir(name);
  const key = `${dir}`;
  const hit = resolved.get(key);
  if (hit) return hit;
  const m = readPackManifest(name);
  const pack: PromptPackRef = { name, dir, sha256: m.sha256, provides: new Set(m.templates.map((t) => t.template)) };
  resolved.set(key, pack);
  return pack;
}

/** Forget resolved packs (tests that import a pack into a fresh state folder). */
export function clearResolvedPacks(): void {
  resolved.clear();
}
