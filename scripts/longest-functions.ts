/**
 * The longest functions of the repository's source (tests, e2e/, examples/ and fixtures left out), for the
 * before/after figures of a refactor: `node --import tsx scripts/longest-functions.ts [COUNT] [--root DIR]`.
 * A function's length is its lines from its first token to its closing brace, nested functions included (a
 * closure that holds several things is long however it is split inside).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import ts from 'typescript';
import { isTest, trackedSources } from './source-files.js';

export interface FunctionLength {
  file: string;
  /** 1-based line of the function's first token. */
  line: number;
  lines: number;
  name: string;
}

/** Folders whose files are no product source: our own suite, user projects, the corpus. */
const NOT_SOURCE = ['e2e/', 'examples/', 'fixtures/'];

/** A readable name: the declaration's, else the variable, property or class member it is assigned to. */
function nameOf(node: ts.SignatureDeclaration, source: ts.SourceFile): string {
  const own = node.name && !ts.isComputedPropertyName(node.name) ? node.name.getText(source) : undefined;
  if (ts.isConstructorDeclaration(node)) return `${classNameOf(node) ?? '<class>'}.constructor`;
  if (own) {
    const owner = ts.isClassElement(node) ? classNameOf(node) : undefined;
    return owner ? `${owner}.${own}` : own;
  }
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))
    return parent.name.getText(source);
  if (ts.isCallExpression(parent)) return `<callback of ${parent.expression.getText(source).slice(0, 40)}>`;
  return '<anonymous>';
}

function classNameOf(node: ts.Node): string | undefined {
  const parent = node.parent;
  return parent && (ts.isClassDeclaration(parent) || ts.isClassExpression(parent))
    ? parent.name?.getText()
    : undefined;
}

/** Every function in one file's text with its length in lines. */
export function functionLengths(file: string, text: string): FunctionLength[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: FunctionLength[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      out.push({ file, line: start + 1, lines: end - start + 1, name: nameOf(node, source) });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/** The `count` longest functions of the source files under `root`, longest first. */
export function longestFunctions(root: string, count: number): FunctionLength[] {
  return trackedSources(root)
    .filter((f) => !isTest(f) && !NOT_SOURCE.some((dir) => f.startsWith(dir)) && !f.endsWith('.d.ts'))
    .flatMap((f) => functionLengths(f, readFileSync(resolve(root, f), 'utf8')))
    .sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file) || a.line - b.line)
    .slice(0, count);
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const args = process.argv.slice(2);
  const rootAt = args.indexOf('--root');
  const root = rootAt >= 0 ? resolve(args[rootAt + 1] ?? '.') : resolve(import.meta.dirname, '..');
  const countArg = args.find((a, i) => /^\d+$/.test(a) && args[i - 1] !== '--root');
  for (const f of longestFunctions(root, countArg ? Number(countArg) : 15))
    console.log(`${String(f.lines).padStart(5)}  ${f.name}  ${f.file}:${f.line}`);
}
