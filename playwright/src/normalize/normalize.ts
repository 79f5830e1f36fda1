import { MAX_JSON_DEPTH, placeholderPattern, RootReplacer, rootSpellings } from '@acp-snapshot/core';
/**
 * Normalization shared by both compared surfaces (agent stdout lines and the projected session log):
 * volatile values become placeholders numbered by first appearance, so two runs in different
 * generated directories, processes and sessions compare equal while equal values stay visibly equal.
 * Deterministic (same input, same output) and idempotent (normalizing a normalized text changes nothing).
 */

/** Volatile directories of one test, replaced by `{{name}}` (longest first). */
export type NormalizeRoots = Record<string, string | undefined>;

/** Options of one normalization surface. */
export interface NormalizeOptions {
  /** name -> directory, e.g. { cwd, persist, spill, home }. */
  roots?: NormalizeRoots;
  /** name -> other spellings of the same root (realpath, /private prefix...). */
  aliases?: Record<string, string[]>;
}

const PLACEHOLDER = new RegExp(`^${placeholderPattern('(?::\\d+)?').source}$`);
const ISO_TIMESTAMP = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})\b/g;
/** Per-test roots the harness generates (see roots.ts), also when they leak from another run. */
const GENERATED_ROOT = {
  name: 'root',
  source: '(?:/private)?/tmp/acp-snap-[0-9a-f]{8}-[A-Za-z0-9]{6}',
  hint: '/tmp/acp-snap-',
};
const EPOCH_MS_MIN = 946_684_800_000; // 2000-01-01
const EPOCH_MS_MAX = 4_102_444_800_000; // 2100-01-01
const EPOCH_KEY = /^(ts|time|timestamp|date)$|(Time|Timestamp|At|_at|_ts)$/;
const DURATION_KEY = /(duration|elapsed|latency)(Ms|_ms|Seconds|_s)?$/i;
const PID_KEY = /^(pid|processId|process_id)$/;

/**
 * Deepest nesting normalized. Deeper values are refused with a NormalizeError instead of overflowing
 * the stack (JSON.stringify itself overflows near 4000 levels); real ACP messages nest a dozen levels.
 */
export const MAX_NORMALIZE_DEPTH = MAX_JSON_DEPTH;

/** A text normalization cannot take (a line that is not JSON, or nested too deep); names the line. */
export class NormalizeError extends Error {
  override name = 'NormalizeError';
}

function tooDeep(depth: number): void {
  if (depth > MAX_NORMALIZE_DEPTH)
    throw new NormalizeError(`JSON nested deeper than ${MAX_NORMALIZE_DEPTH} levels`);
}

/** Runs `body` for one line; a parse or depth failure is rethrown as a NormalizeError naming `where`. */
function atLine<T>(where: string, body: () => T): T {
  try {
    return body();
  } catch (e) {
    if (e instanceof SyntaxError) throw new NormalizeError(`${where}: not JSON (${e.message})`);
    if (e instanceof NormalizeError) throw new NormalizeError(`${where}: ${e.message}`);
    throw e;
  }
}

const STREAMED_UPDATES = new Set(['agent_message_chunk', 'agent_thought_chunk', 'user_message_chunk']);

/**
 * Updates about the session, not its conversation: they may arrive between two chunks of one message (claude's
 * usage and title updates land anywhere in a turn), so they do not end a run of streamed chunks.
 */
const SESSION_STATE_UPDATES = new Set([
  'usage_update',
  'available_commands_update',
  'session_info_update',
  'current_mode_update',
  'config_option_update',
]);

function isSessionStateUpdate(v: unknown): boolean {
  const m = v as { method?: unknown; params?: { update?: { sessionUpdate?: unknown } } } | null;
  return m?.method === 'session/update' && SESSION_STATE_UPDATES.has(String(m.params?.update?.sessionUpdate));
}

/** A `session/update` notification carrying one streamed text fragment, with the run it belongs to. */
function streamedChunk(v: unknown): { key: string; update: { content: { text: string } } } | undefined {
  if (!v || typeof v !== 'object') return undefined;
  const m = v as { method?: unknown; params?: { sessionId?: unknown; update?: Record<string, unknown> } };
  if (m.method !== 'session/update' || !m.params?.update) return undefined;
  const update = m.params.update;
  const content = update.content as { type?: unknown; text?: unknown } | undefined;
  if (!STREAMED_UPDATES.has(String(update.sessionUpdate)) || content?.type !== 'text') return undefined;
  if (typeof content.text !== 'string') return undefined;
  return {
    key: `${String(m.params.sessionId)}/${String(update.sessionUpdate)}`,
    update: update as { content: { text: string } },
  };
}

/** A normalization surface: holds the placeholder numbering, so use one instance per compared text. */
export class Normalizer {
  private readonly roots: RootReplacer;
  /** Texts of streamed fragments whose roots were replaced as one run (see {@link Normalizer.streamed}). */
  private readonly preReplaced = new WeakMap<object, string>();
  private readonly numbers = new Map<string, Map<string, number>>();
  private readonly sessionIds: string[] = [];
  private process = 0;
  /** Keys whose string values are numbered by first appearance, like session ids (v2's message and plan ids). */
  volatileKeys: ReadonlySet<string> = new Set();

  constructor(opts: NormalizeOptions = {}) {
    // The one definition of roots and their boundary rule (session-log roots.ts), longest first.
    this.roots = new RootReplacer(rootSpellings(opts.roots ?? {}, opts.aliases ?? {}), [GENERATED_ROOT]);
  }

  /**
   * Registers the text contents of streamed chunk updates (a run of agent_message_chunk or
   * agent_thought_chunk lines of one session), whose roots are replaced over the whole run: a path the
   * model streamed in pieces becomes slice placeholders, like in the projected log.
   */
  streamed(values: readonly unknown[]): void {
    let run: Array<{ content: { text: string } }> = [];
    let key: string | undefined;
    const flush = () => {
      if (run.length > 0) {
        const pieces = this.roots.pieces(run.map((c) => c.content.text));
        run.forEach((c, i) => {
          this.preReplaced.set(c.content, pieces[i]!);
        });
      }
      run = [];
      key = undefined;
    };
    for (const v of values) {
      const chunk = streamedChunk(v);
      if (!chunk) {
        if (!isSessionStateUpdate(v)) flush();
        continue;
      }
      if (chunk.key !== key) flush();
      key = chunk.key;
      run.push(chunk.update);
    }
    flush();
  }

  /** Marks the start of the next agent process: JSON-RPC ids restart per connection. */
  nextProcess(): void {
    this.process++;
  }

  private number(kind: string, value: string): string {
    let table = this.numbers.get(kind);
    if (!table) {
      table = new Map();
      this.numbers.set(kind, table);
    }
    let n = table.get(value);
    if (n === undefined) {
      n = table.size + 1;
      table.set(value, n);
    }
    return `{{${kind}:${n}}}`;
  }

  /** Registers session ids found under `sessionId` keys, so they are also replaced inside other strings. */
  collectSessionIds(value: unknown, depth = 0): void {
    tooDeep(depth);
    if (Array.isArray(value)) {
      for (const v of value) this.collectSessionIds(v, depth + 1);
    } else if (value && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) {
        if (k === 'sessionId' && typeof v === 'string' && v.length > 0 && !this.sessionIds.includes(v)) {
          this.sessionIds.push(v);
        } else this.collectSessionIds(v, depth + 1);
      }
    }
  }

  /** Normalizes a string: roots, generated temp roots, session ids, ISO timestamps. */
  string(s: string, rootsReplaced?: string): string {
    if (PLACEHOLDER.test(s)) return s;
    return this.rest(rootsReplaced ?? this.roots.text(s));
  }

  /** Session ids and timestamps of a string whose roots are already replaced. */
  private rest(s: string): string {
    let out = s;
    // Longest first so an id that prefixes another is not replaced inside it.
    for (const id of [...this.sessionIds].sort((a, b) => b.length - a.length)) {
      if (id.length >= 4 && !PLACEHOLDER.test(id) && out.includes(id))
        out = out.split(id).join(this.number('sessionId', id));
    }
    out = out.replace(ISO_TIMESTAMP, (m) => this.number('timestamp', m));
    return out;
  }

  /** Normalizes any JSON value; `key` is the property it sits under. Throws NormalizeError when too deep. */
  value(v: unknown, key?: string, depth = 0): unknown {
    tooDeep(depth);
    if (typeof v === 'string') {
      if (key === 'sessionId') return PLACEHOLDER.test(v) ? v : this.number('sessionId', v);
      if (key !== undefined && this.volatileKeys.has(key))
        return PLACEHOLDER.test(v) ? v : this.number(key, v);
      return this.string(v);
    }
    if (typeof v === 'number' && key !== undefined) {
      if (PID_KEY.test(key) && Number.isInteger(v)) return this.number('pid', String(v));
      if (DURATION_KEY.test(key)) return '{{duration}}';
      if (EPOCH_KEY.test(key) && v >= EPOCH_MS_MIN && v < EPOCH_MS_MAX)
        return this.number('timestamp', String(v));
      return v;
    }
    if (v === null || typeof v !== 'object') return v;
    if (Array.isArray(v)) return v.map((x) => this.value(x, undefined, depth + 1));
    const isMessage = 'jsonrpc' in v;
    const replaced = this.preReplaced.get(v);
    // fromEntries defines own properties: a `__proto__` key (JSON.parse keeps it as data) stays a key.
    return Object.fromEntries(
      Object.entries(v).map(([k, x]) => {
        if (replaced !== undefined && k === 'text' && typeof x === 'string')
          return [k, this.string(x, replaced)];
        // A JSON-RPC id keeps its direction: agent requests (with `method`) and responses to the client's requests.
        if (isMessage && k === 'id' && x !== null)
          return [k, this.number('id', `${this.process}:${'method' in v ? 'agent' : 'client'}:${String(x)}`)];
        return [k, this.value(x, k, depth + 1)];
      }),
    );
  }

  /** Normalizes a sequence of JSON texts (one value each), collecting session ids over all of them first. */
  lines(lines: readonly string[]): string[] {
    const parsed = lines.map((l, i) =>
      atLine(`line ${i + 1}`, () => {
        const p = JSON.parse(l) as unknown;
        this.collectSessionIds(p);
        return p;
      }),
    );
    this.streamed(parsed);
    return parsed.map((p) => JSON.stringify(this.value(p)));
  }
}

/** Agent stdout, possibly from several processes (an index per line), as normalized JSON lines. */
export function normalizeStdout(
  lines: ReadonlyArray<{ text: string; process: number }>,
  opts: NormalizeOptions = {},
): string[] {
  const n = new Normalizer(opts);
  const parsed = lines.map((l, i) =>
    atLine(`stdout line ${i + 1} (agent process ${l.process + 1})`, () => {
      const value = JSON.parse(l.text) as unknown;
      n.collectSessionIds(value);
      return { value, process: l.process };
    }),
  );
  if (parsed.some((p) => negotiatedV2(p.value))) n.volatileKeys = V2_VOLATILE_KEYS;
  // A process boundary ends a run of streamed chunks.
  n.streamed(
    parsed.flatMap((p, i) => (i > 0 && parsed[i - 1]!.process !== p.process ? [null, p.value] : [p.value])),
  );
  let current = parsed[0]?.process ?? 0;
  return parsed.map((p) => {
    if (p.process !== current) {
      current = p.process;
      n.nextProcess();
    }
    return JSON.stringify(n.value(p.value));
  });
}

/** A JSONL text (a projected session log) normalized line by line; blank trailing line kept. */
export function normalizeJsonlText(text: string, opts: NormalizeOptions = {}): string {
  // An empty text has no lines (splitting would make it one empty line and append a newline).
  if (text === '') return '';
  const lines = text.split('\n');
  const trailing = lines[lines.length - 1] === '';
  if (trailing) lines.pop();
  const out = new Normalizer(opts).lines(lines);
  return out.join('\n') + (trailing ? '\n' : '');
}

/**
 * ACP v2's ids that differ per run (codex mints a random `messageId` per prompt): numbered like session ids.
 * Only on a v2 wire: a v1 agent's optional message ids stay as their snapshots hold them.
 */
const V2_VOLATILE_KEYS: ReadonlySet<string> = new Set(['messageId', 'planId']);

/** An initialize response that settled on v2. */
function negotiatedV2(v: unknown): boolean {
  const m = v as { method?: unknown; result?: { protocolVersion?: unknown; info?: unknown } } | null;
  return (
    !!m &&
    typeof m === 'object' &&
    m.method === undefined &&
    m.result?.protocolVersion === 2 &&
    'info' in m.result
  );
}
