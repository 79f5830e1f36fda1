// Shared by the four profiles in this folder (examples for docs/agents.md; no harness code imports them).
import { join } from 'node:path';
import type { Rule } from '../../harness/src/profile.js';

/**
 * Stands for the base URL of the model server the harness starts per test (the HTTP record/replay server,
 * or the bundled emulator); the fixture that starts it substitutes it in `env` values and `home` files.
 */
export const MODEL_URL = '{{modelBaseUrl}}';

/** An agent installed in the project (`npm install <agent>`), by its bin name: resolved when the config loads. */
export const bin = (name: string): string => join(process.cwd(), 'node_modules/.bin', name);

/**
 * Volatile parts of an agent's model requests, as the HTTP model's `ids` (`use.model = { kind: 'http', ids }`):
 * rules in the one spelling of every normalization rule, a JSON Pointer into the request body or a pattern over
 * its text, each with one `{{name}}` placeholder. The server's own rules (the harness's roots, their dashed
 * spellings, dates) come first. Headers are not fingerprinted.
 */
export type RequestVolatile = Rule[];
