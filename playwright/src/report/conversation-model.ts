/**
 * The one view model of an ACP conversation: what the user asked, what the agent said and thought, each tool
 * call with its kind, status changes, locations, diffs and output, each permission request with the option
 * chosen, the agent's fs and terminal requests, plans, mode and config changes, responses, stop reasons and
 * errors, as blocks built once from the agent's stdout lines (raw or normalized: a snapshot renders as well as
 * a live run) and, when known, what the client sent (the prompts and the answers, which stdout does not carry).
 * v1 and v2 read alike: v2's message upserts are merged the way the protocol defines them (omitted field
 * unchanged, `null` clears, a value replaces, chunks append), keyed by `messageId`. Two renderings read the
 * blocks: as text, one line a block (transcript.ts: failure messages, `stdout.transcript.diff`), and as HTML
 * (conversation.ts: `conversation.html`). A view only: the JSONL stays the source of truth.
 */

import { clipText } from '@acp-snapshot/core';
import { structuredPatch } from 'diff';
import { idleStopReason, isPromptAck } from '../driver/protocol-v2.js';
import { joinRootSlices } from './root-slices.js';
import { AnswersById, type TerminalView, terminalsOf, terminalText } from './terminal-view.js';

export { idleStopReason };

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => !!v && typeof v === 'object' && !Array.isArray(v);

/** Whether an agent's stdout (raw or normalized lines) settled on ACP v2 in an initialize response. */
export function isV2Wire(stdout: readonly string[]): boolean {
  for (const l of stdout) {
    if (!l.includes('"protocolVersion"')) continue;
    try {
      const m: unknown = JSON.parse(l);
      if (isObject(m) && m.method === undefined && isObject(m.result) && m.result.protocolVersion === 2)
        return true;
    } catch {}
  }
  return false;
}

/** v2's message updates: the chunk kinds and the upsert kinds, by the role they speak for. */
export const V2_MESSAGE_ROLE: Readonly<Record<string, 'user' | 'agent' | 'thought'>> = {
  user_message: 'user',
  agent_message: 'agent',
  agent_thought: 'thought',
  user_message_chunk: 'user',
  agent_message_chunk: 'agent',
  agent_thought_chunk: 'thought',
};

/** One message as the upserts so far made it: its role and its content blocks. */
export interface MergedMessage {
  role: 'user' | 'agent' | 'thought';
  content: unknown[];
}

/**
 * The messages of a v2 wire, merged update by update. `apply` returns the message an update touched and
 * whether the update created it, or undefined for an update that is not a message update.
 */
export class MessageUpserts {
  private readonly messages = new Map<string, MergedMessage>();

  /** A message the wire names without creating it: the prompt a v2 `session/prompt` response acknowledged. */
  seed(id: string, role: MergedMessage['role'], content: unknown[]): void {
    if (!this.messages.has(id)) this.messages.set(id, { role, content: [...content] });
  }

  apply(u: Json): { id: string; message: MergedMessage; created: boolean } | undefined {
    const kind = String(u.sessionUpdate);
    const role = V2_MESSAGE_ROLE[kind];
    if (!role || typeof u.messageId !== 'string') return undefined;
    const id = u.messageId;
    let message = this.messages.get(id);
    const created = !message;
    if (!message) {
      message = { role, content: [] };
      this.messages.set(id, message);
    }
    if (kind.endsWith('_chunk')) message.content.push(u.content);
    else if (u.content === null) message.content = [];
    else if (Array.isArray(u.content)) message.content = [...u.content];
    return { id, message, created };
  }
}

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

/** Longest JSON detail (a request's other params, an update's fields) kept in a block: a glance, not the record. */
const DETAIL_MAX = 160;

/**
 * Params without the session id every request repeats, as compact JSON clipped to a glance; '' when nothing
 * is left. A long list (available commands, an agent's models) would push the conversation off the first screen.
 */
function restJson(params: Json, without: readonly string[]): string {
  const rest = Object.fromEntries(
    Object.entries(params).filter(([k]) => k !== 'sessionId' && !without.includes(k)),
  );
  return Object.keys(rest).length > 0 ? clipText(JSON.stringify(rest), DETAIL_MAX) : '';
}

/** A config option's name and value: `id` on ACP v1, `configId` on v2. */
function configSetting(o: Record<string, unknown>): string {
  return `${String(o.id ?? o.configId)}=${String(o.currentValue)}`;
}

/**
 * A session's settings as their current values, ` (mode=ask, model=m)`: the config options when the agent
 * has them (the mode is one of them), else the current mode.
 */
function sessionSettings(modes: unknown, configOptions: unknown): string {
  if (Array.isArray(configOptions) && configOptions.length > 0)
    return ` (${configOptions.map((o) => (isObject(o) ? configSetting(o) : JSON.stringify(o))).join(', ')})`;
  if (isObject(modes)) return ` (mode=${String(modes.currentModeId)})`;
  return '';
}

/**
 * The block of a response to the client's request `of` (its method, or undefined when what the client sent is
 * not known: then named by its result's shape, the initialize and session/new results being unmistakable).
 * Undefined for the responses a block of the client's request already shows (a mode or config set).
 */
function responseBlock(m: Json, of: string | undefined): Block | undefined {
  const r = m.result;
  const named =
    of ??
    (isObject(r) && r.protocolVersion !== undefined
      ? 'initialize'
      : isObject(r) && typeof r.sessionId === 'string'
        ? 'session/new'
        : 'response');
  if (isObject(m.error))
    return {
      kind: 'error',
      title: `${named} → error ${String(m.error.code)}`,
      body: clip(String(m.error.message ?? '')),
    };
  if (isObject(r) && typeof r.stopReason === 'string')
    return { kind: 'response', title: `stop: ${r.stopReason}`, body: '' };
  if (named === 'session/set_mode' || named === 'session/set_config_option') return undefined;
  if (!isObject(r)) return { kind: 'info', title: `${named} → ${JSON.stringify(r) ?? 'ok'}`, body: '' };
  if (r.protocolVersion !== undefined) {
    const agent = isObject(r.agentInfo) ? r.agentInfo : isObject(r.info) ? r.info : undefined;
    const info = agent ? `, ${String(agent.name)} ${String(agent.version)}` : '';
    return { kind: 'info', title: `${named} → protocol ${String(r.protocolVersion)}${info}`, body: '' };
  }
  if (typeof r.sessionId === 'string') {
    // The session and its settings; what else it offers (models, commands) is a capability, like initialize's.
    const { sessionId, modes, configOptions } = r;
    return {
      kind: 'info',
      title: `${named} → ${sessionId}${sessionSettings(modes, configOptions)}`,
      body: '',
    };
  }
  const settings = sessionSettings(undefined, r.configOptions);
  return { kind: 'info', title: `${named} → ok${settings}`, body: restJson(r, ['configOptions']) };
}

/** A permission option as a person reads it: its name and kind (`Allow (allow_once)`), or its id. */
function optionLabel(o: Json): string {
  const name = typeof o.name === 'string' ? o.name : String(o.optionId);
  return typeof o.kind === 'string' ? `${name} (${o.kind})` : name;
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
      const of = method(nextRequest);
      if (of === 'session/prompt' && !isObject(m.error) && isPromptAck(m.result)) {
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
      }
      if (of === undefined && isPromptAck(m.result)) continue;
      const block = responseBlock(m, of);
      if (block) push(block);
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
        body: `options: ${options.map(optionLabel).join(', ')}${
          outcome ? `\nanswered: ${chosen ? optionLabel(chosen) : String(outcome.outcome)}` : ''
        }`,
      });
      // The tool's later updates belong after the question: they open a block of their own.
      const asked = tools.get(String(tool.toolCallId));
      if (asked) asked.closed = true;
      continue;
    }
    if (typeof m.method === 'string' && m.method !== 'session/update') {
      const answer = 'id' in m ? answerTo.take(m) : undefined;
      const created = isObject(answer?.result) ? String(answer.result.terminalId) : undefined;
      let what = typeof params.terminalId === 'string' ? ` ${params.terminalId}` : '';
      let body = restJson(params, ['terminalId']);
      if (m.method === 'terminal/create') {
        // The command line as a shell shows it, and the id the client gave the terminal when known.
        const args = Array.isArray(params.args) ? params.args.map(String) : [];
        what = `${created && terminals.has(created) ? ` ${created}:` : ''} $ ${[String(params.command ?? ''), ...args].join(' ')}`;
        body = [
          ...(typeof params.cwd === 'string' ? [`cwd ${params.cwd}`] : []),
          restJson(params, ['command', 'args', 'cwd']),
        ]
          .filter(Boolean)
          .join('\n');
      } else if (typeof params.path === 'string') {
        // A file request: its path, then what it writes, then its other params (a line, a limit).
        what = ` ${params.path}`;
        body = [
          typeof params.content === 'string' ? params.content : '',
          restJson(params, ['path', 'content']),
        ]
          .filter(Boolean)
          .join('\n');
      }
      push({
        kind: 'info',
        title: `${m.method}${what}${answer ? (isObject(answer.error) ? ` → error ${String(answer.error.code)}` : ' → ok') : ''}`,
        body: clip(body),
      });
      continue;
    }
    const u = isObject(params.update) ? params.update : undefined;
    if (!u || m.method !== 'session/update') {
      push({ kind: 'error', title: 'not an ACP message', body: clip(JSON.stringify(m)) });
      continue;
    }
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
        title: `config: ${opts.map(configSetting).join(', ')}`,
        body: '',
      });
      continue;
    }
    const { sessionUpdate: _, ...rest } = u;
    push({ kind: 'info', title: kind.replaceAll('_', ' '), body: restJson(rest, []) });
  }
  return blocks.map((b) => ({ ...b, title: joinRootSlices(b.title), body: joinRootSlices(b.body) }));
}
