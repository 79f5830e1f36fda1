/**
 * The exported names of each workspace package entry and how many of them another folder imports
 * (`node --import tsx scripts/exports.ts`: exit 1 and the names when an entry other than the public
 * `@acp-snapshot/playwright` exports one no other folder imports; `--unused` lists the public entry's too).
 * An export nobody outside the package uses is surface to keep stable for no one: this table is how a
 * change that trims a package's index shows what it removed.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';

const ROOT = resolve(import.meta.dirname, '..');

/** One import specifier of a workspace package (`@acp-snapshot/session-log/testing`) and its source file. */
export interface Entry {
  spec: string;
  /** The top folder of the package (`session-log`). */
  folder: string;
  /** The entry's source file, relative to the root. */
  file: string;
}

export interface Row {
  spec: string;
  exported: number;
  /** Names that a file in another top folder imports from this entry. */
  used: number;
  unused: string[];
}

interface Manifest {
  name: string;
  exports?: Record<string, { types?: string }>;
}

/**
 * Every entry of every workspace package, from its package.json `exports`; a published entry whose types are
 * built (`dist/…d.ts`) is found through the root tsconfig's `paths`, which map it to its source.
 */
export function entries(root: string = ROOT): Entry[] {
  const workspaces = (
    JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { workspaces: string[] }
  ).workspaces;
  const paths = (ts.readConfigFile(join(root, 'tsconfig.json'), ts.sys.readFile).config?.compilerOptions
    ?.paths ?? {}) as Record<string, string[]>;
  const out: Entry[] = [];
  for (const folder of workspaces) {
    const manifest = JSON.parse(readFileSync(join(root, folder, 'package.json'), 'utf8')) as Manifest;
    for (const [sub, target] of Object.entries(manifest.exports ?? {})) {
      const spec = sub === '.' ? manifest.name : `${manifest.name}/${sub.replace(/^\.\//, '')}`;
      const types = target.types ?? '';
      const file = types.startsWith('./src/')
        ? join(folder, types.slice(2))
        : paths[spec]?.[0]?.replace(/^\.\//, '');
      if (file) out.push({ spec, folder, file });
    }
    // Entries only this repository resolves (tsconfig paths), like the harness's `/testing`.
    for (const [spec, [target]] of Object.entries(paths))
      if (spec.startsWith(`${manifest.name}/`) && target && !out.some((e) => e.spec === spec))
        out.push({ spec, folder, file: target.replace(/^\.\//, '') });
  }
  return out;
}

/** The names each module specifier is imported under in one source text (named, re-exported, `import('x').T`, destructured dynamic imports). */
export function importedNames(fileName: string, text: string): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const add = (spec: string, name: string) => {
    const set = out.get(spec) ?? new Set<string>();
    set.add(name);
    out.set(spec, set);
  };
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const spec = node.moduleSpecifier.text;
      const bindings = node.importClause?.namedBindings;
      if (bindings && ts.isNamedImports(bindings))
        for (const el of bindings.elements) add(spec, (el.propertyName ?? el.name).text);
      if (bindings && ts.isNamespaceImport(bindings)) add(spec, '*');
      if (node.importClause?.name) add(spec, 'default');
    } else if (
      ts.isExportDeclaration(node) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      const spec = node.moduleSpecifier.text;
      if (node.exportClause && ts.isNamedExports(node.exportClause))
        for (const el of node.exportClause.elements) add(spec, (el.propertyName ?? el.name).text);
      else add(spec, '*');
    } else if (
      ts.isVariableDeclaration(node) &&
      ts.isObjectBindingPattern(node.name) &&
      node.initializer &&
      ts.isAwaitExpression(node.initializer) &&
      ts.isCallExpression(node.initializer.expression) &&
      node.initializer.expression.expression.kind === ts.SyntaxKind.ImportKeyword
    ) {
      const [arg] = node.initializer.expression.arguments;
      if (arg && ts.isStringLiteral(arg))
        for (const el of node.name.elements) {
          const key = el.propertyName ?? el.name;
          if (ts.isIdentifier(key)) add(arg.text, key.text);
        }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  // Type queries `import('x').Name`, in code and in JSDoc comments (which the walk above does not enter).
  for (const m of text.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)\.(\w+)/g)) add(m[1]!, m[2]!);
  return out;
}

/** The names an entry exports, as the compiler sees them (`export *` followed). */
function exportedNames(program: ts.Program, file: string): string[] {
  const source = program.getSourceFile(file);
  if (!source) throw new Error(`exports: ${file} is not in the program; is the entry in package.json right?`);
  const checker = program.getTypeChecker();
  const symbol = checker.getSymbolAtLocation(source);
  return symbol ? checker.getExportsOfModule(symbol).map((s) => s.name) : [];
}

export function exportTable(root: string = ROOT): Row[] {
  const list = entries(root);
  const program = ts.createProgram(
    list.map((e) => join(root, e.file)),
    { ...ts.getDefaultCompilerOptions(), allowJs: false, noEmit: true, skipLibCheck: true },
  );
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard'], {
    cwd: root,
    encoding: 'utf8',
  })
    .split('\n')
    .filter((f) => /\.(ts|mts|mjs|js)$/.test(f) && !f.includes('node_modules/') && !f.startsWith('fixtures/'))
    .filter((f) => !/(^|\/)dist\//.test(f));
  const usedBy = new Map<string, Set<string>>();
  for (const file of files) {
    const folder = file.split('/')[0]!;
    for (const [spec, names] of importedNames(file, readFileSync(join(root, file), 'utf8'))) {
      const entry = list.find((e) => e.spec === spec);
      if (!entry || entry.folder === folder) continue;
      const set = usedBy.get(spec) ?? new Set<string>();
      for (const n of names) set.add(n);
      usedBy.set(spec, set);
    }
  }
  return list.map((e) => {
    const names = exportedNames(program, join(root, e.file));
    const used = usedBy.get(e.spec) ?? new Set<string>();
    const all = used.has('*');
    const unused = all ? [] : names.filter((n) => !used.has(n)).sort();
    return { spec: e.spec, exported: names.length, used: names.length - unused.length, unused };
  });
}

export function formatTable(rows: readonly Row[]): string {
  const width = Math.max(...rows.map((r) => r.spec.length), 'entry'.length);
  const line = (a: string, b: string, c: string) => `${a.padEnd(width)}  ${b.padStart(8)}  ${c.padStart(14)}`;
  return [
    line('entry', 'exported', 'used elsewhere'),
    ...rows.map((r) => line(r.spec, String(r.exported), String(r.used))),
  ].join('\n');
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const rows = exportTable();
  console.log(formatTable(rows));
  for (const r of rows)
    if (r.unused.length > 0 && (process.argv.includes('--unused') || r.spec !== '@acp-snapshot/playwright'))
      console.log(`\n${r.spec} (unused):\n  ${r.unused.join('\n  ')}`);
  // The public entry is the API users import; every other entry exports only what another package uses.
  if (rows.some((r) => r.spec !== '@acp-snapshot/playwright' && r.unused.length > 0)) process.exitCode = 1;
}
