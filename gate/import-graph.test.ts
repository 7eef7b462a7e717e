/**
 * The gate checks a deployment with nothing of the server in it: a bug in a
 * server module the gate shared would be a bug the gate could not see. It is a
 * client of the deployment and of the packages' commands: nothing of scripts/
 * (the development tools), and no TypeScript source run under tsx. Every
 * module `npm run contract -- --base-url` loads is reached by static imports
 * from gate/main.ts, so that graph must not reach server/: without --base-url
 * the gate starts the compiled service as a process (local-deployment.ts), as
 * an operator would, and checks it the same way.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';
import { PROJECT_ROOT } from '../lib/project-root.js';

interface Imports {
  /** Specifiers of `import … from` and `export … from`, type-only ones included. */
  static: string[];
  /** Specifiers of `import('…')` calls. */
  dynamic: string[];
}

function importsOf(file: string): Imports {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: Imports = { static: [], dynamic: [] };
  const visit = (node: ts.Node) => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      found.static.push(node.moduleSpecifier.text);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      ts.isStringLiteral(node.arguments[0]!)
    ) {
      found.dynamic.push(node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** A relative specifier as the file it names (`./x.js` is x.ts in the sources); packages and node: are left out. */
function resolveLocal(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const target = join(dirname(from), specifier);
  for (const candidate of [target.replace(/\.js$/, '.ts'), target]) if (existsSync(candidate)) return candidate;
  throw new Error(`${relative(PROJECT_ROOT, from)} imports ${specifier}, which does not exist`);
}

/** Every project file reached from `entry` by static imports, with the chain that reached it. */
function staticGraph(entry: string): Map<string, string[]> {
  const reached = new Map<string, string[]>([[entry, [entry]]]);
  const queue = [entry];
  for (let file = queue.shift(); file; file = queue.shift()) {
    for (const specifier of importsOf(file).static) {
      const target = resolveLocal(file, specifier);
      if (target && !reached.has(target)) {
        reached.set(target, [...reached.get(file)!, target]);
        queue.push(target);
      }
    }
  }
  return reached;
}

const project = (path: string) => join(PROJECT_ROOT, path);
const shown = (chain: string[]) => chain.map((file) => relative(PROJECT_ROOT, file)).join(' → ');

describe('the gate against a deployment', () => {
  const graph = staticGraph(project('gate/main.ts'));

  it('loads every check, and the contract through lib/contract', () => {
    for (const file of [
      'gate/gate.ts',
      'gate/dredd.ts',
      'gate/fuzz.ts',
      'gate/hostile.ts',
      'gate/routes.ts',
      'gate/prism-checks.ts',
      'lib/contract/operations.ts',
    ]) {
      assert.ok(graph.has(project(file)), `${file} is not reached from gate/main.ts`);
    }
  });

  it('imports nothing from server/, not even a type, and nothing from the development scripts', () => {
    const forbidden = [...graph.entries()].filter(([file]) => /^(server|scripts)\//.test(relative(PROJECT_ROOT, file)));
    assert.deepEqual(
      forbidden.map(([, chain]) => shown(chain)),
      [],
    );
  });

  it('runs the admin command compiled, never a source under tsx', () => {
    const spawned = [...graph.keys()].flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/['"`]([\w/.-]+\.ts)['"`]/g)].map((match) => `${relative(PROJECT_ROOT, file)}: ${match[1]}`),
    );
    assert.deepEqual(spawned, []);
  });

  it('loads nothing by a dynamic import, where the graph above could not see it', () => {
    const dynamic = [...graph.keys()].flatMap((file) =>
      importsOf(file).dynamic.map((specifier) => `${relative(PROJECT_ROOT, file)}: ${specifier}`),
    );
    assert.deepEqual(dynamic, []);
  });

  it('starts its own deployment as a process, never the app in its own process', () => {
    assert.ok(graph.has(project('gate/local-deployment.ts')));
    assert.ok(graph.has(project('lib/testing/service-process.ts')));
  });
});
