import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Progress, formatDuration } from '../../lib/run/progress';
import { nonEmpty } from '../_shared/non-empty';

function sink(isTTY: boolean) {
  const chunks: string[] = [];
  return { chunks, stream: Object.assign({ write: (s: string) => (chunks.push(s), true), isTTY }) as unknown as NodeJS.WritableStream & { isTTY: boolean } };
}

test('plain progress: a start line, lines every 10% with rate and ETA, resume-aware', () => {
  const { chunks, stream } = sink(false);
  let now = 0;
  const p = new Progress({ stream, now: () => now, label: 'run-x' });
  p.start(20, 10);
  assert.equal(chunks[0], 'run-x: 10/20 already recorded, 10 to go\n');
  for (let i = 0; i < 10; i++) {
    now += 500;
    p.tick(i !== 3);
  }
  p.finish();
  const last = chunks[chunks.length - 1];
  assert.match(last, /^run-x: 20\/20 100% 2\.00 q\/s ETA 0s elapsed 5s errors 1\n$/);
  assert.match(chunks[1], /^run-x: 11\/20 55% 2\.00 q\/s ETA 5s/);
  assert.ok(chunks.length <= 12 && nonEmpty(chunks).every((c) => c.endsWith('\n')));
});

test('TTY progress: one redrawn bar, log lines do not get overwritten', () => {
  const { chunks, stream } = sink(true);
  let now = 0;
  const p = new Progress({ stream, now: () => now });
  p.start(4, 0);
  now += 1000;
  p.tick(true);
  p.log('hello');
  now += 1000;
  p.tick(false);
  p.tick(true);
  p.tick(true);
  p.finish();
  const text = chunks.join('');
  assert.ok(text.startsWith('\r['));
  assert.match(text, /\r\x1b\[Khello\n\r\[/);
  assert.match(text, /\[#{24}\] 4\/4 100% .* errors 1\x1b\[K\n$/);
  assert.equal(formatDuration(3_725_000), '1h02m');
  assert.equal(formatDuration(65_000), '1m05s');
});

test('the bar shows the running answer metric (x100, this session; a failed question counts 0)', () => {
  const { chunks, stream } = sink(false);
  let now = 0;
  const p = new Progress({ stream, now: () => now, label: 'run-m', plainEveryMs: 1 });
  p.start(4, 0);
  now += 10;
  p.tick(true, { em: 1, f1: 1 });
  assert.match(chunks.at(-1) ?? '', /^run-m: 1\/4 25% f1 100\.0 /);
  now += 10;
  p.tick(true, { em: 0, f1: 0.5 });
  now += 10;
  p.tick(false, {});
  assert.match(chunks.at(-1) ?? '', /^run-m: 3\/4 75% f1 50\.0 .* errors 1\n$/);
  const bare = sink(false);
  const q = new Progress({ stream: bare.stream, now: () => now, label: 'no-scores', plainEveryMs: 1 });
  q.start(1, 0);
  q.tick(true);
  assert.match(bare.chunks.at(-1) ?? '', /^no-scores: 1\/1 100% \d/, 'no metric before any score');
});
