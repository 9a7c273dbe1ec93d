// The bound of a check and of a shared observation (src/harness/time-limit.ts): aborts as
// AbortSignal.any([outer, AbortSignal.timeout(ms)]) would, and gives its timer and listener back.
import { getEventListeners } from 'node:events';
import { timeLimited } from '../../src/harness/time-limit';

afterEach(() => jest.useRealTimers());

test('aborts with the outer signal, and its reason', () => {
  const outer = new AbortController();
  const { signal } = timeLimited(outer.signal, 60_000);
  expect(signal.aborted).toBe(false);
  outer.abort('run stopped');
  expect([signal.aborted, signal.reason]).toEqual([true, 'run stopped']);
});

test('is aborted at once when the outer signal already is', () => {
  const { signal } = timeLimited(AbortSignal.abort('already'), 60_000);
  expect([signal.aborted, signal.reason]).toEqual([true, 'already']);
});

test('aborts with a TimeoutError when its time is up, not before', () => {
  jest.useFakeTimers();
  const { signal } = timeLimited(new AbortController().signal, 1000);
  jest.advanceTimersByTime(999);
  expect(signal.aborted).toBe(false);
  jest.advanceTimersByTime(1);
  expect([signal.aborted, (signal.reason as DOMException).name]).toEqual([true, 'TimeoutError']);
});

test('once released it is aborted (work left of what it bounded stops), no timer is left, and the outer signal keeps no place for it', () => {
  jest.useFakeTimers();
  const outer = new AbortController();
  const limited = timeLimited(outer.signal, 1000);
  const other = timeLimited(outer.signal, 1000);
  limited.release();
  expect([limited.signal.aborted, (limited.signal.reason as DOMException).name]).toEqual([true, 'AbortError']);
  expect(jest.getTimerCount()).toBe(1);
  outer.abort('later');
  expect([(limited.signal.reason as DOMException).name, other.signal.reason]).toEqual(['AbortError', 'later']);
  other.release();
  expect(jest.getTimerCount()).toBe(0);
});

test('many limits under one signal hang one listener on it (a run has dozens of checks in flight)', () => {
  const outer = new AbortController();
  const limits = Array.from({ length: 50 }, () => timeLimited(outer.signal, 60_000));
  expect(getEventListeners(outer.signal, 'abort')).toHaveLength(1);
  for (const l of limits.slice(0, 25)) l.release();
  outer.abort('stopped');
  expect(limits.map((l) => l.signal.reason)).toEqual([...limits.slice(0, 25).map((l) => l.signal.reason), ...Array(25).fill('stopped')]);
  expect(limits.slice(0, 25).every((l) => (l.signal.reason as DOMException).name === 'AbortError')).toBe(true);
  for (const l of limits.slice(25)) l.release();
});
