// Fixture projection: the committed form of a session log. Envelopes dropped, volatile roots (and
// their filesystem aliases) replaced by {{name}}, prompt and tool-schema bulk moved to sidecars
// named by the sha256 of their content. Projecting a projection changes nothing.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  RootReplacer,
  rootAliases,
  type SidecarSource,
  type StreamChunk,
  sidecarHash,
  ToolSchema,
  type VolatileRoots,
} from '@acp-snapshot/core';
import { serializeLog } from './codec.js';
import { type EventOf, type LogRecord, type SessionHeader, SidecarRef } from './events.js';

/**
 * The sidecar file content of a system prompt: pretty JSON with the prompt as an array of lines, so
 * the committed file reads (and diffs) line by line.
 */
export function promptSidecar(prompt: string): string {
  return `${JSON.stringify({ systemPrompt: prompt.split('\n') }, null, 2)}\n`;
}

/** The sidecar file content of a tool set: pretty JSON. */
export function toolsSidecar(tools: ToolSchema[]): string {
  return `${JSON.stringify({ tools }, null, 2)}\n`;
}

/** Replaces every spelling of every root in all strings of `value` by `{{name}}` (the one boundary rule). */
export function replaceRootAliases<T>(value: T, roots: VolatileRoots): T {
  return new RootReplacer(rootAliases(roots)).value(value);
}

/** Records with every spelling of every root replaced, streamed fragments as one text ({@link replaceRecordRoots}). */
export function replaceLogRoots(records: readonly LogRecord[], roots: VolatileRoots): LogRecord[] {
  return replaceRecordRoots(records, new RootReplacer(rootAliases(roots)));
}

/** The stream a chunk belongs to within its model call: its text, its reasoning, or one tool call's arguments. */
function chunkChannel(chunk: StreamChunk): string | undefined {
  if (chunk.type === 'text' || chunk.type === 'reasoning') return chunk.type;
  if (chunk.type === 'tool_call_args') return `args:${chunk.index}`;
  return undefined;
}

/**
 * Records with their roots replaced. The fragments a model streamed (the chunks of one model call's
 * text, reasoning or tool-call arguments) are matched as one text, so a path split over chunks
 * becomes slice placeholders instead of staying half replaced (see roots.ts).
 */
export function replaceRecordRoots(records: readonly LogRecord[], replacer: RootReplacer): LogRecord[] {
  const streams = new Map<string, number[]>();
  records.forEach((r, i) => {
    const e = r.event;
    if (e.type !== 'assistant/chunk') return;
    const channel = chunkChannel(e.chunk);
    if (!channel) return;
    const key = `${e.turn}/${e.step}/${channel}`;
    const list = streams.get(key) ?? [];
    list.push(i);
    streams.set(key, list);
  });
  // Streamed fragments are replaced once, as runs; every other record field by field.
  const streamed = new Map<number, string>();
  for (const indexes of streams.values()) {
    const texts = indexes.map((i) => chunkText((records[i]!.event as EventOf<'assistant/chunk'>).chunk));
    const pieces = replacer.pieces(texts);
    for (const [k, i] of indexes.entries()) streamed.set(i, pieces[k]!);
  }
  return records.map((r, i) => {
    const piece = streamed.get(i);
    if (piece === undefined) return replacer.value(r);
    const e = r.event as EventOf<'assistant/chunk'>;
    return { ...r, event: { ...e, chunk: withChunkText(e.chunk, piece) } };
  });
}

function chunkText(c: StreamChunk): string {
  return c.type === 'tool_call_args' ? c.delta : c.type === 'text' || c.type === 'reasoning' ? c.text : '';
}

function withChunkText(c: StreamChunk, text: string): StreamChunk {
  if (c.type === 'tool_call_args') return { ...c, delta: text };
  if (c.type === 'text' || c.type === 'reasoning') return { ...c, text };
  return c;
}

/** The fixture projection of a log: its text and the sidecars it references (sha256 -> file content). */
export interface ProjectedLog {
  text: string;
  sidecars: Record<string, string>;
}

/**
 * Projects records for a committed fixture: drops seq/ts envelopes (payloads and references stay),
 * replaces roots and their aliases with `{{name}}` (cwd -> `{{cwd}}`), and moves the system prompt
 * and tool schemas into sidecars. Idempotent: the projection of a projection is itself (with no new sidecars).
 */
export function projectLog(records: readonly LogRecord[], opts: { roots: VolatileRoots }): ProjectedLog {
  const sidecars: Record<string, string> = {};
  const put = (content: string) => {
    const hash = sidecarHash(content);
    sidecars[hash] = content;
    return { sidecar: hash };
  };
  const projected: LogRecord[] = [];
  for (const r of replaceRecordRoots(records, new RootReplacer(rootAliases(opts.roots)))) {
    const e = r.event;
    if (e.type !== 'session/header') {
      projected.push({ event: e });
      continue;
    }
    const header: SessionHeader = { ...e };
    if (typeof header.systemPrompt === 'string')
      header.systemPrompt = put(promptSidecar(header.systemPrompt));
    if (Array.isArray(header.tools)) header.tools = put(toolsSidecar(header.tools));
    projected.push({ event: header });
  }
  return { text: serializeLog(projected), sidecars };
}

function sidecarContent(ref: SidecarRef, source: SidecarSource): { content: string; where: string } {
  if (typeof source !== 'string') {
    const content = source[ref.sidecar];
    if (content === undefined)
      throw new Error(`sidecar ${ref.sidecar} is missing from the given sidecar map`);
    return { content, where: `sidecar ${ref.sidecar}` };
  }
  const file = join(source, `${ref.sidecar}.json`);
  if (!existsSync(file)) {
    throw new Error(
      `${file}: sidecar referenced by the session header is missing; re-record or refresh the scenario`,
    );
  }
  return { content: readFileSync(file, 'utf8'), where: file };
}

/** Reads a sidecar and checks that its content still hashes to its name. */
function loadSidecarJson(
  ref: SidecarRef,
  source: SidecarSource,
): { value: Record<string, unknown>; where: string } {
  const { content, where } = sidecarContent(ref, source);
  if (sidecarHash(content) !== ref.sidecar) {
    throw new Error(
      `${where}: content does not match its sha256 name (edited by hand?); ` +
        'sidecars are generated: refresh the scenario instead of editing them',
    );
  }
  try {
    return { value: JSON.parse(content) as Record<string, unknown>, where };
  } catch (e) {
    throw new Error(`${where}: not valid JSON (${(e as Error).message})`);
  }
}

/** The system prompt of a header, loading it from its sidecar when projected. */
export function resolveSystemPrompt(header: SessionHeader, source: SidecarSource): string {
  if (typeof header.systemPrompt === 'string') return header.systemPrompt;
  const { value, where } = loadSidecarJson(header.systemPrompt, source);
  const lines = value.systemPrompt;
  if (!Array.isArray(lines) || !lines.every((l) => typeof l === 'string')) {
    throw new Error(`${where}: expected {"systemPrompt": [lines...]}`);
  }
  return lines.join('\n');
}

/** The tool schemas of a header, loading them from their sidecar when projected. */
export function resolveTools(header: SessionHeader, source: SidecarSource): ToolSchema[] {
  if (Array.isArray(header.tools)) return header.tools;
  const { value, where } = loadSidecarJson(header.tools, source);
  const res = ToolSchema.array().safeParse(value.tools);
  if (!res.success) {
    throw new Error(
      `${where}: expected {"tools": [...]}: tools${JSON.stringify(res.error.issues[0]?.path ?? [])}`,
    );
  }
  return res.data;
}

/** The header with its sidecar references replaced by their content (for readers that need the prompt). */
export function inlineSidecars(header: SessionHeader, source: SidecarSource): SessionHeader {
  return {
    ...header,
    systemPrompt: resolveSystemPrompt(header, source),
    tools: resolveTools(header, source),
  };
}

/** Whether a header field is a sidecar reference. */
export function isSidecarRef(value: unknown): value is SidecarRef {
  return SidecarRef.safeParse(value).success;
}
