import { isAbsolute } from 'node:path';
import { LOG_FORMAT, LOG_FORMAT_VERSION } from '@acp-snapshot/session-log';
import {
  type AgentApp,
  type AgentContext,
  agent,
  type ClientCapabilities,
  PROTOCOL_VERSION,
  RequestError,
} from '@agentclientprotocol/sdk';
import { Conversation } from './conversation.js';
import { createFileAccess } from './file-access.js';
import { historyUpdates } from './history-replay.js';
import { uncommittedAnswer } from './interrupted-turn.js';
import { type AgentServices, requestShapingConfig } from './services.js';
import { AgentSession, type SessionClient } from './session.js';
import { buildSystemPrompt } from './system-prompt.js';
import { ToolRunner } from './tool-runner.js';

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
            },
            agentInfo,
            authMethods: [],
          };
        })
        .onRequest('session/new', async ({ params, client }) => {
          const cwd = requireAbsoluteCwd(params.cwd);
          this.ignoreMcpServers(params.mcpServers.length);
          const session = await this.newSession(cwd, client);
          return { sessionId: session.id };
        })
        .onRequest('session/load', async ({ params, client }) => {
          const cwd = requireAbsoluteCwd(params.cwd);
          this.ignoreMcpServers(params.mcpServers.length);
          await this.loadSession(params.sessionId, cwd, client);
          return {};
        })
        .onRequest('session/prompt', async ({ params, signal }) => {
          const session = this.sessions.get(params.sessionId);
          if (!session) throw RequestError.sessionNotFound(params.sessionId);
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
    );
  }

  private ignoreMcpServers(count: number): void {
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
    };
  }

  private async newSession(cwd: string, client: AgentContext): Promise<AgentSession> {
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
      this.sessionClient(client, sessionId),
      writer,
      new Conversation(),
    );
    this.sessions.set(sessionId, session);
    this.services.log(`session ${sessionId} created in ${cwd}`);
    return session;
  }

  /**
   * Rebuilds a persisted session, shows its history as session/update notifications, then marks the
   * resume in the log. A turn the previous process never ended (crash, kill) is closed as an error, after
   * committing the answer it was streaming (what the user saw).
   */
  private async loadSession(sessionId: string, cwd: string, client: AgentContext): Promise<void> {
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
    const body = records.filter((r) => r.event.type !== 'session/header');
    for (const r of body) conversation.apply(r.event);
    const session = new AgentSession(
      sessionId,
      cwd,
      buildSystemPrompt(cwd, config.systemPrompt),
      this.services,
      this.sessionClient(client, sessionId),
      writer,
      conversation,
    );
    for (const update of historyUpdates(body, tools, cwd)) await session.client.update(update);
    await session.record({ type: 'boundary', kind: 'resume' });
    const open = conversation.openTurn;
    if (open !== undefined) {
      const partial = uncommittedAnswer(body, open);
      if (partial) {
        const committed = { type: 'message/committed' as const, turn: open, message: partial };
        await session.record(committed);
        for (const update of historyUpdates([{ event: committed }], tools, cwd))
          await session.client.update(update);
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
    log(`session ${sessionId} loaded from ${path} (${body.length} events)`);
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
