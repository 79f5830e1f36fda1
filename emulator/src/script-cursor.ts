// Where a run is in its script: which entry answers a request (by `match`, then in order), which entries
// were served, and the ids each response carries.
import type { Script, ScriptMatch } from './script.js';
import type { RoleText } from './template.js';
import type { ResponseIdentity } from './wire.js';
import type { FormatAdapter } from './wire-format.js';

/** `created` of response 0 (2025-01-01T00:00:00Z); response n gets BASE + n. */
const CREATED_BASE = 1735689600;

function matches(m: ScriptMatch, path: string, text: string): boolean {
  return (
    (m.path === undefined || m.path === path) &&
    (m.bodyIncludes === undefined || text.includes(m.bodyIncludes))
  );
}

export class ScriptCursor {
  private readonly consumed = new Set<number>();
  private toolCallCounter = 0;
  private respondedCount = 0;
  /** How many entries have a `match`, for the exhausted message. */
  private readonly withMatch: number;

  constructor(
    private readonly script: Script,
    private readonly scriptName: string,
    private readonly log: (line: string) => void,
  ) {
    this.withMatch = script.responses.filter((e) => e.match).length;
  }

  /** Script entries consumed so far. */
  get served(): number {
    return this.consumed.size;
  }

  /**
   * The entry for a request. A recording run against a running emulator is repeatable: a request that starts a
   * conversation (no model turn, no tool output yet), finds no unused entry and meets a `match` entry that an
   * earlier run used starts the script over, so recording again (or one test again) is served the same answers
   * with the same ids. A request in the middle of a conversation, or one no `match` meets, is still told the
   * script is exhausted.
   */
  pick(path: string, text: string, messages: readonly RoleText[]): number | undefined {
    const n = this.pickUnused(path, text);
    if (n !== undefined) return n;
    const starts = messages.every((m) => m.role !== 'assistant' && m.role !== 'tool');
    if (!starts || !this.script.responses.some((e) => e.match && matches(e.match, path, text)))
      return undefined;
    this.consumed.clear();
    this.toolCallCounter = 0;
    this.log(`emulator: every response was served; the script starts over for a new conversation`);
    return this.pickUnused(path, text);
  }

  /** Marks entry `n` served. */
  consume(n: number): void {
    this.consumed.add(n);
  }

  /** The number of the next answer a prompt-aware responder gives (they are numbered apart from the script). */
  nextResponded(): number {
    return this.respondedCount++;
  }

  /** The ids of response `n` (tool-call ids count across the run). */
  identity(n: number, fmt: FormatAdapter, body: Record<string, unknown>, path: string): ResponseIdentity {
    return {
      id: `chatcmpl-emu-${n}`,
      index: n,
      created: CREATED_BASE + n,
      model: fmt.model(body, path) ?? 'emulator',
      nextToolCallId: (prefix = 'call_') => `${prefix}${this.toolCallCounter++}`,
      promptChars: fmt.promptChars(body),
    };
  }

  /** Why request `index` found no entry, and what to add to the script. */
  exhaustedMessage(index: number, path: string): string {
    const { scriptName, script } = this;
    return this.withMatch
      ? `emulator: script exhausted: request #${index} (POST ${path}) found no unused response in ` +
          `${scriptName} (${script.responses.length} response(s), ${this.withMatch} with "match" it does not meet); ` +
          'add a response, or a "match" for this request, to the script'
      : `emulator: script exhausted: request #${index} asked for response ${this.consumed.size}, but ` +
          `${scriptName} has ${script.responses.length} response(s); add a response to the script`;
  }

  /** The first unused entry whose `match` the request meets, else the first unused entry without one. */
  private pickUnused(path: string, text: string): number | undefined {
    const free = (i: number) => !this.consumed.has(i);
    const matched = this.script.responses.findIndex(
      (e, i) => free(i) && e.match && matches(e.match, path, text),
    );
    if (matched >= 0) return matched;
    const next = this.script.responses.findIndex((e, i) => free(i) && !e.match);
    return next >= 0 ? next : undefined;
  }
}
