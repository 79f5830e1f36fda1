import type { BodyEvent, SessionEvent } from '@acp-snapshot/session-log';
import {
  RequestError,
  type SessionConfigOption,
  type SessionMode,
  type SessionModeState,
} from '@agentclientprotocol/sdk';
import type { AgentConfig, PermissionPolicy } from './config.js';

/** The permission policy a mode stands for. */
export interface Permissions {
  edit: PermissionPolicy;
  command: PermissionPolicy;
}

interface ModeDefinition extends SessionMode {
  id: string;
  permissions: Permissions;
}

/** The session modes every session offers: one per permission policy a user picks between. */
export const PRESET_MODES: readonly ModeDefinition[] = [
  {
    id: 'ask',
    name: 'Ask',
    description: 'Ask before every file edit and every command',
    permissions: { edit: 'ask', command: 'ask' },
  },
  {
    id: 'auto',
    name: 'Auto',
    description: 'Edit files and run commands without asking',
    permissions: { edit: 'allow', command: 'allow' },
  },
  {
    id: 'read-only',
    name: 'Read only',
    description: 'Read and search, but never edit files or run commands',
    permissions: { edit: 'deny', command: 'deny' },
  },
];

/** The mode id of a configured permission policy that no preset matches. */
export const CONFIGURED_MODE = 'configured';

/** The ids of the session config options, in the order they are offered. */
export const CONFIG_IDS = { mode: 'mode', model: 'model' } as const;

const same = (a: Permissions, b: Permissions) => a.edit === b.edit && a.command === b.command;

/**
 * A session's mode and model: what `session/set_mode` and `session/set_config_option` change. The
 * starting point is the agent's config; every change is a persisted event (`session/mode`,
 * `session/config`) applied here, so a loaded or resumed session has the settings it was left with.
 */
export class SessionSettings {
  private readonly modes: ModeDefinition[];
  private readonly models: string[];
  modeId: string;
  model: string;

  constructor(config: Pick<AgentConfig, 'permissions' | 'llm'>) {
    const preset = PRESET_MODES.find((m) => same(m.permissions, config.permissions));
    const configured: ModeDefinition[] = preset
      ? []
      : [
          {
            id: CONFIGURED_MODE,
            name: 'As configured',
            description: `The agent's configured policy: edits ${config.permissions.edit}, commands ${config.permissions.command}`,
            permissions: { ...config.permissions },
          },
        ];
    this.modes = [...configured, ...PRESET_MODES];
    this.modeId = preset?.id ?? CONFIGURED_MODE;
    this.models = [...new Set([config.llm.model, ...config.llm.models])];
    this.model = config.llm.model;
  }

  /** The permission policy of the current mode. */
  get permissions(): Permissions {
    return this.mode(this.modeId)!.permissions;
  }

  private mode(id: string): ModeDefinition | undefined {
    return this.modes.find((m) => m.id === id);
  }

  /** Applies a persisted event; events of other kinds are ignored. Unknown values in old logs are ignored too. */
  apply(event: SessionEvent): void {
    if (event.type === 'session/mode' && this.mode(event.modeId)) this.modeId = event.modeId;
    if (event.type === 'session/config' && event.configId === CONFIG_IDS.model) {
      if (this.models.includes(event.value)) this.model = event.value;
    }
  }

  /** The `modes` of a session/new, load or resume response. */
  modeState(): SessionModeState {
    return {
      currentModeId: this.modeId,
      availableModes: this.modes.map(({ id, name, description }) => ({ id, name, description })),
    };
  }

  /** The complete `configOptions` (the mode first, then the model), as every response and update carries them. */
  configOptions(): SessionConfigOption[] {
    return [
      {
        type: 'select',
        id: CONFIG_IDS.mode,
        name: 'Mode',
        description: 'When the agent asks before editing files and running commands',
        category: 'mode',
        currentValue: this.modeId,
        options: this.modes.map(({ id, name, description }) => ({ value: id, name, description })),
      },
      {
        type: 'select',
        id: CONFIG_IDS.model,
        name: 'Model',
        description: 'The model every request of this session is sent to',
        category: 'model',
        currentValue: this.model,
        options: this.models.map((m) => ({ value: m, name: m })),
      },
    ];
  }

  /** The event a `session/set_mode` records; invalid params naming the known modes when the id is unknown. */
  modeEvent(modeId: string): BodyEvent {
    if (!this.mode(modeId)) {
      throw RequestError.invalidParams(
        { modeId },
        `unknown mode "${modeId}"; this session's modes are: ${this.modes.map((m) => m.id).join(', ')}`,
      );
    }
    return { type: 'session/mode', modeId };
  }

  /** The event a `session/set_config_option` records; invalid params naming what is allowed otherwise. */
  configEvent(configId: string, value: unknown): BodyEvent {
    const ids = Object.values(CONFIG_IDS);
    if (!ids.includes(configId as (typeof ids)[number])) {
      throw RequestError.invalidParams(
        { configId },
        `unknown config option "${configId}"; this session's options are: ${ids.join(', ')}`,
      );
    }
    if (typeof value !== 'string') {
      throw RequestError.invalidParams(
        { configId, value },
        `config option "${configId}" is a select: give one of its values as a string`,
      );
    }
    if (configId === CONFIG_IDS.mode) return this.modeEvent(value);
    if (!this.models.includes(value)) {
      throw RequestError.invalidParams(
        { configId, value },
        `unknown model "${value}"; this session offers: ${this.models.join(', ')} (llm.models in the agent's config)`,
      );
    }
    return { type: 'session/config', configId, value };
  }
}
