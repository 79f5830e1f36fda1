import { pathToFileURL } from 'node:url';
import type { LlmPlugin, LlmPluginFactory } from '@acp-snapshot/core';
import { type AgentConfig, ConfigError } from './config.js';

/** Plugin names the agent knows, and how each module is imported. Replay is only imported when named. */
const KNOWN_PLUGINS: Record<string, () => Promise<unknown>> = {
  deepseek: () => import(new URL('./plugins/openai-compatible.js', import.meta.url).href),
  'openai-compatible': () => import(new URL('./plugins/openai-compatible.js', import.meta.url).href),
  replay: () => import('@acp-snapshot/llm-replay'),
};

/** The plugin names accepted in `llm.plugin`. */
export const KNOWN_PLUGIN_NAMES = Object.keys(KNOWN_PLUGINS);

/**
 * Imports the LLM plugin module chosen by config (`llm.module` wins over `llm.plugin`) and creates the
 * plugin. Wiring mistakes throw ConfigError naming the key and what would work.
 */
export async function loadLlmPlugin(
  config: AgentConfig['llm'],
  env: Record<string, string | undefined>,
  log: (line: string) => void,
): Promise<LlmPlugin> {
  const key = config.module ? 'llm.module' : 'llm.plugin';
  const label = config.module ? `module ${config.module}` : `plugin "${config.plugin}"`;
  let load: () => Promise<unknown>;
  if (config.module) {
    const url = pathToFileURL(config.module).href;
    load = () => import(url);
  } else {
    const known = KNOWN_PLUGINS[config.plugin];
    if (!known) {
      throw new ConfigError(
        `config error: llm.plugin: unknown plugin "${config.plugin}"; known plugins: ${KNOWN_PLUGIN_NAMES.join(', ')} ` +
          '(or set llm.module to the path of a module exporting createPlugin)',
      );
    }
    load = known;
  }
  let mod: unknown;
  try {
    mod = await load();
  } catch (e) {
    throw new ConfigError(`config error: ${key}: cannot load ${label}: ${(e as Error).message}`);
  }
  const factory = (mod as { createPlugin?: unknown }).createPlugin;
  if (typeof factory !== 'function') {
    throw new ConfigError(
      `config error: ${key}: ${label} does not export createPlugin(opts) ` +
        `(known plugins: ${KNOWN_PLUGIN_NAMES.join(', ')})`,
    );
  }
  try {
    return await (factory as LlmPluginFactory)({ options: config.options, env, log });
  } catch (e) {
    throw new ConfigError(`config error: ${key}: ${label} failed to start: ${(e as Error).message}`);
  }
}

/**
 * A plugin that is still loading: calls wait for it. Its name is `label` (the configured plugin or module) until
 * the plugin itself is there. A plugin that failed to load has nothing to close.
 */
export function deferredPlugin(loading: Promise<LlmPlugin>, label: string): LlmPlugin {
  let loaded: LlmPlugin | undefined;
  void loading.then(
    (p) => {
      loaded = p;
    },
    () => {},
  );
  return {
    get name() {
      return loaded?.name ?? label;
    },
    // The plugin's own iterable once loaded (its return() reaches it directly, as the turn expects).
    stream(request, ctx) {
      if (loaded) return loaded.stream(request, ctx);
      return (async function* () {
        yield* (await loading).stream(request, ctx);
      })();
    },
    async close() {
      const plugin = await loading.catch(() => undefined);
      await plugin?.close?.();
    },
  };
}
