// Every text this project reads (logs, fixtures, scenario and config files, an agent's stdout) is UTF-8.
// Node's default decoding turns a bad byte into U+FFFD without a word, which would hide a corrupted fixture
// or a broken agent behind a snapshot diff of replacement characters; these helpers make it an error that
// names the place instead.
import { isUtf8 } from 'node:buffer';

/** Where the first invalid UTF-8 sequence of some bytes is: 1-based line and column (in bytes), and the byte. */
export interface Utf8Problem {
  line: number;
  column: number;
  byte: number;
}

/** A text that is not valid UTF-8; the message names the file, line and column, and what to do. */
export class Utf8Error extends Error {
  override readonly name = 'Utf8Error';
  constructor(
    message: string,
    /** The file (or stream) the bytes came from. */
    readonly file: string,
    /** 1-based line of the first invalid byte. */
    readonly line: number,
    /** 1-based byte column of the first invalid byte within its line. */
    readonly column: number,
  ) {
    super(message);
  }
}

/** The first invalid UTF-8 sequence in `bytes`, or undefined when they are valid UTF-8. */
export function findInvalidUtf8(bytes: Uint8Array): Utf8Problem | undefined {
  if (isUtf8(bytes)) return undefined;
  // Only reached on bad input, so a plain scan is fine: find the first byte where decoding breaks.
  let line = 1;
  let lineStart = 0;
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    if (b === 0x0a) {
      line++;
      lineStart = i + 1;
    }
    const len =
      b < 0x80 ? 1 : b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
    if (len === 0 || i + len > bytes.length || !isUtf8(bytes.subarray(i, i + len))) {
      return { line, column: i - lineStart + 1, byte: b };
    }
    i += len;
  }
  // isUtf8 and the scan disagree only if the scan is wrong; report the start rather than nothing.
  return { line: 1, column: 1, byte: bytes[0] ?? 0 };
}

/** The message for a text that is not UTF-8 at `where` (`file` or `file:line`). */
export function utf8ProblemMessage(
  where: string,
  p: Pick<Utf8Problem, 'column' | 'byte'>,
  fix: string,
): string {
  const hex = p.byte.toString(16).padStart(2, '0');
  return `${where}: not valid UTF-8 (byte 0x${hex} at column ${p.column}); ${fix}`;
}

/**
 * Decodes a whole file's bytes as UTF-8. Invalid UTF-8 throws a {@link Utf8Error} naming
 * `file:line:column` and `fix`, what the user should do about it.
 */
export function decodeUtf8File(bytes: Uint8Array, file: string, fix = 'save the file as UTF-8'): string {
  const p = findInvalidUtf8(bytes);
  if (p) throw new Utf8Error(utf8ProblemMessage(`${file}:${p.line}`, p, fix), file, p.line, p.column);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}

/**
 * A hand-written JSON file's text without its leading byte order mark, if any: editors on some systems
 * add one, and RFC 8259 lets JSON parsers ignore it. (Machine-written JSONL keeps it, and fails on it.)
 */
export function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** The text of a hand-written file (config, scenario, override, emulator script, .env): UTF-8, a leading BOM dropped. */
export function handWrittenFileText(bytes: Uint8Array, file: string): string {
  return stripBom(decodeUtf8File(bytes, file, 'save the file as UTF-8'));
}
