/**
 * What the docs point at must exist. Two checks, run by `npm test` (scripts/docs-links.test.ts):
 *
 * - references: every markdown link to a file of the repository (`[x](docs/ci.md#sharding-in-ci)`) and every
 *   citation of a doc section in code or prose (`docs/scenarios.md#adding-a-scenario`,
 *   `docs/scenarios.md, "Adding a scenario"`, `README "Storage rows"`: the README of the package the citing file is
 *   in, `the harness README, "Record modes"`) resolves to an existing file and heading;
 * - commands: every `npm run X`, `npm test`, `npx acp-snapshot X` and `npx playwright test --project=X` in a shell
 *   code block exists: in the scripts of the package.json where the block runs, in the CLI's usage, or among the
 *   Playwright projects.
 *
 * A shell block runs in the repository root, or where its file says: a `# in DIR` comment line or `cd DIR`
 * (a directory of the repository), `# in your project` (a user's project: its `--project` names are those
 * `defineAcpConfig()` makes, and its npm scripts are the user's own, not checked). playwright/README.md is read by
 * the package's users, so its blocks run in "your project".
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import GithubSlugger from 'github-slugger';
import { marked, type Token, type Tokens } from 'marked';

/** One broken reference or command: where it is and what is wrong. */
export interface DocProblem {
  file: string;
  line: number;
  message: string;
}

const format = (p: DocProblem) => `${p.file}:${p.line}: ${p.message}`;
export const formatProblems = (problems: DocProblem[]): string[] => problems.map(format);

/** The visible text of inline tokens, as GitHub builds a heading's anchor from it. */
function plainText(tokens: Token[] | undefined): string {
  return (tokens ?? [])
    .map((t) => ('tokens' in t && t.tokens ? plainText(t.tokens) : 'text' in t ? String(t.text) : ''))
    .join('');
}

/** Every token of a markdown document, nested ones (list items, blockquotes, inline) included. */
function* walk(tokens: Token[]): Generator<Token> {
  for (const t of tokens) {
    yield t;
    if ('tokens' in t && t.tokens) yield* walk(t.tokens);
    if (t.type === 'list') for (const item of (t as Tokens.List).items) yield* walk([item]);
    if (t.type === 'table') {
      const table = t as Tokens.Table;
      for (const cell of [...table.header, ...table.rows.flat()]) yield* walk(cell.tokens);
    }
  }
}

/** A markdown file's headings: their texts and the anchors GitHub gives them. */
export interface Headings {
  texts: Set<string>;
  anchors: Set<string>;
}

export function headingsOf(markdown: string): Headings {
  const slugger = new GithubSlugger();
  const texts = new Set<string>();
  const anchors = new Set<string>();
  for (const t of walk(marked.lexer(markdown))) {
    if (t.type !== 'heading') continue;
    const text = plainText((t as Tokens.Heading).tokens).trim();
    texts.add(text);
    anchors.add(slugger.slug(text));
  }
  return { texts, anchors };
}

/** The repository's files as a reader of the docs sees them: a path relative to the root. */
export interface Repo {
  root: string;
  read(path: string): string | undefined;
}

export function diskRepo(root: string): Repo {
  return {
    root,
    read(path) {
      const abs = join(root, path);
      if (!existsSync(abs)) return undefined;
      return statSync(abs).isDirectory() ? '' : readFileSync(abs, 'utf8');
    },
  };
}

/** The line (from 1) of a character offset. */
const lineAt = (text: string, index: number) => text.slice(0, index).split('\n').length;

/** The README of the package a file is in: the nearest README.md at or above its directory. */
function packageReadme(repo: Repo, file: string): string {
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    const readme = dir === '.' ? 'README.md' : `${dir}/README.md`;
    if (repo.read(readme) !== undefined || dir === '.') return readme;
  }
}

/**
 * `harness`, `@acp-snapshot/model-http`: the README of that package's directory (each directory is named after
 * its package; the harness is `@acp-snapshot/playwright`).
 */
function namedReadme(name: string): string {
  const dir = name.replace(/^@acp-snapshot\//, '');
  return `${dir === 'harness' ? 'playwright' : dir}/README.md`;
}

/** A cited heading names a section by its words: `Invariants` for `9. Invariants`, `Fixture-tree rules` for
 * `6. Fixture-tree rules (the guards)`. */
function sameHeading(heading: string, cited: string): boolean {
  const bare = heading.replace(/^\d+(\.\d+)*\.?\s+/, '');
  return heading === cited || bare === cited || bare.replace(/\s+\([^)]*\)$/, '') === cited;
}

/** Whether `target` (a repository path, maybe with `#anchor`, or a heading's text) exists; the problem if not. */
function resolveTarget(
  repo: Repo,
  path: string,
  section: { anchor?: string; heading?: string },
): string | undefined {
  const clean = normalize(path).replace(/\/$/, '');
  if (clean.startsWith('..')) return `${path} is outside the repository`;
  const text = repo.read(clean);
  if (text === undefined) return `${path} does not exist`;
  if (section.anchor === undefined && section.heading === undefined) return undefined;
  if (!clean.endsWith('.md')) return `${path} is not a markdown file, so it has no section`;
  const headings = headingsOf(text);
  if (section.anchor !== undefined && !headings.anchors.has(section.anchor.toLowerCase()))
    return `${path} has no heading with the anchor #${section.anchor}`;
  if (section.heading !== undefined && ![...headings.texts].some((h) => sameHeading(h, section.heading!)))
    return `${path} has no heading "${section.heading}" (its headings: ${[...headings.texts].map((h) => `"${h}"`).join(', ')})`;
  return undefined;
}

const DOC_PATH = String.raw`(?<path>(?:[\w.@-]+/)*[\w.-]+\.md)`;
/** Citations in any text: a doc path with an anchor, or with a quoted heading after it. */
const PATH_ANCHOR = new RegExp(String.raw`(?<![\w/.-])${DOC_PATH}#(?<anchor>[\w-]+)`, 'g');
/** Between a doc and its quoted heading: `, "X"`, ` ("X")`, ` "X"`, also across a comment's line break. */
const SEP = String.raw`(?:,?(?:[ \t]|\n[ \t]*(?:\/\/|\*|#)?[ \t]*)|[ \t]?\()\\?"(?<heading>[^"\\\n]+)\\?"`;
const PATH_HEADING = new RegExp(String.raw`(?<![\w/.-])${DOC_PATH}\`?${SEP}`, 'g');
/** A doc file named by its path: under docs/, or a README of the repository's folders. */
const DOC_FILE = /(?<![\w/.@-])(?<path>docs\/[\w/.-]*\w\.md|(?:[\w-]+\/)+README\.md)(?![\w/-])/g;
/** `README "X"`, `README's "X"`, `README, "X"`, `the harness README, "X"`, `` `@acp-snapshot/x`'s README, "X" ``. */
const README_HEADING = new RegExp(
  String.raw`(?:(?:the |\`)(?<pkg>[@\w/-]+)\`?(?:'s)? )?\bREADME(?:'s)?${SEP}`,
  'g',
);

/** `readmeSection('X')` (core's fix-commands.ts): a message's citation of the published package's README. */
const README_SECTION_CALL = /\breadmeSection\(\s*(['"`])(?<heading>[^'"`\n]+)\1\s*\)/g;

/** The citations of doc sections in a text (code, comments, messages, prose) and whether each resolves. */
export function citationProblems(repo: Repo, file: string, text: string): DocProblem[] {
  const problems: DocProblem[] = [];
  const report = (index: number, what: string, problem: string | undefined) => {
    // A citation broken over a comment's lines reads as one line.
    const shown = what.replace(/[ \t]*\n[ \t]*(?:\/\/|\*|#)?[ \t]*/g, ' ');
    if (problem) problems.push({ file, line: lineAt(text, index), message: `${shown}: ${problem}` });
  };
  const cited = new Set<number>();
  for (const m of text.matchAll(PATH_ANCHOR)) {
    cited.add(m.index);
    report(m.index, m[0], resolveTarget(repo, m.groups!.path!, { anchor: m.groups!.anchor! }));
  }
  for (const m of text.matchAll(PATH_HEADING)) {
    cited.add(m.index);
    report(m.index, m[0], resolveTarget(repo, m.groups!.path!, { heading: m.groups!.heading! }));
  }
  // A doc named without a section; not in tests, whose texts name files they plant (`fixtures/README.md`).
  if (!/\.(test|spec)\.[cm]?[jt]s$/.test(file))
    for (const m of text.matchAll(DOC_FILE)) {
      const path = m.groups!.path!;
      // A README under a folder the repository does not have is an example path (`/home/user/x/README.md`).
      if (cited.has(m.index) || (!path.startsWith('docs/') && repo.read(path.split('/')[0]!) === undefined))
        continue;
      report(m.index, m[0], resolveTarget(repo, path, {}));
    }
  for (const m of text.matchAll(README_HEADING)) {
    const pkg = m.groups!.pkg;
    const readme = pkg ? namedReadme(pkg) : packageReadme(repo, file);
    report(m.index, m[0], resolveTarget(repo, readme, { heading: m.groups!.heading! }));
  }
  for (const m of text.matchAll(README_SECTION_CALL))
    report(m.index, m[0], resolveTarget(repo, namedReadme('harness'), { heading: m.groups!.heading! }));
  return problems.sort((a, b) => a.line - b.line);
}

/** The links of a markdown file to files of the repository, and whether each resolves. */
export function linkProblems(repo: Repo, file: string, markdown: string): DocProblem[] {
  const problems: DocProblem[] = [];
  let from = 0;
  for (const t of walk(marked.lexer(markdown))) {
    if (t.type !== 'link' && t.type !== 'image') continue;
    const href = (t as Tokens.Link).href;
    const at = markdown.indexOf(t.raw, from);
    const line = lineAt(markdown, at >= 0 ? at : from);
    if (at >= 0) from = at;
    if (/^[a-z][a-z0-9+.-]*:/i.test(href)) continue; // https:, mailto:
    const [path = '', anchor] = href.split('#');
    const problem =
      path === ''
        ? headingsOf(markdown).anchors.has((anchor ?? '').toLowerCase())
          ? undefined
          : `${file} has no heading with the anchor #${anchor}`
        : resolveTarget(
            repo,
            join(dirname(file), decodeURIComponent(path)),
            anchor === undefined ? {} : { anchor },
          );
    if (problem) problems.push({ file, line, message: `link ${href}: ${problem}` });
  }
  return problems;
}

/** What a shell block's commands are checked against. */
export interface CommandSources {
  /** The Playwright projects of the repository's own config. */
  projects: Set<string>;
  /** The `:suffix`es `defineAcpConfig()` adds to an agent's name for its projects (`record`). */
  agentProjectSuffixes: Set<string>;
  /** The `acp-snapshot` CLI's commands, from its usage. */
  cliCommands: Set<string>;
}

/** Where a shell block's line runs: a directory of the repository, or a user's project. */
type Where = { dir: string } | 'your project';

const SHELL = new Set(['sh', 'bash', 'shell', 'console', 'zsh']);

/** Each command of a shell line: `a && b; c | d`, without its leading `VAR=value` assignments. */
function commandsOf(line: string): string[][] {
  return line
    .replace(/(^|\s)#.*$/, '')
    .split(/&&|\|\||;|\|/)
    .map((part) => part.trim().split(/\s+/).filter(Boolean))
    .map((words) => words.slice(words.findIndex((w) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w))))
    .filter((words) => words.length > 0 && !/^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0]!));
}

function scriptsOf(repo: Repo, dir: string): Record<string, string> | undefined {
  const text = repo.read(dir === '.' ? 'package.json' : `${dir}/package.json`);
  return text ? ((JSON.parse(text) as { scripts?: Record<string, string> }).scripts ?? {}) : undefined;
}

/** The problems of one command, run where `where` says. */
function commandProblem(
  repo: Repo,
  words: string[],
  where: Where,
  sources: CommandSources,
): string | undefined {
  const [cmd, sub, name] = words;
  const shown = words.join(' ');
  if (cmd === 'npm' && (sub === 'run' || sub === 'run-script' || sub === 'test' || sub === 't')) {
    if (where === 'your project') return undefined;
    const script = sub === 'test' || sub === 't' ? 'test' : name;
    if (!script || script.startsWith('-')) return undefined; // `npm run` alone lists the scripts
    const scripts = scriptsOf(repo, where.dir);
    const pkg = where.dir === '.' ? 'package.json' : `${where.dir}/package.json`;
    if (!scripts) return `\`${shown}\`: there is no ${pkg}`;
    if (!(script in scripts))
      return `\`${shown}\`: ${pkg} has no script "${script}" (it has: ${Object.keys(scripts).join(', ')})`;
    return undefined;
  }
  const cli = cmd === 'npx' && sub === 'acp-snapshot' ? name : cmd === 'acp-snapshot' ? sub : undefined;
  if (cli !== undefined || (cmd === 'npx' && sub === 'acp-snapshot')) {
    if (cli === undefined || cli.startsWith('-')) return undefined; // the usage itself
    if (!sources.cliCommands.has(cli))
      return `\`${shown}\`: the acp-snapshot CLI has no command "${cli}" (its usage lists: ${[...sources.cliCommands].join(', ')})`;
    return undefined;
  }
  const playwright =
    cmd === 'npx' && sub === 'playwright'
      ? words.slice(2)
      : cmd === 'playwright'
        ? words.slice(1)
        : undefined;
  if (playwright?.[0] !== 'test') return undefined;
  for (let i = 1; i < playwright.length; i++) {
    const w = playwright[i]!;
    const project = w.startsWith('--project=')
      ? w.slice('--project='.length)
      : w === '--project'
        ? playwright[i + 1]
        : undefined;
    if (project === undefined) continue;
    const names = project.replace(/^['"]|['"]$/g, '');
    for (const p of names.split(',')) {
      if (where === 'your project' || where.dir !== '.') {
        const suffix = p.includes(':') ? p.slice(p.lastIndexOf(':') + 1) : undefined;
        if (suffix !== undefined && !sources.agentProjectSuffixes.has(suffix))
          return `\`${shown}\`: defineAcpConfig() makes no "AGENT:${suffix}" project (its agent projects: AGENT, ${[...sources.agentProjectSuffixes].map((s) => `AGENT:${s}`).join(', ')})`;
      } else if (!sources.projects.has(p))
        return `\`${shown}\`: playwright.config.ts has no project "${p}" (it has: ${[...sources.projects].join(', ')})`;
    }
  }
  return undefined;
}

/** The shell commands of a markdown file that do not exist where they run. */
export function commandProblems(
  repo: Repo,
  file: string,
  markdown: string,
  sources: CommandSources,
): DocProblem[] {
  const problems: DocProblem[] = [];
  const start: Where = file === 'playwright/README.md' ? 'your project' : { dir: '.' };
  let from = 0;
  for (const t of walk(marked.lexer(markdown))) {
    if (t.type !== 'code') continue;
    const code = t as Tokens.Code;
    const at = markdown.indexOf(code.raw, from);
    if (at >= 0) from = at;
    const lang = (code.lang ?? '').split(/\s/)[0]!;
    if (!SHELL.has(lang)) continue;
    const first = lineAt(markdown, at >= 0 ? at : from) + 1;
    let where = start;
    code.text.split('\n').forEach((line, i) => {
      const here = line.trim();
      const inDir = /^#\s*in (?:the )?(?<dir>[^,:(]+?)(?:[,:(]|$)/.exec(here);
      if (inDir) {
        const dir = inDir.groups!.dir!.trim();
        where = /your project/.test(dir)
          ? 'your project'
          : /repository root/.test(dir)
            ? { dir: '.' }
            : { dir: dir.replace(/\/$/, '') };
        return;
      }
      for (const words of commandsOf(here)) {
        if (words[0] === 'cd' && words[1]) {
          const base = where === 'your project' ? undefined : where.dir;
          const dir = base === undefined ? undefined : relative('.', normalize(join(base, words[1])));
          where = dir !== undefined && repo.read(dir) !== undefined ? { dir: dir || '.' } : 'your project';
          continue;
        }
        const problem = commandProblem(repo, words, where, sources);
        if (problem) problems.push({ file, line: first + i, message: problem });
      }
    });
  }
  return problems;
}
