/**
 * Offline stand-ins for the two small calls of the paper's generator (not model results, labelled offline in
 * every record): the complexity self-check calls a question COMPLEX when the rule pattern parser finds two or
 * more named entities in it (two facts to join), SIMPLE otherwise; the candidate choice keeps the answer
 * with retrieval when it names one of the options, else the one without.
 */
import { scienceqaChoice } from '../../eval/metrics/scienceqa';
import { entities } from '../../util/text-rules';
import type { ChooseTask, ComplexityTask } from './tasks';

export function complexityVerdict(task: ComplexityTask): 'SIMPLE' | 'COMPLEX' {
  return entities(task.question ?? '').length >= 2 ? 'COMPLEX' : 'SIMPLE';
}

export function chooseReply(task: ChooseTask): string {
  const [withRetrieval, without] = task.candidates;
  const keep = scienceqaChoice(withRetrieval, task.options) >= 0 || scienceqaChoice(without, task.options) < 0 ? 1 : 2;
  return `KEEP: ${keep}\nFINAL ANSWER: ${keep === 1 ? withRetrieval : without}`;
}
