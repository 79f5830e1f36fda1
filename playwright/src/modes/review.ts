/**
 * The review aid: two versions of a scenario's replay sources (the fixture a recording replaced, or
 * git's HEAD, against the new one), compared model call by model call. A call whose response changed
 * while its request did not is flagged: the agent asked the same thing and the model answered
 * differently, which is model nondeterminism, not a change in the agent, and a reviewer should know
 * before accepting it. Calls are numbered from 1 as the replay plugin serves them, their requests and
 * responses taken the way it takes them (derived from session.jsonl, or replay.override.json's calls).
 */
import {
  canonicalJson,
  clipAround,
  differingParts,
  markedWords,
  type RequestFingerprint,
  type StreamChunk,
} from '@acp-snapshot/core';
import {
  callLabel,
  deriveReplayScript,
  LogFormatError,
  parseLogText,
  parseOverride,
  type ReplayEntry,
  ReplayLogError,
  ReplayOverrideError,
  recordedRequests,
} from '@acp-snapshot/session-log';
import { diffArrays } from 'diff';

/** A version of a scenario that cannot be read; the message names the file. */
export class ReviewError extends Error {
  override name = 'ReviewError';
}

/** One version of a scenario's replay sources; a file that does not exist is undefined. */
export interface FixtureTexts {
  session?: string | undefined;
  override?: string | undefined;
}

/** How a version's files are named in messages ("HEAD:fixtures/scenarios/hello/session.jsonl"). */
export interface FixtureNames {
  session: string;
  override: string;
}

/** One model call of a scenario, as replay serves it. */
export interface ModelCall {
  turn?: number | undefined;
  step?: number | undefined;
  purpose?: 'turn' | 'compaction' | undefined;
  /** The request the agent sent for it, when the log records one. */
  fingerprint?: RequestFingerprint | { hash: string } | undefined;
  /** Canonical JSON of the answer (chunks, error or hang) without the token usage. */
  answer: string;
  /** Canonical JSON of the token usage the answer reports. */
  usage: string;
  /** The answer as readable lines: text, reasoning, each tool call, the finish or the error. */
  lines: string[];
  /** Whether the answer is a replay.override.json call. */
  overridden: boolean;
}

/** Whether a call's request changed, and which fingerprint parts did. */
export type RequestChange =
  | { kind: 'unchanged' }
  | { kind: 'changed'; parts: string[] }
  /** One version records no request for the call (a log without llm/request events). */
  | { kind: 'unknown' };

/** Whether a call's response changed; `usage` is a change of the reported token counts only. */
export type ResponseChange =
  | { kind: 'unchanged' }
  | { kind: 'usage' }
  /**
   * `diff`: the changed answer lines, changed words marked `[-old-]{+new+}`. `overridden`: a
   * replay.override.json call answers in either version, so the change is a hand edit, not the model's.
   */
  | { kind: 'changed'; diff: string[]; overridden: boolean };

/** The review of one model call. */
export type CallReview =
  | { call: number; label: string; status: 'added' | 'removed'; lines: string[] }
  | {
      call: number;
      label: string;
      status: 'compared';
      request: RequestChange;
      response: ResponseChange;
      /** The model's response changed while the request did not (an edited override is not flagged). */
      flagged: boolean;
    };

/** The review of one scenario. */
export interface ScenarioReview {
  scenario: string;
  calls: CallReview[];
  /** The numbers of the flagged calls. */
  flagged: number[];
}

/** What the response lines of one call are (text, reasoning and tool calls in stream order, then the end). */
function answerLines(chunks: readonly StreamChunk[]): string[] {
  const lines: string[] = [];
  const tools = new Map<number, { line: number; name: string; id: string; args: string }>();
  let run: { type: 'text' | 'reasoning'; text: string } | undefined;
  const flush = () => {
    if (run) lines.push(`${run.type}: ${JSON.stringify(run.text)}`);
    run = undefined;
  };
  for (const c of chunks) {
    if (c.type === 'text' || c.type === 'reasoning') {
      if (run?.type !== c.type) flush();
      run = { type: c.type, text: (run?.text ?? '') + c.text };
      continue;
    }
    flush();
    if (c.type === 'tool_call_start') {
      tools.set(c.index, { line: lines.length, name: c.name, id: c.id, args: '' });
      lines.push('');
    } else if (c.type === 'tool_call_args') {
      const t = tools.get(c.index);
      if (t) t.args += c.delta;
    } else lines.push(`finish: ${c.reason}`);
  }
  flush();
  for (const t of tools.values()) lines[t.line] = `tool call ${t.name} ${t.args} (id ${t.id})`;
  return lines;
}

/** An entry's answer and usage, split so a change of token counts alone is told apart. */
function answerOf(entry: ReplayEntry): Pick<ModelCall, 'answer' | 'usage' | 'lines'> {
  const chunks = entry.chunks ?? [];
  const usage = chunks.flatMap((c) => (c.type === 'finish' && c.usage ? [c.usage] : []));
  const bare = chunks.map((c) => (c.type === 'finish' ? { type: c.type, reason: c.reason } : c));
  const lines = answerLines(chunks);
  if (entry.kind === 'throw') {
    lines.push(
      `error: ${entry.code}${entry.status === undefined ? '' : ` (status ${entry.status})`}: ${entry.message}`,
    );
  } else if (entry.kind === 'hang') lines.push('hangs: the model stops answering');
  const { request: _request, ...rest } = entry;
  const answer = canonicalJson({ ...rest, chunks: bare, delaysMs: undefined });
  return { answer, usage: canonicalJson(usage), lines };
}

/** The known error classes of reading a log or an override, as one ReviewError. */
function readable<T>(read: () => T): T {
  try {
    return read();
  } catch (e) {
    if (e instanceof LogFormatError || e instanceof ReplayLogError || e instanceof ReplayOverrideError)
      throw new ReviewError(e.message);
    throw e;
  }
}

/**
 * The model calls of one version of a scenario, numbered as replay serves them: the calls of its
 * replay.override.json when it has one (the requests from session.jsonl's llm/request events, call i
 * answering request i, as refresh ties them), else the calls derived from session.jsonl.
 */
export function modelCalls(texts: FixtureTexts, names: FixtureNames): ModelCall[] {
  const events = readable(() =>
    texts.session === undefined ? [] : parseLogText(texts.session, names.session).records.map((r) => r.event),
  );
  if (texts.override !== undefined) {
    const text = texts.override;
    const entries = readable(() => parseOverride(text, names.override));
    const requests = recordedRequests(events, names.session);
    return entries.map((e, i) => {
      const r = requests[i] ?? e.request;
      return {
        turn: r?.turn,
        step: r?.step,
        purpose: r?.purpose,
        fingerprint: r?.fingerprint,
        ...answerOf(e),
        overridden: true,
      };
    });
  }
  return readable(() => deriveReplayScript(events, { source: names.session })).map((e) => ({
    turn: e.request?.turn,
    step: e.request?.step,
    purpose: e.request?.purpose,
    fingerprint: e.request?.fingerprint,
    ...answerOf(e),
    overridden: false,
  }));
}

function requestChange(a: ModelCall, b: ModelCall): RequestChange {
  const parts: string[] = [];
  if (callLabel(a) !== callLabel(b)) parts.push(`position (${callLabel(a)} → ${callLabel(b)})`);
  if (!a.fingerprint || !b.fingerprint)
    return parts.length ? { kind: 'changed', parts } : { kind: 'unknown' };
  if ('parts' in a.fingerprint && 'parts' in b.fingerprint)
    parts.push(...differingParts(a.fingerprint, b.fingerprint));
  else if (a.fingerprint.hash !== b.fingerprint.hash) parts.push('hash');
  return parts.length ? { kind: 'changed', parts } : { kind: 'unchanged' };
}

/** The changed answer lines: a changed line with its words marked, an added `+ line`, a removed `- line`. */
function answerDiff(a: readonly string[], b: readonly string[]): string[] {
  const out: string[] = [];
  const changes = diffArrays(a as string[], b as string[]);
  for (let i = 0; i < changes.length; i++) {
    const c = changes[i]!;
    const next = changes[i + 1];
    if (c.removed && next?.added) {
      const n = Math.min(c.value.length, next.value.length);
      for (let k = 0; k < n; k++) out.push(clipAround(markedWords(c.value[k]!, next.value[k]!)));
      for (const l of c.value.slice(n)) out.push(clipAround(`- ${l}`));
      for (const l of next.value.slice(n)) out.push(clipAround(`+ ${l}`));
      i++;
    } else if (c.removed) out.push(...c.value.map((l) => clipAround(`- ${l}`)));
    else if (c.added) out.push(...c.value.map((l) => clipAround(`+ ${l}`)));
  }
  // Same lines, different answer: only where the stream was split into chunks moved.
  return out.length ? out : ['the same answer, streamed in different chunks'];
}

function responseChange(a: ModelCall, b: ModelCall): ResponseChange {
  if (a.answer !== b.answer)
    return { kind: 'changed', diff: answerDiff(a.lines, b.lines), overridden: a.overridden || b.overridden };
  return a.usage === b.usage ? { kind: 'unchanged' } : { kind: 'usage' };
}

/** Compares two lists of model calls position by position. */
export function reviewCalls(old: readonly ModelCall[], next: readonly ModelCall[]): CallReview[] {
  const out: CallReview[] = [];
  for (let i = 0; i < Math.max(old.length, next.length); i++) {
    const a = old[i];
    const b = next[i];
    const call = i + 1;
    if (!a) out.push({ call, label: callLabel(b!), status: 'added', lines: b!.lines });
    else if (!b) out.push({ call, label: callLabel(a), status: 'removed', lines: a.lines });
    else {
      const request = requestChange(a, b);
      const response = responseChange(a, b);
      const flagged = request.kind === 'unchanged' && response.kind === 'changed' && !response.overridden;
      out.push({ call, label: callLabel(b), status: 'compared', request, response, flagged });
    }
  }
  return out;
}

/** Reviews scenario `scenario`: `old` against `next`, each named for messages. */
export function reviewScenario(
  scenario: string,
  old: { texts: FixtureTexts; names: FixtureNames },
  next: { texts: FixtureTexts; names: FixtureNames },
): ScenarioReview {
  const calls = reviewCalls(modelCalls(old.texts, old.names), modelCalls(next.texts, next.names));
  return {
    scenario,
    calls,
    flagged: calls.flatMap((c) => (c.status === 'compared' && c.flagged ? [c.call] : [])),
  };
}

/** `messages[2], messages[3], messages[4]` as `messages[2..4]`: a longer conversation is one range. */
export function compactParts(parts: readonly string[]): string[] {
  const out: string[] = [];
  let range: [number, number] | undefined;
  const close = () => {
    if (range)
      out.push(range[0] === range[1] ? `messages[${range[0]}]` : `messages[${range[0]}..${range[1]}]`);
    range = undefined;
  };
  for (const p of parts) {
    const m = /^messages\[(\d+)\]$/.exec(p);
    const n = m ? Number(m[1]) : undefined;
    if (n !== undefined && range && n === range[1] + 1) range[1] = n;
    else {
      close();
      if (n !== undefined) range = [n, n];
      else out.push(p);
    }
  }
  close();
  return out;
}
