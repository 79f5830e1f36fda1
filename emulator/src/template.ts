// Values of the request templated into scripted answers: a real model quotes the cwd from its system
// prompt, paths from tool output, the home a command printed. A script declares each value as a
// regular expression over part of the request, and writes `${name}` where the model would say it.
import { z } from 'zod';

/** Where in the request a value is looked for. */
export const VarSource = z.enum(['system', 'user', 'tool', 'any']);

/** One declared value: the first capture group of `pattern`, in the newest message of `from` that matches. */
export const ScriptVar = z.strictObject({
  from: VarSource,
  pattern: z.string().superRefine((p, ctx) => {
    let re: RegExp;
    try {
      re = new RegExp(p, 'u');
    } catch (e) {
      ctx.addIssue({ code: 'custom', message: `not a valid regular expression: ${(e as Error).message}` });
      return;
    }
    // A pattern with no capture group would template the whole match; say so rather than guess.
    if (new RegExp(`${re.source}|`, 'u').exec('')!.length < 2)
      ctx.addIssue({ code: 'custom', message: 'needs one capture group: the part that is the value' });
  }),
});
export type ScriptVar = z.infer<typeof ScriptVar>;

/** `{ "cwd": { "from": "system", "pattern": "Working directory: (\\S+)" } }` */
export const ScriptVars = z.record(
  z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a name like "cwd"'),
  ScriptVar,
);
export type ScriptVars = z.infer<typeof ScriptVars>;

/** One message of a request, in any wire format, as vars see it: its role and its text. */
export interface RoleText {
  role: 'system' | 'user' | 'tool' | 'assistant' | (string & {});
  text: string;
}

/**
 * A message's role as vars see it: `developer` (OpenAI's newer name for system text) is `system` and Gemini's
 * `model` is `assistant` in every format, so `from: "system"` finds system text wherever a format puts it.
 */
export function roleOf(role: unknown, fallback = 'user'): string {
  if (role === 'developer') return 'system';
  if (role === 'model') return 'assistant';
  return typeof role === 'string' ? role : fallback;
}

/** The text of an OpenAI-style content (a string, or parts with `text`). */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content.map((p) => (p && typeof p === 'object' && 'text' in p ? String(p.text) : '')).join('');
  return '';
}

/** A declared value that the request does not hold: the emulator answers 400 with this message. */
export class VarNotFound extends Error {
  override name = 'VarNotFound';
}

/** The declared names that `value` (a script entry) uses as `${name}`. */
export function usedVars(vars: ScriptVars, value: unknown): string[] {
  const text = JSON.stringify(value);
  return Object.keys(vars).filter((n) => text.includes(`\${${n}}`));
}

/**
 * The values of the named `vars` in a request's messages (each wire format lists its own), each from the
 * newest message of its source that matches (an entry resolves only what it uses: the first answer has no
 * tool output yet).
 */
export function resolveVars(
  vars: ScriptVars,
  names: readonly string[],
  messages: readonly RoleText[],
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names) {
    const v = vars[name]!;
    const re = new RegExp(v.pattern, 'u');
    let found: string | undefined;
    for (let i = messages.length - 1; i >= 0 && found === undefined; i--) {
      const m = messages[i]!;
      if (v.from !== 'any' && m.role !== v.from) continue;
      found = re.exec(m.text)?.[1];
    }
    if (found === undefined) {
      throw new VarNotFound(
        `var ${name}: /${v.pattern}/ matched no ${v.from === 'any' ? '' : `${v.from} `}message of the request; ` +
          'fix the pattern in the script (vars) or the order of its responses',
      );
    }
    out[name] = found;
  }
  return out;
}

/** `value` with `${name}` replaced in every string, for the declared names only (a bash `${HOME}` stays). */
export function applyVars<T>(value: T, values: Record<string, string>): T {
  const names = Object.keys(values);
  if (names.length === 0) return value;
  const re = new RegExp(`\\$\\{(${names.map((n) => n.replace(/[$]/g, '\\$&')).join('|')})\\}`, 'g');
  const walk = (x: unknown): unknown => {
    if (typeof x === 'string') return x.replace(re, (_m, n: string) => values[n]!);
    if (Array.isArray(x)) return x.map(walk);
    if (x && typeof x === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(x)) out[k] = walk(v);
      return out;
    }
    return x;
  };
  return walk(value) as T;
}
