/**
 * The role tool sets of KnowForge, enforced in code through the agent tool
 * registry: the Locator holds only finding tools, the Deep Reader only reading
 * tools, the two neutral lookups are shared, and P0 is the declared union.
 * With native tool calls a request lists only its role's tools; with the JSON
 * protocol a call to another role's tool is refused by the loop (never run,
 * error result, counted as out-of-role) — see `foreignTools`.
 */
import { ToolRegistry, ToolSet } from '../../agents/tools';
import { LOCATOR_TOOLS, searchKnowledge } from './locator-tools';
import { READER_TOOLS } from './reader-tools';
import { SHARED_TOOLS } from './shared-tools';

/**
 * 'reader-search' is the paper's defection test, not a pipeline role: the Deep Reader's tools plus
 * search_knowledge, to measure whether a reader that can search goes back to searching.
 */
export type KfRole = 'locator' | 'reader' | 'p0' | 'reader-search';

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

let readerSearch: ToolSet | undefined;

export function toolsOf(role: KfRole): ToolSet {
  // Built outside the registry on purpose: the registry keeps the roles' tool sets disjoint.
  if (role === 'reader-search') return (readerSearch ??= new ToolSet(role, [...knowforgeTools().toolsFor('reader').tools, searchKnowledge]));
  return knowforgeTools().toolsFor(role);
}

/** Every KnowForge tool name a role does NOT hold (the loop refuses and counts these). */
export function foreignTools(role: KfRole): string[] {
  const own = new Set(toolsOf(role).names());
  return toolsOf('p0')
    .names()
    .filter((n) => !own.has(n));
}
