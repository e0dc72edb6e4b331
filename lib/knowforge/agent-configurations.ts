/**
 * The agent configurations of the paper as DATA over the 'knowforge-agents'
 * family (spec "Configurations"; defaults = M5, L=4, R=4):
 *   M4     pipeline with a plain 12K pool and no judge
 *   M5     full pipeline
 *   M5OFF  M5 with the M3DocRAG-style answer template
 *   M5VEC  M5 on the dense-only index mode
 *   M5S3   M5 without graph expansion (hybrid)
 *   P0     one agent with every tool, 8 rounds, same judge/pool/synth/checker
 *   P1     M5 without the Deep Reader
 *   M5RS   defection test: the Deep Reader also holds search_knowledge
 *   M5JD   M5 whose bridge judge may also drop evidence from the pool
 *   L+R    round caps (0+0 = S4 itself, one-shot family): 0+0, 1+0, 1+1, 2+2, 3+3, 4+4, 5+5, 6+6, 4+1, 1+4, 3+4, 4+3
 */
import type { Configuration } from '../pipeline/spec';
import { AGENTS_FAMILY } from './agent-settings';
import { ONE_SHOT_FAMILY } from './one-shot';

const row = (name: string, description: string, settings: Record<string, unknown>): Configuration => ({
  name,
  family: AGENTS_FAMILY,
  paper: 'knowforge',
  description,
  settings,
});

export const ROUND_CAPS: readonly [number, number][] = [
  [0, 0],
  [1, 0],
  [1, 1],
  [2, 2],
  [3, 3],
  [4, 4],
  [5, 5],
  [6, 6],
  [4, 1],
  [1, 4],
  [3, 4],
  [4, 3],
];

/** The name of an L+R cap row ("L4R4"): '+' is a valid pipeline name character, but file names and shells like letters. */
export function capName(l: number, r: number): string {
  return `L${l}R${r}`;
}

/**
 * The sweep's 0+0 point is S4 itself, as in the paper: no agent round means no Locator, no judge and no
 * reader, so what is left is one search with the question and the S4 answer template (one-shot family).
 */
const S4_AS_L0R0: Configuration = {
  name: capName(0, 0),
  family: ONE_SHOT_FAMILY,
  paper: 'knowforge',
  description: 'round caps L+R = 0+0: S4 itself (one search with the question, M3DocRAG-style template, no judge)',
  settings: { mode: 'hybrid+graph', template: 'm3docrag' },
};

export const AGENT_CONFIGURATIONS: Configuration[] = [
  row('M4', 'pipeline with a plain 12K pool and no bridge judge', { pool: 'plain', plainChars: 12_000, judge: false }),
  row('M5', 'full pipeline: Locator (L=4) -> bridge judge -> typed 30K pool -> Deep Reader (R=4) -> synthesizer -> checker', {}),
  row('M5OFF', 'M5 with the M3DocRAG-style answer template', { template: 'm3docrag' }),
  row('M5VEC', 'M5 on the dense-only index mode', { mode: 'dense' }),
  row('M5S3', 'M5 without graph expansion (dense + BM25)', { mode: 'hybrid' }),
  row('P0', 'one agent with every tool, 8 rounds, same judge/pool/synthesizer/checker', { p0: true, p0Rounds: 8 }),
  row('P1', 'M5 without the Deep Reader', { reader: false, readerRounds: 0 }),
  row('M5RS', 'defection test: M5 whose Deep Reader also holds search_knowledge (reader searches counted, not pooled)', { readerSearch: true }),
  row('M5JD', 'M5 whose bridge judge may also drop pool blocks it judges off-topic (they stay out of the pool)', { judgeDrops: true }),
  ...ROUND_CAPS.map(([l, r]) =>
    l === 0 && r === 0
      ? S4_AS_L0R0
      : row(capName(l, r), `round caps L+R = ${l}+${r} (Locator ${l}, Deep Reader ${r})`, { locatorRounds: l, readerRounds: r, reader: r > 0 }),
  ),
];
