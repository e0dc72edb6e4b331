/**
 * The role tool sets of KnowForge, enforced in code through the agent tool
 * registry: the Locator holds only finding tools, the Deep Reader only reading
 * tools, the two neutral lookups are shared, and P0 is the declared union.
 * With native tool calls a request lists only its role's tools; with the JSON
 * protocol a call to another role's tool is refused by the loop (never run,
 * error result, counted as out-of-role) — see `foreignTools`.
 */
import { ToolRegistry, type ToolSet } from '../../agents/tools';
import { LOCATOR_TOOLS } from './locator-tools';
import { READER_TOOLS } from './reader-tools';
import { SHARED_TOOLS } from './shared-tools';

export type KfRole = 'locator' | 'reader' | 'p0';

let registry: ToolRegistry | undefined;

export function knowforgeTools(): ToolRegistry {
  if (registry) return registry;
  const r = new ToolRegistry();
  r.registerRole('locator', [...LOCATOR_TOOLS, ...SHARED_TOOLS]);
  r.registerRole('reader', [...READER_TOOLS, ...SHARED_TOOLS]);
  r.registerUnion('p0', ['locator', 'reader']);
  registry = r;
  return r;
}

export function toolsOf(role: KfRole): ToolSet {
  return knowforgeTools().toolsFor(role);
}

/** Every KnowForge tool name a role does NOT hold (the loop refuses and counts these). */
export function foreignTools(role: KfRole): string[] {
  const own = new Set(toolsOf(role).names());
  return toolsOf('p0')
    .names()
    .filter((n) => !own.has(n));
}
