// The agent package's typed surface (the package's runtime entry is the CLI bundle, dist/main.js).
export { AcpAgent } from './acp-server.js';
export {
  AgentConfig,
  ConfigError,
  deepMerge,
  readConfigFile,
  resolveConfig,
  substituteEnv,
} from './config.js';
export { KNOWN_PLUGIN_NAMES, loadLlmPlugin } from './plugin-loader.js';
export { type Clock, createClock, createIds, type IdGenerator } from './seams.js';
export type { AgentServices } from './services.js';
export type { FileAccess, ToolContext, ToolDefinition, ToolOutcome } from './tools/types.js';
