/**
 * What `kf serve kb` serves from its flags, opened: the plan (./plan.ts) with the models config read,
 * the package map written when asked (`--write-packages`), and the lines a person reads before the
 * listening line (unmatched map entries, the first packages). The single-process command and every
 * worker of `--workers N` (./worker-main.ts) open their packages through here.
 */
import * as path from 'node:path';
import type { IndexModels } from '../index/open';
import { writeJsonAtomic } from '../util/fsx';
import { packagesJson, type ServedPackage } from './packages';
import { planServe, type ServePlanOptions } from './plan';

/** The plan's flags (JSON: a worker receives them in its environment). */
export interface PlannedSource {
  plan: Omit<ServePlanOptions, 'models' | 'log'>;
  /** Models config file, for an index built with an embedding endpoint (the caller builds its router). */
  models?: string;
  /** Write the served packages in the runner's kb_packages.json layout here. */
  writePackages?: string;
}

export interface OpenedPackages {
  packages: ServedPackage[];
  close(): Promise<void>;
}

/** Open the packages; `writer`: this process writes `--write-packages` (one worker of many does); `router`: from `models`, closed by close(). */
export async function openPlanned(
  src: PlannedSource,
  o: { writer: boolean; say: (line: string) => void; router?: IndexModels & { close(): Promise<void> } },
): Promise<OpenedPackages> {
  const router = o.router;
  const plan = await planServe({ ...src.plan, models: router, log: o.say });
  if (plan.unmatched.length)
    o.say(
      `${plan.unmatched.length} entries of the package map name no served document (e.g. ${plan.unmatched[0].name}): their uuids are answered as not served`,
    );
  if (src.writePackages && o.writer) {
    writeJsonAtomic(path.resolve(src.writePackages), packagesJson(plan.packages, plan.section));
    o.say(`wrote ${plan.packages.length} packages to ${src.writePackages} (the runner's [kb] packages_file)`);
  }
  for (const p of plan.packages.slice(0, 5)) o.say(`  ${p.uuid}  ${p.perDocument ? p.docs[0].file : `${p.docs.length} documents`}`);
  if (plan.packages.length > 5) o.say(`  ... ${plan.packages.length - 5} more`);
  return { packages: plan.packages, close: async () => void (await router?.close().catch(() => undefined)) };
}
