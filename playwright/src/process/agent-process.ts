/**
 * One agent process under the driver: spawned with a scrubbed environment in its own process group, its
 * stdout tapped line by line (kept exactly as written, refused when not UTF-8, not JSON, holding half of a
 * surrogate pair, nested too deep or endless)
 * before the bytes reach the ACP SDK client, its stderr kept, and its exit explained.
 */

import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { spawnPiped } from '@acp-snapshot/conformance/process';
import {
  clipText,
  cutText,
  findInvalidUtf8,
  findLoneSurrogate,
  loneSurrogateMessage,
  nestsDeeperThan,
  utf8ProblemMessage,
} from '@acp-snapshot/core';
import * as acp from '@agentclientprotocol/sdk';
import type * as acp2 from '@agentclientprotocol/sdk/experimental/v2';
import { MAX_NORMALIZE_DEPTH } from '../normalize/normalize.js';
import type { ExitPolicy } from '../profile.js';

/** The longest stdout line read (the SDK's own default message limit). */
const MAX_LINE_BYTES = 32 * 2 ** 20;

/** Longest stderr line quoted in a failure message. */
const STDERR_LINE_CHARS = 2000;

/** The agent wrote something to stdout that is not an ACP message line (the message names the line). */
export class StdoutViolation extends Error {
  override name = 'StdoutViolation';
}

/** The agent command could not be started (not found, not executable, empty). */
export class AgentSpawnError extends Error {
  override name = 'AgentSpawnError';
}

/** One line the agent wrote to stdout, and which agent process (0-based) wrote it. */
export interface StdoutLine {
  text: string;
  process: number;
}

/** How to start the agent: the command line, its complete environment and its working directory. */
export interface SpawnOptions {
  command: readonly string[];
  env: Record<string, string>;
  processCwd: string;
  /** Called after each stdout line is kept (before the SDK reads it). */
  onLine?: () => void;
}

/** One running agent process with its ACP client connection. */
export class AgentProcess {
  readonly lines: StdoutLine[];
  /** The lines the client wrote to the agent's stdin (requests, responses, notifications), when kept. */
  private readonly sent: StdoutLine[] | undefined;
  stderr = '';
  readonly started = Date.now();
  private readonly onLine: (() => void) | undefined;
  exitedAt = 0;
  exit: number | string | null = null;
  readonly exited: Promise<void>;
  private readonly child: ChildProcessWithoutNullStreams;
  connection!: acp.ClientConnection;
  /** The ACP v2 connection, when the client negotiated v2 (see driver/protocol-v2.ts). */
  connectionV2: acp2.ClientConnection | undefined;
  /** Feeds the SDK connection attached now; replaced by {@link attach}. */
  private feed: { enqueue(b: Uint8Array): void; close(): void } | undefined;
  /** Rejects when the process breaks the protocol (non-JSON stdout) or dies. */
  readonly broken: Promise<never>;
  private breakWith!: (e: Error) => void;

  constructor(
    readonly index: number,
    opts: SpawnOptions,
    lines: StdoutLine[],
    private readonly app: acp.ClientApp,
    sent?: StdoutLine[],
  ) {
    this.lines = lines;
    this.sent = sent;
    this.onLine = opts.onLine;
    this.broken = new Promise<never>((_, reject) => {
      this.breakWith = reject;
    });
    this.broken.catch(() => {});
    const [file, ...args] = opts.command;
    if (!file)
      throw new AgentSpawnError('agent command is empty: set use.agentCommand in playwright.config.ts');
    const { child, ended } = spawnPiped(file, args, { cwd: opts.processCwd, env: opts.env });
    this.child = child;
    this.child.stdin?.on('error', () => {
      // EPIPE after the agent died: the exit is reported through `exited`.
    });
    this.child.stderr?.setEncoding('utf8');
    this.child.stderr?.on('data', (d: string) => {
      this.stderr += d;
    });
    this.exited = ended.then((r) => {
      this.exitedAt = Date.now();
      this.exit = r.signal ?? r.exitCode ?? null;
    });
  }

  /** Resolves once spawned; rejects with "agent command not found" on ENOENT. */
  async spawned(command: readonly string[]): Promise<void> {
    await new Promise<void>((res, rej) => {
      this.child.once('spawn', () => res());
      this.child.once('error', (e: NodeJS.ErrnoException) =>
        rej(
          new AgentSpawnError(
            e.code === 'ENOENT'
              ? `agent command not found: ${command.join(' ')} (check use.agentCommand in playwright.config.ts)`
              : `agent command could not start: ${command.join(' ')}: ${e.message}`,
          ),
        ),
      );
    });
  }

  /** Taps stdout: keeps each line, fails on non-JSON, forwards the bytes to the SDK client. */
  connect(): void {
    const stdout = this.child.stdout!;
    // The unterminated line so far, as received (one concat per line: a 16 MB line is not copied per chunk).
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let overflowed = false;
    const take = (bytes: Buffer<ArrayBufferLike>) => {
      const text = bytes.toString('utf8');
      this.lines.push({ text, process: this.index });
      this.onLine?.();
      // Decoding would turn bad bytes into U+FFFD silently, and the snapshot would record the damage.
      const bad = findInvalidUtf8(bytes);
      if (bad) {
        this.breakWith(
          new StdoutViolation(
            utf8ProblemMessage(
              `agent stdout, process ${this.index + 1}, line ${this.lines.length}`,
              bad,
              'ACP messages are UTF-8 JSON: check how the agent encodes what it writes.',
            ),
          ),
        );
        return;
      }
      let message: unknown;
      try {
        message = JSON.parse(text);
      } catch {
        this.breakWith(
          new StdoutViolation(
            `agent wrote a non-JSON line to stdout (process ${this.index + 1}, stdout line ${this.lines.length}): ${JSON.stringify(cutText(text, 200))}\nstdout must carry ACP messages only; log to stderr.`,
          ),
        );
        return;
      }
      // JSON.parse takes a `\ud83d` escape without its pair; the client this harness stands in for may not.
      const lone = findLoneSurrogate(text);
      if (lone) {
        this.breakWith(
          new StdoutViolation(
            loneSurrogateMessage(
              `agent stdout, process ${this.index + 1}, line ${this.lines.length}`,
              lone,
              'the agent cut a text inside a character: cut at code point (better: grapheme) boundaries.',
            ),
          ),
        );
        return;
      }
      // The SDK would overflow its stack on it (a RangeError, no line named); normalization refuses it too.
      // Nesting N levels takes at least 2N characters, so only a long line needs the walk.
      if (text.length > 2 * MAX_NORMALIZE_DEPTH && nestsDeeperThan(message)) {
        this.breakWith(
          new StdoutViolation(
            `agent wrote a stdout line nested deeper than ${MAX_NORMALIZE_DEPTH} levels (process ${this.index + 1}, stdout line ${this.lines.length}); ACP messages nest a few levels.`,
          ),
        );
        return;
      }
      this.feed?.enqueue(new Uint8Array(Buffer.concat([bytes, Buffer.from('\n')])));
    };
    stdout.on('data', (chunk: Buffer) => {
      if (overflowed) return;
      let start = 0;
      for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10, start)) {
        const part = chunk.subarray(start, nl);
        take(pending.length ? Buffer.concat([...pending, part]) : part);
        pending = [];
        pendingBytes = 0;
        start = nl + 1;
      }
      if (start === chunk.length) return;
      pending.push(chunk.subarray(start));
      pendingBytes += chunk.length - start;
      if (pendingBytes > MAX_LINE_BYTES) {
        // Memory stays bounded whatever the agent writes; the process is killed on this failure.
        overflowed = true;
        pending = [];
        this.breakWith(
          new StdoutViolation(
            `agent wrote a stdout line over ${MAX_LINE_BYTES / 2 ** 20} MB without a newline (process ${this.index + 1}, stdout line ${this.lines.length + 1}); ACP messages are newline-delimited.`,
          ),
        );
      }
    });
    stdout.on('end', () => {
      if (pending.length) take(Buffer.concat(pending));
      pending = [];
      this.ended = true;
      this.feed?.close();
    });
    this.connection = this.attach(this.app);
    void this.exited.then(() => this.breakWith(new Error(this.exitMessage())));
  }

  private ended = false;

  /**
   * Attaches another SDK app to the same pipes from the next stdout line on (the one before stops being fed,
   * and its close no longer ends stdin): an ACP v2 client that heard the agent answer 1 hands the connection
   * to the v1 client, one connection, one version, one initialize on the wire.
   */
  attach<C>(app: { connect(stream: acp.Stream): C }): C {
    return app.connect(continueRequestIds(this.stream(), this.requestIds));
  }

  /**
   * The request ids the attached connections used: each SDK connection counts from 0, so the next one's are
   * moved past them (after a v2 initialize answered 1, the v1 client's first request is id 1, not a second 0).
   */
  private readonly requestIds = { used: 0 };

  /** A fresh stream pair over the agent's stdio for one SDK connection; the previous one is detached. */
  private stream(): acp.Stream {
    let inputDone = false;
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    const input = new ReadableStream<Uint8Array>({
      start: (c) => {
        controller = c;
      },
      // Set once the SDK cancels its input (after a failure of its own): enqueueing or closing then throws.
      cancel: () => {
        inputDone = true;
      },
    });
    const feed = {
      enqueue: (b: Uint8Array) => {
        if (!inputDone) controller.enqueue(b);
      },
      close: () => {
        if (!inputDone) controller.close();
        inputDone = true;
      },
    };
    this.feed = feed;
    if (this.ended) feed.close();
    const attached = () => this.feed === feed;
    const stdin = this.child.stdin!;
    const output = new WritableStream<Uint8Array>({
      write: (chunk) =>
        new Promise<void>((res) => {
          if (!attached()) return res();
          // The SDK writes one message and its newline per chunk.
          if (this.sent)
            for (const text of Buffer.from(chunk).toString('utf8').split('\n'))
              if (text) this.sent.push({ text, process: this.index });
          // A write after the agent died fails with EPIPE; the death is reported by `exited`.
          stdin.write(chunk, () => res());
        }),
      close: () => {
        if (attached()) stdin.end();
      },
    });
    return acp.ndJsonStream(output, input);
  }

  /** Why the process is gone: its exit code and the end of its stderr. */
  exitMessage(): string {
    // Clipped, but long enough for a real error line (a path, a row, the fix): an agent may write a
    // megabyte-long stderr line.
    const lines = this.stderr
      .trimEnd()
      .split('\n')
      .map((l) => clipText(l, STDERR_LINE_CHARS));
    // The error line of a Node crash sits above its stack: show it, then the last lines.
    const errorLine = lines.findLast((l) => /^\w*Error\b|^Error:|^\S+Error:/.test(l));
    const last = lines.slice(-5);
    const tail = [...(errorLine && !last.includes(errorLine) ? [errorLine, '...'] : []), ...last].join(
      '\n  ',
    );
    return `agent process ${this.index + 1} exited (${String(this.exit)}) before the scenario finished${tail ? `; its stderr ends with:\n  ${tail}` : ''}`;
  }

  /** Whether the process ended by itself (not closed or killed by the harness). */
  get crashed(): boolean {
    return this.exitedAt > 0 && !this.closing && !this.killed;
  }

  private closing = false;
  private killed = false;

  /** Waits up to `ms` for the process to exit by itself; true when it did. */
  async exitsWithin(ms: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const done = await Promise.race([
      this.exited.then(() => true),
      new Promise<boolean>((res) => {
        timer = setTimeout(() => res(false), ms);
      }),
    ]);
    clearTimeout(timer);
    return done;
  }

  /**
   * Closes stdin (and with `signal`, sends SIGTERM to the process group) and awaits a graceful exit; kills
   * the process group when it does not come in time.
   */
  async close(graceMs: number, exit: ExitPolicy = 'stdin'): Promise<boolean> {
    this.closing = true;
    this.child.stdin?.end();
    if (exit === 'signal') this.signal('SIGTERM');
    const graceful = await this.exitsWithin(graceMs);
    if (!graceful) {
      this.kill();
      await this.exited;
    }
    this.connection?.close();
    this.connectionV2?.close();
    return graceful;
  }

  /** Kills the whole process group (the agent and anything it started). */
  kill(): void {
    if (this.exitedAt === 0) this.killed = true;
    this.signal('SIGKILL');
  }

  private signal(signal: NodeJS.Signals): void {
    const pid = this.child.pid;
    if (pid === undefined) return;
    try {
      process.kill(-pid, signal);
    } catch {
      // Already gone.
    }
  }

  get lifetimeMs(): number {
    return (this.exitedAt || Date.now()) - this.started;
  }
}

/**
 * `stream` with this connection's outgoing request ids moved by the ids earlier connections on the same pipes
 * used, and the agent's responses moved back, so the wire's ids never repeat. The agent's own requests and our
 * responses to them keep their ids.
 */
function continueRequestIds(stream: acp.Stream, ids: { used: number }): acp.Stream {
  const offset = ids.used;
  const writer = stream.writable.getWriter();
  const writable = new WritableStream<acp.AnyMessage>({
    write: (m) => {
      if ('method' in m && 'id' in m && typeof m.id === 'number') {
        ids.used = Math.max(ids.used, offset + m.id + 1);
        return writer.write(offset ? { ...m, id: offset + m.id } : m);
      }
      return writer.write(m);
    },
    close: () => writer.close(),
    abort: (reason) => writer.abort(reason),
  });
  if (offset === 0) return { writable, readable: stream.readable };
  const readable = stream.readable.pipeThrough(
    new TransformStream<acp.AnyMessage, acp.AnyMessage>({
      transform: (m, out) =>
        out.enqueue(
          !('method' in m) && 'id' in m && typeof m.id === 'number' ? { ...m, id: m.id - offset } : m,
        ),
    }),
  );
  return { writable, readable };
}
