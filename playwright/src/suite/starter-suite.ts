/**
 * The starter tests every agent's project begins with, declared by one call in a spec file (as
 * `scenarioSuite()` declares a corpus): `starterSuite()` holds no model, a plain answer, a tool call with a
 * permission request, a multi-turn conversation and a cancelled turn; `driftTest()` replays the plain answer's
 * recording against a changed prompt and checks what the reviewer is told. What differs between agents is an
 * option: the updates to wait for, what the scripted model quotes, the permission titles, which tests apply.
 * Each test is located at the line that calls the suite, so reports, `--list` and editors open the spec, and
 * its snapshots are the spec's own (`__acp__/<spec>/<project>/<test title>/`).
 */
import { readFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestInfo } from '@playwright/test';
import type { Location } from '@playwright/test/reporter';
import type { AcpClient } from '../driver/acp-client.js';
import { type AcpFixtures, type AcpOptions, test as acpTest, testDirName } from '../fixtures.js';
import { expect } from '../matchers.js';
import { declareAt } from './test-location.js';

/** The starter tests, by title (the titles name their snapshot directories: they never change). */
export const STARTER_TESTS = [
  'no model: initialize and a new session',
  'a plain answer',
  'a tool call with a permission request',
  'a multi-turn conversation',
  'a cancelled turn',
] as const;
export type StarterTest = (typeof STARTER_TESTS)[number];

export interface StarterSuiteOptions {
  /**
   * The `loadSession` capability the agent declares in initialize (checked when given, on ACP v1: v2 has no
   * session/load, so a v2 run's no-model test is skipped when this is given, the v1 project shows it).
   */
  loadSession?: boolean;
  /** The session ids the agent makes (default: any non-empty id). */
  sessionId?: RegExp;
  /**
   * The model is scripted (a stand-in you record against) to quote the cwd (`I'm answering from <cwd>`), the
   * date the agent told it (`as of <date>.`, in this format), and the written file by its absolute path.
   * Without it (a real model) the plain answer must name Paris and the tool test reads the file it wrote.
   */
  scripted?: { date: RegExp };
  /**
   * Updates the agent sends at a time that varies after a turn, by `sessionUpdate` kind, with how many: each
   * prompting test waits for at least that many before it closes, so its snapshot never depends on whether
   * they came in time (e.g. `{ available_commands_update: 1 }`). A function gets the ACP version the agent
   * answered, for an agent that sends them differently on v1 and v2.
   */
  settle?: Readonly<Record<string, number>> | ((version: 1 | 2) => Readonly<Record<string, number>>);
  /**
   * What shows the model's stream under way before the cancel: update kinds awaited in turn (default
   * `['agent_message_chunk']`; a kind named twice waits for two of it, for a stream that stops after two
   * pieces), or a function for anything else.
   */
  cancelAfter?: readonly string[] | ((acp: AcpClient) => Promise<void>);
  /** The titles of the tool test's permission requests, by the test's cwd (default: one request, any title). */
  permissions?: (cwd: string) => string[];
  /** A directory the tool test's workspace starts with (`workspaceSeed`): for an agent that asks only before it overwrites. */
  toolSeed?: string;
  /** Starter tests that do not apply to this agent, by title. */
  skip?: readonly StarterTest[];
}

const test = acpTest;
/** The body of a suite test: the package's fixtures it uses. */
type Body = (fixtures: AcpOptions & AcpFixtures, testInfo: TestInfo) => Promise<void>;

/** Where the spec called the suite: the first frame outside this module (the package's own file). */
function callSite(): Location | undefined {
  const own = fileURLToPath(import.meta.url);
  const stack = new Error().stack ?? '';
  for (const line of stack.split('\n').slice(1)) {
    const m = /\(?((?:file:\/\/)?\/[^()]*):(\d+):(\d+)\)?$/.exec(line);
    if (!m) continue;
    const file = m[1]!.startsWith('file://') ? fileURLToPath(m[1]!) : m[1]!;
    if (file !== own) return { file, line: Number(m[2]), column: Number(m[3]) };
  }
  return undefined;
}

/** Declares a test (or describe) located at `at` (Playwright takes a test's location from its caller's frame). */
function declare<B>(at: Location | undefined, fn: (title: string, body: B) => void, title: string, body: B) {
  if (at) declareAt(at.file, fn, title, body, at);
  else fn(title, body);
}

/**
 * Waits for the updates the options say come late, before a prompting test closes: as many as the option
 * gives for the ACP version initialize settled on (v1 when none was negotiated).
 */
export async function settled(
  acp: Pick<AcpClient, 'stdout' | 'negotiation'>,
  option: StarterSuiteOptions['settle'],
): Promise<void> {
  const settle = typeof option === 'function' ? option(acp.negotiation?.version ?? 1) : option;
  const kinds = Object.entries(settle ?? {});
  if (kinds.length === 0) return;
  const count = (kind: string) =>
    acp.stdout.filter((l) => l.text.includes(`"sessionUpdate":"${kind}"`)).length;
  await expect
    .poll(() => kinds.every(([kind, n]) => count(kind) >= n), {
      message: `the updates the starter suite waits for (settle: ${JSON.stringify(settle)})`,
      timeout: 30_000,
    })
    .toBe(true);
}

/** Declares the starter tests in the calling spec file. Call it once, at the top level of the spec. */
export function starterSuite(opts: StarterSuiteOptions = {}): void {
  const at = callSite();
  const skip = new Set(opts.skip ?? []);
  const add = (title: StarterTest, body: Body) => {
    if (!skip.has(title)) declare<Body>(at, test, title, body);
  };
  const settle = (acp: AcpClient) => settled(acp, opts.settle);

  add('no model: initialize and a new session', async ({ acp, protocolVersion }) => {
    test.skip(
      protocolVersion === 2 && opts.loadSession !== undefined,
      'ACP v2 has no session/load: the loadSession capability is checked on ACP v1',
    );
    const init = await acp.initialize();
    if (opts.loadSession !== undefined)
      expect(init.agentCapabilities?.loadSession ?? false).toBe(opts.loadSession);
    const session = await acp.newSession();
    if (opts.sessionId) expect(session.sessionId).toMatch(opts.sessionId);
    else expect(session.sessionId).toBeTruthy();
    await acp.close();
    await expect(acp).toMatchAcpSnapshot();
  });

  add('a plain answer', async ({ acp, roots }) => {
    await acp.initialize();
    await acp.newSession();
    const turn = await acp.prompt('What is the capital of France? One sentence.');
    expect(turn.stopReason).toBe('end_turn');
    expect(turn.text).toContain('Paris');
    if (opts.scripted) {
      // The model quoted the cwd: this run's, whatever the recording's was.
      expect(turn.text).toContain(`I'm answering from ${roots.cwd}`);
      // ...and the date the agent gave it (the recording's date, on any day it replays).
      expect(turn.text).toMatch(opts.scripted.date);
    }
    await settle(acp);
    await acp.close();
    await expect(acp).toMatchAcpSnapshot();
  });

  if (!skip.has('a tool call with a permission request')) {
    const tool: Body = async ({ acp, roots }) => {
      await acp.initialize();
      await acp.newSession();
      const asked: string[] = [];
      acp.answerPermissions((request) => {
        asked.push(request.toolCall.title ?? '');
        const allow = request.options.find((o) => o.kind === 'allow_once');
        return allow ? { outcome: 'selected', optionId: allow.optionId } : { outcome: 'cancelled' };
      });
      const turn = await acp.prompt('Create notes.txt with my shopping list: milk and eggs.');
      expect(turn.stopReason).toBe('end_turn');
      // The agent asked before it wrote.
      if (opts.permissions) expect(asked).toEqual(opts.permissions(roots.cwd));
      else if (opts.scripted) expect(asked).toHaveLength(1);
      else expect(asked.length).toBeGreaterThan(0);
      // The model named the file by its absolute path in this run's cwd.
      if (opts.scripted) expect(turn.text).toContain(`${roots.cwd}/notes.txt`);
      // ...and wrote the list in the test's cwd.
      expect(readFileSync(join(roots.cwd, 'notes.txt'), 'utf8')).toContain('milk');
      await settle(acp);
      await acp.close();
      // The file the tool wrote is in the workspace snapshot.
      await expect(acp).toMatchAcpSnapshot();
    };
    const seed = opts.toolSeed;
    if (seed === undefined) add('a tool call with a permission request', tool);
    else
      declare<() => void>(at, test.describe, '', () => {
        test.use({ workspaceSeed: seed });
        declare<Body>(at, test, 'a tool call with a permission request', tool);
      });
  }

  add('a multi-turn conversation', async ({ acp }) => {
    await acp.initialize();
    await acp.newSession();
    expect((await acp.prompt('Remember the word tangerine.')).stopReason).toBe('end_turn');
    const second = await acp.prompt('Which word did I ask you to remember?');
    expect(second.text).toContain('tangerine');
    await settle(acp);
    await acp.close();
    await expect(acp).toMatchAcpSnapshot();
  });

  add('a cancelled turn', async ({ acp }) => {
    await acp.initialize();
    await acp.newSession();
    const turn = acp.promptInFlight('Count slowly from one to ten.');
    // The model's stream is under way (and stays open) when the cancel goes out.
    const under = opts.cancelAfter ?? ['agent_message_chunk'];
    if (typeof under === 'function') await under(acp);
    else
      for (const [i, kind] of under.entries())
        await acp.waitForUpdate(kind as 'agent_message_chunk', {
          count: under.slice(0, i + 1).filter((k) => k === kind).length,
        });
    await acp.cancel();
    expect((await turn).stopReason).toBe('cancelled');
    await settle(acp);
    await acp.close();
    await expect(acp).toMatchAcpSnapshot();
  });
}

export interface DriftTestOptions {
  /** The spec file (relative to the test directory) whose starter suite recorded `a plain answer`. */
  recordedIn: string;
  /**
   * Where the prompt's text sits in the agent's request body, as the verdict's JSON path (by wire format:
   * `/body\.messages\[\d+\]\.content\[\d+\]\.text/` for Anthropic Messages...). Default: any path in the body.
   */
  promptAt?: RegExp;
}

const DRIFT = 'a changed prompt is refused, naming the part of the request that changed';

/**
 * Declares the drift test in the calling spec file (give it a file of its own: it sets the file's model to
 * the plain answer's recording): the prompt changed from France to Spain, the replay refuses the call, and
 * the verdict names the JSON path that changed, both texts, the unused recorded call and the re-record command.
 */
export function driftTest(opts: DriftTestOptions): void {
  const at = callSite();
  test.use({
    // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's dependencies from this pattern.
    model: async ({}, use, testInfo) => {
      // This spec's path for the recording, moved to the spec that recorded it: .../<project>/<test>/exchanges.jsonl.
      const own = testInfo.snapshotPath(testDirName('a plain answer'), 'exchanges.jsonl').split(sep);
      await use({
        kind: 'http',
        exchanges: join(testInfo.project.testDir, '__acp__', opts.recordedIn, ...own.slice(-3)),
      });
    },
  });
  declare<Body>(at, test, DRIFT, async ({ acp, httpModel }, testInfo) => {
    await acp.initialize();
    await acp.newSession();
    // The recording asked about France; the agent fails the turn on the replay's refusal, or reports it as text.
    await acp.prompt('What is the capital of Spain? One sentence.').catch(() => undefined);
    await acp.close();
    const verdict = await httpModel!.verdict();
    expect(verdict.ok).toBe(false);
    // The change as data (what the run's failures-by-cause keys by): where in the request, and both texts there.
    const drift = verdict.drift;
    expect(drift?.path).toMatch(opts.promptAt ?? /^body\./);
    expect(drift?.recorded).toContain('France');
    expect(drift?.live).toContain('Spain');
    // The message the test shows names the same place.
    expect(verdict.message).toContain(`first differing at ${drift?.path} `);
    // The recorded call went unused, and the message says how to accept the change.
    expect(verdict.message).toContain('was recorded but never requested');
    expect(verdict.message).toContain(
      `re-record: npx playwright test --project=${testInfo.project.name}:record`,
    );
  });
}
