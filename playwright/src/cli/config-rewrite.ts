/**
 * Rewrites the rules of a Playwright config written in the earlier spelling (`{ path: 'prompt_cache_key', name:
 * 'cacheKey' }`, `{ pattern, name }`, a dotted path) into the one spelling, in the file's own text: the source is
 * parsed by the TypeScript compiler and only each rule's `path` value and `name` property are replaced, so
 * comments, quotes and layout stay as they were. `ruleInOneSpelling` (profile.ts) says what each rule becomes.
 */
import ts from 'typescript';
import { ruleInOneSpelling } from '../profile.js';

/** The properties whose arrays hold normalization rules (a config's `model.ids`, a profile's rules). */
const RULE_ARRAYS = new Set(['ids', 'requestIds', 'paths', 'patterns']);

export interface Rewrite {
  /** The file's text with the rules rewritten (the same text when there was nothing to rewrite). */
  text: string;
  /** How many rules were rewritten. */
  rewritten: number;
  /** Rules it cannot rewrite, each `FILE:LINE:COL: ...` with what to do; when any, `text` is the input. */
  problems: string[];
}

interface Edit {
  start: number;
  end: number;
  text: string;
}

function scriptKind(file: string): ts.ScriptKind {
  if (/\.[cm]?tsx?$/.test(file)) return file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  return file.endsWith('x') ? ts.ScriptKind.JSX : ts.ScriptKind.JS;
}

/** A string literal's value, when the expression is one (a quoted string or a template without `${}`). */
function literal(node: ts.Expression | undefined): string | undefined {
  return node && (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node))
    ? node.text
    : undefined;
}

/** `value` as a literal in the quotes of `like` (', " or `). */
function quoted(value: string, like: ts.Expression, source: ts.SourceFile): string {
  const q = like.getText(source)[0] ?? "'";
  const escaped = value.replace(/\\/g, '\\\\').replaceAll(q, `\\${q}`);
  return `${q}${q === '`' ? escaped.replace(/\$\{/g, '\\${') : escaped}${q}`;
}

function propertyName(p: ts.ObjectLiteralElementLike, source: ts.SourceFile): string | undefined {
  if (!p.name) return undefined;
  if (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name)) return p.name.text;
  return p.name.getText(source);
}

/** Whether the node is an element of an array written as the value of `ids`, `requestIds`, `paths` or `patterns`. */
function inRuleArray(node: ts.Node): boolean {
  const array = node.parent;
  if (!array || !ts.isArrayLiteralExpression(array)) return false;
  const owner = array.parent;
  return (
    !!owner &&
    ts.isPropertyAssignment(owner) &&
    (ts.isIdentifier(owner.name) || ts.isStringLiteral(owner.name)) &&
    RULE_ARRAYS.has(owner.name.text)
  );
}

export function rewriteConfig(text: string, file: string): Rewrite {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, scriptKind(file));
  const edits: Edit[] = [];
  const problems: string[] = [];
  let rewritten = 0;
  const where = (node: ts.Node) => {
    const { line, character } = source.getLineAndCharacterOfPosition(node.getStart(source));
    return `${file}:${line + 1}:${character + 1}`;
  };

  const visitObject = (obj: ts.ObjectLiteralExpression) => {
    const props = new Map<string, ts.ObjectLiteralElementLike>();
    for (const p of obj.properties) {
      const name = propertyName(p, source);
      if (name !== undefined) props.set(name, p);
    }
    const name = props.get('name');
    const path = props.get('path');
    const pattern = props.get('pattern');
    if (!path && !pattern) return;
    const pathValue = path && ts.isPropertyAssignment(path) ? literal(path.initializer) : undefined;
    const dotted = pathValue !== undefined && !pathValue.startsWith('/');
    // An object with `name` beside `path` or `pattern` is a rule anywhere; a dotted path only in a rule array.
    if (!name && !(dotted && inRuleArray(obj))) return;
    const fix =
      "write the rule as { path: '/json/pointer', placeholder: '{{name}}' } or { pattern, placeholder: '{{name}}' } by hand";
    if (name && !ts.isPropertyAssignment(name)) {
      problems.push(`${where(name)}: the rule's \`name\` is not written \`name: '...'\`; ${fix}`);
      return;
    }
    const nameValue = name && ts.isPropertyAssignment(name) ? literal(name.initializer) : undefined;
    if (name && nameValue === undefined) {
      problems.push(`${where(name)}: the rule's \`name\` is not a string literal; ${fix}`);
      return;
    }
    if (path && pathValue === undefined) {
      problems.push(`${where(path)}: the rule's \`path\` is not a string literal; ${fix}`);
      return;
    }
    if (name && props.has('placeholder')) {
      problems.push(
        `${where(name)}: the rule has both \`name\` and \`placeholder\`; keep one placeholder and drop \`name\``,
      );
      return;
    }
    const rule = ruleInOneSpelling({
      ...(pathValue !== undefined ? { path: pathValue } : { pattern: '' }),
      ...(nameValue !== undefined ? { name: nameValue } : {}),
      ...(props.has('placeholder') ? { placeholder: '' } : {}),
    });
    if (!rule) return;
    if (dotted && path && ts.isPropertyAssignment(path) && 'path' in rule)
      edits.push({
        start: path.initializer.getStart(source),
        end: path.initializer.getEnd(),
        text: quoted(rule.path, path.initializer, source),
      });
    if (name && ts.isPropertyAssignment(name))
      edits.push({
        start: name.getStart(source),
        end: name.getEnd(),
        text: `placeholder: ${quoted(rule.placeholder, name.initializer, source)}`,
      });
    rewritten++;
  };

  const visit = (node: ts.Node) => {
    if (ts.isObjectLiteralExpression(node)) visitObject(node);
    // A bare dotted path in `paths`: a bare JSON Pointer.
    if (
      (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) &&
      !node.text.startsWith('/') &&
      inRuleArray(node) &&
      ((node.parent.parent as ts.PropertyAssignment).name as ts.Identifier).text === 'paths'
    ) {
      const rule = ruleInOneSpelling({ path: node.text, placeholder: '' }) as { path: string };
      edits.push({ start: node.getStart(source), end: node.getEnd(), text: quoted(rule.path, node, source) });
      rewritten++;
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  if (problems.length > 0) return { text, rewritten: 0, problems };
  let out = text;
  for (const e of edits.sort((a, b) => b.start - a.start))
    out = out.slice(0, e.start) + e.text + out.slice(e.end);
  return { text: out, rewritten, problems };
}
