/**
 * The tool registry of the agent roles. A tool = name, description, JSON-schema
 * parameters and an async handler. Each role OWNS its tools: registering a tool
 * name for a second role fails, so a finding role can never be handed a reading
 * tool by accident (the paper's Locator never sees a reading tool; its Reader
 * has no search tool). Neutral lookups that the spec gives to several roles
 * (find_figure, list_media) are marked `shared`. A union role (P0: one agent
 * with every tool) is declared explicitly with `registerUnion`.
 */
import { KfError } from '../util/errors';
import type { ToolSpec } from '../model-api/types';

export interface ToolCallContext<Ctx = unknown> {
  role: string;
  round: number;
  questionId?: string;
  signal?: AbortSignal;
  /** Whatever the caller passed to the loop (retriever, pool, trace...). */
  context: Ctx;
}

// Tools are stored together whatever their context type, so the default is deliberately open.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export interface AgentTool<Ctx = any> {
  name: string;
  description: string;
  /** JSON schema of the arguments object (`type: object`, `properties`, `required`). */
  parameters: Record<string, unknown>;
  /** May be held by several roles (neutral lookups such as find_figure). */
  shared?: boolean;
  /** Counts as a search for roles that must search before finishing. */
  isSearch?: boolean;
  handler(args: Record<string, unknown>, ctx: ToolCallContext<Ctx>): Promise<unknown>;
}

const NAME_RE = /^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/;

/** The tools of one role, in the order registered. */
export class ToolSet {
  private readonly byName = new Map<string, AgentTool>();

  constructor(
    readonly role: string,
    tools: AgentTool[],
  ) {
    for (const t of tools) {
      if (!NAME_RE.test(t.name))
        throw new KfError('bad_tool', `tool name "${t.name}" of role ${role} is not a valid function name`, 'use letters, digits, _ or - (at most 64)');
      if (this.byName.has(t.name)) throw new KfError('bad_tool', `role ${role} lists tool ${t.name} twice`, 'register each tool once');
      this.byName.set(t.name, t);
    }
  }

  get tools(): AgentTool[] {
    return [...this.byName.values()];
  }

  names(): string[] {
    return [...this.byName.keys()];
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  get(name: string): AgentTool | undefined {
    return this.byName.get(name);
  }

  /** Names of the tools that count as searches. */
  searchTools(): string[] {
    return this.tools.filter((t) => t.isSearch).map((t) => t.name);
  }

  /** Specs for the native tools protocol (`tools` request parameter). */
  specs(): ToolSpec[] {
    return this.tools.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters }));
  }

  /** One line per tool (name, description, params) for the JSON protocol's system prompt. */
  describeLines(): string[] {
    return this.tools.map((t) => `- ${t.name}: ${t.description} Params: ${paramsLine(t.parameters)}`);
  }
}

/** `{query: string (required), topk?: integer}` from a JSON schema. */
export function paramsLine(schema: Record<string, unknown>): string {
  const props = (schema.properties ?? {}) as Record<string, { type?: string | string[]; description?: string; items?: { type?: string } }>;
  const required = new Set((schema.required ?? []) as string[]);
  const parts = Object.entries(props).map(([k, p]) => {
    const type = Array.isArray(p.type) ? p.type.join('|') : p.type === 'array' ? `${p.items?.type ?? 'any'}[]` : (p.type ?? 'any');
    return `${k}${required.has(k) ? '' : '?'}: ${type}${p.description ? ` (${p.description})` : ''}`;
  });
  return parts.length ? `{${parts.join(', ')}}` : '{}';
}

/**
 * Check arguments against the top level of the schema: required fields present,
 * primitive types right. Returns a message for the model, or undefined when fine.
 */
export function checkArgs(tool: AgentTool, args: Record<string, unknown>): string | undefined {
  const props = (tool.parameters.properties ?? {}) as Record<string, { type?: string | string[] }>;
  for (const r of (tool.parameters.required ?? []) as string[]) {
    if (args[r] === undefined || args[r] === null || args[r] === '') return `missing required argument "${r}" (params: ${paramsLine(tool.parameters)})`;
  }
  for (const [k, v] of Object.entries(args)) {
    const t = props[k]?.type;
    if (!t || v === null) continue;
    const types = Array.isArray(t) ? t : [t];
    const actual = Array.isArray(v) ? 'array' : typeof v === 'number' ? (Number.isInteger(v) ? 'integer' : 'number') : typeof v;
    const ok = types.some((x) => x === actual || (x === 'number' && actual === 'integer'));
    if (!ok) return `argument "${k}" must be ${types.join(' or ')}, got ${actual}`;
  }
  return undefined;
}

export class ToolRegistry {
  private readonly roleSets = new Map<string, ToolSet>();
  private readonly owner = new Map<string, string>();
  private readonly unions = new Set<string>();

  /** Register a role with its own tools; a non-shared tool name owned by another role fails. */
  registerRole(role: string, tools: AgentTool[]): ToolSet {
    if (this.roleSets.has(role)) throw new KfError('bad_tool', `role ${role} is registered twice`, 'register each role once');
    for (const t of tools) {
      const other = this.owner.get(t.name);
      if (other && !t.shared) {
        throw new KfError(
          'tool_not_disjoint',
          `tool ${t.name} belongs to role ${other}; role ${role} cannot hold it too`,
          'each role owns a disjoint tool set: give the role a different tool, or mark a neutral lookup tool `shared`',
        );
      }
      if (other && t.shared && !this.roleSets.get(other)!.get(t.name)?.shared) {
        throw new KfError(
          'tool_not_disjoint',
          `tool ${t.name} is owned by role ${other} and not shared`,
          'mark the tool `shared` where it is first registered',
        );
      }
    }
    const set = new ToolSet(role, tools);
    for (const t of tools) if (!this.owner.has(t.name)) this.owner.set(t.name, role);
    this.roleSets.set(role, set);
    return set;
  }

  /** A role holding every tool of the named roles (P0), declared as such. */
  registerUnion(role: string, roles: string[]): ToolSet {
    if (this.roleSets.has(role)) throw new KfError('bad_tool', `role ${role} is registered twice`, 'register each role once');
    const tools: AgentTool[] = [];
    for (const r of roles) {
      const set = this.roleSets.get(r);
      if (!set)
        throw new KfError('bad_tool', `union role ${role} names unknown role ${r}`, `register ${r} first (known: ${this.roles().join(', ') || 'none'})`);
      for (const t of set.tools) if (!tools.some((x) => x.name === t.name)) tools.push(t);
    }
    const set = new ToolSet(role, tools);
    this.roleSets.set(role, set);
    this.unions.add(role);
    return set;
  }

  toolsFor(role: string): ToolSet {
    const set = this.roleSets.get(role);
    if (!set) throw new KfError('unknown_role', `no tools registered for role ${role}`, `known roles: ${this.roles().join(', ') || 'none'}`);
    return set;
  }

  roles(): string[] {
    return [...this.roleSets.keys()];
  }

  /** The role that owns a tool (first registrant for shared tools). */
  ownerOf(tool: string): string | undefined {
    return this.owner.get(tool);
  }

  isUnion(role: string): boolean {
    return this.unions.has(role);
  }
}
