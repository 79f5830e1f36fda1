import {
  type ChatMessage,
  firstDifference,
  firstDifferingChar,
  firstDifferingPart,
  firstHunk,
  formatPath,
  type LlmRequest,
  placeholderPattern,
  type ReplayDrift,
  type RequestFingerprint,
  replaceRoots,
  shortHash,
  type ToolSchema,
  textWindow,
  unifiedDiff,
  type VolatileRoots,
} from '@acp-snapshot/core';
import type { ExpectedCall } from '@acp-snapshot/session-log';

/** What the log can tell about the recorded request beyond its hashes. */
export interface RecordedContext {
  /** The header's inline system prompt (absent when projected into a sidecar). */
  system?: string;
  /** The header's inline tool schemas (absent when projected into a sidecar). */
  tools?: ToolSchema[];
  /** Roots of the recording itself (a raw, unprojected log names its real cwd in the header). */
  roots?: VolatileRoots;
}

/**
 * A located request drift: the first differing part, where in it, both texts there (the report's data, core's
 * `ReplayDrift`), and a compact recorded-vs-live description for the error.
 */
export interface Drift extends ReplayDrift {
  detail: string;
  /** The whole recorded-vs-live diff of the part, when it is long (system prompt, tools). */
  full?: string;
}

function hasParts(f: ExpectedCall['fingerprint']): f is RequestFingerprint {
  return !!f && 'parts' in f;
}

/** A JSON-quoted window of `s` around `at` (core's differ), with ellipses where it was cut. */
const window = (s: string, at: number) => textWindow(s, at);

/** Two aligned snippet lines showing where recorded and live text first differ. */
export function textDiff(recorded: string, live: string): string {
  const at = firstDifferingChar(recorded, live);
  return (
    `    recorded (${recorded.length} chars): ${window(recorded, at)}\n` +
    `    live     (${live.length} chars): ${window(live, at)}\n` +
    `    (first difference at character ${at})`
  );
}

const PLACEHOLDER = placeholderPattern();
const PATH_CHAR = /[^\s"'`<>|]/;

/**
 * Finds the value a `{{name}}` placeholder of the recorded text stands for in the live text (the
 * plugin is not told the session cwd): the path-like run of live text after which the rest of the
 * recorded text lines up best. Returns undefined when nothing plausible is found.
 */
function inferRoot(recorded: string, live: string): [string, string] | undefined {
  const m = PLACEHOLDER.exec(recorded);
  if (!m) return undefined;
  const at = m.index;
  if (recorded.slice(0, at) !== live.slice(0, at)) return undefined;
  const after = recorded.slice(at + m[0].length, at + m[0].length + 64);
  let best: [number, number] | undefined;
  for (let k = 2; k <= 400 && at + k <= live.length && PATH_CHAR.test(live[at + k - 1]!); k++) {
    const rest = live.slice(at + k, at + k + after.length);
    let l = 0;
    while (l < after.length && after[l] === rest[l]) l++;
    if (!best || l > best[1]) best = [k, l];
  }
  return best && best[1] > 0 ? [m[1]!, live.slice(at, at + best[0])] : undefined;
}

/** The fields of a message a request carries, in the order a drift names the first changed one. */
function messageFields(m: ChatMessage): Record<string, unknown> {
  const out: Record<string, unknown> = { role: m.role, content: m.content };
  if (m.role === 'assistant') {
    if (m.reasoning !== undefined) out.reasoning = m.reasoning;
    if (m.toolCalls !== undefined) out.toolCalls = m.toolCalls;
  }
  if (m.role === 'tool') out.toolCallId = m.toolCallId;
  return out;
}

/** A field's value as a drift carries it: a string as it is, anything else as JSON. */
function fieldText(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * Brings the live message into the recorded form: known roots replaced, and placeholders the plugin
 * was not told about (the session cwd) inferred, accepted only when the result hashes to the part
 * hash the agent itself computed.
 */
function normalizeLive(
  recorded: ChatMessage | undefined,
  live: ChatMessage,
  liveHash: string | undefined,
  roots: VolatileRoots,
): ChatMessage {
  let out = replaceRoots(live, roots);
  if (!recorded || liveHash === undefined || shortHash(out) === liveHash) return out;
  const inferred: VolatileRoots = { ...roots };
  for (let tries = 0; tries < 4; tries++) {
    const r = JSON.stringify(recorded);
    const l = JSON.stringify(out);
    const found = inferRoot(r, l);
    if (!found || inferred[found[0]] !== undefined) break;
    // The value was found in JSON text: unescape it back to a plain string.
    let value: string;
    try {
      value = JSON.parse(`"${found[1]}"`) as string;
    } catch {
      break;
    }
    inferred[found[0]] = value;
    const candidate = replaceRoots(live, inferred);
    if (shortHash(candidate) === liveHash) return candidate;
    out = candidate;
  }
  return replaceRoots(live, roots);
}

function describeMessage(
  index: number,
  expected: ExpectedCall,
  fp: RequestFingerprint,
  request: LlmRequest,
  live: RequestFingerprint,
  roots: VolatileRoots,
  recordedRoots: VolatileRoots,
): Drift {
  const part = `messages[${index}]`;
  let recordedMsg = expected.messages?.[index];
  // A projected log holds placeholders already; a raw log holds the recording's own paths.
  if (recordedMsg && shortHash(recordedMsg) !== fp.parts.messages[index])
    recordedMsg = replaceRoots(recordedMsg, recordedRoots);
  const recordedTrusted = recordedMsg !== undefined && shortHash(recordedMsg) === fp.parts.messages[index];
  const liveMsg = request.messages[index];
  const lines: string[] = [];
  if (fp.parts.messages.length !== request.messages.length) {
    lines.push(
      `  the recorded request had ${fp.parts.messages.length} messages, the live one has ${request.messages.length}`,
    );
  }
  if (!liveMsg) {
    lines.push(`  recorded ${part} is missing from the live request`);
    if (recordedTrusted) lines.push(textDiff(JSON.stringify(recordedMsg), ''));
    return {
      part,
      path: part,
      ...(recordedTrusted ? { recorded: JSON.stringify(recordedMsg) } : {}),
      detail: lines.join('\n'),
    };
  }
  const liveNorm = normalizeLive(
    recordedTrusted ? recordedMsg : undefined,
    liveMsg,
    live.parts.messages[index],
    roots,
  );
  if (!recordedMsg) {
    const why =
      expected.purpose === 'compaction'
        ? 'a compaction request is not stored in the log'
        : index >= fp.parts.messages.length
          ? 'the live request has an extra message'
          : 'the log does not hold its text';
    lines.push(`  recorded ${part}: not available (${why}); live ${part} (${liveMsg.role}):`);
    lines.push(`    ${window(liveNorm.content, 0)}`);
    return { part, path: part, live: JSON.stringify(liveNorm), detail: lines.join('\n') };
  }
  if (!recordedTrusted) {
    // The log holds the message, but not exactly as it was hashed (a root hidden differently when it was
    // recorded): show it all the same, saying so, rather than claiming there is no recorded text.
    lines.push(
      `  (the log's ${part} does not hash to the recorded fingerprint part, so it may differ from what was sent in roots only)`,
    );
  }
  // Where the message changed (core's differ, as the HTTP model and the causes read it): a field, or a tool call's.
  const d = firstDifference(messageFields(recordedMsg), messageFields(liveNorm));
  if (d) {
    const path = formatPath(['messages', index, ...d.at]);
    const recordedText = fieldText(d.recorded);
    const liveText = fieldText(d.live);
    lines.push(`  ${path} (${recordedMsg.role} message):`);
    lines.push(textDiff(recordedText ?? '', liveText ?? ''));
    return {
      part,
      path,
      ...(recordedText !== undefined ? { recorded: recordedText } : {}),
      ...(liveText !== undefined ? { live: liveText } : {}),
      detail: lines.join('\n'),
    };
  }
  lines.push(
    `  ${part}: the texts match once roots are replaced; the difference is in a path root (cwd, home, spill or persist)`,
  );
  return { part, path: part, detail: lines.join('\n') };
}

function toolNames(tools: ToolSchema[]): string {
  return tools.map((t) => t.name).join(', ') || '(none)';
}

/**
 * Compares the live call's fingerprint with the recorded one. Returns undefined when they match (or
 * when the entry states no fingerprint, e.g. an override entry without one), else the first
 * differing part with recorded-vs-live text where the log holds it.
 */
export function findDrift(
  expected: ExpectedCall | undefined,
  request: LlmRequest,
  live: RequestFingerprint,
  recorded: RecordedContext,
  roots: VolatileRoots,
): Drift | undefined {
  const fp = expected?.fingerprint;
  if (!expected || !fp) return undefined;
  if (!hasParts(fp)) {
    if (fp.hash === live.hash) return undefined;
    return {
      part: 'request',
      path: 'request',
      detail: `  expected request hash ${fp.hash}, live ${live.hash} (the override states only the hash, so the part is unknown)`,
    };
  }
  const part = firstDifferingPart(fp, live);
  if (part === undefined) return undefined;
  if (recorded.roots) {
    recorded = {
      ...recorded,
      ...(recorded.system !== undefined ? { system: replaceRoots(recorded.system, recorded.roots) } : {}),
      ...(recorded.tools ? { tools: replaceRoots(recorded.tools, recorded.roots) } : {}),
    };
  }
  const hashes = (k: 'model' | 'system' | 'tools' | 'params') =>
    `recorded hash ${fp.parts[k]}, live ${live.parts[k]}`;
  switch (part) {
    case 'model':
      return {
        part,
        path: part,
        live: request.model,
        detail: `  live model ${JSON.stringify(request.model)} (${hashes('model')})`,
      };
    case 'params':
      return {
        part,
        path: part,
        live: JSON.stringify({ ...request.params, purpose: request.purpose }),
        detail: `  live params ${JSON.stringify({ ...request.params, purpose: request.purpose })} (${hashes('params')})`,
      };
    case 'system': {
      const liveSystem = replaceRoots(request.system, roots);
      if (recorded.system !== undefined && shortHash(recorded.system) === fp.parts.system) {
        return {
          part,
          path: part,
          recorded: recorded.system,
          live: liveSystem,
          detail: `  the system prompt changed (first hunk; the full diff follows on stderr):\n${firstHunk(recorded.system, liveSystem)}`,
          full: unifiedDiff(recorded.system, liveSystem, 'system prompt'),
        };
      }
      return {
        part,
        path: part,
        live: liveSystem,
        detail: `  the system prompt changed (${hashes('system')}); live starts ${window(liveSystem, 0)}`,
      };
    }
    case 'tools': {
      const liveTools = replaceRoots(request.tools, roots);
      if (recorded.tools && shortHash(recorded.tools) === fp.parts.tools) {
        const before = new Map(recorded.tools.map((t) => [t.name, JSON.stringify(t)]));
        const after = new Map(liveTools.map((t) => [t.name, JSON.stringify(t)]));
        const added = [...after.keys()].filter((n) => !before.has(n));
        const removed = [...before.keys()].filter((n) => !after.has(n));
        const changed = [...after.keys()].filter((n) => before.has(n) && before.get(n) !== after.get(n));
        const lines = [
          `  recorded tools: ${toolNames(recorded.tools)}`,
          `  live tools:     ${toolNames(liveTools)}`,
        ];
        if (added.length) lines.push(`  added: ${added.join(', ')}`);
        if (removed.length) lines.push(`  removed: ${removed.join(', ')}`);
        const pretty = (t: ToolSchema | undefined) => `${JSON.stringify(t ?? null, null, 2)}\n`;
        const byName = (list: ToolSchema[], n: string) => list.find((t) => t.name === n);
        for (const n of changed)
          lines.push(
            `  tool ${n} changed:\n${firstHunk(pretty(byName(recorded.tools, n)), pretty(byName(liveTools, n)))}`,
          );
        if (!added.length && !removed.length && !changed.length)
          lines.push('  (same tools in a different order)');
        const all = (list: ToolSchema[]) => `${JSON.stringify(list, null, 2)}\n`;
        return {
          part,
          path: part,
          recorded: all(recorded.tools),
          live: all(liveTools),
          detail: lines.join('\n'),
          full: unifiedDiff(all(recorded.tools), all(liveTools), 'tools'),
        };
      }
      return {
        part,
        path: part,
        live: JSON.stringify(liveTools),
        detail: `  live tools: ${toolNames(liveTools)} (${hashes('tools')})`,
      };
    }
    case 'hash':
      return { part: 'request', path: 'request', detail: `  recorded hash ${fp.hash}, live ${live.hash}` };
    default: {
      const index = Number(/^messages\[(\d+)\]$/.exec(part)?.[1] ?? Number.NaN);
      if (Number.isNaN(index))
        return { part, path: part, detail: `  recorded hash ${fp.hash}, live ${live.hash}` };
      return describeMessage(index, expected, fp, request, live, roots, recorded.roots ?? {});
    }
  }
}
