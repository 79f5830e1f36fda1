// Drives the built agent (agent/dist/main.js) as a real child process over stdio with the SDK client,
// with the scripted fake LLM plugin. Used by the agent's process-level specs.

import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { StreamChunk } from '@acp-snapshot/core';
import { readLogFile, type SessionEvent } from '@acp-snapshot/session-log';
import {
  type ClientConnection,
  client,
  type FileSystemCapabilities,
  type InitializeResponse,
  ndJsonStream,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
} from '@agentclientprotocol/sdk';
import type { TestInfo } from '@playwright/test';

const here = dirname(fileURLToPath(import.meta.url));
/** The repository root. */
export const repoRoot = join(here, '..', '..');
/** The agent bundle under test (ACP_AGENT_MAIN overrides it, e.g. to test another build). */
export const agentMain = process.env.ACP_AGENT_MAIN ?? join(repoRoot, 'agent', 'dist', 'main.js');
const fakePlugin = join(here, 'fixtures', 'scripted-plugin.mjs');

/** One scripted model call (see fixtures/scripted-plugin.mjs). */
export type ScriptedCall = {
  chunks: StreamChunk[];
  hang?: boolean;
  throw?: { message: string; code: string; status?: number };
  purpose?: 'turn' | 'compaction';
};

/** Per-test directories: cwd, persistence root, spill root, home, and the script files. */
export interface AgentDirs {
  root: string;
  cwd: string;
  persist: string;
  spill: string;
  home: string;
}

const created: string[] = [];

/**
 * Creates fresh, isolated directories for one test under the OS temp dir (not test-results/, which a
 * concurrent Playwright run on the same checkout may wipe). Register `removeDirs` as an afterEach hook.
 */
export function makeDirs(): AgentDirs {
  const root = mkdtempSync(join(tmpdir(), 'acp-agent-test-'));
  created.push(root);
  const dirs = {
    root,
    cwd: join(root, 'work'),
    persist: join(root, 'persist'),
    spill: join(root, 'spill'),
    home: join(root, 'home'),
  };
  for (const d of [dirs.cwd, dirs.persist, dirs.spill, dirs.home]) mkdirSync(d, { recursive: true });
  return dirs;
}

/** afterEach hook: removes the test's directories when it passed; keeps (and names) them when it failed. */
export function removeDirs(testInfo: TestInfo): void {
  const dirs = created.splice(0);
  if (testInfo.status !== testInfo.expectedStatus) {
    for (const d of dirs) testInfo.annotations.push({ type: 'agent dirs kept', description: d });
    return;
  }
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}

/** Text chunks, then a finish. */
export function textCall(
  text: string[],
  reason: 'stop' | 'length' | 'content_filter' = 'stop',
): ScriptedCall {
  return {
    chunks: [
      ...text.map((t) => ({ type: 'text' as const, text: t })),
      { type: 'finish', reason, usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15 } },
    ],
  };
}

/** Tool calls (one chunk each for start and arguments), then finish tool_calls. */
export function toolCall(
  calls: { id: string; name: string; args: string }[],
  reasoning?: string,
): ScriptedCall {
  return {
    chunks: [
      ...(reasoning ? [{ type: 'reasoning' as const, text: reasoning }] : []),
      ...calls.flatMap((c, index) => [
        { type: 'tool_call_start' as const, index, id: c.id, name: c.name },
        { type: 'tool_call_args' as const, index, delta: c.args },
      ]),
      { type: 'finish', reason: 'tool_calls' },
    ],
  };
}

/** A running agent process with an SDK client connected to it. */
export class AgentProcess {
  readonly updates: SessionNotification[] = [];
  readonly permissionRequests: RequestPermissionRequest[] = [];
  /** Every stdout line exactly as written. */
  readonly stdoutLines: string[] = [];
  stderr = '';
  readonly exited: Promise<number | null>;
  private waiters: (() => void)[] = [];
  private stdoutRest = '';

  private constructor(
    readonly child: ChildProcess,
    readonly connection: ClientConnection,
    readonly requestLog: string,
  ) {
    this.exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  }

  /**
   * Spawns the agent with an overlay (written to a file) and connects the SDK client. `answer` decides
   * permission requests (default: allow).
   */
  static start(
    dirs: AgentDirs,
    opts: {
      calls: ScriptedCall[];
      overlay?: Record<string, unknown>;
      answer?: (
        req: RequestPermissionRequest,
      ) => RequestPermissionResponse['outcome'] | Promise<RequestPermissionResponse['outcome']>;
      name?: string;
      /** Use these overlay files instead of the scripted-plugin overlay (e.g. agent/overlays/record.json). */
      overlayPaths?: string[];
      /** Extra environment for the agent process. */
      env?: Record<string, string>;
      /** Client-side fs/* handlers (offer them with initialize's fs capabilities). */
      fs?: { read(path: string): string; write(path: string, content: string): void };
    },
  ): AgentProcess {
    const name = opts.name ?? 'run';
    const script = join(dirs.root, `${name}.script.json`);
    const requestLog = join(dirs.root, `${name}.requests.jsonl`);
    writeFileSync(script, JSON.stringify({ calls: opts.calls }));
    writeFileSync(requestLog, '');
    const overlay = {
      llm: { plugin: 'scripted', module: fakePlugin, options: { script, requestLog } },
      clock: { kind: 'fixed-step', start: '2025-01-01T00:00:00Z', stepMs: 1000 },
      ids: { kind: 'counter' },
      persistRoot: dirs.persist,
      spillRoot: dirs.spill,
      persistenceCompression: 'none',
      ...opts.overlay,
    };
    let overlayPaths = opts.overlayPaths;
    if (!overlayPaths) {
      overlayPaths = [join(dirs.root, `${name}.overlay.json`)];
      writeFileSync(overlayPaths[0]!, JSON.stringify(overlay));
    }
    const args = overlayPaths.flatMap((p) => ['--overlay', p]);
    const child = spawn(process.execPath, [agentMain, ...args], {
      cwd: repoRoot,
      env: { PATH: process.env.PATH, HOME: dirs.home, LANG: 'C.UTF-8', TZ: 'UTC', ...opts.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const answer = opts.answer ?? (() => ({ outcome: 'selected', optionId: 'allow_once' }));
    // Holder so the handlers below can reach the instance created after connect().
    const self: { p?: AgentProcess } = {};
    const app = client({ name: 'agent-spec' })
      .onNotification('session/update', ({ params }) => {
        self.p!.updates.push(params);
        self.p!.wake();
      })
      .onRequest('session/request_permission', async ({ params }) => {
        self.p!.permissionRequests.push(params);
        self.p!.wake();
        return { outcome: await answer(params) };
      })
      .onRequest('fs/read_text_file', ({ params }) => {
        if (!opts.fs) throw new Error('this test client offers no fs');
        return { content: opts.fs.read(params.path) };
      })
      .onRequest('fs/write_text_file', ({ params }) => {
        if (!opts.fs) throw new Error('this test client offers no fs');
        opts.fs.write(params.path, params.content);
        return {};
      });
    child.stdout!.on('data', (d: Buffer) => self.p?.collectStdout(d.toString('utf8')));
    const connection = app.connect(
      ndJsonStream(
        Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>,
        Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>,
      ),
    );
    const p = new AgentProcess(child, connection, requestLog);
    self.p = p;
    child.stderr!.on('data', (d: Buffer) => {
      p.stderr += d.toString('utf8');
    });
    return p;
  }

  private collectStdout(text: string): void {
    const parts = (this.stdoutRest + text).split('\n');
    this.stdoutRest = parts.pop() ?? '';
    this.stdoutLines.push(...parts);
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  /** The client context for calling agent methods. */
  get agent() {
    return this.connection.agent;
  }

  /** Resolves once `predicate` holds over the updates received so far (re-checked on every update). */
  async waitFor(predicate: () => boolean): Promise<void> {
    while (!predicate()) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  /** Initializes, opens a session in `cwd` and sends one text prompt; resolves to the session id and stop reason. */
  async firstPrompt(cwd: string, text: string): Promise<{ sessionId: string; stopReason: string }> {
    await this.initialize();
    const { sessionId } = await this.agent.request('session/new', { cwd, mcpServers: [] });
    const res = await this.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] });
    return { sessionId, stopReason: res.stopReason };
  }

  /** Sends initialize (with the given fs capabilities) and returns the response. */
  initialize(
    fs: FileSystemCapabilities = { readTextFile: false, writeTextFile: false },
  ): Promise<InitializeResponse> {
    return this.agent.request('initialize', { protocolVersion: 1, clientCapabilities: { fs } });
  }

  /** The model requests the fake plugin received. */
  requests(): {
    index: number;
    turn: number;
    step: number;
    request: import('@acp-snapshot/core').LlmRequest;
  }[] {
    return readFileSync(this.requestLog, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
  }

  /** Closes stdin (graceful shutdown) and waits for the exit code. */
  async close(): Promise<number | null> {
    this.child.stdin!.end();
    return this.exited;
  }
}

/** The session/update kinds received for a session, in order. */
export function updateKinds(updates: SessionNotification[]): string[] {
  return updates.map((u) => u.update.sessionUpdate);
}

/** The events of a persisted session log (header first), decoded by the session-log reader. */
export async function readEvents(persistRoot: string, sessionId: string): Promise<SessionEvent[]> {
  const { header, records, warnings } = await readLogFile(join(persistRoot, `${sessionId}.jsonl`));
  if (warnings.length) throw new Error(`log warnings: ${warnings.join('; ')}`);
  const body = records.map((r) => r.event).filter((e) => e.type !== 'session/header');
  return [header, ...body];
}
