/**
 * What a re-recording did to an exchange log, exchange by exchange, from the two files' texts: kept (the
 * same line), re-recorded (the same request, another answer), added, removed. Lines are compared as
 * written (sidecar references, not their content), so neither version needs its sidecars.
 */
import { CONVERSATION_KEYS } from './canonical-order.js';

/** One exchange of a log: its index (0-based, as failures number them) and a short label. */
export interface LoggedExchange {
  index: number;
  /** `POST /v1/messages "the last message's text…"`. */
  label: string;
}

export interface ExchangeLogChanges {
  /** Exchanges of the new log whose line is the same as one of the old log's. */
  kept: LoggedExchange[];
  /** Exchanges of the new log whose request was recorded before with another answer. */
  rerecorded: LoggedExchange[];
  /** Exchanges of the new log with a request the old log did not have. */
  added: LoggedExchange[];
  /** Exchanges of the old log (its indices) the new one does not have. */
  removed: LoggedExchange[];
}

interface Line {
  index: number;
  text: string;
  /** The request part, canonical as written. */
  request: string;
  label: string;
}

function linesOf(text: string | undefined): Line[] {
  if (!text) return [];
  return text
    .split('\n')
    .slice(1)
    .filter((l) => l.trim() !== '')
    .map((line, index) => {
      const parsed = JSON.parse(line) as { request?: { method?: string; path?: string; body?: unknown } };
      const r = parsed.request ?? {};
      const said = lastMessageText(r.body);
      return {
        index,
        text: line,
        request: JSON.stringify(r),
        label: `${r.method} ${r.path}${said === undefined ? '' : ` ${quote(said)}`}`,
      };
    });
}

/** The text of the last message of a request's conversation, in any of the four wire formats. */
export function lastMessageText(body: unknown): string | undefined {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const record = body as Record<string, unknown>;
  const name = CONVERSATION_KEYS.find((k) => Array.isArray(record[k]));
  const conversation = name ? (record[name] as unknown[]) : undefined;
  const last = conversation?.[conversation.length - 1];
  const texts: string[] = [];
  const collect = (v: unknown, key?: string) => {
    if (typeof v === 'string') {
      if (key === 'text' || key === 'content' || key === 'output') texts.push(v);
    } else if (Array.isArray(v)) for (const x of v) collect(x, key);
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) collect(x, k);
  };
  collect(last, typeof last === 'string' ? 'text' : undefined);
  return texts.length ? texts.join(' ') : undefined;
}

function quote(text: string, width = 48): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return JSON.stringify(flat.length > width ? `${flat.slice(0, width)}…` : flat);
}

/** Compares an exchange log's old text (undefined: there was none) with its new one. */
export function exchangeLogChanges(before: string | undefined, after: string): ExchangeLogChanges {
  const old = linesOf(before);
  const claimed = new Set<number>();
  const claim = (same: (l: Line) => boolean) => {
    const found = old.find((l) => !claimed.has(l.index) && same(l));
    if (found) claimed.add(found.index);
    return found;
  };
  const out: ExchangeLogChanges = { kept: [], rerecorded: [], added: [], removed: [] };
  const fresh = linesOf(after);
  // Whole lines first, so a repeated request's kept exchange is not taken for a re-recorded one.
  const kept = new Set(fresh.filter((l) => claim((o) => o.text === l.text)).map((l) => l.index));
  for (const l of fresh) {
    const entry = { index: l.index, label: l.label };
    if (kept.has(l.index)) out.kept.push(entry);
    else if (claim((o) => o.request === l.request)) out.rerecorded.push(entry);
    else out.added.push(entry);
  }
  for (const l of old) if (!claimed.has(l.index)) out.removed.push({ index: l.index, label: l.label });
  return out;
}

/** The changes as lines: the counts, then a line per exchange (the index in the log it is in). */
export function formatLogChanges(changes: ExchangeLogChanges, indent = '  '): string[] {
  const { kept, rerecorded, added, removed } = changes;
  const lines = [
    `${indent}kept ${kept.length}, re-recorded ${rerecorded.length}, added ${added.length}, removed ${removed.length}`,
  ];
  for (const e of kept) lines.push(`${indent}  kept: exchange ${e.index} ${e.label}`);
  for (const e of rerecorded)
    lines.push(`${indent}  re-recorded: exchange ${e.index} ${e.label} (a new answer)`);
  for (const e of added) lines.push(`${indent}  added: exchange ${e.index} ${e.label}`);
  for (const e of removed) lines.push(`${indent}  removed: exchange ${e.index} of the old log ${e.label}`);
  return lines;
}
