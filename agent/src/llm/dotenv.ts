// A small `.env` reader for live mode (the composition root decides when to use it; replay never does).

import { readFile } from 'node:fs/promises';
import { handWrittenFileText } from '@acp-snapshot/core';

/** A `.env` line that does not parse; the message names file:line. */
export class DotEnvError extends Error {
  override readonly name = 'DotEnvError';
}

const LINE = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/;

function unescapeDouble(s: string): string {
  return s.replace(/\\([nrt"\\$])/g, (_, c: string) => ({ n: '\n', r: '\r', t: '\t' })[c] ?? c);
}

/**
 * Parses `.env` text: `KEY=value`, optional `export `, `#` comments (whole-line, or after an unquoted
 * value following whitespace), 'single' (literal) and "double" quotes (\n \t \" \\ escapes, may span
 * lines). No variable expansion.
 */
export function parseDotEnv(text: string, file = '.env'): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^\s*(#.*)?$/.test(line)) continue;
    const m = LINE.exec(line);
    if (!m) {
      throw new DotEnvError(
        `${file}:${i + 1}: expected KEY=value (a letter or _ first, then letters, digits, _), got ${JSON.stringify(line)}`,
      );
    }
    const key = m[1]!;
    let raw = m[2]!;
    const quote = raw[0];
    if (quote === '"' || quote === "'") {
      const startLine = i + 1;
      // A quoted value may continue over following lines until its closing quote.
      let body = raw.slice(1);
      let close = findClose(body, quote);
      while (close < 0 && i + 1 < lines.length) {
        body += `\n${lines[++i]}`;
        close = findClose(body, quote);
      }
      if (close < 0)
        throw new DotEnvError(`${file}:${startLine}: ${key}: the ${quote} quote is never closed`);
      const rest = body.slice(close + 1).trim();
      if (rest && !rest.startsWith('#')) {
        throw new DotEnvError(
          `${file}:${i + 1}: ${key}: unexpected text after the closing quote: ${JSON.stringify(rest)}`,
        );
      }
      const inner = body.slice(0, close);
      out[key] = quote === '"' ? unescapeDouble(inner) : inner;
      continue;
    }
    const hash = raw.search(/\s#/);
    if (hash >= 0) raw = raw.slice(0, hash).trimEnd();
    out[key] = raw;
  }
  return out;
}

function findClose(s: string, quote: string): number {
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '\\' && quote === '"') i++;
    else if (s[i] === quote) return i;
  }
  return -1;
}

/** Reads a `.env` file; a missing file gives `{}` (it is optional), a bad line throws naming file:line. */
export async function loadDotEnv(path: string): Promise<Record<string, string>> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new DotEnvError(`${path}: cannot read it: ${(e as Error).message}`);
  }
  let text: string;
  try {
    text = handWrittenFileText(bytes, path);
  } catch (e) {
    throw new DotEnvError((e as Error).message);
  }
  return parseDotEnv(text, path);
}
