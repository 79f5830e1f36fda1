/**
 * Credentials in text bound for a fixture: the one table that recording scrubs by (the harness's record
 * mode, this package's exchange log) and that the guards (`acp-snapshot check`) reject by. A text is clean
 * when scrubbing leaves it unchanged, so what the guards report is exactly what recording would have removed.
 * Well-known formats are secretlint's recommended preset (maintained upstream; see
 * docs/decisions/0019-one-secrets-table.md), with the few it leaves out added here, and the key values of the
 * run matched verbatim.
 */
import { rules as presetRules } from '@secretlint/secretlint-rule-preset-recommend';

/** One credential found: where it is in the text, the rule that found it, and what scrubbing puts there. */
export interface CredentialFind {
  start: number;
  end: number;
  /** The rule's short name: `github`, `jwt`, `key-value`... */
  rule: string;
  /** What it is, for a message: "a GitHub token". */
  what: string;
  replacement: string;
}

/** What besides the well-known formats counts as a credential: the values of the variables holding keys. */
export interface CredentialOptions {
  /** Key values (the recording's API key, the variables a config names as keys), matched verbatim. */
  values?: readonly string[];
}

/** A value shorter than this is not treated as a key: it would match ordinary words. */
export const MIN_KEY_VALUE_LENGTH = 8;

interface TableRule {
  rule: string;
  what: string;
  find(text: string): Array<Omit<CredentialFind, 'rule' | 'what'>>;
}

/** A rule from a regular expression; `group` (when given) is the part replaced, the rest of the match kept. */
function pattern(rule: string, what: string, re: RegExp, replacement: string, group?: number): TableRule {
  return {
    rule,
    what,
    find(text) {
      const out: Array<Omit<CredentialFind, 'rule' | 'what'>> = [];
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
      const out: Array<Omit<CredentialFind, 'rule' | 'what'>> = [];
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

/**
 * The table, most specific first: where two rules find overlapping text the earlier one names it. The last
 * three are the harness's long-standing rules (any `sk-` key, bearer tokens, an authorization header's value),
 * whose replacements are unchanged.
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
];

/** The rules of the table by short name, for documentation and messages. */
export const CREDENTIAL_RULES: ReadonlyArray<{ rule: string; what: string }> = [
  { rule: 'key-value', what: 'the API key value' },
  ...TABLE.map(({ rule, what }) => ({ rule, what })),
];

/** Every credential in `text`, in text order, overlaps resolved (the key values first, then the table's order). */
export function findCredentials(text: string, options: CredentialOptions = {}): CredentialFind[] {
  const all: CredentialFind[] = [];
  for (const value of options.values ?? []) {
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
  for (const t of view === text ? [text] : [text, view])
    for (const r of TABLE) for (const f of r.find(t)) all.push({ ...f, rule: r.rule, what: r.what });
  // Stable sort: at one start, the rule listed first wins; a find overlapping a kept one widens it.
  const sorted = all.map((f, i) => ({ f, i })).sort((a, b) => a.f.start - b.f.start || a.i - b.i);
  const kept: CredentialFind[] = [];
  for (const { f } of sorted) {
    const last = kept.at(-1);
    if (last && f.start < last.end) last.end = Math.max(last.end, f.end);
    else kept.push({ ...f });
  }
  return kept;
}

/** `text` with every credential replaced (`[redacted:github]`, `sk-[redacted]`, `[redacted-key]`...). */
export function scrubCredentials(text: string, options: CredentialOptions = {}): string {
  const finds = findCredentials(text, options);
  if (finds.length === 0) return text;
  let out = '';
  let at = 0;
  for (const f of finds) {
    out += text.slice(at, f.start) + f.replacement;
    at = f.end;
  }
  return out + text.slice(at);
}
