// `npm run bench -- NAME...`: runs scripts/bench/NAME.ts (each writes bench-results/NAME.json and prints a table).
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const dir = join(dirname(fileURLToPath(import.meta.url)), 'bench');
const known = readdirSync(dir)
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.startsWith('_'))
  .map((f) => f.slice(0, -3))
  .sort();
const asked = process.argv.slice(2);
const names = asked.length ? asked : known;
for (const name of names) {
  if (!known.includes(name)) {
    console.error(`bench: unknown benchmark "${name}"; known: ${known.join(', ')}`);
    process.exit(2);
  }
}
for (const name of names) {
  const mod = (await import(pathToFileURL(join(dir, `${name}.ts`)).href)) as { run: () => Promise<void> };
  await mod.run();
}
