// JSON nesting has to be bounded before anything recursive (JSON.stringify, zod, the SDK, a normalizer)
// walks a value: past a few thousand levels they overflow the stack with a RangeError that names nothing.

/** Deepest JSON nesting accepted where hostile input is read; real logs and ACP messages nest a dozen levels. */
export const MAX_JSON_DEPTH = 1000;

/** Whether a JSON value nests deeper than `max` levels; an iterative walk, safe on values of any depth. */
export function nestsDeeperThan(value: unknown, max = MAX_JSON_DEPTH): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  for (let top = stack.pop(); top; top = stack.pop()) {
    const [v, depth] = top;
    if (v === null || typeof v !== 'object') continue;
    const children = Array.isArray(v) ? v : Object.values(v);
    if (children.length > 0 && depth + 1 > max) return true;
    for (const c of children) stack.push([c, depth + 1]);
  }
  return false;
}
