/**
 * Secrets in text bound for a fixture, in one module: the credentials table (well-known formats and the run's key
 * values), the identifying home directory and user name rules, this machine's secrets, and `scrub()`. Recording
 * scrubs by it (the harness's record mode, this package's exchange log) and the guards (`acp-snapshot check`)
 * reject by it: a text is clean exactly when scrubbing leaves it unchanged (`scrub(t) === t`), because both
 * are {@link findSecrets}, so what the guards report is exactly what recording would have removed.
 * Well-known formats are secretlint's recommended preset (maintained upstream; see
 * docs/decisions/0019-one-secrets-table.md and 0035-one-secrets-module.md), with the few it leaves out added here.
 */
import { homedir, userInfo } from 'node:os';
import { RootReplacer } from '@acp-snapshot/core';
import { rules as presetRules } from '@secretlint/secretlint-rule-preset-recommend';

/** One secret found: where it is in the text, the rule that found it, and what scrubbing puts there. */
export interface SecretFind {
  start: number;
  end: number;
  /** The rule's short name: `github`, `jwt`, `key-value`, `real-home`... */
  rule: string;
  /** What it is, for a message: "a GitHub token". */
  what: string;
  replacement: string;
}

/** What besides the well-known formats is a secret: the run's key values, and the machine's home and user name. */
export interface Secrets {
  /** Key values (the recording's API key, the variables a config names as keys), matched verbatim. */
  values?: readonly string[];
  /** The real home directory: `{{realHome}}` when it identifies someone ({@link isIdentifyingHome}). */
  home?: string;
  /** The real user name: `{{user}}` when it identifies someone ({@link isIdentifyingUserName}). */
  user?: string;
}

/** A value shorter than this is not treated as a key: it would match ordinary words. */
const MIN_KEY_VALUE_LENGTH = 8;

interface TableRule {
  rule: string;
  what: string;
  find(text: string): Array<Omit<SecretFind, 'rule' | 'what'>>;
}

/** A rule from a regular expression; `group` (when given) is the part replaced, the rest of the match kept. */
function pattern(rule: string, what: string, re: RegExp, replacement: string, group?: number): TableRule {
  return {
    rule,
    what,
    find(text) {
      const out: Array<Omit<SecretFind, 'rule' | 'what'>> = [];
      for (const m of text.matchAll(re)) {
        const whole = m[0];
        const part = group === undefined ? whole : m[group]!;
        const start = m.index! + (group === undefined ? 0 : whole.lastIndexOf(part));
        out.push({ start, end: start + part.length, replacement });
      }
      return out;
    },
  };
}

/** The part of secretlint's rule interface the table drives: each rule scans one text and reports ranges. */
interface SecretlintRule {
  meta: { id: string };
  create(
    context: {
      report(d: { message: unknown; range: readonly [number, number] }): void;
      ignore(): void;
      createTranslator(
        messages: unknown,
      ): (id: string, data?: unknown) => { message: string; data?: unknown };
    },
    options: unknown,
  ): { file?(source: { content: string; filePath: string; ext: string; contentType: 'text' }): unknown };
}

/** Rule options other than the preset's defaults: AWS access key ids are off by default there. */
const PRESET_OPTIONS: Record<string, unknown> = { aws: { enableIDScanRule: true } };
/** Preset rules that are no credential format: comment directives (`secretlint-disable`) are not honoured in fixtures. */
const PRESET_SKIPPED = new Set(['filter-comments']);

const PRESET_NAMES: Record<string, string> = {
  '1password': 'a 1Password service account token',
  anthropic: 'an Anthropic API key',
  aws: 'an AWS access key',
  basicauth: 'a password in a URL (basic auth)',
  'database-connection-string': 'a database connection string with a password',
  gcp: 'a GCP service account key',
  github: 'a GitHub token',
  openai: 'an OpenAI API key',
  privatekey: 'a private key',
  slack: 'a Slack token',
};

function presetRule(r: SecretlintRule): TableRule | undefined {
  const name = r.meta.id.replace(/^@secretlint\/secretlint-rule-/, '');
  if (PRESET_SKIPPED.has(name)) return undefined;
  const what = PRESET_NAMES[name] ?? `a ${name} credential`;
  return {
    rule: name,
    what,
    find(text) {
      const out: Array<Omit<SecretFind, 'rule' | 'what'>> = [];
      const handlers = r.create(
        {
          report: ({ range }) =>
            out.push({ start: range[0], end: range[1], replacement: `[redacted:${name}]` }),
          ignore: () => {},
          createTranslator: () => (id) => ({ message: id }),
        },
        PRESET_OPTIONS[name] ?? {},
      );
      // Each scanner reads only `content` for a text; a binary key store (.p12) is never scanned here.
      handlers.file?.({ content: text, filePath: 'fixture.txt', ext: '.txt', contentType: 'text' });
      return out;
    },
  };
}

/** User names too common to treat as identifying (scrubbing them would mangle ordinary words). */
const COMMON_USER_NAMES: ReadonlySet<string> = new Set([
  'root',
  'user',
  'node',
  'runner',
  'ubuntu',
  'admin',
  'app',
  'work',
  'test',
  // The placeholder of tool descriptions' examples (OpenCode's bash tool: `mkdir "/Users/name/My Documents"`).
  'name',
  // What scrubbing puts for anyone else's name in a home path (`/home/someone`): a name that names nobody.
  'someone',
]);

/** True when the user name identifies a person or machine and must not reach a fixture. */
export function isIdentifyingUserName(user: string | undefined): user is string {
  return !!user && user.length >= 3 && !COMMON_USER_NAMES.has(user.toLowerCase());
}

/**
 * True when a home directory identifies someone, so every surface replaces it (`{{realHome}}`) and the guards
 * refuse it. A home of one segment (`/root`, `/app`, `/nonexistent`) is a fixed system path, and one whose last
 * name is a common account (`/home/node`, `/home/runner`, `/var/root`) names nobody: each is the same on every
 * machine with that account, and the same text is a constant elsewhere (codex names its main agent `/root`).
 * Replacing it would turn that constant into the home of whoever replays. See docs/decisions/0015-real-home-root.md.
 */
export function isIdentifyingHome(home: string | undefined): home is string {
  const names = (home ?? '').split('/').filter(Boolean);
  return names.length >= 2 && !COMMON_USER_NAMES.has(names.at(-1)!.toLowerCase());
}

/**
 * Anyone's home under `/home` or `/Users`, whatever machine recorded it: a fixture recorded elsewhere (a
 * container, a colleague's laptop) is caught here too, where this machine's home rule would not see it.
 * `/home/user/...` and the like identify nobody (the SDK example agent prints one); no user name starts with
 * a dot (`../home/.qwen/...`, qwen's path from the test's cwd to its HOME, names none); `{{realHome}}` and a
 * scrubbed `/home/someone` (a name, so a root right after it stays glued to it, as it was) are not matched again; a name ends before a dot (`/home/alice.` ends a sentence).
 */
const OTHER_HOME = new RegExp(
  `(?:^|[^A-Za-z0-9_{}])/(?:home|Users)/((?!(?:${[...COMMON_USER_NAMES].join('|')})(?![A-Za-z0-9._-]))[A-Za-z0-9_-](?:[A-Za-z0-9._-]*[A-Za-z0-9_-])?)`,
  'g',
);

/**
 * The table, most specific first: where two rules find overlapping text the earlier one names it. Then the
 * harness's long-standing rules (any `sk-` key, bearer tokens, an authorization header's value), whose
 * replacements are unchanged, and anyone's home directory.
 */
const TABLE: readonly TableRule[] = [
  ...(presetRules as unknown as SecretlintRule[]).map(presetRule).filter((r) => r !== undefined),
  // Not in the preset: a Google API key (Gemini, Maps...) and a JSON Web Token (any signed token an agent sees).
  pattern(
    'google-api-key',
    'a Google API key',
    /\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/g,
    '[redacted:google-api-key]',
  ),
  pattern(
    'jwt',
    'a JSON Web Token',
    /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
    '[redacted:jwt]',
  ),
  pattern('sk-key', 'an API key (sk-...)', /\bsk-[A-Za-z0-9_-]{16,}/g, 'sk-[redacted]'),
  pattern('bearer', 'a bearer token', /\bBearer\s+([A-Za-z0-9._~+/-]{8,})/g, '[redacted]', 1),
  pattern(
    'authorization',
    'an authorization header',
    /"authorization"\s*:\s*"((?!\[redacted\]")[^"]*)"/gi,
    '[redacted]',
    1,
  ),
  pattern('other-home', 'a real home directory path', OTHER_HOME, 'someone', 1),
];

/** The variable a recording's model key is in (the harness's record mode reads it): scrubbed wherever it is set. */
const RECORDING_KEY_VARIABLE = 'DEEPSEEK_API_KEY';

/**
 * This machine's secrets: its home directory and user name (the account's, from passwd: commands show it
 * whatever `$HOME` says) and the key values, by default the recording key's when it is set. The rules above
 * decide which of them identify someone.
 */
export function machineSecrets(
  values: readonly string[] = keyValues(process.env[RECORDING_KEY_VARIABLE]),
): Secrets {
  let home = homedir();
  let user: string | undefined;
  try {
    const info = userInfo();
    if (info.homedir) home = info.homedir;
    user = info.username;
  } catch {
    // No passwd entry: $HOME, and no user name to hide.
  }
  return { values, ...(home ? { home } : {}), ...(user ? { user } : {}) };
}

const keyValues = (key: string | undefined) => (key?.trim() ? [key.trim()] : []);

/** The compiled home and user rules of one set of secrets: scrubbing calls this for every text. */
const rootsOf = new WeakMap<Secrets, RootReplacer>();
function rootReplacer(secrets: Secrets): RootReplacer {
  let r = rootsOf.get(secrets);
  if (!r) {
    r = RootReplacer.of({
      realHome: isIdentifyingHome(secrets.home) ? secrets.home : undefined,
      user: isIdentifyingUserName(secrets.user) ? secrets.user : undefined,
    });
    rootsOf.set(secrets, r);
  }
  return r;
}

const ROOT_WHAT: Record<string, string> = {
  realHome: 'the real home directory',
  realHomeDashed: 'the real home directory',
  user: 'the user name',
};

/**
 * Every secret in `text`, in text order, overlaps resolved (the key values first, then this machine's home and
 * user name, then the table's order): what {@link scrub} replaces, and what the guards report.
 */
export function findSecrets(text: string, secrets: Secrets = {}): SecretFind[] {
  const all: SecretFind[] = [];
  for (const value of secrets.values ?? []) {
    if (value.length < MIN_KEY_VALUE_LENGTH) continue;
    for (let at = text.indexOf(value); at >= 0; at = text.indexOf(value, at + value.length))
      all.push({
        start: at,
        end: at + value.length,
        rule: 'key-value',
        what: 'the API key value',
        replacement: '[redacted-key]',
      });
  }
  // Fixture text is mostly JSON, where a line break inside a string is `\n`: the formats' word boundaries
  // would see `n` glued to the key that follows. The rules also read the text with each escape as a backslash
  // and a space, of the same length, so every range found is the same range of `text` (and on the text as it
  // is, for the rules that read the escapes themselves, as the private key block's).
  const view = text.replace(/\\[nrtbf]/g, '\\ ');
  const views = view === text ? [text] : [text, view];
  if (secrets.home || secrets.user)
    for (const t of views)
      for (const m of rootReplacer(secrets).find(t))
        all.push({
          start: m.start,
          end: m.end,
          rule: m.name === 'user' ? 'user' : 'real-home',
          what: ROOT_WHAT[m.name] ?? m.name,
          replacement: `{{${m.name}}}`,
        });
  for (const t of views)
    for (const r of TABLE) for (const f of r.find(t)) all.push({ ...f, rule: r.rule, what: r.what });
  // Stable sort: at one start, the rule listed first wins; a find overlapping a kept one widens it, but for a
  // home path over this machine's home or user name (`/home/alice-x` is `/home/{{user}}-x`): what the path
  // names is gone already, and the rest of it is no secret.
  const sorted = all.map((f, i) => ({ f, i })).sort((a, b) => a.f.start - b.f.start || a.i - b.i);
  const kept: SecretFind[] = [];
  for (const { f } of sorted) {
    const last = kept.at(-1);
    if (!last || f.start >= last.end) kept.push({ ...f });
    else if (f.rule !== 'other-home') last.end = Math.max(last.end, f.end);
  }
  return kept;
}

/**
 * `text` with every secret replaced (`[redacted:github]`, `sk-[redacted]`, `[redacted-key]`, `{{realHome}}`,
 * `{{user}}`, `/home/someone`...). A text is clean when this returns it unchanged: the guards' one test.
 */
export function scrub(text: string, secrets: Secrets = {}): string {
  if (text.length > SCRUB_MEMO_MAX_TEXT) return replaceFinds(text, findSecrets(text, secrets));
  const hit = scrubMemoFor(secrets).get(text);
  if (hit !== undefined) return hit;
  const out = replaceFinds(text, findSecrets(text, secrets));
  scrubMemoChars += text.length;
  if (scrubMemoChars > SCRUB_MEMO_MAX_CHARS) {
    scrubMemo.clear();
    scrubMemoChars = text.length;
  }
  scrubMemoFor(secrets).set(text, out);
  return out;
}

/** `text` with each find replaced by its replacement (finds in text order, not overlapping). */
function replaceFinds(text: string, finds: readonly SecretFind[]): string {
  if (finds.length === 0) return text;
  let out = '';
  let at = 0;
  for (const f of finds) {
    out += text.slice(at, f.start) + f.replacement;
    at = f.end;
  }
  return out + text.slice(at);
}

// An agent sends its system prompt and tool schemas with every model call, and every test of a worker sends the
// same ones: scrub() scans each text once per process (the rules build their expressions at each scan), its
// answers kept per set of secrets, up to SCRUB_MEMO_MAX_CHARS characters of text in all.
const SCRUB_MEMO_MAX_TEXT = 1 << 16;
const SCRUB_MEMO_MAX_CHARS = 1 << 25;
const scrubMemo = new Map<string, Map<string, string>>();
const secretsKeys = new WeakMap<Secrets, string>();
let scrubMemoChars = 0;

function scrubMemoFor(secrets: Secrets): Map<string, string> {
  let key = secretsKeys.get(secrets);
  if (key === undefined) {
    key = JSON.stringify([secrets.values ?? [], secrets.home ?? null, secrets.user ?? null]);
    secretsKeys.set(secrets, key);
  }
  let memo = scrubMemo.get(key);
  if (!memo) {
    memo = new Map();
    scrubMemo.set(key, memo);
  }
  return memo;
}
