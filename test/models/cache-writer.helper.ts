/**
 * Child process for the cache concurrency/crash test: writes replies into a
 * shared cache file. Usage: <file> <prefix> <count> (count 0 = until killed).
 */
import { ModelCache } from '../../lib/models/cache';

const [file, prefix, countText] = process.argv.slice(2);
const count = Number(countText);
const cache = ModelCache.open(file);
for (let i = 0; count === 0 || i < count; i++) {
  cache.put(
    `${prefix}-${i}`,
    { text: `reply ${prefix} ${i} `.repeat(20), toolCalls: [], usage: { promptTokens: i, completionTokens: 1 }, model: 'm', finishReason: 'stop' },
    { stage: prefix },
  );
  if (count === 0 && i % 10 === 0) process.stdout.write(`${i}\n`);
}
cache.close();
