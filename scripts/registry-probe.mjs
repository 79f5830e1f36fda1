// `npm run compat -- probe [--json FILE] [--start 'BIN ARGS'] TARGET...`: a smoke run of ACP agents from npm. Each
// TARGET (an id or a package of scripts/registry-agents.json, `PKG@VERSION`, `--all` for the whole list, or a local
// directory or tarball, whose start command `--start` gives) is installed into a scratch project of its own, started
// over ACP stdio with a fresh empty HOME and no keys, and put through the conformance kit's initialize and session
// checks, an initialize asking for protocol version 2, and a no-model starter test on the harness (initialize,
// session/new, the snapshot; written once, then replayed against itself). One row per agent says what happened and,
// where something did not work, what a profile would have to supply, read from the exit codes and error texts.
// Every step has a deadline, and every process a probe started is killed before the next one starts.
import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const REGISTRY_AGENTS = join(ROOT, 'scripts/registry-agents.json');
const HARNESS = join(ROOT, 'playwright');
const CLI = join(HARNESS, 'dist/cli.js');
const PLAYWRIGHT = join(ROOT, 'node_modules/@playwright/test/cli.js');

/** The conformance checks a probe runs: the ones that need no model. */
export const PROBE_CHECKS = [
  'initialize.version-echo',
  'initialize.capabilities',
  'initialize.agent-info',
  'session.new-unique',
];

/** The conformance kit's deadline scale: 60 s for a request (a big agent's first start on two busy cores). */
export const DEADLINE_SCALE = 6;

/** Deadlines of each step, in ms (installs can be big; agents written in Node start slowly on 2 cores). */
export const DEADLINES = { install: 600_000, conformance: 420_000, v2: 60_000, starter: 300_000 };

const USAGE =
  "usage: npm run compat -- probe [--json FILE] [--start 'BIN ARGS'] (--all | ID | PKG[@VERSION] | DIR | FILE.tgz)...\n" +
  '       npm run compat -- probe --table FILE   (the table of an earlier run from its --json results)';

/** What the probe of one target found; each step is absent when an earlier one made it pointless. */
/**
 * @typedef {{ ok: boolean, version?: string, error?: string }} InstallResult
 * @typedef {{ id: string, status: 'pass'|'fail'|'skip', detail: string, transcript?: string }} CheckOutcome
 * @typedef {{ answered: boolean, protocolVersion?: unknown, error?: string }} V2Result
 * @typedef {{ ok: boolean, phase?: 'write'|'replay', error?: string }} StarterResult
 * @typedef {{ id: string, package: string, install: InstallResult, checks?: CheckOutcome[], v2?: V2Result,
 *   starter?: StarterResult, ms?: number, scratch?: string }} ProbeResult
 */

/** The first line of a text that says something, trimmed to `max` characters. */
export function gist(text, max = 140) {
  const line =
    String(text ?? '')
      // Addresses stay out of the table (they name registry hosts).
      .replace(/\bhttps?:\/\/\S+/g, '(address)')
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l && !/^at |^npm (error|ERR!) (A complete log|code|errno|path|syscall)/.test(l)) ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

const LOGIN =
  /\b(log ?in|sign ?in|auth\w*|unauthori[sz]ed|credential|api[ _-]?key|token|subscription|account)\b/i;
const MODEL = /\b(base ?url|endpoint|provider|model)\b/i;
const ARGS = /\b(unknown|unrecognized|invalid) (option|argument|flag|command)|too many arguments/i;
const HOME_FILE = /\b(ENOENT|EACCES|settings|config(uration)?)\b/i;
const MISSING_EXECUTABLE = /executable not found|command not found|spawn \S+ ENOENT/i;
const NOT_FOUND = /\b(E404|404 Not Found|No matching version|ETARGET)\b/;

/**
 * What a failed check says: its detail, or, when the agent never answered, the telling line of the stderr its
 * transcript kept (a line that names a login, a model or an option, else the last one).
 */
function failureText(check) {
  const stderr = /## stderr\n([\s\S]*?)\n## exit:/.exec(check.transcript ?? '')?.[1] ?? '';
  const lines = stderr
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  if (/"message"/.test(check.detail) || !lines.length) return check.detail;
  return lines.find((l) => ARGS.test(l) || LOGIN.test(l) || MODEL.test(l)) ?? lines.at(-1);
}

/** What an error text says, in one line: a JSON-RPC error's message where there is one (clipped or not). */
export function reason(text) {
  const message = /"message":\s*"((?:[^"\\]|\\.)*)/.exec(text)?.[1];
  if (message === undefined) return gist(text, 120);
  let plain = message;
  try {
    plain = JSON.parse(`"${message.replace(/\\$/, '')}"`);
  } catch {}
  return gist(plain, 120);
}

/** Which profile field an error text says is missing, in words a profile writer acts on. */
export function lackedFrom(text, when) {
  if (ARGS.test(text)) return `a start command (${reason(text)})`;
  if (MISSING_EXECUTABLE.test(text)) return `another executable on PATH (${reason(text)})`;
  if (LOGIN.test(text)) return `a login or key before ${when} (${reason(text)})`;
  if (MODEL.test(text)) return `a model base URL setting before ${when} (${reason(text)})`;
  if (HOME_FILE.test(text)) return `a HOME file before ${when} (${reason(text)})`;
  return `${when} failed (${reason(text)})`;
}

/** The table row of one probe: what worked, and what a profile would have to add where something did not. */
export function rowOf(/** @type {ProbeResult} */ r) {
  const row = {
    agent: r.id,
    package: r.package,
    installs: r.install.ok ? (r.install.version ?? 'yes') : 'no',
    starts: '—',
    protocol: '—',
    sessionNew: '—',
    starter: '—',
    lacked: '',
  };
  if (!r.install.ok) {
    row.lacked = NOT_FOUND.test(r.install.error ?? '')
      ? 'an npm package: not published'
      : `an install: ${gist(r.install.error)}`;
    return row;
  }
  const check = (id) => r.checks?.find((c) => c.id === id);
  const echo = check('initialize.version-echo');
  // Any initialize answered is a start: one that timed out beside others that answered is a slow start.
  const started = r.checks?.some((c) => c.id.startsWith('initialize.') && c.status === 'pass');
  row.starts = started ? 'yes' : 'no';
  if (!started) {
    row.lacked = lackedFrom(echo ? failureText(echo) : 'no conformance result', 'initialize');
    return row;
  }
  const v1 = echo?.status === 'pass';
  const v2 = r.v2?.answered ? r.v2.protocolVersion : undefined;
  row.protocol = `${v1 ? 'v1' : `v1 ✗ (${reason(echo?.detail ?? 'not run')})`}${v2 === 2 ? ' + v2' : v2 !== undefined ? ` (asked 2: ${JSON.stringify(v2)})` : r.v2 ? ' (asked 2: no answer)' : ''}`;
  const session = check('session.new-unique');
  row.sessionNew = session ? (session.status === 'pass' ? 'yes' : 'no') : '—';
  if (session && session.status !== 'pass') {
    row.lacked = lackedFrom(failureText(session), 'session/new');
    row.starter = r.starter ? (r.starter.ok ? 'green' : 'red') : '—';
    return row;
  }
  if (!r.starter) return row;
  row.starter = r.starter.ok ? 'green' : 'red';
  if (!r.starter.ok) {
    const text = r.starter.error ?? '';
    const grace = /did not exit within (\d+) ms after stdin closed/.exec(text)?.[1];
    row.lacked =
      r.starter.phase === 'replay' && /snapshot|differ|mismatch|expected/i.test(text)
        ? `normalize rules (its no-model wire differs run to run: ${reason(text)})`
        : grace
          ? `\`exit: 'signal'\` (it did not exit within ${grace} ms of stdin closing)`
          : lackedFrom(text, 'the starter');
  }
  return row;
}

const COLUMNS = [
  ['agent', 'agent'],
  ['package', 'npm package'],
  ['installs', 'installs'],
  ['starts', 'starts'],
  ['protocol', 'speaks'],
  ['sessionNew', 'session/new'],
  ['starter', 'keyless starter'],
  ['lacked', 'what a profile must add'],
];

const cell = (v) => String(v).replaceAll('|', '\\|').replaceAll('\n', ' ');

/** The rows as a Markdown table. */
export function probeTable(rows) {
  const head = `| ${COLUMNS.map(([, h]) => h).join(' | ')} |\n| ${COLUMNS.map(() => '---').join(' | ')} |`;
  const body = rows.map(
    (r) => `| ${COLUMNS.map(([k]) => cell(r[k] || (k === 'lacked' ? 'nothing' : '—'))).join(' | ')} |`,
  );
  return [head, ...body].join('\n');
}

/** The registry list, read once. */
export function registryAgents(file = REGISTRY_AGENTS) {
  return JSON.parse(readFileSync(file, 'utf8'));
}

/**
 * The targets named on the command line: a registry entry by id or package (`@VERSION` pins it), a package not
 * in the list (its start command from `--start`, else its only executable), or a local directory or tarball.
 */
export function parseTargets(argv, list = registryAgents()) {
  const targets = [];
  let start;
  let json;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--start') start = argv[++i]?.split(/\s+/).filter(Boolean);
    else if (a === '--json') json = argv[++i];
    else if (a === '--all') for (const e of list.agents) targets.push({ ...e, spec: e.package });
    else if (a.startsWith('--')) throw new Error(`unknown option ${a}\n${USAGE}`);
    else if (existsSync(a)) {
      const path = resolve(a);
      targets.push({ id: a, package: path, spec: path, local: true, start });
    } else {
      const at = a.lastIndexOf('@');
      const [name, version] = at > 0 ? [a.slice(0, at), a.slice(at + 1)] : [a, undefined];
      const entry = list.agents.find((e) => e.id === name || e.package === name);
      const pkg = entry?.package ?? name;
      targets.push({
        ...entry,
        id: entry?.id ?? name,
        package: pkg,
        spec: version ? `${pkg}@${version}` : pkg,
        start,
      });
    }
  }
  if (!targets.length) throw new Error(`no agent named\n${USAGE}`);
  if (start === undefined && argv.includes('--start')) throw new Error(`--start needs a command\n${USAGE}`);
  return { targets, json };
}

/**
 * Runs a command in a process group of its own; at the deadline, or when it returns, the whole group is killed.
 * Resolves with its exit code (null on a kill), output, and whether the deadline ended it.
 */
export function runBounded(cmd, args, { cwd, env, input, timeoutMs, onLine }) {
  return new Promise((done) => {
    const child = spawn(cmd, args, { cwd, env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    let pending = '';
    const killGroup = () => {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {}
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, timeoutMs);
    child.stdout.on('data', (d) => {
      stdout += d;
      if (!onLine) return;
      pending += d;
      const lines = pending.split('\n');
      pending = lines.pop();
      for (const l of lines) onLine(l, child);
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.stdin.on('error', () => {});
    if (input !== undefined) child.stdin.write(input);
    child.on('error', (e) => {
      stderr += `${e.message}\n`;
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      killGroup();
      done({ code, signal, stdout, stderr, timedOut, pid: child.pid });
    });
  });
}

/** The variables an agent may see: PATH, LANG and a fresh HOME and TMPDIR, plus what its entry declares. */
function cleanEnv(home, extra = {}) {
  const tmp = join(home, '.tmp');
  mkdirSync(tmp, { recursive: true });
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', HOME: home, TMPDIR: tmp, ...extra };
}

/** npm install of one target into the scratch project; the version is what landed in node_modules. */
async function install(target, dir) {
  writeFileSync(join(dir, 'package.json'), '{ "private": true, "type": "module" }\n');
  const offline = target.local ? ['--offline'] : [];
  const r = await runBounded(
    'npm',
    ['install', '--no-audit', '--no-fund', '--loglevel=error', ...offline, target.spec],
    { cwd: dir, env: process.env, timeoutMs: DEADLINES.install },
  );
  if (r.code !== 0)
    return {
      ok: false,
      error: r.timedOut ? `npm install took over ${DEADLINES.install / 1000} s` : r.stderr || r.stdout,
    };
  const deps = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).dependencies ?? {};
  const name = Object.keys(deps)[0];
  const pkgJson = join(dir, 'node_modules', name, 'package.json');
  return { ok: true, name, version: JSON.parse(readFileSync(pkgJson, 'utf8')).version };
}

/** The agent's command: `--start` (`{{pkgDir}}` is where the package landed), else the entry's or the only bin. */
export function startCommand(target, dir, name) {
  const pkgDir = join(dir, 'node_modules', name);
  const fill = (s) => s.replaceAll('{{pkgDir}}', pkgDir);
  if (target.start) {
    const [bin, ...args] = target.start.map(fill);
    const local = join(dir, 'node_modules/.bin', bin);
    return [isAbsolute(bin) || !existsSync(local) ? bin : local, ...args];
  }
  let bin = target.bin;
  if (!bin) {
    const bins = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')).bin;
    const names = typeof bins === 'string' ? [name.split('/').pop()] : Object.keys(bins ?? {});
    if (names.length !== 1)
      throw new Error(
        `${name}: ${names.length ? `executables ${names.join(', ')}` : 'no executable'}; name the start command with --start 'BIN ARGS'`,
      );
    bin = names[0];
  }
  return [join(dir, 'node_modules/.bin', bin), ...(target.args ?? [])];
}

/** The conformance kit's no-model checks over its command line, as a JSON report. */
async function conformance(command, env, dir) {
  const profile = join(dir, 'probe-profile.json');
  const report = join(dir, 'probe-conformance.json');
  writeFileSync(profile, JSON.stringify({ command, env }));
  const r = await runBounded(
    process.execPath,
    [
      CLI,
      'conformance',
      '--only',
      PROBE_CHECKS.join(','),
      '--jobs',
      '1',
      '--deadline-scale',
      String(DEADLINE_SCALE),
      '--json',
      report,
      '--profile',
      profile,
    ],
    { cwd: dir, env: cleanEnv(dir), timeoutMs: DEADLINES.conformance },
  );
  if (!existsSync(report))
    return PROBE_CHECKS.map((id) => ({
      id,
      status: 'fail',
      detail: r.timedOut
        ? `the conformance run took over ${DEADLINES.conformance / 1000} s`
        : gist(r.stderr || r.stdout, 300),
    }));
  return JSON.parse(readFileSync(report, 'utf8')).results.map((c) => ({
    id: c.id,
    status: c.status,
    detail: c.detail,
    pids: c.pids,
    transcript: String(c.transcript ?? '').slice(0, 4000),
  }));
}

/** initialize asking for protocol version 2, on a fresh HOME: the version the agent answers, if it answers. */
async function askV2(command, env, home) {
  const line = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: 2,
      clientCapabilities: {},
      clientInfo: { name: 'acp-snapshot-probe', version: '0' },
    },
  });
  let answer;
  const r = await runBounded(command[0], command.slice(1), {
    cwd: home,
    env: cleanEnv(home, env),
    input: `${line}\n`,
    timeoutMs: DEADLINES.v2,
    onLine: (l, child) => {
      try {
        const m = JSON.parse(l);
        if (m.id === 1 && ('result' in m || 'error' in m)) {
          answer = m;
          child.stdin.end();
          process.kill(-child.pid, 'SIGKILL');
        }
      } catch {}
    },
  });
  if (!answer) return { answered: false, error: gist(r.stderr, 200) };
  if (answer.error) return { answered: false, error: gist(JSON.stringify(answer.error), 200) };
  return { answered: true, protocolVersion: answer.result?.protocolVersion };
}

const STARTER_SPEC = `import { expect, test } from '@acp-snapshot/playwright';

test('no model: initialize and a new session', async ({ acp }) => {
  await acp.initialize();
  const session = await acp.newSession();
  expect(session.sessionId).toBeTruthy();
  await acp.close();
  await expect(acp).toMatchAcpSnapshot();
});
`;

/** The no-model starter on the harness, in the scratch project: written once, then replayed against itself. */
async function starter(command, env, dir) {
  mkdirSync(join(dir, 'tests'), { recursive: true });
  writeFileSync(join(dir, 'tests/starter.spec.ts'), STARTER_SPEC);
  writeFileSync(
    join(dir, 'playwright.config.ts'),
    `import { defineAcpConfig } from '@acp-snapshot/playwright';\n\nexport default defineAcpConfig({\n  agents: { probe: ${JSON.stringify({ command, env })} },\n  coverage: false,\n  playwright: { timeout: 120_000, workers: 1, retries: 0 },\n});\n`,
  );
  const link = join(dir, 'node_modules/@acp-snapshot/playwright');
  mkdirSync(join(dir, 'node_modules/@acp-snapshot'), { recursive: true });
  if (!existsSync(link)) symlinkSync(HARNESS, link, 'dir');
  const home = mkdtempSync(join(dir, 'runner-home-'));
  for (const phase of /** @type {const} */ (['write', 'replay'])) {
    const report = join(dir, `starter-${phase}.json`);
    const r = await runBounded(
      process.execPath,
      [
        PLAYWRIGHT,
        'test',
        '-c',
        'playwright.config.ts',
        '--reporter=json',
        ...(phase === 'write' ? ['--update-snapshots=all'] : []),
      ],
      {
        cwd: dir,
        env: { ...cleanEnv(home), CI: '1', PLAYWRIGHT_JSON_OUTPUT_NAME: report },
        timeoutMs: DEADLINES.starter,
      },
    );
    if (r.code === 0) continue;
    const error = r.timedOut
      ? `the starter took over ${DEADLINES.starter / 1000} s`
      : starterError(report, r);
    // A write phase that failed only for writing first snapshots (harnesses that failed them even in an update
    // run): the replay judges.
    if (phase === 'write' && firstWriteOnly(error)) continue;
    return {
      ok: false,
      phase,
      error: error
        .split('\n')
        .filter((l) => !FIRST_WRITE.test(l))
        .join('\n'),
    };
  }
  return { ok: true };
}

const FIRST_WRITE = /no snapshot yet; written/;

/** Whether a starter's errors only say that its first snapshots were written. */
export function firstWriteOnly(error) {
  const lines = error.split('\n').filter((l) => l.trim());
  return lines.length > 0 && lines.every((l) => FIRST_WRITE.test(l) || /^Error:\s*$/.test(l));
}

/** The error messages of a Playwright JSON report, else the run's own output. */
function starterError(report, r) {
  if (existsSync(report)) {
    const found = [];
    const walk = (s) => {
      for (const spec of s.specs ?? [])
        for (const t of spec.tests ?? [])
          for (const res of t.results ?? []) if (res.error?.message) found.push(res.error.message);
      for (const sub of s.suites ?? []) walk(sub);
    };
    const json = JSON.parse(readFileSync(report, 'utf8'));
    for (const s of json.suites ?? []) walk(s);
    for (const e of json.errors ?? []) found.push(e.message);
    if (found.length) return found.join('\n').replace(/\u001b\[[0-9;]*m/g, '');
  }
  return r.stderr || r.stdout;
}

/**
 * Kills, by id, each process still running from the scratch directory: its executable or working directory there,
 * or a HOME under it (every HOME a probe gives out is). An agent's daemon leaves its process group.
 */
export function killLeftovers(dir) {
  const killed = [];
  for (const p of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    if (Number(p) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${p}/cmdline`, 'utf8');
      let cwd = '';
      try {
        cwd = readlinkSync(`/proc/${p}/cwd`);
      } catch {}
      let environ = '';
      try {
        environ = readFileSync(`/proc/${p}/environ`, 'utf8');
      } catch {}
      if (cmdline.includes(dir) || cwd.startsWith(dir) || environ.includes(`HOME=${dir}`)) {
        process.kill(Number(p), 'SIGKILL');
        killed.push(Number(p));
      }
    } catch {}
  }
  return killed;
}

/** The scratch directories of the probes under way: an interrupted run kills their processes and deletes them. */
const scratchDirs = new Set();

function onInterrupt(signal) {
  for (const dir of scratchDirs) {
    killLeftovers(dir);
    rmSync(dir, { recursive: true, force: true });
  }
  process.exit(signal === 'SIGINT' ? 130 : 143);
}

/** Probes one target in a scratch directory that is deleted afterwards. */
export async function probe(target, log = () => {}) {
  const started = Date.now();
  const dir = mkdtempSync(join(tmpdir(), 'acp-probe-'));
  scratchDirs.add(dir);
  /** @type {ProbeResult} */
  const result = {
    id: target.id,
    package: target.local ? target.id : target.package,
    install: { ok: false },
    scratch: dir,
  };
  try {
    log(`${target.id}: npm install ${target.spec}`);
    result.install = await install(target, dir);
    if (!result.install.ok) return result;
    result.package = target.local ? result.install.name : target.package;
    const command = startCommand(target, dir, result.install.name);
    const env = target.env ?? {};
    log(
      `${target.id}: ${result.install.version}, conformance (${command.slice(1).join(' ') || 'no arguments'})`,
    );
    result.checks = await conformance(command, env, dir);
    if (!result.checks.some((c) => c.id.startsWith('initialize.') && c.status === 'pass')) return result;
    log(`${target.id}: initialize asking for version 2`);
    result.v2 = await askV2(command, env, mkdtempSync(join(dir, 'home-v2-')));
    log(`${target.id}: the no-model starter`);
    result.starter = await starter(command, env, dir);
    return result;
  } catch (e) {
    result.install.error ??= e.message;
    if (result.install.ok) result.starter = { ok: false, error: e.message };
    return result;
  } finally {
    const killed = killLeftovers(dir);
    if (killed.length) log(`${target.id}: killed leftover processes ${killed.join(', ')}`);
    rmSync(dir, { recursive: true, force: true });
    scratchDirs.delete(dir);
    result.ms = Date.now() - started;
  }
}

/** `probe ...`: probes each target in turn, prints the table (and the results as JSON with `--json FILE`). */
export async function probeMain(argv) {
  // The table again from a run's results (`--json`), after the row logic changed: no agent runs.
  if (argv[0] === '--table') {
    if (!argv[1]) throw new Error(`--table needs the JSON file a run wrote with --json\n${USAGE}`);
    console.log(probeTable(JSON.parse(readFileSync(argv[1], 'utf8')).map(rowOf)));
    return 0;
  }
  const { targets, json } = parseTargets(argv);
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing; build the harness first: npm run build`);
  const t0 = Date.now();
  process.once('SIGINT', onInterrupt).once('SIGTERM', onInterrupt);
  const results = [];
  for (const target of targets) {
    const r = await probe(target, (m) => process.stderr.write(`probe ${m}\n`));
    process.stderr.write(`probe ${target.id}: done in ${Math.round(r.ms / 1000)} s\n`);
    results.push(r);
    if (json) writeFileSync(json, `${JSON.stringify(results, null, 2)}\n`);
  }
  console.log(probeTable(results.map(rowOf)));
  console.log(`\n${results.length} agents probed in ${Math.round((Date.now() - t0) / 1000)} s`);
  return 0;
}
