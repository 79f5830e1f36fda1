import * as z from 'zod';
import { failure } from './outcome.js';
import type { ToolOutcome } from './types.js';

/** Arguments that passed validation, or the failed outcome the model sees instead. */
export type ParsedArgs<T> = { ok: true; value: T } | { ok: false; outcome: ToolOutcome };

/**
 * Validates model-provided arguments. Never throws: a bad argument becomes a failed outcome whose text
 * names each offending field, so the model can correct the call.
 */
export function parseArgs<T>(tool: string, schema: z.ZodType<T>, args: unknown): ParsedArgs<T> {
  const result = schema.safeParse(args ?? {});
  if (result.success) return { ok: true, value: result.data };
  const problems = result.error.issues.map((issue) => {
    const field = issue.path.length > 0 ? issue.path.join('.') : '(arguments)';
    return `- ${field}: ${issue.message}`;
  });
  return {
    ok: false,
    outcome: failure(
      `Error: invalid arguments for ${tool}:\n${problems.join('\n')}\nCall ${tool} again with arguments that match its parameters schema.`,
    ),
  };
}

const jsonSchemas = new WeakMap<z.ZodType, Record<string, unknown>>();

/**
 * The JSON Schema sent to the model, derived from the zod schema so the two cannot drift; one object per schema
 * (callers treat it as read-only). Each tool calls it from a `parameters` getter, so the conversion (~10 ms cold
 * for all six) runs at the first session header, not at start-up.
 */
export function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  let json = jsonSchemas.get(schema);
  if (!json) {
    const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;
    json = stripSafeIntegerBounds(rest) as Record<string, unknown>;
    jsonSchemas.set(schema, json);
  }
  return json;
}

// zod writes `maximum: 9007199254740991` for every int; it says nothing to the model and costs tokens.
function stripSafeIntegerBounds(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(stripSafeIntegerBounds);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (
      (k === 'maximum' && v === Number.MAX_SAFE_INTEGER) ||
      (k === 'minimum' && v === Number.MIN_SAFE_INTEGER)
    )
      continue;
    out[k] = stripSafeIntegerBounds(v);
  }
  return out;
}

/** Reads a string field from arguments that may not have passed validation (titles, locations). */
export function looseString(args: unknown, key: string): string | undefined {
  if (args === null || typeof args !== 'object') return undefined;
  const v = (args as Record<string, unknown>)[key];
  return typeof v === 'string' && v !== '' ? v : undefined;
}
