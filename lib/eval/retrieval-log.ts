/** What a pipeline reports of its searches, for the model-free recall metrics (lib/eval/retrieval.ts). */
import type { SearchHit } from '../index/types';

/** Retrieval bookkeeping for model-free recall metrics (spec: "Retrieval recall"). */
export interface RetrievalLog {
  /** Hits of the first search, in rank order (R@k uses these). */
  firstSearch: Pick<SearchHit, 'fragmentId' | 'docId' | 'page' | 'score'>[];
  /** Every search's hits (R@all, doc found), tagged with who searched. */
  searches: { query: string; by: string; hits: Pick<SearchHit, 'fragmentId' | 'docId' | 'page'>[] }[];
  /** The final rendered evidence pool ("answer visible"). */
  poolText?: string;
  poolChars?: number;
  poolTrimmed?: boolean;
}
