/**
 * The ACP exchange as a conversation a person reads: what the user asked, what the agent said and thought,
 * each tool call with its kind, status changes, locations, diffs and output, each permission request with
 * the option chosen, plans, mode and config changes, stop reasons and errors. Built from the agent's stdout
 * lines (raw or normalized: a snapshot renders as well as a live run) and, when known, what the client sent
 * (the prompts and the permission answers, which stdout does not carry). A view only: the JSONL stays the
 * source of truth. `conversationHtml` renders it, or on a failure the expected and actual side by side.
 */

import type { TestInfo } from '@playwright/test';
import { diffArrays, diffWordsWithSpace, structuredPatch } from 'diff';
import { idleStopReason, isPromptAck, isV2Wire, MessageUpserts } from './conversation-model.js';
import { AnswersById, type TerminalView, terminalsOf, terminalText } from './terminal-view.js';
import { joinRootSlices } from './transcript.js';

export type BlockKind =
  | 'user'
  | 'agent'
  | 'thought'
  | 'tool'
  | 'permission'
  | 'plan'
  | 'mode'
  | 'response'
  | 'error'
  | 'info';

export interface Block {
  kind: BlockKind;
  /** One line: who or what, e.g. `edit · Edit greeting.py`. */
  title: string;
  /** The text under it (a message, a diff, output), '' when none. */
  body: string;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => !!v && typeof v === 'object' && !Array.isArray(v);

/** Longest body text kept per block: a view, not the record. */
const BODY_MAX = 6000;

function clip(text: string): string {
  return text.length > BODY_MAX
    ? `${text.slice(0, BODY_MAX)}… (${text.length - BODY_MAX} more characters)`
    : text;
}

function parse(lines: readonly string[]): Json[] {
  const out: Json[] = [];
  for (const l of lines) {
    try {
      const m: unknown = JSON.parse(l);
      if (isObject(m)) out.push(m);
    } catch {
      out.push({ _raw: l });
    }
  }
  return out;
}

/** A content block as text: its text, or a bracketed note of what it is. */
function contentText(c: unknown): string {
  if (!isObject(c)) return '';
  if (c.type === 'text') return String(c.text ?? '');
  if (c.type === 'resource_link') return `[link ${String(c.uri ?? c.name ?? '')}]`;
  if (c.type === 'resource' && isObject(c.resource)) {
    const r = c.resource;
    return `[resource ${String(r.uri ?? '')}]${typeof r.text === 'string' ? `\n${r.text}` : ''}`;
  }
  return `[${String(c.type)}${typeof c.mimeType === 'string' ? ` ${c.mimeType}` : ''}]`;
}

/** A tool call's content list (text, diffs, terminals: their command and output) as text. */
function toolContent(content: unknown, terminals: ReadonlyMap<string, TerminalView>): string {
  if (!Array.isArray(content)) return '';
  return content
    .map((c) => {
      if (!isObject(c)) return '';
      if (c.type === 'diff') {
        // The changed lines with two of context, as a reviewer reads a diff (agents send whole files).
        const path = String(c.path);
        const before = typeof c.oldText === 'string' ? c.oldText : '';
        const patch = structuredPatch(path, path, before, String(c.newText ?? ''), '', '', { context: 2 });
        const hunks = patch.hunks.map((h) =>
          [`@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`, ...h.lines].join('\n'),
        );
        return `${typeof c.oldText === 'string' ? 'diff' : 'new file'} ${path}\n${hunks.join('\n')}`;
      }
      if (c.type === 'terminal')
        return terminalText(String(c.terminalId), terminals.get(String(c.terminalId)));
      return contentText(c.content);
    })
    .filter(Boolean)
    .join('\n');
}

interface ClientRequest {
  method: string;
  params: Json;
}

/** What the client sent, in order: its requests (to pair with responses) and its answers to agent requests. */
function clientSide(sent: readonly string[]): { requests: ClientRequest[]; answers: Json[] } {
  const requests: ClientRequest[] = [];
  const answers: Json[] = [];
  for (const m of parse(sent)) {
    if (typeof m.method === 'string' && 'id' in m)
      requests.push({ method: m.method, params: isObject(m.params) ? m.params : {} });
    else if (!('method' in m) && 'id' in m) answers.push(m);
  }
  return { requests, answers };
}

/**
 * The conversation of a wire. Responses are paired with the client's requests by order (the client sends
 * its next request after the previous answer), permission answers with the agent's requests the same way.
 */
export function conversation(stdout: readonly string[], sent: readonly string[] = []): Block[] {
  const blocks: Block[] = [];
  const { requests, answers } = clientSide(sent);
  const messages = parse(stdout);
  const terminals = terminalsOf(messages, answers);
  const answerTo = new AnswersById(answers);
  let nextRequest = 0;
  const tools = new Map<
    string,
    Block & { statuses: string[]; kindName: string; name: string; closed: boolean }
  >();
  let streaming: Block | undefined;
  // ACP v2: messages are upserts keyed by messageId, merged into one block each; the idle update ends a turn.
  const v2 = isV2Wire(stdout);
  const upserts = new MessageUpserts();
  const messageBlocks = new Map<string, Block>();
  let turnOpen = false;

  const push = (b: Block) => {
    streaming = undefined;
    blocks.push(b);
  };
  const request = () => {
    const r = requests[nextRequest];
    if (!r) return;
    if (r.method === 'session/prompt') {
      const prompt = Array.isArray(r.params.prompt) ? r.params.prompt : [];
      push({ kind: 'user', title: 'user', body: clip(prompt.map(contentText).join('\n')) });
    } else if (r.method === 'session/set_mode')
      push({ kind: 'mode', title: `set mode → ${String(r.params.modeId)}`, body: '' });
    else if (r.method === 'session/set_config_option')
      push({ kind: 'mode', title: `set ${String(r.params.configId)} → ${String(r.params.value)}`, body: '' });
  };
  const method = (i: number) => requests[i]?.method;
  const toolTitle = (t: { kindName: string; name: string; statuses: string[] }) =>
    `${t.kindName} · ${t.name}${t.statuses.length ? ` — ${t.statuses.join(' → ')}` : ''}`;

  request();
  for (const m of messages) {
    if ('_raw' in m) {
      push({ kind: 'error', title: 'not JSON on stdout', body: clip(String(m._raw)) });
      continue;
    }
    if (!('method' in m) && 'id' in m) {
      const of = method(nextRequest) ?? 'response';
      if (isObject(m.error))
        push({
          kind: 'error',
          title: `${of} → error ${String(m.error.code)}`,
          body: clip(String(m.error.message ?? '')),
        });
      else if (of === 'session/prompt' && isPromptAck(m.result)) {
        // v2: accepted, the id naming the user's message (a replay upserts it); the idle update ends the turn.
        const id = String((m.result as Json).messageId);
        const prompt = requests[nextRequest]?.params.prompt;
        const user = blocks.findLast((b) => b.kind === 'user');
        upserts.seed(id, 'user', Array.isArray(prompt) ? prompt : []);
        if (user) messageBlocks.set(id, user);
        // The client's next request follows the turn: it shows after the idle update.
        nextRequest++;
        turnOpen = true;
        continue;
      } else if (isObject(m.result) && typeof m.result.stopReason === 'string')
        push({ kind: 'response', title: `stop: ${m.result.stopReason}`, body: '' });
      else if (of !== 'session/set_mode' && of !== 'session/set_config_option')
        push({ kind: 'info', title: `${of} → ok`, body: '' });
      nextRequest++;
      request();
      continue;
    }
    const params = isObject(m.params) ? m.params : {};
    if (m.method === 'session/request_permission') {
      const options = (Array.isArray(params.options) ? params.options : []).filter(isObject);
      const answer = answerTo.take(m);
      const outcome =
        isObject(answer?.result) && isObject(answer.result.outcome) ? answer.result.outcome : undefined;
      const chosen = options.find((o) => o.optionId === outcome?.optionId);
      // v1 names the tool call; v2 a subject (a tool call, a command) and a title of its own.
      const subject = isObject(params.subject) ? params.subject : {};
      const tool = isObject(params.toolCall)
        ? params.toolCall
        : isObject(subject.toolCall)
          ? subject.toolCall
          : {};
      push({
        kind: 'permission',
        title: `permission asked: ${String(tool.title ?? tools.get(String(tool.toolCallId))?.name ?? tool.toolCallId ?? params.title ?? '')}`,
        body: `options: ${options.map((o) => `${String(o.name)} (${String(o.kind)})`).join(', ')}${
          outcome
            ? `\nanswered: ${chosen ? `${String(chosen.name)} (${String(chosen.kind)})` : String(outcome.outcome)}`
            : ''
        }`,
      });
      // The tool's later updates belong after the question: they open a block of their own.
      const asked = tools.get(String(tool.toolCallId));
      if (asked) asked.closed = true;
      continue;
    }
    if (typeof m.method === 'string' && m.method !== 'session/update') {
      const answer = 'id' in m ? answerTo.take(m) : undefined;
      const created = isObject(answer?.result) ? terminals.get(String(answer.result.terminalId)) : undefined;
      const what =
        typeof params.path === 'string'
          ? ` ${params.path}`
          : m.method === 'terminal/create' && created
            ? ` ${String((answer!.result as Json).terminalId)}: $ ${created.commandLine}`
            : typeof params.terminalId === 'string'
              ? ` ${params.terminalId}`
              : '';
      push({
        kind: 'info',
        title: `${m.method}${what}${answer ? (isObject(answer.error) ? ` → error ${String(answer.error.code)}` : ' → ok') : ''}`,
        body: '',
      });
      continue;
    }
    const u = isObject(params.update) ? params.update : undefined;
    if (!u) continue;
    const kind = String(u.sessionUpdate);
    if (v2) {
      const merged = upserts.apply(u);
      if (merged) {
        const body = clip(merged.message.content.map(contentText).join(''));
        const known = messageBlocks.get(merged.id);
        if (known) known.body = body;
        else {
          const k = merged.message.role;
          push({ kind: k, title: k === 'thought' ? 'agent (thinking)' : k, body });
          messageBlocks.set(merged.id, blocks.at(-1)!);
        }
        continue;
      }
      const stop = idleStopReason(u as { sessionUpdate: string });
      if (stop !== undefined) {
        push({ kind: 'response', title: `stop: ${stop}`, body: '' });
        if (turnOpen) request();
        turnOpen = false;
        continue;
      }
      if (kind === 'state_update') continue;
    }
    if (kind === 'agent_message_chunk' || kind === 'agent_thought_chunk' || kind === 'user_message_chunk') {
      const k: BlockKind =
        kind === 'agent_message_chunk' ? 'agent' : kind === 'agent_thought_chunk' ? 'thought' : 'user';
      const text = contentText(u.content);
      if (streaming?.kind === k) streaming.body = clip(streaming.body + text);
      else {
        push({ kind: k, title: k === 'thought' ? 'agent (thinking)' : k, body: text });
        streaming = blocks.at(-1);
      }
      continue;
    }
    if (kind === 'tool_call' || kind === 'tool_call_update' || kind === 'tool_call_content_chunk') {
      const id = String(u.toolCallId);
      let t = tools.get(id);
      if (!t || t.closed) {
        // A tool call's first block, or the one after a permission question about it: same name and kind.
        t = {
          kind: 'tool',
          title: '',
          body: '',
          statuses: t ? [t.statuses.at(-1) ?? ''].filter(Boolean) : [],
          kindName: t?.kindName ?? String(u.kind ?? 'other'),
          name: t?.name ?? String(u.title ?? id),
          closed: false,
        };
        tools.set(id, t);
        push(t);
      }
      if (typeof u.title === 'string') t.name = u.title;
      if (typeof u.kind === 'string') t.kindName = u.kind;
      if (typeof u.status === 'string' && t.statuses.at(-1) !== u.status) t.statuses.push(u.status);
      const locations = Array.isArray(u.locations)
        ? u.locations
            .filter(isObject)
            .map((l) => `${String(l.path)}${l.line !== undefined ? `:${String(l.line)}` : ''}`)
        : [];
      const parts = [
        ...(locations.length ? [`at ${locations.join(', ')}`] : []),
        ...(u.rawInput !== undefined && kind === 'tool_call' ? [`input: ${JSON.stringify(u.rawInput)}`] : []),
        toolContent(kind === 'tool_call_content_chunk' ? [u.content] : u.content, terminals),
      ].filter(Boolean);
      if (parts.length) t.body = clip([t.body, ...parts].filter(Boolean).join('\n'));
      t.title = toolTitle(t);
      continue;
    }
    if (kind === 'plan' || kind === 'plan_update') {
      const plan = kind === 'plan' ? u : isObject(u.plan) ? u.plan : {};
      const entries = (Array.isArray(plan.entries) ? plan.entries : []).filter(isObject);
      push({
        kind: 'plan',
        title: 'plan',
        body: entries.map((e) => `[${String(e.status)}] ${String(e.content)}`).join('\n'),
      });
      continue;
    }
    if (kind === 'current_mode_update') {
      push({ kind: 'mode', title: `mode is now ${String(u.currentModeId)}`, body: '' });
      continue;
    }
    if (kind === 'config_option_update') {
      const opts = (Array.isArray(u.configOptions) ? u.configOptions : []).filter(isObject);
      push({
        kind: 'mode',
        title: `config: ${opts.map((o) => `${String(o.id)}=${String(o.currentValue)}`).join(', ')}`,
        body: '',
      });
      continue;
    }
    push({ kind: 'info', title: kind.replaceAll('_', ' '), body: '' });
  }
  return blocks.map((b) => ({ ...b, title: joinRootSlices(b.title), body: joinRootSlices(b.body) }));
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
/** A text as HTML text. */
export const escapeHtml = (t: string) => t.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
const esc = escapeHtml;

const STYLE = `
body{font:14px/1.45 system-ui,sans-serif;margin:12px;color:#1f2328;background:#fff}
h1{font-size:16px;margin:0 0 8px}
.b{border:1px solid #d0d7de;border-radius:6px;margin:6px 0;padding:6px 10px}
.t{font-weight:600;font-size:13px;color:#57606a}.body{white-space:pre-wrap;word-break:break-word;margin-top:2px}
.user{background:#ddf4ff}.agent{background:#fff}.thought{background:#f6f8fa;font-style:italic}
.tool .body,.plan .body{font:12px/1.4 ui-monospace,monospace}.tool{background:#fbfbfb}
.permission{background:#fff8c5}.error{background:#ffebe9}.response{background:#dafbe1}.mode,.info{padding:2px 10px;color:#57606a;font-size:12px}
table{border-collapse:collapse;width:100%;table-layout:fixed}td{vertical-align:top;padding:0 6px;width:50%}
th{text-align:left;font-size:13px;padding:4px 6px}
tr.changed td,tr.added td,tr.removed td{background:#fff8c5}
ins{background:#abf2bc;text-decoration:none}del{background:#ffcecb}
.none{color:#8c959f;font-style:italic;padding:6px 10px}
`;

function blockHtml(b: Block, title = esc(b.title), body = esc(b.body)): string {
  return `<div class="b ${b.kind}"><div class="t">${title}</div>${b.body ? `<div class="body">${body}</div>` : ''}</div>`;
}

/** The words of `actual` that differ from `expected` marked (`<ins>`), and the other way (`<del>`). */
function marked(expected: string, actual: string): { expected: string; actual: string } {
  let e = '';
  let a = '';
  for (const p of diffWordsWithSpace(expected, actual)) {
    if (p.added) a += `<ins>${esc(p.value)}</ins>`;
    else if (p.removed) e += `<del>${esc(p.value)}</del>`;
    else {
      e += esc(p.value);
      a += esc(p.value);
    }
  }
  return { expected: e, actual: a };
}

const NONE = (what: string) => `<div class="none">(${what})</div>`;

/** One row of the side-by-side view: both blocks, their differing words marked. */
function pairRow(e: Block | undefined, a: Block | undefined): string {
  if (!e) return `<tr class="added"><td>${NONE('not expected')}</td><td>${blockHtml(a!)}</td></tr>`;
  if (!a) return `<tr class="removed"><td>${blockHtml(e)}</td><td>${NONE('missing')}</td></tr>`;
  if (e.title === a.title && e.body === a.body)
    return `<tr><td>${blockHtml(e)}</td><td>${blockHtml(a)}</td></tr>`;
  const t = marked(e.title, a.title);
  const b = marked(e.body, a.body);
  return `<tr class="changed"><td>${blockHtml(e, t.expected, b.expected)}</td><td>${blockHtml(a, t.actual, b.actual)}</td></tr>`;
}

const page = (title: string, body: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${esc(title)}</title><style>${STYLE}</style></head><body><h1>${esc(title)}</h1>${body}</body></html>`;

/**
 * The conversation as an HTML page; with `expected`, the expected and actual side by side, blocks paired
 * by a diff of their titles and the changed words marked inside each changed pair.
 */
export function conversationHtml(
  title: string,
  actual: readonly Block[],
  expected?: readonly Block[],
): string {
  if (!expected) return page(title, actual.map((b) => blockHtml(b)).join('\n'));
  const rows: string[] = [];
  const key = (b: Block) => `${b.kind}|${b.title.replace(/ — .*$/, '')}`;
  const parts = diffArrays(expected.map(key), actual.map(key));
  let ei = 0;
  let ai = 0;
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i]!;
    const n = p.count ?? p.value.length;
    // A replaced run (removed, then added): its blocks paired side by side, the longer side's rest alone.
    const m = p.removed && parts[i + 1]?.added ? (parts[++i]!.count ?? parts[i]!.value.length) : 0;
    if (p.removed) {
      for (let k = 0; k < Math.max(n, m); k++)
        rows.push(pairRow(k < n ? expected[ei + k] : undefined, k < m ? actual[ai + k] : undefined));
      ei += n;
      ai += m;
    } else if (p.added) {
      for (let k = 0; k < n; k++) rows.push(pairRow(undefined, actual[ai++]));
    } else for (let k = 0; k < n; k++) rows.push(pairRow(expected[ei++], actual[ai++]));
  }
  return page(title, `<table><tr><th>expected</th><th>actual</th></tr>${rows.join('\n')}</table>`);
}

/** Lines of a JSONL text. */
const linesOf = (text: string) => text.split('\n').filter((l) => l.trim() !== '');

/**
 * Attaches the test's conversation (`conversation.html`): the actual run's, or with `expected` stdout that
 * differs, the expected and actual side by side.
 */
export async function attachConversation(
  info: Pick<TestInfo, 'attach' | 'title'>,
  run: { actual: string; sent: readonly string[]; expected?: string | undefined },
): Promise<void> {
  const actual = conversation(linesOf(run.actual), run.sent);
  const differs = run.expected !== undefined && run.expected !== run.actual;
  const html = differs
    ? conversationHtml(
        `${info.title}: expected and actual`,
        actual,
        conversation(linesOf(run.expected!), run.sent),
      )
    : conversationHtml(info.title, actual);
  await info.attach('conversation.html', { body: html, contentType: 'text/html' });
}
