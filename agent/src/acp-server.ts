import { isAbsolute } from 'node:path';
import { LOG_FORMAT, LOG_FORMAT_VERSION, type LogRecord } from '@acp-snapshot/session-log';
import {
  type AgentApp,
  type AgentContext,
  agent,
  type ClientCapabilities,
  PROTOCOL_VERSION,
  RequestError,
  type SessionConfigOption,
  type SessionModeState,
} from '@agentclientprotocol/sdk';
import { createTerminalAccess } from './client-terminal.js';
import { Conversation } from './conversation.js';
import { createFileAccess } from './file-access.js';
import { historyUpdates } from './history-replay.js';
import { uncommittedAnswer } from './interrupted-turn.js';
import { type AgentServices, requestShapingConfig } from './services.js';
import { AgentSession } from './session.js';
import { listSessions } from './session-list.js';
import { SessionSettings } from './session-settings.js';
import { buildSystemPrompt } from './system-prompt.js';
import { ToolRunner } from './tool-runner.js';
import type { SessionClient } from './turn-context.js';

/** The ACP side of the agent: method handlers over a set of sessions. */
export class AcpAgent {
  private readonly sessions = new Map<string, AgentSession>();
  private clientCapabilities: ClientCapabilities | undefined;

  constructor(private readonly services: AgentServices) {}

  /** The SDK app with every supported method registered; unknown methods get the SDK's method-not-found. */
  app(): AgentApp {
    const { agentInfo } = this.services;
    return (
      agent({ name: agentInfo.name })
        .onRequest('initialize', ({ params }) => {
          this.clientCapabilities = params.clientCapabilities;
          return {
            protocolVersion: Math.min(params.protocolVersion, PROTOCOL_VERSION),
            agentCapabilities: {
              loadSession: true,
              promptCapabilities: { image: false, audio: false, embeddedContext: true },
              sessionCapabilities: { list: {}, resume: {}, close: {}, delete: {} },
            },
            agentInfo,
            authMethods: [],
          };
        })
        .onRequest('session/new', async ({ params, client }) => {
          const cwd = requireAbsoluteCwd(params.cwd);
          this.ignoreMcpServers(params.mcpServers.length);
          const session = await this.newSession(cwd, (id) => this.sessionClient(client, id));
          return { sessionId: session.id, ...settingsOf(session) };
        })
        .onRequest('session/load', async ({ params, client }) => {
          const cwd = requireAbsoluteCwd(params.cwd);
          this.ignoreMcpServers(params.mcpServers.length);
          return settingsOf(
            await this.reopen(params.sessionId, cwd, (id) => this.sessionClient(client, id), 'session/load'),
          );
        })
        .onRequest('session/prompt', async ({ params, signal }) => {
          const session = this.live(params.sessionId);
          // A $/cancel_request for this prompt, or the connection closing, cancels the turn like session/cancel.
          const onAbort = () => session.cancel();
          signal.addEventListener('abort', onAbort, { once: true });
          try {
            return { stopReason: await session.prompt(params.prompt) };
          } finally {
            signal.removeEventListener('abort', onAbort);
          }
        })
        // Registered after session/prompt on purpose: the SDK tries handlers in registration order, one await
        // each, so a cancel read right behind its prompt reaches the turn only if the prompt's handler runs first.
        .onNotification('session/cancel', ({ params }) => {
          this.sessions.get(params.sessionId)?.cancel();
        })
        .onRequest('session/resume', async ({ params, client }) => {
          const cwd = requireAbsoluteCwd(params.cwd);
          this.ignoreMcpServers(params.mcpServers?.length ?? 0);
          return settingsOf(
            await this.reopen(
              params.sessionId,
              cwd,
              (id) => this.sessionClient(client, id),
              'session/resume',
            ),
          );
        })
        .onRequest('session/list', ({ params }) => this.list(params))
        .onRequest('session/close', ({ params }) => this.closeSession(params.sessionId))
        .onRequest('session/delete', ({ params }) => this.deleteSession(params.sessionId))
        .onRequest('session/set_mode', async ({ params }) => {
          await setMode(this.live(params.sessionId), params.modeId);
          return {};
        })
        .onRequest('session/set_config_option', async ({ params }) => {
          const session = this.live(params.sessionId);
          // A boolean value (`type: "boolean"`) is refused by name: every option here is a select.
          await setConfigOption(session, params.configId, params.value);
          return { configOptions: session.settings.configOptions() };
        })
    );
  }

  /** The session with this id open in this process, if any. */
  find(sessionId: string): AgentSession | undefined {
    return this.sessions.get(sessionId);
  }

  /** A line in the agent's log (stderr). */
  log(line: string): void {
    this.services.log(line);
  }

  /** The session with this id open in this process, or the protocol's session-not-found error. */
  live(sessionId: string): AgentSession {
    const session = this.sessions.get(sessionId);
    if (!session) throw RequestError.sessionNotFound(sessionId);
    return session;
  }

  /** session/list (v1 and v2 alike). */
  async list(params: { cwd?: string | null; cursor?: string | null }) {
    if (params.cwd != null) requireAbsoluteCwd(params.cwd);
    const { store, config, log } = this.services;
    const opts = { cwd: params.cwd, cursor: params.cursor, pageSize: config.sessionList.pageSize };
    return listSessions(await store.logFiles(), opts, log);
  }

  /** session/close (v1 and v2 alike). */
  async closeSession(sessionId: string): Promise<Record<string, never>> {
    const session = this.live(sessionId);
    this.sessions.delete(session.id);
    await session.close({ byClient: true });
    this.services.log(`session ${session.id} closed by the client`);
    return {};
  }

  /** session/delete (v1 and v2 alike): deleting what is not there succeeds, the session is gone either way. */
  async deleteSession(sessionId: string): Promise<Record<string, never>> {
    const live = this.sessions.get(sessionId);
    this.sessions.delete(sessionId);
    await live?.close();
    if (await this.services.store.delete(sessionId)) this.services.log(`session ${sessionId} deleted`);
    return {};
  }

  ignoreMcpServers(count: number): void {
    if (count > 0) this.services.log(`ignoring ${count} MCP server(s): this agent does not support MCP`);
  }

  private sessionClient(client: AgentContext, sessionId: string): SessionClient {
    let warned = false;
    return {
      // Updates are best effort (the client may be gone while a cancelled turn winds down); the log is
      // what must be complete, so a failed notification never aborts persistence.
      update: (update) =>
        client.notify('session/update', { sessionId, update }).catch((e: unknown) => {
          if (!warned) this.services.log(`session/update to the client failed: ${(e as Error).message}`);
          warned = true;
        }),
      requestPermission: (request) => client.request('session/request_permission', { sessionId, ...request }),
      fs: createFileAccess(client, sessionId, this.clientCapabilities?.fs),
      ...(this.clientCapabilities?.terminal ? { terminal: createTerminalAccess(client, sessionId) } : {}),
    };
  }

  /** A new session talking to the client through `clientOf(sessionId)` (v1's SDK context, or acp-v2.ts's). */
  async newSession(cwd: string, clientOf: (sessionId: string) => SessionClient): Promise<AgentSession> {
    const { store, config, agentInfo, toolSchemas } = this.services;
    const sessionId = store.newSessionId();
    const systemPrompt = buildSystemPrompt(cwd, config.systemPrompt);
    const writer = await store.create({
      type: 'session/header',
      format: LOG_FORMAT,
      version: LOG_FORMAT_VERSION,
      sessionId,
      agent: { name: agentInfo.name, version: agentInfo.version },
      provider: {
        plugin: config.llm.module ? `module:${config.llm.module}` : config.llm.plugin,
        model: config.llm.model,
      },
      cwd,
      systemPrompt,
      tools: toolSchemas,
      config: requestShapingConfig(config),
    });
    const session = new AgentSession(
      sessionId,
      cwd,
      systemPrompt,
      this.services,
      clientOf(sessionId),
      writer,
      new Conversation(),
      new SessionSettings(config),
    );
    this.sessions.set(sessionId, session);
    this.services.log(`session ${sessionId} created in ${cwd}`);
    return session;
  }

  /**
   * Rebuilds a persisted session and marks the resume in the log. `session/load` first shows its history as
   * session/update notifications; `session/resume` shows nothing. A turn the previous process never ended
   * (crash, kill) is closed as an error, after committing the answer it was streaming (what the user saw).
   */
  async reopen(
    sessionId: string,
    cwd: string,
    clientOf: (sessionId: string) => SessionClient,
    method: 'session/load' | 'session/resume',
  ): Promise<AgentSession> {
    const { store, config, tools, log } = this.services;
    const existing = this.sessions.get(sessionId);
    if (existing) {
      this.sessions.delete(sessionId);
      await existing.close();
    }
    if (!store.findLog(sessionId)) throw RequestError.sessionNotFound(sessionId);
    const { records, warnings, writer, path } = await store.open(sessionId);
    for (const w of warnings) log(`${path}: ${w}`);
    const conversation = new Conversation();
    const settings = new SessionSettings(config);
    const body = records.filter((r) => r.event.type !== 'session/header');
    for (const { event } of body) {
      conversation.apply(event);
      settings.apply(event);
    }
    const session = new AgentSession(
      sessionId,
      cwd,
      buildSystemPrompt(cwd, config.systemPrompt),
      this.services,
      clientOf(sessionId),
      writer,
      conversation,
      settings,
    );
    const show = async (events: LogRecord[]) => {
      if (method === 'session/load')
        for (const update of historyUpdates(events, tools, cwd)) await session.client.update(update);
    };
    await show(body);
    await session.record({
      type: 'boundary',
      kind: 'resume',
      ...(method === 'session/resume' ? { method } : {}),
    });
    const open = conversation.openTurn;
    if (open !== undefined) {
      const partial = uncommittedAnswer(body, open);
      if (partial) {
        const committed = { type: 'message/committed' as const, turn: open, message: partial };
        await session.record(committed);
        await show([{ event: committed }]);
      }
      const note = 'Not finished: the agent stopped before this tool call finished.';
      let step = 1;
      for (const { event } of body) if ('step' in event && event.turn === open) step = event.step;
      await new ToolRunner(session, open, step, new AbortController().signal).closeDangling(note);
      await session.record({
        type: 'turn/end',
        turn: open,
        kind: 'error',
        error: { message: 'the agent process stopped before this turn ended', code: 'interrupted' },
      });
    }
    this.sessions.set(sessionId, session);
    log(
      `session ${sessionId} ${method === 'session/load' ? 'loaded' : 'resumed'} from ${path} (${body.length} events)`,
    );
    return session;
  }

  /** Graceful shutdown: cancel running turns (they persist their turn/end), close every log. */
  async close(): Promise<void> {
    await Promise.all([...this.sessions.values()].map((s) => s.close()));
    this.sessions.clear();
  }
}

function requireAbsoluteCwd(cwd: string): string {
  if (!isAbsolute(cwd))
    throw RequestError.invalidParams({ cwd }, `cwd must be an absolute path, got "${cwd}"`);
  return cwd;
}

/** The `modes` and `configOptions` every session setup response carries. */
function settingsOf(session: AgentSession): {
  modes: SessionModeState;
  configOptions: SessionConfigOption[];
} {
  return { modes: session.settings.modeState(), configOptions: session.settings.configOptions() };
}

/**
 * `session/set_mode`: records the change, then tells the client in both vocabularies it may use:
 * `current_mode_update` (modes) and `config_option_update` (config options, whose `mode` follows it).
 */
async function setMode(session: AgentSession, modeId: string): Promise<void> {
  const event = session.settings.modeEvent(modeId);
  if (modeId === session.settings.modeId) return;
  await session.record(event);
  await session.client.update({ sessionUpdate: 'current_mode_update', currentModeId: modeId });
  await session.client.update({
    sessionUpdate: 'config_option_update',
    configOptions: session.settings.configOptions(),
  });
}

/**
 * `session/set_config_option`: records the change (the response carries the complete options); a mode
 * changed this way is also announced as `current_mode_update`, for clients that follow modes only.
 */
async function setConfigOption(session: AgentSession, configId: string, value: unknown): Promise<void> {
  const { settings } = session;
  const event = settings.configEvent(configId, value);
  if (event.type === 'session/mode') {
    if (event.modeId === settings.modeId) return;
    await session.record(event);
    await session.client.update({ sessionUpdate: 'current_mode_update', currentModeId: event.modeId });
  } else if (event.type === 'session/config' && event.value !== settings.model) {
    await session.record(event);
  }
}
