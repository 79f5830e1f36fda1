// `npm run emulator -- SCRIPT.json [--port N]`: serves a script until SIGINT/SIGTERM.
// stdout line 1 is the base URL (for an OpenAI SDK baseURL); one line per request goes to stderr.
import { resolve } from 'node:path';
import { ScriptError } from './script.js';
import { startEmulator } from './server.js';

const USAGE = 'usage: npm run emulator -- SCRIPT.json [--port N]   (script format: emulator/README.md)';

function parseArgs(argv: string[]): { scriptPath: string; port: number } {
  let scriptPath: string | undefined;
  let port = 0;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--port') {
      const v = argv[++i];
      const n = Number(v);
      if (v === undefined || !Number.isInteger(n) || n < 0 || n > 65535) {
        throw new Error(
          `emulator: --port needs a port number 0-65535, got ${v === undefined ? 'nothing' : JSON.stringify(v)}\n${USAGE}`,
        );
      }
      port = n;
    } else if (a === '-h' || a === '--help') {
      console.error(USAGE);
      process.exit(0);
    } else if (a.startsWith('-')) {
      throw new Error(`emulator: unknown option ${a}\n${USAGE}`);
    } else if (scriptPath === undefined) scriptPath = a;
    else throw new Error(`emulator: one script only, got ${scriptPath} and ${a}\n${USAGE}`);
  }
  if (scriptPath === undefined) throw new Error(`emulator: no script given\n${USAGE}`);
  // `npm run` changes to the repository root; resolve the path against where the user typed it.
  return { scriptPath: resolve(process.env.INIT_CWD ?? process.cwd(), scriptPath), port };
}

try {
  const { scriptPath, port } = parseArgs(process.argv.slice(2));
  const emulator = await startEmulator({ scriptPath, port, log: (line) => console.error(line) });
  process.stdout.write(`${emulator.url}\n`);
  console.error(`emulator: serving ${scriptPath} on ${emulator.url} (Ctrl-C to stop)`);
  const stop = (signal: string) => {
    console.error(`emulator: ${signal}, stopping after ${emulator.requests.length} request(s)`);
    emulator.close().then(() => process.exit(0));
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
} catch (e) {
  const message = (e as Error).message;
  console.error(
    e instanceof ScriptError || message.startsWith('emulator:') ? message : `emulator: ${message}`,
  );
  process.exit(2);
}
