/**
 * Protocol coverage as a reader sees it: text for the terminal, and a small dependency-free HTML page that
 * opens inside the Playwright report (gaps first, then each section with its counts; the tests behind
 * each item are one click away).
 */
import { escapeHtml } from '../report/conversation.js';
import type { AgentCoverage, Coverage } from './coverage.js';

/** More test names than this in a text line and the line says how many more. */
const NAMES = 3;

function names(tests: readonly string[]): string {
  const shown = tests.slice(0, NAMES).join('; ');
  return tests.length > NAMES ? `${shown}; +${tests.length - NAMES} more` : shown;
}

function projectText(p: AgentCoverage): string[] {
  const out = [`acp-snapshot coverage: ${p.project}${p.agent ? ` (${p.agent})` : ''}, ${p.tests} test(s)`];
  out.push(
    p.gaps.length
      ? `  declared but never exercised (${p.gaps.length}):`
      : `  every declared capability, mode and config option was exercised`,
  );
  for (const g of p.gaps) out.push(`    ✗ ${g.message}`);
  if (p.declared.length) out.push(`  declared capabilities: ${p.declared.join(', ')}`);
  for (const s of p.sections) {
    out.push(`  ${s.title}:`);
    const width = Math.max(...s.items.map((i) => i.key.length));
    for (const i of s.items)
      out.push(
        `    ${i.key.padEnd(width)}  ${String(i.tests.length).padStart(3)} test(s): ${names(i.tests)}`,
      );
  }
  return out;
}

/** The coverage as terminal text, one block per project. */
export function coverageText(c: Coverage): string {
  if (c.projects.length === 0)
    return 'acp-snapshot coverage: no ACP wire was recorded (no test ran an agent through the acp fixture or a scenario)';
  return c.projects.map((p) => projectText(p).join('\n')).join('\n\n');
}

/** A message's `code` spans as <code>, the rest escaped. */
function codeSpans(text: string): string {
  return escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>');
}

const STYLE = `
body{font:14px/1.45 system-ui,sans-serif;margin:16px;color:#1f2328;background:#fff}
h1{font-size:18px;margin:0 0 8px}h2{font-size:16px;margin:20px 0 6px}h3{font-size:14px;margin:14px 0 4px}
.gaps{border-left:4px solid #cf222e;background:#fff5f5;padding:6px 10px;margin:8px 0}
.ok{border-left:4px solid #1a7f37;background:#f0fff4;padding:6px 10px;margin:8px 0}
table{border-collapse:collapse;margin:4px 0}td{padding:2px 10px 2px 0;vertical-align:top}
td.n{text-align:right;font-variant-numeric:tabular-nums}code{font:12px ui-monospace,monospace}
details summary{cursor:pointer;color:#0969da}ul{margin:2px 0 2px 18px;padding:0}
`;

/** The coverage as one HTML page (inline style, no script). */
export function coverageHtml(c: Coverage): string {
  const body: string[] = ['<h1>ACP protocol coverage</h1>'];
  if (c.projects.length === 0) body.push(`<p>${escapeHtml(coverageText(c))}</p>`);
  for (const p of c.projects) {
    body.push(
      `<h2>${escapeHtml(p.project)}${p.agent ? ` <small>(${escapeHtml(p.agent)})</small>` : ''}: ${p.tests} test(s)</h2>`,
    );
    if (p.gaps.length) {
      body.push(`<div class="gaps"><b>Declared but never exercised (${p.gaps.length})</b><ul>`);
      for (const g of p.gaps) body.push(`<li>${codeSpans(g.message)}</li>`);
      body.push('</ul></div>');
    } else
      body.push('<div class="ok">Every declared capability, mode and config option was exercised.</div>');
    if (p.declared.length)
      body.push(`<p>Declared: ${p.declared.map((d) => `<code>${escapeHtml(d)}</code>`).join(', ')}</p>`);
    for (const s of p.sections) {
      body.push(`<h3>${escapeHtml(s.title)}</h3><table>`);
      for (const i of s.items)
        body.push(
          `<tr><td><code>${escapeHtml(i.key)}</code></td><td class="n">${i.tests.length}</td><td><details><summary>tests</summary><ul>${i.tests.map((t) => `<li>${escapeHtml(t)}</li>`).join('')}</ul></details></td></tr>`,
        );
      body.push('</table>');
    }
  }
  return `<!doctype html><html><head><meta charset="utf-8"><title>ACP protocol coverage</title><style>${STYLE}</style></head><body>${body.join('\n')}</body></html>`;
}
