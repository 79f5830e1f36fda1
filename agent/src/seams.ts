import { randomUUID } from 'node:crypto';
import type { AgentConfig } from './config.js';

/** The injected clock: every timestamp the agent writes comes from here. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

/** The injected id generator: session ids and tool scratch ids come from here. */
export interface IdGenerator {
  /** A new id `<prefix>-<unique part>`. */
  next(prefix: string): string;
}

/** The system clock, or a fixed-step clock (each reading advances by stepMs) for deterministic runs. */
export function createClock(config: AgentConfig['clock']): Clock {
  if (config.kind === 'system') return { now: () => Date.now() };
  let t = Date.parse(config.start);
  const step = config.stepMs;
  return {
    now: () => {
      const v = t;
      t += step;
      return v;
    },
  };
}

/** Random UUID ids, or counters per prefix (`sess-1`, `sess-2`...) for deterministic runs. */
export function createIds(config: AgentConfig['ids']): IdGenerator {
  if (config.kind === 'random') return { next: (prefix) => `${prefix}-${randomUUID()}` };
  const counters = new Map<string, number>();
  return {
    next: (prefix) => {
      const n = (counters.get(prefix) ?? 0) + 1;
      counters.set(prefix, n);
      return `${prefix}-${n}`;
    },
  };
}
