import test from 'ava';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { preloadedWorkflowModules, workflowsPath } from '../../worker/create-worker';

// The workflow modules are preloaded (worker/create-worker.ts): evaluated once and shared by every
// workflow the worker runs, their exports frozen. A module that kept state at module scope (a
// `let`, a Map or Set) would carry it from one workflow to the next, and a replay could see what
// another run left behind. These checks keep every module of the bundle free of it.

const projectRoot = path.resolve(__dirname, '..', '..');

/** The project's own modules a file imports for their values (`import type` is erased). */
function valueImports(source: ts.SourceFile): string[] {
  const specifiers: string[] = [];
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause;
      const typeOnly =
        clause?.isTypeOnly ||
        (clause && !clause.name && clause.namedBindings && ts.isNamedImports(clause.namedBindings) && clause.namedBindings.elements.every((element) => element.isTypeOnly));
      if (!typeOnly && ts.isStringLiteral(statement.moduleSpecifier)) specifiers.push(statement.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(statement) && !statement.isTypeOnly && statement.moduleSpecifier && ts.isStringLiteral(statement.moduleSpecifier)) {
      specifiers.push(statement.moduleSpecifier.text);
    }
  }
  return specifiers.filter((specifier) => specifier.startsWith('.'));
}

function resolveModule(from: string, specifier: string): string {
  const base = path.resolve(path.dirname(from), specifier);
  const candidate = [`${base}.ts`, path.join(base, 'index.ts')].find((file) => existsSync(file));
  if (!candidate) throw new Error(`cannot resolve ${specifier} from ${from}`);
  return candidate;
}

/** Every project module the bundle's entry reaches through value imports. */
function bundledModules(entry: string): Map<string, ts.SourceFile> {
  const modules = new Map<string, ts.SourceFile>();
  const pending = [entry];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (modules.has(file)) continue;
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
    modules.set(file, source);
    for (const specifier of valueImports(source)) pending.push(resolveModule(file, specifier));
  }
  return modules;
}

const MUTABLE_COLLECTIONS = new Set(['Map', 'Set', 'WeakMap', 'WeakSet']);

/** What in a module's top level could hold state from one workflow to the next. */
function moduleScopeState(source: ts.SourceFile): string[] {
  const found: string[] = [];
  const where = (node: ts.Node) => `${path.relative(projectRoot, source.fileName)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  for (const statement of source.statements) {
    if (ts.isVariableStatement(statement)) {
      const constant = (statement.declarationList.flags & ts.NodeFlags.Const) !== 0;
      if (!constant) found.push(`${where(statement)}: a module-scope let or var`);
      for (const declaration of statement.declarationList.declarations) {
        const initializer = declaration.initializer;
        // A ReadonlySet or ReadonlyMap is read only: the type checker refuses its mutation.
        const readOnly = declaration.type && ts.isTypeReferenceNode(declaration.type) && /^Readonly(Set|Map)$/.test(declaration.type.typeName.getText(source));
        if (!readOnly && initializer && ts.isNewExpression(initializer) && ts.isIdentifier(initializer.expression) && MUTABLE_COLLECTIONS.has(initializer.expression.text)) {
          found.push(`${where(declaration)}: a module-scope ${initializer.expression.text}`);
        }
      }
    } else if (ts.isClassDeclaration(statement)) {
      for (const member of statement.members) {
        const modifiers = ts.canHaveModifiers(member) ? (ts.getModifiers(member) ?? []) : [];
        const isStatic = modifiers.some((modifier) => modifier.kind === ts.SyntaxKind.StaticKeyword);
        const isReadonly = modifiers.some((modifier) => modifier.kind === ts.SyntaxKind.ReadonlyKeyword);
        if (ts.isPropertyDeclaration(member) && isStatic && !isReadonly) found.push(`${where(member)}: a static property of a class`);
      }
    }
  }
  return found;
}

test('the preloaded workflow modules keep no state at module scope', (t) => {
  t.deepEqual(preloadedWorkflowModules, [workflowsPath]);
  const modules = bundledModules(workflowsPath);
  t.true(modules.size >= 15, `the walk reached the workflows and their domain modules (${modules.size} modules)`);
  t.true([...modules.keys()].some((file) => file.includes(`${path.sep}domain${path.sep}`)), 'domain modules are walked too');
  t.deepEqual([...modules.values()].flatMap(moduleScopeState), []);
});

test('the check finds module-scope state where there is some', (t) => {
  const source = ts.createSourceFile(
    'sample.ts',
    [
      'let runs = 0;',
      'const seen = new Map<string, number>();',
      'const LIMIT = 3;',
      'export class Counter { static total = 0; static readonly MAX = 1; }',
      'const KNOWN: ReadonlySet<string> = new Set(["a"]);',
    ].join('\n'),
    ts.ScriptTarget.ES2022,
    true,
  );
  t.deepEqual(moduleScopeState(source), [
    'sample.ts:1: a module-scope let or var',
    'sample.ts:2: a module-scope Map',
    'sample.ts:4: a static property of a class',
  ]);
});

test('the workflow bundle the tests and the service run preloads the workflow modules', (t) => {
  const bundlePath = process.env.TEST_WORKFLOW_BUNDLE;
  if (!bundlePath) {
    t.pass('no prebuilt bundle in this run: createWorker bundles with bundlerOptions.preloadModules');
    return;
  }
  const code = readFileSync(bundlePath, 'utf8');
  const preload = /function preloadModules\(\) \{([^}]*)\}/.exec(code);
  t.truthy(preload, 'the bundle defines preloadModules');
  t.regex(preload![1]!, /__webpack_require__\([^)]*workflows\/index\.ts/, 'and it requires workflows/index.ts');
});
