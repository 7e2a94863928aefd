// Loaded with `node --import` ahead of a process's own hooks: counts the resolutions that reach
// Node's own resolver, as `within <package>` (a relative import from a package's file), `from
// ours` (any import from our files) and `to <package>` (an import by the package's name), and
// prints them as one JSON line on stderr at exit (test/unit/module-resolution.test.ts).
import { registerHooks } from 'node:module';

const reachingNode: Record<string, number> = {};

// Hooks registered later run first: this one sees only what src/module-resolution.ts passes on.
registerHooks({
  resolve(specifier, context, nextResolve) {
    const from = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(context.parentURL ?? '')?.[1];
    const to = /^(?:@[^/]+\/)?[^/.][^/]*/.exec(specifier)?.[0];
    const keys = [from === undefined ? 'from ours' : to === undefined ? `within ${from}` : undefined, to === undefined ? undefined : `to ${to}`];
    for (const key of keys) if (key !== undefined) reachingNode[key] = (reachingNode[key] ?? 0) + 1;
    return nextResolve(specifier, context);
  },
});

process.on('exit', () => process.stderr.write(`resolution-probe ${JSON.stringify(reachingNode)}\n`));
