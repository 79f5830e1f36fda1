import type { VolatileRoots } from '@acp-snapshot/core';
import type { BodyEvent } from '@acp-snapshot/session-log';
import type {
  RequestPermissionRequest,
  RequestPermissionResponse,
  SessionUpdate,
} from '@agentclientprotocol/sdk';
import type { Conversation } from './conversation.js';
import type { AgentServices } from './services.js';
import type { SessionSettings } from './session-settings.js';
import type { FileAccess, TerminalAccess } from './tools/types.js';

/** What a session needs from the ACP client: updates, permission questions, file access. */
export interface SessionClient {
  update(update: SessionUpdate): Promise<void>;
  requestPermission(request: Omit<RequestPermissionRequest, 'sessionId'>): Promise<RequestPermissionResponse>;
  fs: FileAccess;
  /** The client's terminals, when it advertised `terminal: true`. */
  terminal?: TerminalAccess;
}

/**
 * What a prompt turn may use of its session. `AgentSession` provides it; the turn, its compaction and its tool
 * runner see only this (each a part of it), so none of them can reach the session's writer or start a turn.
 */
export interface TurnContext {
  readonly id: string;
  readonly cwd: string;
  readonly systemPrompt: string;
  readonly services: AgentServices;
  readonly client: SessionClient;
  readonly conversation: Conversation;
  readonly settings: SessionSettings;
  /** Volatile roots replaced by placeholders before fingerprinting requests. */
  readonly roots: VolatileRoots;
  /** Persists an event and applies it to the conversation and settings. */
  record(event: BodyEvent): Promise<void>;
}

/** What compaction uses: the request it builds and the events it records. */
export type CompactionContext = Pick<
  TurnContext,
  'id' | 'systemPrompt' | 'services' | 'conversation' | 'settings' | 'roots' | 'record'
>;

/** What the tool runner uses: the client it asks and updates, the cwd its tools run in, the mode that governs them. */
export type ToolRunContext = Pick<
  TurnContext,
  'id' | 'cwd' | 'services' | 'client' | 'conversation' | 'settings' | 'record'
>;
