/**
 * Guards "every item ..." assertions against passing on zero items: wrap the
 * list, `assert.ok(nonEmpty(hits).every(...))`, and an empty list fails with
 * a message instead of holding vacuously.
 */
import assert from 'node:assert/strict';

export function nonEmpty<T>(items: readonly T[], what = 'the list'): readonly T[] {
  assert.ok(items.length > 0, `${what} is empty: nothing to check "every" against`);
  return items;
}
