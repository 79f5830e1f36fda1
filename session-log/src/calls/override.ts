import { readFile } from 'node:fs/promises';
import {
  CLIP_LENGTH,
  clipText,
  handWrittenFileText,
  RequestFingerprint,
  StreamChunk,
  Utf8Error,
} from '@acp-snapshot/core';
import * as z from 'zod';
import type { ExpectedCall, ReplayEntry } from './script.js';

/** A replay.override.json that cannot be read or does not match the schema. */
export class ReplayOverrideError extends Error {
  override readonly name = 'ReplayOverrideError';
}

/** The provider error codes an override may throw (LlmErrorCode without replay's own 'replay'). */
export const OverrideErrorCode = z.enum([
  'unauthorized',
  'payment_required',
  'bad_request',
  'unprocessable',
  'rate_limited',
  'server_error',
  'stream_cut',
  'malformed_chunk',
  'stream_error',
  'connection',
]);

/** Optional expectations of the live call; absent ones are not checked. */
const expectFields = {
  /** The turn the live call must be made in (also what a fresh process seeks to). */
  turn: z.number().int().nonnegative().optional(),
  /** The step the live call must be made at. */
  step: z.number().int().nonnegative().optional(),
  purpose: z.enum(['turn', 'compaction']).optional(),
  /** The expected request fingerprint: a full llm/request fingerprint, or just its `hash`. */
  fingerprint: z.union([RequestFingerprint, z.string().min(1)]).optional(),
  /** Free text for reviewers; ignored. */
  note: z.string().optional(),
};

const isFinish = (c: StreamChunk) => c.type === 'finish';

/** One call of replay.override.json. */
export const OverrideCall = z.discriminatedUnion('kind', [
  z
    .strictObject({ kind: z.literal('chunks'), chunks: z.array(StreamChunk).min(1), ...expectFields })
    .superRefine((c, ctx) => {
      const at = c.chunks.findIndex(isFinish);
      if (at !== c.chunks.length - 1) {
        ctx.addIssue({
          code: 'custom',
          path: ['chunks', at === -1 ? c.chunks.length - 1 : at],
          message:
            at === -1
              ? 'a chunks call must end with a terminal finish chunk ({"type":"finish","reason":"stop"})'
              : 'only the last chunk of a chunks call may be a finish chunk',
        });
      }
    }),
  z.strictObject({
    kind: z.literal('throw'),
    /** Chunks streamed before the error (a mid-stream failure); none for a failure before the stream. */
    chunks: z.array(StreamChunk).default([]),
    code: OverrideErrorCode,
    /** The HTTP status the live adapter would report (401, 429, 500...). */
    status: z.number().int().min(100).max(599).optional(),
    message: z.string().min(1),
    ...expectFields,
  }),
  z.strictObject({
    kind: z.literal('hang'),
    /** Chunks streamed before the model stops answering. */
    chunks: z.array(StreamChunk).default([]),
    ...expectFields,
  }),
]);
export type OverrideCall = z.infer<typeof OverrideCall>;

/** replay.override.json: the explicit, ordered model calls of an overridden scenario. */
export const ReplayOverride = z.strictObject({
  $schema: z.string().optional(),
  description: z.string().optional(),
  calls: z.array(OverrideCall).min(1),
});
export type ReplayOverride = z.infer<typeof ReplayOverride>;

function noFinishInPrefix(call: OverrideCall, index: number, file: string): void {
  if (call.kind === 'chunks') return;
  const at = call.chunks.findIndex(isFinish);
  if (at !== -1) {
    throw new ReplayOverrideError(
      `${file}: calls[${index}].chunks[${at}]: a ${call.kind} call's prefix chunks cannot contain a finish chunk ` +
        '(use kind "chunks" for a call that finishes)',
    );
  }
}

/** Validated override calls -> replay entries (each with its expectations, if any). */
export function overrideEntries(override: ReplayOverride, file: string): ReplayEntry[] {
  return override.calls.map((call, i) => {
    noFinishInPrefix(call, i, file);
    const request: ExpectedCall = { location: `calls[${i}] of ${file}` };
    if (call.turn !== undefined) request.turn = call.turn;
    if (call.step !== undefined) request.step = call.step;
    if (call.purpose !== undefined) request.purpose = call.purpose;
    if (call.fingerprint !== undefined) {
      request.fingerprint =
        typeof call.fingerprint === 'string' ? { hash: call.fingerprint } : call.fingerprint;
    }
    switch (call.kind) {
      case 'chunks':
        return { kind: 'chunks', chunks: call.chunks, request };
      case 'throw':
        return {
          kind: 'throw',
          chunks: call.chunks,
          code: call.code,
          message: call.message,
          ...(call.status !== undefined ? { status: call.status } : {}),
          request,
        };
    }
    return { kind: 'hang', chunks: call.chunks, request };
  });
}

/** Parses override JSON text; errors name the file, the field path and what is expected. */
export function parseOverride(text: string, file: string): ReplayEntry[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new ReplayOverrideError(`${file}: not valid JSON: ${(e as Error).message}`);
  }
  const parsed = ReplayOverride.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .slice(0, 5)
      .map(
        (issue) =>
          // Clipped: a megabyte-long unknown key must not make a megabyte message.
          `  ${clipText(
            issue.path.length
              ? issue.path
                  .map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`))
                  .join('')
                  .replace(/^\./, '')
              : '(root)',
          )}: ${clipText(issue.message, 2 * CLIP_LENGTH)}`,
      )
      .join('\n');
    // The format is in llm-replay/README.md, "The override file"; the issues above name each field.
    throw new ReplayOverrideError(
      `${file}: does not match the replay.override.json schema:\n${issues}\nFix the field(s) above.`,
    );
  }
  return overrideEntries(parsed.data, file);
}

/** Reads and validates a replay.override.json file. */
export async function loadOverride(file: string): Promise<ReplayEntry[]> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (e) {
    throw new ReplayOverrideError(`cannot read the replay override ${file}: ${(e as Error).message}`);
  }
  let text: string;
  try {
    text = handWrittenFileText(bytes, file);
  } catch (e) {
    throw e instanceof Utf8Error ? new ReplayOverrideError(e.message) : e;
  }
  return parseOverride(text, file);
}
