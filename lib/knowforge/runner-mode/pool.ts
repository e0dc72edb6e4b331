/**
 * Runner mode's pool: the builder's blocks split into units (numbered materials, one unit per figure
 * line of a search's figure group, one per example line, plain blocks whole), joined by blank lines;
 * over the cap, typed sub-pools evict their lowest unprotected unit (dense cosine across searches,
 * the top three of each type in a search protected), as the released runner does.
 */
import type { Json } from './kb-api';
import type { RunnerMaterials } from './materials';

export const MATERIAL_CAP = 30000;
const SUB_CAPS: Record<string, number> = { image: 3000, table: 3000, example: 2000 };

interface Markers {
  open: string;
  close: string;
  groups: string[];
}

function markers(b: RunnerMaterials): Markers {
  const first = b.s.material.find((p) => typeof p === 'string') as string;
  const after = b.s.material[2];
  const groupOf = (h: string) => h.slice(0, h.indexOf('】') + 1);
  return { open: first, close: typeof after === 'string' ? after[0] : '】', groups: [groupOf(b.s.hitHeader), groupOf(b.s.exampleHeader)].filter(Boolean) };
}

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The units of the builder's blocks: [id, text], and the fragment ids of plain units. */
export function splitUnits(b: RunnerMaterials): { units: [string, string][]; plainFids: Map<string, string[]> } {
  const mk = markers(b);
  const split = new RegExp([`(?=^${esc(mk.open)}\\d+${esc(mk.close)})`, ...mk.groups.map((g) => `(?=^${esc(g)})`)].join('|'), 'm');
  const num = new RegExp(`^${esc(mk.open)}(\\d+)${esc(mk.close)}`);
  const units: [string, string][] = [];
  const plainFids = new Map<string, string[]>();
  const counters: Record<string, number> = { G: 0, E: 0, P: 0 };
  b.blocks.forEach((block, bi) => {
    const parts = block.split(split).filter((x) => x);
    let got = false;
    for (const part of parts) {
      const m = num.exec(part);
      const group = mk.groups.findIndex((g) => part.startsWith(g));
      if (m) {
        units.push([m[1], part.trimEnd()]);
        got = true;
      } else if (group >= 0) {
        const letter = group === 0 ? 'G' : 'E';
        const lines = part
          .trimEnd()
          .split('\n')
          .filter((l) => l.trim());
        const [header, ...items] = lines;
        items.forEach((ln, j) => units.push([`${letter}${++counters[letter]}`, j === 0 ? `${header}\n${ln}` : ln]));
        if (!items.length) units.push([`${letter}${++counters[letter]}`, header]);
        got = true;
      }
    }
    if (!got) {
      const id = `P${++counters.P}`;
      units.push([id, block.trimEnd()]);
      plainFids.set(id, b.blockFids.get(bi) ?? []);
    }
  });
  return { units, plainFids };
}

interface Info {
  vec: number;
  prot: boolean;
  kind: string;
}

function scoreInfo(searchLog: Json[], protectN: number): Map<string, Info> {
  const info = new Map<string, Info>();
  for (const e of searchLog) {
    const data = (e.data ?? {}) as Json;
    for (const [key, kind] of [
      ['results', 'text'],
      ['images', 'image'],
      ['tables', 'table'],
      ['examples', 'example'],
    ]) {
      const ranked = [...((data[key] ?? []) as Json[])].sort((a, c) => (Number(c.raw_score) || 0) - (Number(a.raw_score) || 0));
      ranked.forEach((it, i) => {
        const fid = it.fragment_id;
        if (!fid) return;
        const base = it.anchor_fragment_id ? info.get(it.anchor_fragment_id) : undefined;
        let vec = Number(it.vec_score) || 0;
        let prot = i + 1 <= protectN;
        if (base) [vec, prot] = [base.vec, base.prot];
        const cur = info.get(fid);
        if (!cur || vec > cur.vec) info.set(fid, { vec, prot: prot || Boolean(cur?.prot), kind: it.kind || kind });
      });
    }
  }
  return info;
}

/** The pool text the synthesizer (and the judge, the reader) reads. */
export function poolMaterials(b: RunnerMaterials, searchLog: Json[], cap = MATERIAL_CAP, protectN = 3): string {
  const { units, plainFids } = splitUnits(b);
  const full = units.map(([, t]) => t).join('\n\n');
  if ([...full].length <= cap) return full;
  const info = scoreInfo(searchLog, protectN);
  const known = [...info.values()].map((d) => d.vec).sort((x, y) => x - y);
  const median = known.length ? known[Math.floor(known.length / 2)] : 0;
  const caps: Record<string, number> = { ...SUB_CAPS };
  caps.text = Math.max(4000, cap - Object.values(SUB_CAPS).reduce((x, y) => x + y, 0));
  const pools: Record<string, [number, string, string, number, boolean][]> = { image: [], table: [], example: [], text: [] };
  const used: Record<string, number> = { image: 0, table: 0, example: 0, text: 0 };
  const fidRe = new RegExp(b.s.fidPattern);
  units.forEach(([uid, text], idx) => {
    let kind = 'text';
    let vec: number;
    let prot: boolean;
    if (uid.startsWith('P')) {
      const srcs = (plainFids.get(uid) ?? []).filter((f) => info.has(f));
      vec = srcs.length ? Math.max(...srcs.map((f) => info.get(f)!.vec)) : 1.0;
      prot = srcs.length ? srcs.some((f) => info.get(f)!.prot) : true;
    } else if (uid.startsWith('G')) {
      const m = fidRe.exec(text);
      const d = m ? info.get(m[1]) : undefined;
      kind = d?.kind ?? 'image';
      if (!(kind in caps)) kind = 'image';
      [vec, prot] = [d?.vec ?? 0, d?.prot ?? false];
    } else if (uid.startsWith('E')) [kind, vec, prot] = ['example', median, false];
    else {
      const d = info.get(String(b.citations.get(uid)?.fragment_id ?? '')) ?? { vec: 0, prot: false };
      [vec, prot] = [d.vec, d.prot];
    }
    const len = [...text].length;
    pools[kind].push([idx, uid, text, vec, prot]);
    used[kind] += len + 2;
    while (used[kind] > caps[kind] && pools[kind].length) {
      const unprot = pools[kind].filter((x) => !x[4]);
      const cands = unprot.length ? unprot : pools[kind];
      const victim = cands.reduce((lo, x) => (x[3] < lo[3] || (x[3] === lo[3] && x[0] > lo[0]) ? x : lo));
      pools[kind].splice(pools[kind].indexOf(victim), 1);
      used[kind] -= [...victim[2]].length + 2;
    }
  });
  return Object.values(pools)
    .flat()
    .sort((x, y) => x[0] - y[0])
    .map((x) => x[2])
    .join('\n\n');
}
