/**
 * Provider faults on demand: a declared fault takes the place of one model call (or `times` calls) and
 * answers it as a failing provider would, in the request's wire format, instead of the recorded answer:
 * an HTTP error with the provider's own body, a stream cut or broken after N recorded frames, a stall
 * until the client goes away, or the recorded frames at a fixed pace. A fault consumes no recorded
 * exchange (the agent's retry, the same request, gets it) and needs none of its own. Deterministic: a
 * fault is matched by call number or by a predicate over the request, never by chance.
 */
import type { ServerResponse } from 'node:http';
import { isDeepStrictEqual } from 'node:util';
import { readmeSection, type WireFormat, wireFormatOf } from '@acp-snapshot/core';
import { z } from 'zod';
import { clientGone, writeFrame } from './http.js';
import { malformedFrame, providerErrorBody } from './provider-errors.js';

/** Which calls a fault may take: all given conditions hold. */
export interface FaultMatch {
  /** From the Nth model request on (1-based, in arrival order; a `HEAD` preflight is not one): with `times: 1`, exactly the Nth. */
  call?: number;
  /** The request path: a string matches the path without its query, whole or as its end (`/v1/messages`, `:streamGenerateContent`); a RegExp is tried on the path with its query. */
  path?: string | RegExp;
  /** Values the request's JSON body holds, by JSON Pointer: `{ '/model': 'gpt-x', '/stream': true }`. */
  body?: Record<string, unknown>;
  /** The text of the request's last user message, in any format: a string it contains, or a RegExp. */
  lastUserMessage?: string | RegExp;
  /** How many matching calls the fault takes, one after another (default 1); it must take that many. */
  times?: number;
  /** A name for the verdict's messages (default: the fault described). */
  name?: string;
}

export type ModelFault = FaultMatch &
  (
    | {
        /** An HTTP error with the provider's own error body for the request's format. */
        kind: 'status';
        /** 400..599, e.g. 429, 500, 401, Anthropic's 529. */
        status: number;
        /** The provider's error type (OpenAI/Anthropic `error.type`, Gemini `error.status`), instead of the status's usual one. */
        type?: string;
        /** The error's message, instead of the provider's usual one. */
        message?: string;
        /** `retry-after` in seconds (a fraction is allowed: SDKs wait their own back-off on 0). */
        retryAfter?: number;
        /** More response headers (rate-limit headers, `x-should-retry`, `retry-after-ms`). */
        headers?: Record<string, string>;
      }
    | {
        /** The recorded answer's status, headers and first `afterFrames` frames, then the connection destroyed. */
        kind: 'cut';
        afterFrames?: number;
      }
    | {
        /** The recorded answer's first `afterFrames` frames, then one its format's parser cannot read. */
        kind: 'malformed';
        afterFrames?: number;
      }
    | {
        /** Headers and the first `afterFrames` frames, then nothing until the client goes away (a cancel). */
        kind: 'stall';
        afterFrames?: number;
      }
    | {
        /** The recorded answer whole, one frame every `intervalMs` (paced by the server; the test sleeps nowhere). */
        kind: 'delay';
        intervalMs: number;
      }
  );

export type FaultKind = ModelFault['kind'];

const text = z.union([z.string(), z.instanceof(RegExp)]);
const match = {
  call: z.number().int().positive().optional(),
  path: text.optional(),
  body: z
    .record(
      z.string().regex(/^(\/.*)?$/, 'a JSON Pointer: "" or starting with "/", e.g. "/model"'),
      z.unknown(),
    )
    .optional(),
  lastUserMessage: text.optional(),
  times: z.number().int().positive().optional(),
  name: z.string().min(1).optional(),
};
const afterFrames = z.number().int().min(0).optional();

/** The schema of one fault (a scenario's `input.json` gives the same objects, with strings for RegExps). */
export const modelFaultSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('status'),
    status: z.number().int().min(400).max(599),
    type: z.string().optional(),
    message: z.string().optional(),
    retryAfter: z.number().min(0).optional(),
    headers: z.record(z.string(), z.string()).optional(),
    ...match,
  }),
  z.strictObject({ kind: z.literal('cut'), afterFrames, ...match }),
  z.strictObject({ kind: z.literal('malformed'), afterFrames, ...match }),
  z.strictObject({ kind: z.literal('stall'), afterFrames, ...match }),
  z.strictObject({ kind: z.literal('delay'), intervalMs: z.number().int().min(0).max(60_000), ...match }),
]);

/** `faults` checked; a bad one throws an error naming `where`, the fault's index, the field and the fix. */
export function parseFaults(faults: unknown, where: string): ModelFault[] {
  const list = z.array(z.unknown()).safeParse(faults);
  if (!list.success) throw new Error(`${where}: faults must be a list of fault objects`);
  return list.data.map((f, i) => {
    const r = modelFaultSchema.safeParse(f);
    if (r.success) return r.data as ModelFault;
    const issue = r.error.issues[0]!;
    const field = issue.path.length
      ? issue.path.join('.')
      : issue.code === 'unrecognized_keys'
        ? issue.keys.join(', ')
        : 'kind';
    throw new Error(
      `${where}: fault ${i + 1}: ${field}: ${issue.message}; a fault is { kind: 'status' | 'cut' | 'malformed' | 'stall' | 'delay', ... } (see ${readmeSection('Provider faults')})`,
    );
  });
}

/** One line naming a fault in a message: its name, or what it does and which calls it takes. */
export function describeFault(f: ModelFault, index: number): string {
  const what =
    f.kind === 'status'
      ? `status ${f.status}`
      : f.kind === 'delay'
        ? `delay ${f.intervalMs}ms per frame`
        : `${f.kind} after ${f.afterFrames ?? 0} frame(s)`;
  const on: string[] = [];
  if (f.call !== undefined) on.push(`call ${f.call}${(f.times ?? 1) > 1 ? ' on' : ''}`);
  if (f.path !== undefined) on.push(`path ${String(f.path)}`);
  for (const [p, v] of Object.entries(f.body ?? {})) on.push(`body ${p || '(root)'} = ${JSON.stringify(v)}`);
  if (f.lastUserMessage !== undefined)
    on.push(
      `last user message ${typeof f.lastUserMessage === 'string' ? `containing ${JSON.stringify(f.lastUserMessage)}` : `matching ${f.lastUserMessage}`}`,
    );
  const head = f.name ? `fault "${f.name}" (${what})` : `fault ${index + 1} (${what})`;
  return `${head} on ${on.length ? on.join(', ') : 'any call'}${(f.times ?? 1) > 1 ? `, ${f.times} times` : ''}`;
}

/** A live model request, as faults see it. */
export interface FaultCall {
  call: number;
  method: string;
  path: string;
  /** The parsed JSON body (undefined when not JSON). */
  body: unknown;
}

/** The value at a JSON Pointer (RFC 6901), or undefined. */
function atPointer(doc: unknown, pointer: string): unknown {
  if (pointer === '') return doc;
  let here = doc;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (Array.isArray(here) && /^\d+$/.test(key)) here = here[Number(key)];
    else if (here && typeof here === 'object' && Object.hasOwn(here, key))
      here = (here as Record<string, unknown>)[key];
    else return undefined;
  }
  return here;
}

/** The text parts of a message's content: a string, or parts with `text` (OpenAI, Anthropic, Gemini alike). */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((p) => (p && typeof p === 'object' && typeof p.text === 'string' ? (p.text as string) : ''))
    .join('');
}

/** The text of the last user message of a request body in `format` ('' when it has none). */
export function lastUserText(format: WireFormat | undefined, body: unknown): string {
  if (!body || typeof body !== 'object') return '';
  const b = body as Record<string, unknown>;
  const last = (list: unknown, isUser: (m: Record<string, unknown>) => boolean, field: string) => {
    if (!Array.isArray(list)) return '';
    for (let i = list.length - 1; i >= 0; i--) {
      const m = list[i];
      if (m && typeof m === 'object' && isUser(m)) return textOf((m as Record<string, unknown>)[field]);
    }
    return '';
  };
  switch (format) {
    case 'gemini':
      return last(b.contents, (m) => m.role === undefined || m.role === 'user', 'parts');
    case 'openai-responses':
      return typeof b.input === 'string' ? b.input : last(b.input, (m) => m.role === 'user', 'content');
    default:
      return last(b.messages, (m) => m.role === 'user', 'content');
  }
}

function pathMatches(pattern: string | RegExp, path: string): boolean {
  if (pattern instanceof RegExp) return pattern.test(path);
  const bare = path.split('?')[0]!;
  return bare === pattern || bare.endsWith(pattern);
}

function matches(f: ModelFault, c: FaultCall): boolean {
  if (f.call !== undefined && c.call < f.call) return false;
  if (f.path !== undefined && !pathMatches(f.path, c.path)) return false;
  for (const [pointer, value] of Object.entries(f.body ?? {}))
    if (!isDeepStrictEqual(atPointer(c.body, pointer), value)) return false;
  if (f.lastUserMessage !== undefined) {
    const t = lastUserText(wireFormatOf(c.path), c.body);
    if (typeof f.lastUserMessage === 'string' ? !t.includes(f.lastUserMessage) : !f.lastUserMessage.test(t))
      return false;
  }
  return true;
}

/** A fault declared but not taken as often as declared: fails the verdict, with the calls that were made. */
export interface UnfiredFault {
  kind: 'fault-unfired';
  fault: string;
  fired: number;
  times: number;
  /** Each model call made: `call N (METHOD PATH, last user message "…")`. */
  calls: string[];
}

/** The faults of one server: which call each takes, and which never fired. */
export class FaultPlan {
  private readonly faults: ModelFault[] = [];
  private readonly fired: number[] = [];
  private readonly calls: string[] = [];

  constructor(faults: readonly ModelFault[] = [], where = 'model-http') {
    for (const f of parseFaults(faults, where)) this.push(f);
  }

  /** Declares one more fault (checked; a bad one throws naming the field). */
  add(fault: ModelFault, where = 'model-http'): void {
    this.push(parseFaults([fault], where)[0]!);
  }

  private push(f: ModelFault): void {
    this.faults.push(f);
    this.fired.push(0);
  }

  /** The fault that takes this call (counted as fired), or undefined; the first declared that matches wins. */
  take(c: FaultCall): ModelFault | undefined {
    const text = lastUserText(wireFormatOf(c.path), c.body);
    this.calls.push(
      `call ${c.call} (${c.method} ${c.path}${text ? `, last user message ${JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text)}` : ''})`,
    );
    const i = this.faults.findIndex((f, k) => this.fired[k]! < (f.times ?? 1) && matches(f, c));
    if (i < 0) return undefined;
    this.fired[i]!++;
    return this.faults[i];
  }

  /** The faults that fired fewer times than declared. */
  unfired(): UnfiredFault[] {
    return this.faults.flatMap((f, i) =>
      this.fired[i]! < (f.times ?? 1)
        ? [
            {
              kind: 'fault-unfired' as const,
              fault: describeFault(f, i),
              fired: this.fired[i]!,
              times: f.times ?? 1,
              calls: [...this.calls],
            },
          ]
        : [],
    );
  }
}

/** The answer a frame fault works from: the recorded one for this request (hydrated), or none. */
export interface FaultAnswer {
  status: number;
  headers: Record<string, string>;
  bodies: Buffer[];
}

/** Serves a fault other than `delay` (which the replay serves, paced) in place of the call's answer. */
export async function serveFault(
  res: ServerResponse,
  fault: Exclude<ModelFault, { kind: 'delay' }>,
  format: WireFormat | undefined,
  stream: boolean,
  answer: FaultAnswer | undefined,
): Promise<void> {
  if (fault.kind === 'status') {
    const body = JSON.stringify(providerErrorBody(format, fault.status, fault));
    res.writeHead(fault.status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      ...(fault.retryAfter !== undefined ? { 'retry-after': String(fault.retryAfter) } : {}),
      ...fault.headers,
    });
    res.end(body);
    return;
  }
  // With nothing recorded for this call, the answer a stream (or a JSON body) would have started with.
  const { status, headers, bodies } = answer ?? {
    status: 200,
    headers: { 'content-type': stream ? 'text/event-stream' : 'application/json' },
    bodies: [],
  };
  const isStream = (headers['content-type'] ?? '').includes('text/event-stream') || (!answer && stream);
  const { 'content-length': _, ...rest } = headers;
  res.writeHead(status, rest);
  res.flushHeaders();
  for (const bytes of bodies.slice(0, fault.afterFrames ?? 0)) if (!(await writeFrame(res, bytes))) return;
  switch (fault.kind) {
    case 'cut':
      // No terminating chunk: the client reads a body that ends too soon, as when a provider drops the line.
      res.destroy();
      return;
    case 'malformed':
      if (await writeFrame(res, Buffer.from(malformedFrame(format, isStream)))) res.end();
      return;
    case 'stall':
      await clientGone(res);
      return;
  }
}
