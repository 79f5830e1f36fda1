/**
 * Guards over the committed fixture tree (docs/architecture.md, "Fixture-tree rules"): every rule returns violations whose
 * message is what a user sees, naming the file (and line) and what to do next.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { homedir, userInfo } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import {
  decodeUtf8File,
  parseLogText,
  projectLog,
  RootReplacer,
  rowKindOf,
  type SessionEvent,
  sidecarHash,
  Utf8Error,
} from '@acp-snapshot/session-log';
import { firstDifferingLine } from '../compare/diff.js';
import { WORKSPACE_EXPECTED, workspaceFileProblem } from '../compare/workspace.js';
import { COMMON_USER_NAMES, escapeRegExp, isIdentifyingUserName } from '../roots/secrets.js';
import { loadScenario, namedAgentCommand, type Scenario } from '../scenario/input.js';
import { loneSurrogateProblems } from './lone-surrogate-guard.js';

/** The rules, in the order they are reported. */
export const GUARD_RULES = [
  'scenario-files',
  'scenario-input',
  'override-flag',
  'unknown-files',
  'stdout-json',
  'workspace-expected',
  'canonical-log',
  'sidecars',
  'all-row-kinds',
  'secrets',
  'lone-surrogates',
] as const;
export type GuardRule = (typeof GUARD_RULES)[number];

/** One broken rule at one place. */
export interface Violation {
  rule: GuardRule;
  message: string;
  /** The scenario the violation is in, when it is in one (so `-g NAME` runs that scenario's rules). */
  scenario?: string;
}

/** Options for {@link checkFixtures}. */
export interface GuardOptions {
  /** Paths in messages are relative to this directory (default: the parent of the fixtures dir). */
  displayBase?: string;
  /** The real home directory and user name to look for (default: this machine's). */
  home?: string;
  user?: string;
  /** Secret values to look for verbatim (default: DEEPSEEK_API_KEY when set). */
  secretValues?: string[];
  /**
   * The repository around the fixtures: session logs found anywhere in it (by their header row, in files
   * git tracks or would track) must be canonical too, not only those under fixtures/. Default: fixtures/ only.
   */
  repoRoot?: string;
  /** The agents a scenario may name in `"agent"` (the config's `use.agents`); unchecked when absent. */
  agents?: Readonly<Record<string, readonly string[]>>;
}

const REQUIRED = ['input.json', 'stdout.expected.jsonl', 'session.jsonl', WORKSPACE_EXPECTED] as const;
const OPTIONAL = ['replay.override.json'] as const;
/** The scenario whose log holds every storage row kind, with its independent raw source recording. */
export const ALL_ROW_KINDS = 'all-row-kinds';
export const ALL_ROW_KINDS_SOURCE = 'source.raw.jsonl';
/** Storage row kinds: the header row, single-event rows and packed chunk rows. */
export const ROW_KINDS = ['header', 'event', 'packed'] as const;
const SIDECAR_NAME = /^[0-9a-f]{64}\.json$/;

async function isDir(p: string): Promise<boolean> {
  return (await stat(p).catch(() => undefined))?.isDirectory() ?? false;
}

async function walkFiles(dir: string): Promise<string[]> {
  if (!(await isDir(dir))) return [];
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

/** Directories never searched for session logs when the repository is not a git checkout. */
const NOT_SOURCE = new Set([
  'node_modules',
  '.git',
  'dist',
  'test-results',
  'playwright-report',
  'blob-report',
]);

/**
 * The `.jsonl` files of a repository outside `skipDir`: what git tracks or would track (ignored files are
 * build or test output), or, outside a git checkout, every file but those under {@link NOT_SOURCE}.
 */
async function repoJsonlFiles(root: string, skipDir: string): Promise<string[]> {
  let files: string[];
  try {
    const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      maxBuffer: 64 * 2 ** 20,
    });
    files = listed
      .split('\0')
      .filter(Boolean)
      .map((f) => join(root, f));
  } catch {
    const entries = await readdir(root, { recursive: true, withFileTypes: true });
    files = entries
      .filter(
        (e) =>
          e.isFile() &&
          !relative(root, e.parentPath)
            .split(sep)
            .some((d) => NOT_SOURCE.has(d)),
      )
      .map((e) => join(e.parentPath, e.name));
  }
  const skip = join(skipDir, sep);
  return files.filter((f) => f.endsWith('.jsonl') && !f.startsWith(skip) && existsSync(f)).sort();
}

/** The storage kind of one physical row of a session log (session-log's row format). */
export function rowKind(row: unknown): (typeof ROW_KINDS)[number] | 'unknown' {
  return rowKindOf(row) ?? 'unknown';
}

function firstLineIsHeader(text: string): boolean {
  const first = text.slice(0, text.indexOf('\n') >>> 0);
  try {
    return rowKind(JSON.parse(first)) === 'header';
  } catch {
    return false;
  }
}

export { sidecarHash };

function sidecarRefs(event: SessionEvent): string[] {
  if (event.type !== 'session/header') return [];
  const refs: string[] = [];
  if (typeof event.systemPrompt === 'object') refs.push(event.systemPrompt.sidecar);
  if (!Array.isArray(event.tools)) refs.push(event.tools.sidecar);
  return refs;
}

function secretPatterns(opts: GuardOptions): Array<{ re: Pick<RegExp, 'test'>; what: string }> {
  const home = opts.home ?? homedir();
  const user = opts.user ?? safeUser();
  const out: Array<{ re: Pick<RegExp, 'test'>; what: string }> = [
    { re: /\bsk-[A-Za-z0-9_-]{16,}/, what: 'an API key (sk-...)' },
    { re: /\bBearer\s+[A-Za-z0-9._~+/-]{8,}/, what: 'a bearer token' },
    { re: /"authorization"\s*:/i, what: 'an authorization header' },
    // `/home/user/...` and the like identify nobody (the SDK example agent prints one); the machine's
    // own home is still caught below even when its user name is a common one.
    {
      re: new RegExp(
        `(?:^|[^A-Za-z0-9_{}])/(?:home|Users)/(?!(?:${[...COMMON_USER_NAMES].join('|')})(?![A-Za-z0-9._-]))[A-Za-z0-9._-]+`,
      ),
      what: 'a real home directory path',
    },
  ];
  // The real home and user name by the one boundary rule every surface replaces them with (roots.ts).
  const homeRoot = RootReplacer.of({ realHome: home });
  if (!homeRoot.empty)
    out.push({ re: { test: (line) => homeRoot.text(line) !== line }, what: 'the real home directory' });
  if (isIdentifyingUserName(user)) {
    const userRoot = RootReplacer.of({ user });
    out.push({ re: { test: (line) => userRoot.text(line) !== line }, what: 'the user name' });
  }
  const values = opts.secretValues ?? (process.env.DEEPSEEK_API_KEY ? [process.env.DEEPSEEK_API_KEY] : []);
  for (const v of values)
    if (v.length >= 8) out.push({ re: new RegExp(escapeRegExp(v)), what: 'the API key value' });
  return out;
}

function safeUser(): string | undefined {
  try {
    return userInfo().username;
  } catch {
    return undefined;
  }
}

/** Runs every guard over a fixtures directory (`fixtures/`) and returns all violations. */
export async function checkFixtures(fixturesDir: string, opts: GuardOptions = {}): Promise<Violation[]> {
  const base = opts.displayBase ?? dirname(fixturesDir);
  const show = (p: string) => relative(base, p) || '.';
  const out: Violation[] = [];
  const scenariosDir = join(fixturesDir, 'scenarios');
  // Every message starts with the path it is about; a path inside a scenario directory names the scenario.
  const scenarioPrefix = `${show(scenariosDir)}/`;
  const add = (rule: GuardRule, message: string) => {
    const scenario = message.startsWith(scenarioPrefix)
      ? /^[^/:\s]+/.exec(message.slice(scenarioPrefix.length))?.[0]
      : undefined;
    out.push(scenario ? { rule, message, scenario } : { rule, message });
  };
  const sidecarsDir = join(fixturesDir, 'sidecars');

  if (!(await isDir(fixturesDir))) {
    add(
      'scenario-files',
      `${show(fixturesDir)}: missing (the fixtures directory holds scenarios/ and sidecars/)`,
    );
    return out;
  }
  for (const e of await readdir(fixturesDir, { withFileTypes: true })) {
    if (!(e.isDirectory() && (e.name === 'scenarios' || e.name === 'sidecars'))) {
      add(
        'unknown-files',
        `${show(join(fixturesDir, e.name))}: unknown entry (fixtures/ holds scenarios/ and sidecars/ only)`,
      );
    }
  }

  // Per-scenario files, input and override flag.
  const scenarioNames: string[] = [];
  if (await isDir(scenariosDir)) {
    for (const e of (await readdir(scenariosDir, { withFileTypes: true })).sort((a, b) =>
      a.name.localeCompare(b.name),
    )) {
      const path = join(scenariosDir, e.name);
      if (!e.isDirectory()) {
        add(
          'unknown-files',
          `${show(path)}: orphan file (fixtures/scenarios/ holds one directory per scenario)`,
        );
        continue;
      }
      scenarioNames.push(e.name);
      const name = e.name;
      const entries = await readdir(path, { withFileTypes: true });
      const names = new Set(entries.map((x) => x.name));
      for (const req of REQUIRED) {
        if (!names.has(req)) {
          const hint =
            req === 'input.json'
              ? 'every scenario directory needs one; see README "Adding a scenario"'
              : req === WORKSPACE_EXPECTED
                ? `every scenario states what it leaves in its workspace; write it: npm run refresh -- ${name}`
                : `record it: npm run record -- ${name}`;
          add('scenario-files', `${show(join(path, req))}: missing (${hint})`);
        }
      }
      let scenario: Scenario | undefined;
      if (names.has('input.json')) {
        try {
          scenario = await loadScenario(join(path, 'input.json'));
        } catch (err) {
          add(
            'scenario-input',
            `${(err as Error).message.replace(join(path, 'input.json'), show(join(path, 'input.json')))}`,
          );
        }
      }
      if (scenario?.agent !== undefined && opts.agents) {
        try {
          namedAgentCommand(scenario.agent, show(join(path, 'input.json')), opts.agents);
        } catch (err) {
          add('scenario-input', (err as Error).message);
        }
      }
      if (scenario) {
        const hasOverride = names.has('replay.override.json');
        if (scenario.flags.overridden && !hasOverride) {
          add(
            'override-flag',
            `${show(join(path, 'input.json'))}: flags.overridden is true but replay.override.json is missing (add it, or drop the flag)`,
          );
        }
        if (!scenario.flags.overridden && hasOverride) {
          add(
            'override-flag',
            `${show(join(path, 'replay.override.json'))}: present but input.json does not set flags.overridden (set it, or delete the file)`,
          );
        }
      }
      for (const x of entries) {
        const allowed =
          (x.isFile() && ([...REQUIRED, ...OPTIONAL] as string[]).includes(x.name)) ||
          (x.isDirectory() && x.name === 'workspace') ||
          (x.isFile() && name === ALL_ROW_KINDS && x.name === ALL_ROW_KINDS_SOURCE);
        if (!allowed) {
          add(
            'unknown-files',
            `${show(join(path, x.name))}: unknown ${x.isDirectory() ? 'directory' : 'file'} (a scenario holds input.json, stdout.expected.jsonl, session.jsonl, workspace.expected.json, optional replay.override.json and workspace/)`,
          );
        }
      }
      if (names.has(WORKSPACE_EXPECTED)) {
        const file = join(path, WORKSPACE_EXPECTED);
        const { text, notUtf8 } = await readText(file, show(file), `npm run refresh -- ${name}`);
        const problem = notUtf8 ?? workspaceFileProblem(text, show(file), name);
        if (problem) add('workspace-expected', problem);
      }
      if (names.has('stdout.expected.jsonl')) {
        const file = join(path, 'stdout.expected.jsonl');
        const { text, notUtf8 } = await readText(file, show(file), regenerateStdout(name));
        if (notUtf8) add('stdout-json', notUtf8);
        const lines = text.split('\n');
        if (lines[lines.length - 1] === '') lines.pop();
        lines.forEach((line, i) => {
          if (notUtf8) return;
          try {
            JSON.parse(line);
          } catch {
            add(
              'stdout-json',
              `${show(file)}:${i + 1}: not JSON (every line must parse; ${regenerateStdout(name)})`,
            );
          }
        });
      }
    }
  }

  // Session fixtures anywhere under fixtures/ (and, with repoRoot, anywhere in the repository), found by
  // their header row.
  const referenced = new Map<string, string[]>();
  const outside = opts.repoRoot ? await repoJsonlFiles(opts.repoRoot, fixturesDir) : [];
  for (const file of [...(await walkFiles(fixturesDir)), ...outside]) {
    if (!file.endsWith('.jsonl')) continue;
    if (file.endsWith(ALL_ROW_KINDS_SOURCE)) continue; // the raw source recording is deliberately not projected
    const scenario = relative(scenariosDir, dirname(file)).split(sep)[0] ?? '';
    const isOutside = outside.includes(file);
    const fix = isOutside
      ? 'a session log committed outside fixtures/ must be a fixture too: write it with projectLog from @acp-snapshot/session-log, or move it into a scenario'
      : `regenerate it: npm run refresh -- ${scenario || 'NAME'}`;
    // Refresh replays the log it rewrites, so a log that does not parse can only be restored or recorded anew.
    const unreadableFix = isOutside
      ? fix
      : `refresh cannot read it either; restore the committed one: git checkout -- ${show(file)}, or record it anew: npm run record -- ${scenario || 'NAME'}`;
    const { text, notUtf8 } = await readText(file, show(file), unreadableFix);
    if (!firstLineIsHeader(text)) continue;
    if (notUtf8) {
      add('canonical-log', notUtf8);
      continue;
    }
    let events: SessionEvent[];
    try {
      const parsed = parseLogText(text, show(file));
      events = parsed.records.map((r) => r.event);
      const canonical = projectLog(parsed.records, { roots: {} }).text;
      if (canonical !== text) {
        add(
          'canonical-log',
          `${show(file)}:${firstDifferingLine(canonical, text)}: not the canonical packed projection (${fix})`,
        );
      }
    } catch (err) {
      add('canonical-log', `${(err as Error).message} (${unreadableFix})`);
      continue;
    }
    for (const ev of events) {
      for (const ref of sidecarRefs(ev)) referenced.set(ref, [...(referenced.get(ref) ?? []), file]);
    }
  }

  // Sidecars: referenced ones exist, every file is referenced, named by its content hash, no duplicates.
  const sidecarFiles = await walkFiles(sidecarsDir);
  const byContent = new Map<string, string>();
  for (const file of sidecarFiles) {
    const base = relative(sidecarsDir, file);
    if (!SIDECAR_NAME.test(base)) {
      add('unknown-files', `${show(file)}: unknown file (fixtures/sidecars/ holds <sha256>.json files only)`);
      continue;
    }
    const { text, notUtf8 } = await readText(
      file,
      show(file),
      'refresh or re-record the scenario that references it',
    );
    if (notUtf8) add('sidecars', notUtf8);
    const hash = sidecarHash(text);
    const prior = byContent.get(hash);
    if (prior) {
      add(
        'sidecars',
        `${show(file)}: duplicate of ${show(prior)} (same content; keep the file named by its sha256)`,
      );
    } else byContent.set(hash, file);
    if (`${hash}.json` !== base) {
      add(
        'sidecars',
        `${show(file)}: name does not match its content's sha256 (${hash}); re-record or refresh to rewrite it`,
      );
    }
    if (!referenced.has(base.slice(0, -'.json'.length))) {
      add('sidecars', `${show(file)}: not referenced by any session fixture (delete it)`);
    }
  }
  for (const [ref, files] of [...referenced.entries()].sort()) {
    if (!existsSync(join(sidecarsDir, `${ref}.json`))) {
      for (const f of files) {
        add(
          'sidecars',
          `${show(f)}: references sidecar ${show(join(sidecarsDir, `${ref}.json`))}, which does not exist (refresh or re-record the scenario)`,
        );
      }
    }
  }

  // The all-row-kinds scenario.
  if (scenarioNames.includes(ALL_ROW_KINDS))
    await checkAllRowKinds(join(scenariosDir, ALL_ROW_KINDS), show, add);

  // Secrets in any fixture file.
  const patterns = secretPatterns(opts);
  for (const file of await walkFiles(fixturesDir)) {
    const buf = await readFile(file);
    if (buf.includes(0)) continue; // binary seed file
    buf
      .toString('utf8')
      .split('\n')
      .forEach((line, i) => {
        for (const p of patterns) {
          if (p.re.test(line))
            add(
              'secrets',
              `${show(file)}:${i + 1}: contains ${p.what}; scrub it (record mode scrubs automatically) and re-record`,
            );
        }
      });
  }
  for (const message of await loneSurrogateProblems(fixturesDir, show)) add('lone-surrogates', message);
  return out;
}

/** The command that rewrites a scenario's stdout snapshot. */
const regenerateStdout = (name: string) => `regenerate it: npm run test:snapshot:update -- -g ${name}`;

/**
 * A file's text, decoded leniently so the checks can go on, and the message saying where it is not
 * UTF-8 when it is not (Node would otherwise replace the bad bytes without a word).
 */
async function readText(
  file: string,
  shown: string,
  fix: string,
): Promise<{ text: string; notUtf8?: string }> {
  const bytes = await readFile(file);
  try {
    return { text: decodeUtf8File(bytes, shown, fix) };
  } catch (err) {
    if (!(err instanceof Utf8Error)) throw err;
    return { text: bytes.toString('utf8'), notUtf8: err.message };
  }
}

async function checkAllRowKinds(
  dir: string,
  show: (p: string) => string,
  add: (rule: GuardRule, message: string) => void,
): Promise<void> {
  const logFile = join(dir, 'session.jsonl');
  const sourceFile = join(dir, ALL_ROW_KINDS_SOURCE);
  if (!existsSync(logFile)) return; // reported by scenario-files
  const text = await readFile(logFile, 'utf8');
  const kinds = new Set<string>();
  for (const line of text.split('\n')) {
    if (!line) continue;
    try {
      kinds.add(rowKind(JSON.parse(line)));
    } catch {
      kinds.add('unknown');
    }
  }
  const missing = ROW_KINDS.filter((k) => !kinds.has(k));
  if (missing.length)
    add(
      'all-row-kinds',
      `${show(logFile)}: lacks storage row kind(s) ${missing.join(', ')} (it must hold every row kind)`,
    );
  if (!existsSync(sourceFile)) {
    add(
      'all-row-kinds',
      `${show(sourceFile)}: missing (the independent source recording the fixture is derived from)`,
    );
    return;
  }
  try {
    const source = parseLogText(await readFile(sourceFile, 'utf8'), show(sourceFile));
    const projected = parseLogText(projectLog(source.records, { roots: {} }).text, show(sourceFile));
    const fixture = parseLogText(text, show(logFile));
    const a = projected.records.map((r) => r.event);
    const b = fixture.records.map((r) => r.event);
    const at = a.findIndex((e, i) => !isDeepStrictEqual(e, b[i]));
    if (a.length !== b.length || at >= 0) {
      const i = at >= 0 ? at : Math.min(a.length, b.length);
      add(
        'all-row-kinds',
        `${show(logFile)}: does not decode to the events of ${show(sourceFile)} (first difference at event ${i + 1} of ${a.length}/${b.length}); re-derive it from the source`,
      );
    }
  } catch (err) {
    add('all-row-kinds', (err as Error).message);
  }
}
