/**
 * The conversation view as HTML (`conversation.html`, attached to every scenario and snapshot test): the blocks
 * of the one view model (conversation-model.ts), or on a failure the expected and actual side by side; beside it
 * the same blocks as text (`conversation.txt`, rendered by transcript.ts).
 */

import type { TestInfo } from '@playwright/test';
import { diffArrays, diffWordsWithSpace } from 'diff';
import { type Block, conversation } from './conversation-model.js';
import { conversationLines, transcriptText } from './transcript.js';

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
 * Attaches the test's conversation: `conversation.html`, the actual run's, or with `expected` stdout that
 * differs, the expected and actual side by side; and `conversation.txt`, the actual run's blocks as text, one
 * line each (what a terminal shows, and what a failure message quotes).
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
  if (actual.length > 0)
    await info.attach('conversation.txt', {
      body: transcriptText(conversationLines(actual)),
      contentType: 'text/plain',
    });
}
