// Lint step (npm run lint): a promise handed to expect() without .resolves / .rejects is compared
// as an object, so the assertion passes or fails for the wrong reason — and since the ledger
// became asynchronous, a forgotten await there is easy to write. ESLint's type-aware rules do not
// see it (the promise is used, as an argument), so this walks every test file with the
// TypeScript compiler: one Program from tsconfig.node.json, types asked only of expect()'s
// first argument. Prints file:line for each and exits 1 if there is any.
import path from 'node:path';
import ts from 'typescript';

const root = path.resolve(import.meta.dirname, '..');
const testDir = path.join(root, 'test') + path.sep;

function programFrom(configFile) {
  const read = ts.readConfigFile(configFile, ts.sys.readFile);
  if (read.error) throw new Error(ts.flattenDiagnosticMessageText(read.error.messageText, '\n'));
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, path.dirname(configFile));
  return ts.createProgram({ rootNames: parsed.fileNames, options: { ...parsed.options, noEmit: true } });
}

/** A promise, or a union with one in it (`Promise<X> | undefined`): anything with a callable `then`. */
function isThenable(checker, type) {
  if (type.isUnion()) return type.types.some((member) => isThenable(checker, member));
  const then = type.getProperty('then');
  if (!then) return false;
  return checker.getTypeOfSymbol(then).getCallSignatures().length > 0;
}

function isExpectCall(node) {
  return ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'expect' && node.arguments.length > 0;
}

function unwrapped(node) {
  const parent = node.parent;
  return ts.isPropertyAccessExpression(parent) && parent.expression === node && (parent.name.text === 'resolves' || parent.name.text === 'rejects');
}

const program = programFrom(path.join(root, 'tsconfig.node.json'));
const checker = program.getTypeChecker();
const findings = [];

for (const source of program.getSourceFiles()) {
  if (!path.resolve(source.fileName).startsWith(testDir)) continue;
  const visit = (node) => {
    if (isExpectCall(node) && !unwrapped(node) && isThenable(checker, checker.getTypeAtLocation(node.arguments[0]))) {
      const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
      findings.push(`${path.relative(root, source.fileName)}:${line + 1}: expect() is given a promise; await it, or use .resolves / .rejects`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}

for (const finding of findings) console.error(finding);
process.exit(findings.length > 0 ? 1 : 0);
