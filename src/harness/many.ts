// Arrays of any length into a call, one element at a time. A spread (push(...xs), Math.max(...xs))
// passes every element as an argument on the stack, and past about 100 000 of them (fewer deep in
// a run) throws RangeError; the product's arrays are sized by what a target answers or a user's
// files hold. eslint.config.mjs forbids the spread in src/ and suites/.

/** Appends every element of each list to `to`, in order; returns `to`. */
export function pushAll<T>(to: T[], ...lists: Iterable<T>[]): T[] {
  for (const list of lists) for (const x of list) to.push(x);
  return to;
}

/** Math.max of the values (-Infinity for none, NaN when one is NaN), as Math.max(...values) is. */
export function maxOf(values: Iterable<number>): number {
  let m = -Infinity;
  for (const v of values) m = Math.max(m, v);
  return m;
}

/** Math.min of the values (Infinity for none, NaN when one is NaN), as Math.min(...values) is. */
export function minOf(values: Iterable<number>): number {
  let m = Infinity;
  for (const v of values) m = Math.min(m, v);
  return m;
}
