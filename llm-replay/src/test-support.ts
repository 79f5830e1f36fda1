// Test-only helpers: a recording simulator that writes events the way the agent does (request
// fingerprint, chunks, committed messages), and a replay caller that plays the agent's side.

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type ChatMessage,
  fingerprintRequest,
  type LlmPlugin,
  type LlmRequest,
  replaceRoots,
  type StreamChunk,
  type ToolSchema,
  type VolatileRoots,
} from '@acp-snapshot/core';
import {
  buildChunk,
  buildHeader,
  type LogRecord,
  llmRequest,
  makeRecords,
  messageCommitted,
  type SessionEvent,
  type SessionHeader,
  serializeLog,
  turnEnd,
  turnStart,
  userMessage,
} from '@acp-snapshot/session-log';

/** Records a session like the agent: every model call is fingerprinted from the live conversation. */
export class Recording {
  readonly header: SessionHeader;
  readonly events: SessionEvent[];
  readonly messages: ChatMessage[] = [];

  constructor(
    readonly roots: VolatileRoots = {},
    header: Partial<SessionHeader> = {},
  ) {
    this.header = buildHeader(header);
    this.events = [this.header];
  }

  /** The request the agent would send now. */
  request(purpose: 'turn' | 'compaction' = 'turn', messages: ChatMessage[] = this.messages): LlmRequest {
    return {
      model: this.header.provider.model,
      system: this.header.systemPrompt as string,
      messages: [...messages],
      tools: this.header.tools as ToolSchema[],
      params: {},
      purpose,
    };
  }

  /** Appends events as a projected fixture holds them: the recording's roots replaced by placeholders. */
  push(...raw: SessionEvent[]): this {
    for (const e of replaceRoots(raw, this.roots)) {
      this.events.push(e);
      if (e.type === 'message/committed') this.messages.push(e.message);
      if (e.type === 'compaction/summary') {
        this.messages.splice(0, e.replacedMessages, { role: 'summary', content: e.rawOutput });
      }
    }
    return this;
  }

  /** turn/start + the user message. */
  user(turn: number, text: string): this {
    return this.push(turnStart(turn), userMessage(turn, text));
  }

  /** llm/request (fingerprinted with roots replaced, as the agent does) then the chunks; commits the text. */
  call(turn: number, step: number, chunks: StreamChunk[], commit = true): this {
    const fingerprint = fingerprintRequest(this.request('turn'), this.roots);
    this.push(llmRequest(turn, step, fingerprint));
    for (const chunk of chunks) this.push(buildChunk(turn, step, chunk));
    if (commit) {
      const content = chunks.map((c) => (c.type === 'text' ? c.text : '')).join('');
      this.push(messageCommitted(turn, { role: 'assistant', content }));
    }
    return this;
  }

  end(turn: number, kind: 'completed' | 'error' | 'cancelled' = 'completed'): this {
    return this.push(turnEnd(turn, kind));
  }
}

/** A temp dir for one test's files. */
export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'llm-replay-'));
}

/** Writes events as a (plain) session log file with seq/ts envelopes; returns its path. */
export function writeLog(
  dir: string,
  events: SessionEvent[],
  name = 'session.jsonl',
  /** Each event's time by index (body events only); the builders' default times otherwise. */
  tsOf?: (index: number) => number,
): string {
  const file = join(dir, name);
  let records: LogRecord[] = makeRecords(events);
  if (tsOf) {
    records = records.map((r: LogRecord) =>
      r.event.type === 'session/header' ? r : { ...r, ts: tsOf(events.indexOf(r.event)) },
    );
  }
  writeFileSync(file, serializeLog(records));
  return file;
}

/** Drains one call like the agent: every chunk until a finish, rejecting as the plugin does. */
export async function drain(
  plugin: LlmPlugin,
  request: LlmRequest,
  turn: number,
  step: number,
  roots: VolatileRoots = {},
  signal = new AbortController().signal,
): Promise<StreamChunk[]> {
  const out: StreamChunk[] = [];
  const fingerprint = fingerprintRequest(request, roots);
  // The agent passes the roots it fingerprinted with; replay hydrates what it serves with them.
  for await (const chunk of plugin.stream(request, { signal, turn, step, fingerprint, roots })) {
    out.push(chunk);
    if (chunk.type === 'finish') break;
  }
  return out;
}

/** Collects log lines written by a plugin. */
export function logSink(): { lines: string[]; log: (line: string) => void } {
  const lines: string[] = [];
  return { lines, log: (line) => lines.push(line) };
}
