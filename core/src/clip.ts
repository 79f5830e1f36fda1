// Error messages quote parts of the input they reject (a key, a field path, a value); a hostile input can
// make those parts megabytes long, so every quote goes through here.
import { cutText } from './cut.js';

/** Longest quote of input an error message carries by default. */
export const CLIP_LENGTH = 200;

/** `text` unchanged when short, else its first `max` characters and its full length: `abc… (2000000 chars)`. */
export function clipText(text: string, max = CLIP_LENGTH): string {
  if (text.length <= max) return text;
  return `${cutText(text, max)}… (${text.length} chars)`;
}

/**
 * A JSON value as an error message quotes it: scalars as JSON (strings clipped), objects and arrays only
 * by kind (serializing a 10^5-deep array would overflow the stack; a large one would flood the message).
 */
export function quoteValue(value: unknown, max = CLIP_LENGTH): string {
  if (typeof value === 'string') return JSON.stringify(clipText(value, max));
  if (Array.isArray(value)) return 'an array';
  if (value === null || typeof value !== 'object') return String(value);
  return 'an object';
}
