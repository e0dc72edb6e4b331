/**
 * A number a paper published (issue 30): a method's manifest declares its paper's numbers, and the
 * notebooks and reports read them beside the harness's own (lib/report/paper-numbers.ts).
 */
export interface PublishedNumber {
  /** The paper's short id ('knowforge', 'dualg-mrag', a plug-in's own). */
  paper: string;
  /** Where in the paper: 'Table 6', 'headline', ... */
  source: string;
  /** The system or configuration: 'M5', 'M3DocRAG', 'DualG-MRAG', ... */
  system: string;
  /** The generator / reader model the number was measured with. */
  model: string;
  benchmark: string;
  /** Metric name as the harness spells it where possible: f1, em, acc, R@2, ... (x100). */
  metric: string;
  value: number;
}
