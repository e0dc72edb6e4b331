/**
 * Which knowledge-base package holds which document: the released runner's `data/kb_packages.json`
 * (sections per benchmark; a section maps a name, a document file for MMLongBench-Doc, to a package
 * uuid or to `{package_uuid, ...}`), or a flat `{name: uuid}` map such as `kf serve kb --write-packages`
 * writes. Read at run time from the user's copy; nothing of it is stored in the repository.
 */
import * as fs from 'node:fs';
import { KfError } from '../util/errors';
import { docStem } from './shapes';

export interface PackageEntry {
  /** The name as the file writes it ("2310.05634v2.pdf", "mhr-full-609"). */
  name: string;
  /** The document id it stands for when it names a document: the name without a document extension. */
  doc: string;
  uuid: string;
  /** The section it was read from (runner layout), absent in a flat map. */
  section?: string;
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => !!v && typeof v === 'object' && !Array.isArray(v);

function uuidOf(v: unknown): string | undefined {
  if (typeof v === 'string' && v.trim()) return v.trim();
  if (isObject(v) && typeof v.package_uuid === 'string' && v.package_uuid.trim()) return v.package_uuid.trim();
  return undefined;
}

/** Entries of a map object: names whose value is a uuid (or holds one). */
function entriesOf(o: Json, section?: string): PackageEntry[] {
  const out: PackageEntry[] = [];
  for (const [name, v] of Object.entries(o)) {
    const uuid = uuidOf(v);
    if (uuid) out.push({ name, doc: docStem(name), uuid, ...(section ? { section } : {}) });
  }
  return out;
}

/** Every entry of a package file; with `section`, only that section's (runner layout). */
export function readPackageMap(file: string, section?: string): PackageEntry[] {
  const what = `package map ${file}`;
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    const missing = (e as NodeJS.ErrnoException).code === 'ENOENT';
    throw new KfError(
      'bad_package_map',
      `${what}: ${missing ? 'no such file' : `not JSON (${(e as Error).message})`}`,
      "pass the runner's data/kb_packages.json or a JSON object {document: package uuid}",
      { concerns: file },
    );
  }
  if (!isObject(raw))
    throw new KfError('bad_package_map', `${what}: not a JSON object`, 'write it as {document: package uuid} or in the runner layout', { concerns: file });
  const sections = Object.entries(raw).filter(([, v]) => isObject(v) && !uuidOf(v));
  // A flat map has no sections: a benchmark's section name does not apply to it.
  const pick = sections.length ? section : undefined;
  if (pick && !sections.some(([k]) => k === pick))
    throw new KfError('bad_package_map', `${what}: no section "${pick}"`, `use one of: ${sections.map(([k]) => k).join(', ') || '(none: a flat map)'}`, {
      concerns: file,
    });
  const out = [...(pick ? [] : entriesOf(raw)), ...sections.filter(([k]) => !pick || k === pick).flatMap(([k, v]) => entriesOf(v as Json, k))];
  if (!out.length)
    throw new KfError('bad_package_map', `${what}: no package uuid in it`, 'each entry maps a name to a uuid or to {package_uuid: ...}', { concerns: file });
  return out;
}
