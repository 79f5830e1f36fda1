import { readFile } from 'node:fs/promises';
import {
  CLIP_LENGTH,
  clipText,
  handWrittenFileText,
  placeholderPattern,
  readmeSection,
  Utf8Error,
} from '@acp-snapshot/core';
import { z } from 'zod';
import { expandRootPlaceholders, placeholderIssues } from './placeholders.js';
import { PromptBlock } from './prompt-content.js';

/** How the harness answers the Nth `session/request_permission` of a scenario. */
export const PermissionAnswer = z.enum(['allow', 'reject', 'cancel']);
export type PermissionAnswer = z.infer<typeof PermissionAnswer>;

/**
 * A point during a prompt turn: when the harness sends `session/cancel` (`cancel`) or SIGKILLs the
 * agent's process group (`kill`). See playwright/src/driver/points.ts and docs/scenarios.md, "Adding a scenario" for which are
 * deterministic in replay.
 */
export const TurnPoint = z.union([
  z.strictObject({ after: z.literal('first_message_chunk') }),
  z.strictObject({ afterUpdates: z.number().int().positive() }),
  z.strictObject({ after: z.literal('permission_request') }),
  /** Right after the prompt request is written, before any session/update. */
  z.strictObject({ before: z.literal('first_update') }),
  /** Once no session/update has arrived for N ms, after at least one. */
  z.strictObject({ afterSilenceMs: z.number().int().positive().max(60_000) }),
]);
export type TurnPoint = z.infer<typeof TurnPoint>;
/** When the harness sends `session/cancel` during a prompt. */
export const CancelPoint = TurnPoint;
export type CancelPoint = TurnPoint;

/** The ACP stop reasons a prompt may be expected to end with. */
export const StopReason = z.enum(['end_turn', 'max_tokens', 'max_turn_requests', 'refusal', 'cancelled']);

/**
 * Which session a step addresses: the Nth `new_session` of the scenario, counted from 1. Left out: 1,
 * the scenario's first session.
 */
const SessionRef = z.number().int().positive().optional();
/** A request step may instead expect a JSON-RPC error whose message contains this text. */
const ExpectError = z.string().min(1).optional();

/** One step of a scenario's script, run in order against the agent. */
export const Step = z.discriminatedUnion('op', [
  z.strictObject({ op: z.literal('initialize'), protocolVersion: z.number().int().positive().default(1) }),
  /**
   * Creates the scenario's next session (the first is session 1), in the scenario's cwd or in `cwd`: a root
   * placeholder path such as "{{workspaceParent}}", or an absolute path (a directory that exists). Later
   * load and resume steps of that session send its cwd.
   */
  z.strictObject({ op: z.literal('new_session'), cwd: z.string().min(1).optional() }),
  /** Loads a session created earlier by new_session (in a previous process): history replayed first. */
  z.strictObject({ op: z.literal('load_session'), session: SessionRef }),
  /** Continues a session created earlier (`session/resume`): no history is replayed. */
  z.strictObject({ op: z.literal('resume_session'), session: SessionRef, expectError: ExpectError }),
  z.strictObject({
    op: z.literal('prompt'),
    session: SessionRef,
    /** The prompt as one text block; or give `content` (exactly one of the two). */
    text: z.string().min(1).optional(),
    /** The prompt's ACP content blocks (text, resource_link, resource, image, audio). */
    content: z.array(PromptBlock).min(1).optional(),
    expectStopReason: StopReason.default('end_turn'),
    /** The prompt must fail with a JSON-RPC error whose message contains this text (then no stop reason). */
    expectError: z.string().min(1).optional(),
    cancel: CancelPoint.optional(),
    /** SIGKILL the agent's process group at this point: the prompt gets no response; `restart` must follow. */
    kill: TurnPoint.optional(),
  }),
  /**
   * `session/list`, following `nextCursor` until the last page (each page is a request on the wire).
   * `cwd` filters by working directory: a root placeholder such as "{{cwd}}", or an absolute path.
   */
  z.strictObject({
    op: z.literal('list_sessions'),
    cwd: z.string().min(1).optional(),
    expectError: ExpectError,
  }),
  /** `session/close`: the agent cancels the session's work and frees it. */
  z.strictObject({ op: z.literal('close_session'), session: SessionRef, expectError: ExpectError }),
  /** `session/delete`: the session disappears from `session/list` (and its log from the persistence root). */
  z.strictObject({ op: z.literal('delete_session'), session: SessionRef, expectError: ExpectError }),
  /** `session/set_mode` to one of the modes the agent offered. */
  z.strictObject({
    op: z.literal('set_mode'),
    session: SessionRef,
    modeId: z.string().min(1),
    expectError: ExpectError,
  }),
  /** `session/set_config_option` of a select option to one of its values. */
  z.strictObject({
    op: z.literal('set_config_option'),
    session: SessionRef,
    configId: z.string().min(1),
    value: z.string().min(1),
    expectError: ExpectError,
  }),
  /** Closes stdin, awaits the agent's graceful exit, and starts a fresh agent process. */
  z.strictObject({ op: z.literal('restart') }),
]);
export type Step = z.infer<typeof Step>;

/**
 * ACP client capabilities the harness advertises (and honours: fs/* and terminal/* are answered only when
 * offered; a terminal runs its command for real, see driver/client-terminals.ts).
 */
export const ClientCapabilities = z.strictObject({
  fs: z.strictObject({ readTextFile: z.boolean(), writeTextFile: z.boolean() }).default({
    readTextFile: false,
    writeTextFile: false,
  }),
  terminal: z.boolean().default(false),
});
export type ClientCapabilities = z.infer<typeof ClientCapabilities>;

/** A scenario's `input.json`: the script the harness drives and how it answers the agent. */
export const Scenario = z
  .strictObject({
    description: z
      .string()
      .min(1)
      .refine((s) => !s.includes('\n'), 'must be one line'),
    /**
     * The agent this scenario runs: a name from `use.agents` in playwright.config.ts. Left out, the
     * project's own agent command runs (our reference agent).
     */
    agent: z
      .string()
      .regex(/^[a-z0-9][a-z0-9._-]*$/, 'must be an agent name like "sdk-example" (lower case, digits, . _ -)')
      .optional(),
    clientCapabilities: ClientCapabilities.default({
      fs: { readTextFile: false, writeTextFile: false },
      terminal: false,
    }),
    steps: z.array(Step).min(1),
    /**
     * Configuration the harness hands the agent for this scenario: written to a file whose path is
     * `ACP_SNAPSHOT_AGENT_CONFIG` (our agent merges it last, over the mode's overlay).
     */
    agentConfig: z.record(z.string(), z.unknown()).optional(),
    /** Answers to permission requests, in the order the agent asks them. */
    permissions: z.array(PermissionAnswer).default([]),
    flags: z
      .strictObject({
        /** The scenario ships a hand-written `replay.override.json` that replaces the derived replay. */
        overridden: z.boolean().default(false),
        /** The workspace seed lands in a parent directory and the session cwd is this relative path inside it. */
        workspaceParent: z
          .string()
          .regex(/^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/, 'must be a relative path like "packages/app"')
          .refine((p) => !p.split('/').includes('..'), 'must not contain ".."')
          .optional(),
      })
      .default({ overridden: false }),
    /** Whole-scenario budget; the agent's process group is killed when it runs out. */
    timeoutMs: z.number().int().positive().max(600_000).default(30_000),
  })
  .superRefine((s, ctx) => {
    for (const issue of sessionIssues(s.steps)) ctx.addIssue({ code: 'custom', ...issue });
    const workspaceParent = s.flags.workspaceParent !== undefined;
    s.steps.forEach((st, i) => {
      if (st.op === 'prompt')
        for (const issue of promptIssues(s, i)) ctx.addIssue({ code: 'custom', ...issue });
      if ((st.op === 'list_sessions' || st.op === 'new_session') && st.cwd !== undefined)
        for (const issue of cwdIssues(st.cwd, ['steps', i, 'cwd'], workspaceParent))
          ctx.addIssue({ code: 'custom', ...issue });
    });
    if (s.agentConfig) {
      for (const issue of placeholderIssues(s.agentConfig, ['agentConfig'], { workspaceParent }))
        ctx.addIssue({ code: 'custom', ...issue });
    }
  });

type Issue = { path: (string | number)[]; message: string };

/** The steps that address one session (by `session`, default 1). */
const SESSION_OPS: ReadonlySet<Step['op']> = new Set([
  'load_session',
  'resume_session',
  'prompt',
  'close_session',
  'delete_session',
  'set_mode',
  'set_config_option',
]);

/**
 * The session rules of a script: a step addresses a session an earlier `new_session` created, a load
 * happens in a fresh process, and exactly one session is left at the end (a scenario records one log).
 */
function sessionIssues(steps: readonly Step[]): Issue[] {
  const issues: Issue[] = [];
  let created = 0;
  /** Session numbers with a restart since their creation. */
  const restarted = new Set<number>();
  const deleted = new Set<number>();
  steps.forEach((st, i) => {
    if (st.op === 'new_session') created++;
    if (st.op === 'restart') for (let n = 1; n <= created; n++) restarted.add(n);
    if (!SESSION_OPS.has(st.op)) return;
    const n = (st as { session?: number }).session ?? 1;
    if (n > created) {
      const which = n === 1 ? '' : ` (session ${n} is the one the ${ordinal(n)} new_session creates)`;
      issues.push({ path: ['steps', i], message: `${st.op} needs an earlier new_session${which}` });
    } else if (st.op === 'load_session' && !restarted.has(n)) {
      issues.push({
        path: ['steps', i],
        message: 'load_session must follow a restart (a session is loaded in a fresh agent process)',
      });
    }
    if (st.op === 'delete_session') deleted.add(n);
  });
  const left = created - deleted.size;
  if (created > 0 && left !== 1) {
    issues.push({
      path: ['steps'],
      message:
        left > 1
          ? `has ${created} new_session steps; a scenario records exactly one session log: delete_session every session but one before the end`
          : 'deletes every session it creates; a scenario records exactly one session log: keep one',
    });
  }
  return issues;
}

/** A root placeholder at the start of a path. */
const ROOT_PREFIX = new RegExp(`^${placeholderPattern().source}`);

/** A `list_sessions` or `new_session` cwd is a root placeholder path or an absolute path (ACP requires an absolute cwd). */
function cwdIssues(cwd: string, path: (string | number)[], workspaceParent: boolean): Issue[] {
  const issues: Issue[] = placeholderIssues(cwd, path, { workspaceParent });
  if (!cwd.startsWith('/') && !ROOT_PREFIX.test(cwd)) {
    issues.push({
      path,
      message: 'must be an absolute path or start with a root placeholder such as "{{cwd}}"',
    });
  }
  return issues;
}

function ordinal(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
}

/** The rules of prompt step `i` that a field's schema cannot say alone. */
function promptIssues(
  s: { steps: Step[]; flags: { workspaceParent?: string | undefined } },
  i: number,
): { path: (string | number)[]; message: string }[] {
  const st = s.steps[i] as Extract<Step, { op: 'prompt' }>;
  const issues: { path: (string | number)[]; message: string }[] = [];
  const at = (...rest: (string | number)[]) => ['steps', i, ...rest];
  if ((st.text === undefined) === (st.content === undefined)) {
    issues.push({
      path: at(),
      message: 'give exactly one of "text" (a string) or "content" (an array of ACP content blocks)',
    });
  }
  if (st.cancel && st.expectStopReason !== 'cancelled') {
    issues.push({
      path: at('expectStopReason'),
      message: 'a prompt with a cancel point must expect "cancelled"',
    });
  }
  if (st.kill) {
    if (st.cancel)
      issues.push({ path: at('kill'), message: 'a prompt has a cancel point or a kill point, not both' });
    if (st.expectError !== undefined || st.expectStopReason !== 'end_turn') {
      issues.push({
        path: at(st.expectError !== undefined ? 'expectError' : 'expectStopReason'),
        message: 'a killed prompt gets no response, so it expects nothing: drop it',
      });
    }
    const next = s.steps[i + 1];
    if (next?.op !== 'restart') {
      issues.push({
        path: next ? ['steps', i + 1] : at('kill'),
        message:
          'a prompt with a kill point must be followed by a "restart" step (the killed process is gone)',
      });
    } else {
      const later = s.steps.slice(i + 2);
      const load = later.findIndex((x) => x.op === 'load_session' || x.op === 'resume_session');
      const prompt = later.findIndex((x) => x.op === 'prompt');
      if (load === -1 || (prompt !== -1 && prompt < load)) {
        issues.push({
          path: ['steps', i + 1],
          message:
            'the restart after a killed prompt must be followed by "load_session" (or "resume_session") before any other prompt',
        });
      }
    }
  }
  const workspaceParent = s.flags.workspaceParent !== undefined;
  for (const field of ['text', 'content'] as const) {
    if (st[field] !== undefined) issues.push(...placeholderIssues(st[field], at(field), { workspaceParent }));
  }
  return issues;
}
export type Scenario = z.infer<typeof Scenario>;
/** What a scenario author writes (defaults not yet applied). */
export type ScenarioInput = z.input<typeof Scenario>;

/** A scenario file that does not parse or validate; the message names the file and the field. */
export class ScenarioError extends Error {
  override name = 'ScenarioError';
}

function fieldPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(root)';
  return path
    .map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i === 0 ? '' : '.'}${String(p)}`))
    .join('');
}

/** How many schema issues a ScenarioError lists. */
const MAX_ISSUES = 10;

/** Validates parsed `input.json` content; `file` is named in every error. */
export function parseScenario(value: unknown, file: string): Scenario {
  const result = Scenario.safeParse(value);
  if (result.success) return result.data;
  // Bounded: a hostile file (10^5 bad steps, a megabyte-long unknown key) must not make a megabyte message.
  const all = result.error.issues;
  const issues = all
    .slice(0, MAX_ISSUES)
    .map((i) => `  ${clipText(fieldPath(i.path))}: ${clipText(i.message, 2 * CLIP_LENGTH)}`);
  if (all.length > MAX_ISSUES) issues.push(`  ... and ${all.length - MAX_ISSUES} more`);
  throw new ScenarioError(
    `${file}: invalid scenario\n${issues.join('\n')}\nFix the field(s) above (see ${readmeSection("A scenario's input.json")}).`,
  );
}

/** Reads and validates a scenario's `input.json`. */
export async function loadScenario(file: string): Promise<Scenario> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (e) {
    throw new ScenarioError(`${file}: cannot read (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(handWrittenFileText(bytes, file));
  } catch (e) {
    if (e instanceof Utf8Error) throw new ScenarioError(e.message);
    throw new ScenarioError(`${file}: not valid JSON (${(e as Error).message})`);
  }
  return parseScenario(value, file);
}

/**
 * The command line of the agent a scenario names in its `"agent"` field. An unknown name is a
 * {@link ScenarioError} naming the file and the known names.
 */
export function namedAgentCommand(
  name: string,
  file: string,
  agents: Readonly<Record<string, readonly string[]>>,
): readonly string[] {
  const command = Object.hasOwn(agents, name) ? agents[name] : undefined;
  if (!command || command.length === 0) {
    const known = Object.keys(agents).sort();
    throw new ScenarioError(
      `${file}: agent: unknown agent ${JSON.stringify(name)} (known: ${known.join(', ') || 'none'}). ` +
        'Use one of these names, leave "agent" out to run the default agent, or add the agent\'s command line to `use.agents` in playwright.config.ts.',
    );
  }
  return command;
}

/** The scenario with its prompts' text and content, list and new-session cwds and agentConfig expanded for this run's roots. */
export function expandScenarioRoots(
  scenario: Scenario,
  map: Readonly<Record<string, string | undefined>>,
): Scenario {
  const steps = scenario.steps.map((s) => {
    if ((s.op === 'list_sessions' || s.op === 'new_session') && s.cwd !== undefined)
      return { ...s, cwd: expandRootPlaceholders(s.cwd, map) };
    if (s.op !== 'prompt') return s;
    return {
      ...s,
      ...(s.text !== undefined ? { text: expandRootPlaceholders(s.text, map) } : {}),
      ...(s.content !== undefined ? { content: expandRootPlaceholders(s.content, map) } : {}),
    };
  });
  return {
    ...scenario,
    steps,
    ...(scenario.agentConfig ? { agentConfig: expandRootPlaceholders(scenario.agentConfig, map) } : {}),
  };
}
