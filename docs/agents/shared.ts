// Shared by the four profiles in this folder (examples for docs/agents.md; no harness code imports them).
import { join } from 'node:path';
import type { NormalizeRules } from '../../harness/src/profile.js';

/**
 * Stands for the base URL of the model server the harness starts per test (the HTTP record/replay server,
 * or the bundled emulator); the fixture that starts it substitutes it in `env` values and `home` files.
 */
export const MODEL_URL = '{{modelBaseUrl}}';

/** An agent installed in the project (`npm install <agent>`), by its bin name: resolved when the config loads. */
export const bin = (name: string): string => join(process.cwd(), 'node_modules/.bin', name);

/**
 * Volatile parts of an agent's model requests, for the request fingerprint of HTTP record/replay (the harness's
 * roots, `{{cwd}}` and `{{home}}`, are replaced first): JSON Pointers into the request body, and patterns over
 * its serialized text. Headers are not fingerprinted.
 */
export type RequestVolatile = NormalizeRules;

/** "Today's date is Tuesday, December 1, 2026" (qwen, gemini). */
export const LONG_DATE = {
  pattern: "Today's date is [A-Z][a-z]+, [A-Z][a-z]+ \\d{1,2}, \\d{4}",
  placeholder: "Today's date is {{date}}",
};
