/**
 * The text view: a transcript of a normalized stdout text (ACP JSON-RPC lines) or a projected session log,
 * what a reviewer reads instead of ~300-character JSON lines, and the diffs of two transcripts. stdout reads
 * as the blocks of the one conversation model (conversation-model.ts), one line a block: streamed fragments
 * coalesced into one message, one line per tool call, permission request, fs and terminal request,
 * response and stop reason. A session log reads one line per model stream run, tool call and result, model
 * call and turn end. Placeholders stay as they are (a root split over fragments is joined back into
 * `{{cwd}}`). A view only: the JSONL files stay the source of truth, and a transcript leaves out details
 * (ids, capabilities) that the field line of a failure names.
 */
import { clipText, cutText, markedWords, type StreamChunk } from '@acp-snapshot/core';
import { type EventOf, SessionEvent, SessionHeader, unpackChunk } from '@acp-snapshot/session-log';
import { type Block, conversation } from './conversation-model.js';
import { diffHunks, unifiedDiff } from './diff.js';
import { joinRootSlices } from './root-slices.js';

/** Longest quoted content (a tool input or result, a params object) in a line. */
const CONTENT_MAX = 160;
/** Longest coalesced message or thought; word diffs of longer lines cost more than they show. */
const TEXT_MAX = 4000;

/** A text as one transcript line: newlines shown as `⏎`, roots joined, clipped. */
function oneLine(text: string, max: number): string {
  return clipText(joinRootSlices(text).replace(/\r?\n/g, '⏎'), max);
}

/** A value as short content: a string as its quoted text, anything else as compact JSON. */
function brief(value: unknown, max = CONTENT_MAX): string {
  if (typeof value === 'string') return JSON.stringify(oneLine(value, max));
  return oneLine(JSON.stringify(value) ?? String(value), max);
}

/**
 * The chunks of one model stream (a packed row, or consecutive `assistant/chunk` events of one step),
 * each text or reasoning run as one line and each tool call as one line with its arguments joined,
 * also when the arguments of parallel calls arrive interleaved.
 */
class ModelStream {
  private at: string | undefined;
  private entries: Array<{ label: string; text: string; index?: number }> = [];

  /** Whether `at` (turn.step) continues this stream. */
  continues(at: string): boolean {
    return this.at === at;
  }

  add(at: string, c: StreamChunk): void {
    this.at = at;
    const last = this.entries[this.entries.length - 1];
    const text = (label: string, piece: string) => {
      if (last?.label === label && last.index === undefined) last.text += piece;
      else this.entries.push({ label, text: piece });
    };
    if (c.type === 'text') text('model', c.text);
    else if (c.type === 'reasoning') text('model thought', c.text);
    else if (c.type === 'tool_call_start')
      this.entries.push({ label: `model tool call ${c.id} ${c.name}`, text: '', index: c.index });
    else if (c.type === 'tool_call_args') {
      const call = this.entries.findLast((e) => e.index === c.index);
      if (call) call.text += c.delta;
      else this.entries.push({ label: `model tool call #${c.index}`, text: c.delta, index: c.index });
    } else {
      const u = c.usage;
      const tokens = u ? ` (${u.promptTokens} prompt + ${u.completionTokens} completion tokens)` : '';
      this.entries.push({ label: 'model finish', text: `${c.reason}${tokens}` });
    }
  }

  /** The stream's lines, and a fresh start. */
  take(): string[] {
    const out = this.entries.map(
      (e) => `${e.label}: ${oneLine(e.text, e.index === undefined ? TEXT_MAX : CONTENT_MAX)}`,
    );
    this.entries = [];
    this.at = undefined;
    return out;
  }
}

/** Lines being built, with the streamed text run or model stream they may still extend. */
class Lines {
  readonly out: string[] = [];
  private run: { key: string; label: string; text: string } | undefined;
  private readonly stream = new ModelStream();

  /** A chunk of the model stream of `at` (turn.step). */
  model(at: string, chunk: StreamChunk): void {
    if (!this.stream.continues(at)) this.flush();
    this.stream.add(at, chunk);
  }

  /** Appends to the run of `key` (labelled `label`), or starts one. */
  text(key: string, label: string, piece: string): void {
    if (this.run?.key !== key) {
      this.flush();
      this.run = { key, label, text: '' };
    }
    this.run.text += piece;
  }

  line(text: string): void {
    this.flush();
    this.out.push(text);
  }

  flush(): void {
    if (this.run) this.out.push(`${this.run.label}: ${oneLine(this.run.text, TEXT_MAX)}`);
    this.run = undefined;
    this.out.push(...this.stream.take());
  }

  done(): string[] {
    this.flush();
    return this.out;
  }
}

function textLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Each line of `text` parsed as JSON and rendered by `render`; a line that is not JSON is shown as such. */
function transcriptOf(text: string, render: (value: unknown, lines: Lines) => void): string[] {
  const lines = new Lines();
  for (const raw of textLines(text)) {
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      lines.line(`(not JSON) ${oneLine(raw, CONTENT_MAX)}`);
      continue;
    }
    render(value, lines);
  }
  return lines.done();
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => !!v && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

// ---------------------------------------------------------------------------------------------- stdout

/**
 * The conversation's blocks as text, one line a block: its title, then its text (newlines shown as `⏎`).
 * The same blocks the HTML view shows, so a failure message and `conversation.html` tell one story.
 */
export function conversationLines(blocks: readonly Block[]): string[] {
  return blocks.map((b) => (b.body ? `${b.title}: ${oneLine(b.body, TEXT_MAX)}` : b.title));
}

/** The transcript of a normalized stdout text (stdout.expected.jsonl, or a run's snapshot text). */
export function stdoutTranscript(text: string): string[] {
  return conversationLines(conversation(textLines(text)));
}

// ------------------------------------------------------------------------------------------ session log

function headerLines(h: SessionHeader): string[] {
  const ref = (v: unknown) =>
    isObject(v) && typeof v.sidecar === 'string' ? `sidecar ${v.sidecar.slice(0, 12)}` : undefined;
  const tools = Array.isArray(h.tools) ? h.tools.map((t) => t.name).join(', ') : ref(h.tools);
  return [
    `session ${h.sessionId}: ${h.agent.name} ${h.agent.version}, ${h.provider.plugin} ${h.provider.model}, cwd ${h.cwd}`,
    `system prompt: ${ref(h.systemPrompt) ?? brief(h.systemPrompt)}`,
    `tools: ${tools}`,
    `config: ${brief(h.config)}`,
  ];
}

function messageLines(m: EventOf<'message/committed'>['message']): string[] {
  if (m.role === 'tool') return [`tool message ${m.toolCallId}: ${brief(m.content)}`];
  if (m.role !== 'assistant') return [`${m.role}: ${oneLine(m.content, TEXT_MAX)}`];
  return [
    ...(m.reasoning ? [`assistant thought: ${oneLine(m.reasoning, TEXT_MAX)}`] : []),
    ...(m.content || !m.toolCalls?.length ? [`assistant: ${oneLine(m.content, TEXT_MAX)}`] : []),
    ...(m.toolCalls ?? []).map(
      (t) => `assistant tool call ${t.id} ${t.name}: ${oneLine(t.arguments, CONTENT_MAX)}`,
    ),
  ];
}

/** The lines of one log event other than a stream chunk. */
function eventLines(e: Exclude<SessionEvent, EventOf<'assistant/chunk'>>): string[] {
  switch (e.type) {
    case 'session/header':
      return headerLines(e);
    case 'turn/start':
      return [`turn ${e.turn}`];
    case 'turn/end': {
      const error = e.error ? ` (${e.error.code ?? 'no code'}): ${oneLine(e.error.message, TEXT_MAX)}` : '';
      return [`turn ${e.turn} end: ${e.kind}${error}`];
    }
    case 'llm/request':
      return [`→ model call turn ${e.turn} step ${e.step} (${e.purpose}), request ${e.fingerprint.hash}`];
    case 'tool/call':
      return [`tool call ${e.toolCallId} ${e.name}: ${oneLine(e.arguments, CONTENT_MAX)}`];
    case 'tool/result': {
      const spill = e.spill ? ` (spilled ${e.spill.bytes} bytes to ${e.spill.path})` : '';
      return [`tool result ${e.toolCallId} ${e.status}: ${brief(e.preview)}${spill}`];
    }
    case 'permission/request':
      return [`permission? ${e.toolCallId}: ${e.options.map((o) => o.optionId).join(', ')}`];
    case 'permission/outcome':
      return [`permission ${e.toolCallId}: ${e.outcome}${e.optionId === undefined ? '' : ` ${e.optionId}`}`];
    case 'message/committed':
      return messageLines(e.message);
    case 'compaction/summary':
      return [`compaction summary (replaces ${e.replacedMessages} messages): ${brief(e.rawOutput)}`];
    case 'boundary':
      return [
        `boundary: ${e.kind}${e.turn === undefined ? '' : ` (turn ${e.turn})`}${e.method ? ` (${e.method})` : ''}`,
      ];
    case 'session/mode':
      return [`mode: ${e.modeId}`];
    case 'session/config':
      return [`config ${e.configId}: ${e.value}`];
    case 'session/close':
      return ['session closed'];
  }
}

/** The transcript of a projected (or raw) session log text; rows that are no known event are shown raw. */
export function logTranscript(text: string): string[] {
  return transcriptOf(text, (row, lines) => {
    if (isObject(row) && Array.isArray(row.chunks)) {
      const at = `${str(row.turn)}.${str(row.step)}`;
      for (const c of row.chunks) {
        const chunk = unpackChunk(c);
        if (chunk) lines.model(at, chunk);
        else lines.line(`? chunk ${brief(c)}`);
      }
      return;
    }
    const event = SessionEvent.safeParse(isObject(row) ? row.event : undefined);
    const header = SessionHeader.safeParse(
      isObject(row)
        ? Object.fromEntries(Object.entries(row).filter(([k]) => k !== 'seq' && k !== 'ts'))
        : row,
    );
    const e = event.success ? event.data : undefined;
    if (e?.type === 'assistant/chunk') lines.model(`${e.turn}.${e.step}`, e.chunk);
    else if (e) for (const l of eventLines(e)) lines.line(l);
    else if (header.success) for (const l of headerLines(header.data)) lines.line(l);
    else lines.line(`? ${brief(row)}`);
  });
}

// ------------------------------------------------------------------------------------------------ diffs

/** Widest excerpt line: the HTML report's error box shows about 100 columns without scrolling. */
const WIDTH = 100;
/** Most lines of an excerpt; the full diff is attached. */
const MAX_SHOWN = 12;

/** A transcript as a text, one line each. */
export function transcriptText(lines: readonly string[]): string {
  return lines.map((l) => `${l}\n`).join('');
}

/** The whole unified diff of two transcripts (for an attachment); '' when they are equal. */
export function transcriptDiff(
  expected: readonly string[],
  actual: readonly string[],
  names: { expected: string; actual: string },
): string {
  return unifiedDiff(transcriptText(expected), transcriptText(actual), names);
}

/**
 * A line cut to `width`: its label (`~ agent:`, a tool call's title) kept, then from a little before its first `[-`/`{+`
 * mark, so the changed words are in view however far into a long message they are.
 */
function clipAround(line: string, width: number): string {
  if (line.length <= width) return line;
  const mark = line.search(/\[-|\{\+/);
  // The line's title (`~ edit · Edit a.py — completed: `) when short and before the change, else its first word.
  const title = /^. [^⏎]{0,60}?: /.exec(line)?.[0];
  const label =
    title && (mark < 0 || title.length <= mark) ? title : (/^. (?:[←→] )?[^ :]*:? /.exec(line)?.[0] ?? '');
  const at = Math.max(mark - 30, label.length);
  const head = at > label.length ? `${label}…` : label;
  const rest = line.slice(at);
  const room = width - head.length;
  return rest.length <= room ? `${head}${rest}` : `${head}${cutText(rest, room - 1)}…`;
}

/** What a transcript line is (`agent:`, `tool`, `← session/prompt:`): lines of one kind are compared word by word. */
const kindOf = (line: string) => {
  const [a = '', b = ''] = line.split(' ', 2);
  return a === '←' || a === '→' ? `${a} ${b}` : a;
};

/** The lines of a hunk as an excerpt: context `  `, a changed line `~ ` with its changed words marked, else `- `/`+ `. */
function excerpt(hunk: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < hunk.length; ) {
    const line = hunk[i]!;
    if (line.startsWith('\\')) {
      i++;
    } else if (line.startsWith(' ')) {
      out.push(`  ${line.slice(1)}`);
      i++;
    } else {
      const removed: string[] = [];
      const added: string[] = [];
      for (; hunk[i]?.startsWith('-'); i++) removed.push(hunk[i]!.slice(1));
      for (; hunk[i]?.startsWith('+') || hunk[i]?.startsWith('\\'); i++)
        if (hunk[i]!.startsWith('+')) added.push(hunk[i]!.slice(1));
      let n = 0;
      while (n < removed.length && n < added.length && kindOf(removed[n]!) === kindOf(added[n]!)) {
        out.push(`~ ${markedWords(removed[n]!, added[n]!)}`);
        n++;
      }
      out.push(...removed.slice(n).map((l) => `- ${l}`), ...added.slice(n).map((l) => `+ ${l}`));
    }
  }
  return out;
}

/**
 * The first difference of two transcripts, one line each, at most {@link MAX_SHOWN} lines of at most
 * {@link WIDTH} columns with `indent`: a line of context around it, a changed line as `~` with its
 * changed words marked `[-old-]{+new+}`, a line only one side has as `-` or `+`. '' when equal.
 */
export function firstTranscriptDifference(
  expected: readonly string[],
  actual: readonly string[],
  indent = '    ',
): string {
  const [hunk, ...rest] = diffHunks(transcriptText(expected), transcriptText(actual), 1);
  if (!hunk) return '';
  const lines = excerpt(hunk.lines);
  const shown = lines.slice(0, MAX_SHOWN).map((l) => `${indent}${clipAround(l, WIDTH - indent.length)}`);
  const cut = lines.length - MAX_SHOWN;
  const more = [
    cut > 0 ? `${cut} more line${cut === 1 ? '' : 's'} of this difference` : '',
    rest.length > 0 ? `${rest.length} more difference${rest.length === 1 ? '' : 's'} further on` : '',
  ].filter(Boolean);
  if (more.length > 0) shown.push(`${indent}… (${more.join(', ')})`);
  return shown.join('\n');
}
